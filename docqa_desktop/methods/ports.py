"""The ports a method reaches the library through (`ctx.search`, `ctx.pages`, `ctx.artifacts`, `ctx.trees`):
Protocols with exactly what the methods and their shared parts call. The service builds the concrete ones
(retrieval's ScopedSearch and PageSource, the store's ArtifactStore and SummaryTrees) and hands them in; no
shared part of methods/ imports store/, retrieval/ or pdf/ (tests/test_layers.py), and no method sees a
database. methods/base.py names them for the methods; the toolkit imports them from here (base imports the
toolkit).

Every read of a page raises PageGone (errors.py) when its document was removed from the index or from disk;
asking for visual pages raises VisualUnavailable when no page images are embedded.
"""
from __future__ import annotations

from typing import Protocol

import numpy as np

from ..answers import PageRef
from ..domain import BBox, CatalogueEntry, ChunkHit, TableOnPage, TreeNode

Key = tuple[int, int, int]  # an artifact's (doc_id, page, item): item 0 for the page, else an element's seq

__all__ = ["Artifacts", "Key", "Pages", "Search", "Trees"]


class Search(Protocol):
    """Retrieval already scoped to the question's documents (built by the service). Asking for visual pages
    raises VisualUnavailable when no page images are embedded."""

    def pages(self, query: str, k: int, mode: str | None = None) -> list[PageRef]: ...

    def chunks(self, query: str, k: int) -> list[ChunkHit]: ...

    def all_pages(self) -> list[PageRef]: ...

    def documents(self) -> list[int]:
        """The ids of the documents in scope (every live document when none were named)."""

    def mentions(self, phrase: str) -> dict[int, list[int]]:
        """{doc_id: pages, in order} of the documents in scope whose pages (text layer or OCR) hold `phrase` as
        whole words, case- and accent-insensitively: the exact answer to "which documents mention …"."""

    def catalogue(self) -> list[CatalogueEntry]:
        """Each document in scope as the library lists it: file name, path, title, authors, year, pages, when
        indexed."""

    def table_pages(self, words: list[str], k: int) -> list[PageRef]:
        """The k pages whose tables' row labels hold the most of `words` (stems): pages a table answer may be
        on that retrieval by whole text ranked too low."""

    def similar_chunks(self, vector: np.ndarray, k: int) -> list[ChunkHit]: ...

    def embed(self, texts: list[str]) -> np.ndarray:
        """Sentence embeddings of `texts` by the embedder the chunks were indexed with (L2-normalised rows)."""


class Pages(Protocol):
    """The library's pages: references, text, tables, layout, words, images and crops (retrieval/page_source.py)."""

    def refs_for(self, pages: list[tuple[int, int]]) -> list[PageRef]:
        """PageRefs for (doc_id, page) pairs, named by each document's first path (a gone document's left out)."""

    def text(self, ref: PageRef, with_tables: bool = True) -> str:
        """The page's text (text layer or OCR), followed by its tables as Markdown."""

    def text_or_empty(self, ref: PageRef) -> str:
        """text(), or "" for a page whose document is gone."""

    def tables(self, ref: PageRef) -> list[TableOnPage]:
        """The page's tables read as tables, in reading order; none before the tables stage has run."""

    def size(self, ref: PageRef) -> tuple[float, float]:
        """The page's width and height in PDF points."""

    def words(self, ref: PageRef) -> list[tuple[str, tuple[float, float, float, float]]]:
        """(word, box) of the page's words in reading order."""

    def words_in_box(self, ref: PageRef, box: BBox) -> list[tuple[int, str]]:
        """(line, word) of the page's words whose centre is inside `box`, in reading order."""

    def layout(self, ref: PageRef, kinds: set[str] | None = None) -> list[tuple[int, str, BBox, str]]:
        """(seq, kind, box, markdown) of the page's layout elements in reading order, optionally of some kinds."""

    def document_names(self) -> dict[int, str]:
        """{doc_id: file name} of every document."""

    def image(self, ref: PageRef, max_side: int) -> bytes:
        """The page rendered as PNG, its longer side `max_side` pixels."""

    def crop(self, ref: PageRef, box: BBox, max_pixels: int = ...) -> bytes:
        """PNG of a region of the page, as sharp as `max_pixels` allows (ValueError: nothing of the page in it)."""

    def still_there(self, refs: list[PageRef]) -> tuple[list[PageRef], list[PageRef]]:
        """(pages whose document is still indexed and on disk, pages that are gone)."""


class Artifacts(Protocol):
    """Texts a model wrote about a page or an element, by a kind its owner spells "<owner>.<what>", one per key
    (store/artifacts.py)."""

    def get(self, kind: str, keys: list[Key], model: str) -> dict[Key, str]:
        """{key: text} for the keys that have a text of `kind` written by `model`."""

    def latest(self, kind: str, keys: list[Key]) -> dict[Key, tuple[str, str]]:
        """{key: (model, text)} for the keys that have a text of `kind` by any model, the newest."""

    def put(self, kind: str, key: Key, model: str, value: str) -> None:
        """Store one text, replacing the key's older one."""

    def missing(self, kind: str, doc_ids: list[int] | None, model: str) -> list[tuple[int, int]]:
        """(doc_id, page) of the pages of `doc_ids` (None: every document) with no text of `kind` by `model`."""

    def page_counts(self, kind: str) -> tuple[int, int]:
        """(pages of the live library with a text of `kind` by any model, pages without one)."""


class Trees(Protocol):
    """Trees of summaries over a document's chunks, per document and summarising model, built a planned layer at a
    time and resumable (store/summary_trees.py)."""

    dimension: int  # of node and leaf embeddings

    def nodes(self, doc_id: int, model: str, layer: int | None = None) -> list[TreeNode]:
        """The document's nodes by `model` (one layer, or all), by layer then seq."""

    def node_vectors(self, node_ids: list[int]) -> np.ndarray:
        """The embeddings of written nodes, in the order of `node_ids`."""

    def plan_layer(self, doc_id: int, model: str, layer: int, clusters: list[tuple[list[int], list[int]]]) -> None:
        """Insert a layer's nodes unwritten: one (children, pages) per cluster, numbered in order."""

    def fill_node(self, node_id: int, text: str, embedding: np.ndarray) -> None:
        """Write a planned node's summary and its embedding."""

    def finish(self, doc_id: int, model: str, layers: int) -> None:
        """Mark the document's tree by `model` complete."""

    def finished(self, doc_ids: list[int], model: str) -> set[int]:
        """The documents among `doc_ids` whose tree by `model` is complete."""

    def written_nodes(self, doc_ids: list[int], model: str) -> list[TreeNode]:
        """Every written node of the documents' trees by `model`, by document, layer and seq."""

    def leaves(self, doc_id: int) -> tuple[list[int], list[int], list[str], list[np.ndarray | None]]:
        """The document's chunks: (ids, pages, texts, embeddings or None where not embedded yet), in order."""
