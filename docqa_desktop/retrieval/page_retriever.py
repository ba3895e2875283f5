"""Finding pages by text, by page image, or both fused: the retrieval every search and answer starts from."""
from __future__ import annotations

from typing import Protocol

import numpy as np

from ..domain import ChunkHit, SearchHit
from ..errors import VisualUnavailable
from ..settings import Fusion, SearchMode, SearchSettings
from ..store.database import Database
from ..vectors.text_embedder import MiniLMEmbedder
from .chunks import search_chunks
from .fusion import convex_fusion, ranked, reciprocal_rank_fusion
from .text_retriever import Mode, TextRetriever


__all__ = ["PageRetriever", "SearchMode", "VisualUnavailable"]  # SearchMode: the setting's enum (settings.py)


PageKey = tuple[int, int]  # (doc_id, page)
Region = tuple[float, float, float, float]  # x0, y0, x1, y1 as fractions of the page's width and height


class PageImageIndex(Protocol):
    """The library's page-image vectors, searchable (visual/library_index.py)."""

    def search(self, query: np.ndarray, doc_ids: list[int] | None, k: int) -> list[tuple[PageKey, float]]: ...

    def regions(self, query: np.ndarray, pages: list[PageKey]) -> dict[PageKey, Region]: ...


class PageImageSearch(Protocol):
    """What visual search needs of the page embedder, handed in by the service (visual/provider.VisualModels:
    retrieval and visual are sibling engines and do not import each other)."""

    def embedder(self): ...  # has embed_query(text) -> np.ndarray (vectors/page_embedder.PageEmbedder)

    def library_index(self) -> PageImageIndex | None: ...


TEXT_MODES = {SearchMode.BM25: Mode.BM25, SearchMode.DENSE: Mode.DENSE, SearchMode.FUSED: Mode.FUSED,
              SearchMode.TEXT: Mode.FUSED}


class PageRetriever:
    def __init__(self, db: Database, settings: SearchSettings, visual: PageImageSearch | None = None,
                 text_embedder: MiniLMEmbedder | None = None):
        """`visual`: the page embedder and its search cache, or None for text only; `text_embedder`: the
        default MiniLM when None."""
        self.settings = settings
        self.text = TextRetriever(db, settings, text_embedder)
        self.visual = visual

    def search(self, query: str, doc_ids: list[int] | None = None, k: int | None = None,
               mode: SearchMode | str = SearchMode.AUTO) -> list[SearchHit]:
        k = k or self.settings.k
        mode = SearchMode(mode)
        index = self._visual_index(mode)
        if mode in TEXT_MODES or index is None:
            return self.text.search(query, doc_ids, k, TEXT_MODES.get(mode, Mode.FUSED))
        if doc_ids is not None and not doc_ids:
            return []
        query_vectors = self.visual.embedder().embed_query(query)
        pool = max(k, self.settings.candidates)
        by_image = index.search(query_vectors, doc_ids, k if mode is SearchMode.VISUAL else pool)
        found = by_image if mode is SearchMode.VISUAL else self._fused(
            self.text.ranked(query, doc_ids, pool, Mode.FUSED), by_image)[:k]
        seen_by_image = {key for key, _ in by_image}
        regions = index.regions(query_vectors, [key for key, _ in found if key in seen_by_image])
        return self.text.hits(found, query, regions)

    def chunks(self, query: str, doc_ids: list[int] | None, k: int) -> list[ChunkHit]:
        """The k best passages (text chunks), not pages."""
        return search_chunks(self.text.db, self.settings, self.text.embedder, query, doc_ids, k)

    def _visual_index(self, mode: SearchMode):
        if mode in TEXT_MODES:
            return None
        index = self.visual.library_index() if self.visual is not None else None
        if index is None and mode is not SearchMode.AUTO:
            raise VisualUnavailable("no page images are embedded yet: install a page embedder "
                                    "(`docqa models pull colqwen2.5-v0.2`) and index with index.visual = \"on\" "
                                    "(or a GPU); `docqa search --mode text` works meanwhile")
        return index

    def _fused(self, by_text, by_image):
        s = self.settings
        if s.fusion == Fusion.RRF:
            scores = reciprocal_rank_fusion([[key for key, _ in by_text], [key for key, _ in by_image]], s.rrf_k)
        else:
            scores = convex_fusion(by_text, by_image, 1.0 - s.visual_weight)
        return ranked(scores)
