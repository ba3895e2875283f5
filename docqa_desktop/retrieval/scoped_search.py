"""Retrieval scoped to the documents a question is about: pages (with scores) in any mode, passages, the
list of every page in scope (for methods that read them all), and what the index says of the documents in scope
(which pages mention a phrase, each document's catalogue entry), for questions about the library itself."""
from __future__ import annotations

from ..answers import PageRef
from ..domain import CatalogueEntry, ChunkHit
from ..store import content, mentions, tables
from . import dense
from .page_retriever import PageRetriever
from .page_source import PageSource


class ScopedSearch:
    def __init__(self, retriever: PageRetriever, pages: PageSource, doc_ids: list[int] | None, default_mode: str):
        self.retriever, self.source, self.doc_ids, self.default_mode = retriever, pages, doc_ids, default_mode
        self._db = pages._db  # the page source's database, shared inside retrieval/: no method sees it

    def pages(self, query: str, k: int, mode: str | None = None) -> list[PageRef]:
        return self.source.refs(self.retriever.search(query, self.doc_ids, k, mode or self.default_mode))

    def chunks(self, query: str, k: int) -> list[ChunkHit]:
        return self.retriever.chunks(query, self.doc_ids, k)

    def all_pages(self) -> list[PageRef]:
        """Every page in scope (the named documents, else the whole library), in document and page order."""
        return self.source.refs_for(content.pages_in_scope(self._db.cursor(), self.doc_ids))

    def documents(self) -> list[int]:
        """The documents in scope: the named ones, else every live document."""
        if self.doc_ids is not None:
            return list(self.doc_ids)
        return self.source.live_documents()

    def mentions(self, phrase: str) -> dict[int, list[int]]:
        """{doc_id: pages} of the documents in scope whose pages hold `phrase` as whole words (case- and
        accent-insensitive; OCR'd pages included)."""
        return mentions.pages_mentioning(self._db.cursor(), phrase, self.doc_ids)

    def catalogue(self) -> list[CatalogueEntry]:
        """Each live document in scope as the library lists it (file, title, authors, year, pages, indexed at)."""
        return mentions.catalogue(self._db.cursor(), self.doc_ids)

    def table_pages(self, words: list[str], k: int) -> list[PageRef]:
        """The k pages in scope whose tables' row labels hold the most of `words` (stems)."""
        return self.source.refs_for(tables.pages_labelling(self._db.cursor(), words, self.doc_ids, k))

    def similar_chunks(self, vector, k: int) -> list[ChunkHit]:
        found = dense.search_chunks(self._db, vector, self.doc_ids, k)
        chunks = content.chunks_by_id(self._db.cursor(), [i for i, _ in found])
        return [ChunkHit(i, *chunks[i], round(score, 6)) for i, score in found if i in chunks]

    def embed(self, texts: list[str]):
        return self.retriever.text.embedder.embed(texts)
