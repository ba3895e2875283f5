"""The visual search cache of one library: a MultiVectorIndex folder kept in step with the database.

The database holds every page's quantized vectors; this folder holds the same pages in the forms the search
scans. Before each search (and after indexing) the folder catches up with the database (`sync`): pages embedded since
are appended, pages of removed or changed documents are forgotten. Several processes (the app, `docqa watch`,
a CLI search) may share the folder, so changes happen under a file lock, after re-reading what others wrote.
"""
from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..host import exclusive_lock
from ..store import page_vectors
from ..store.database import Database
from .regions import Box, best_region, similarity_map
from .search_index import EncodedPage, MultiVectorIndex, SearchDepth

REBUILD_GARBAGE = 0.5  # rebuild the folder once half its rows belong to removed pages


class VisualLibraryIndex:
    def __init__(self, db: Callable[[], Database], folder: Path, model: str, depth: SearchDepth = SearchDepth()):
        """`db` returns the open database (the service reopens it between `watch` bursts)."""
        self._db, self.model, self.depth = db, model, depth
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._index: MultiVectorIndex | None = None
        self._seen: tuple[int, int] | None = None  # sizes of the record files when last read
        self._busy = threading.RLock()  # one object serves the app's search and indexing threads

    def sync(self) -> tuple[int, int]:
        """Bring the folder in line with the database; returns (pages added, pages removed)."""
        with self._busy:
            return self._sync()

    def _sync(self) -> tuple[int, int]:
        wanted = np.sort(page_vectors.keys(self._db().cursor(), self.model))
        if np.array_equal(wanted, np.sort(self._current().ids())):
            return 0, 0  # the usual case before a search: sorting beats set differences (ms, not 100s of ms)
        with exclusive_lock(self.folder / ".lock"):
            index = self._current(force=True)  # another process may have caught up meanwhile
            removed = index.remove(np.setdiff1d(index.ids(), wanted, assume_unique=True))
            if index.garbage_ratio() > REBUILD_GARBAGE:
                index = self._rebuilt()
            added = self._append(index, np.setdiff1d(wanted, index.ids(), assume_unique=True))
            self._remember()
        return added, removed

    def __len__(self) -> int:
        """Pages in the cache as of the last sync."""
        with self._busy:
            return len(self._current())

    def search(self, query: np.ndarray, doc_ids: list[int] | None, k: int) -> list[tuple[tuple[int, int], float]]:
        """((doc_id, page), MaxSim score) of the k best pages, best first, among the pages of the last sync."""
        with self._busy:
            index = self._current()
            scope = None
            if doc_ids is not None:
                ids = index.ids()
                scope = ids[np.isin(ids >> page_vectors.PAGE_BITS, np.asarray(doc_ids, np.int64))]
                if scope.size == 0:
                    return []
            found = index.search(query, k, self.depth, scope)
        return [(page_vectors.split_key(key), score) for key, score in found]

    def regions(self, query: np.ndarray, pages: list[tuple[int, int]]) -> dict[tuple[int, int], Box]:
        """For each (doc_id, page), the rectangle that best matches the query, from the stored vectors."""
        query = np.asarray(query, np.float32)
        found = {}
        for batch in page_vectors.load(self._db().cursor(), self.model, [page_vectors.page_key(*p) for p in pages]):
            for stored in batch:
                if len(stored.patch_rows):
                    found[stored.doc_id, stored.page] = best_region(
                        similarity_map(query, stored.vectors(), stored.patch_rows, stored.grid))
        return found

    # -- the folder ---------------------------------------------------------------------------------

    def _current(self, force: bool = False) -> MultiVectorIndex:
        """The index as on disk, re-read only when another writer changed it."""
        if force or self._index is None or self._seen != self._record_sizes():
            self._index = MultiVectorIndex(self.folder)
            self._remember()
        return self._index

    def _record_sizes(self) -> tuple[int, int]:
        return tuple((self.folder / name).stat().st_size if (self.folder / name).exists() else -1
                     for name in ("pages.bin", "removed.bin"))

    def _remember(self) -> None:
        self._seen = self._record_sizes()

    def _append(self, index: MultiVectorIndex, keys: np.ndarray) -> int:
        added = 0
        for batch in page_vectors.load(self._db().cursor(), self.model, keys.tolist()):
            index.add_many([p.key for p in batch],
                           [EncodedPage.from_stored(p.int8, p.scales, p.pooled_signs) for p in batch])
            added += len(batch)
        return added

    def _rebuilt(self) -> MultiVectorIndex:
        for item in self.folder.iterdir():
            if item.name != ".lock":
                item.unlink() if item.is_file() else shutil.rmtree(item)
        self._index = MultiVectorIndex(self.folder)
        return self._index
