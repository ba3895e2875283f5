"""The visual search structure: every page's multi-vector embedding in three forms, searched in three stages.

  stage 1  pooled 1-bit codes (a few centroids per page, in RAM)   Hamming MaxSim over all pages in scope
  stage 2  full 1-bit codes (every patch vector, in RAM)            Hamming MaxSim over stage 1's best
  stage 3  int8 vectors + scales (memory-mapped files)              MaxSim over stage 2's best, the ranking

Files live in one folder and are appended to as pages arrive; removed pages are forgotten at once (their
rows stay until `compact`). The DuckDB store stays the source of truth; this folder is a cache of it."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .codes import code_planes, pool_vectors, quantize_int8, sign_codes
from .maxsim import hamming_maxsim, int8_maxsim

DIM = 128
POOLED_PER_PAGE = 32


@dataclass(frozen=True)
class SearchDepth:
    """How many pages each stage hands to the next: more is slower and closer to exact."""
    stage1: int = 300
    stage2: int = 30


@dataclass(frozen=True)
class EncodedPage:
    """One page's vectors in the forms the index stores (also what the database keeps)."""
    int8: np.ndarray  # [n, 128] int8
    scales: np.ndarray  # [n] float32
    signs: np.ndarray  # [n, 2] uint64
    pooled_signs: np.ndarray  # [m, 2] uint64

    @classmethod
    def from_vectors(cls, vectors: np.ndarray, pooled: int = POOLED_PER_PAGE) -> "EncodedPage":
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] != DIM:
            raise ValueError(f"page vectors must be [n, {DIM}], got {vectors.shape}")
        codes, scales = quantize_int8(vectors)
        return cls(codes, scales, sign_codes(vectors), sign_codes(pool_vectors(vectors, pooled)))


class _Rows:
    """A growable on-disk array of fixed-width rows, memory-mapped for reading."""

    def __init__(self, path: Path, dtype, width: int):
        self.path, self.dtype, self.width = path, np.dtype(dtype), width
        self.path.touch(exist_ok=True)
        self._map: np.ndarray | None = None

    @property
    def rows(self) -> int:
        return self.path.stat().st_size // (self.dtype.itemsize * self.width)

    def append(self, block: np.ndarray) -> int:
        """Append rows; return the index of the first."""
        first = self.rows
        with open(self.path, "ab") as fh:
            fh.write(np.ascontiguousarray(block, dtype=self.dtype).tobytes())
        self._map = None
        return first

    def view(self) -> np.ndarray:
        if self._map is None or len(self._map) != self.rows:
            count = self.rows
            self._map = (np.memmap(self.path, self.dtype, "r", shape=(count, self.width) if self.width > 1 else (count,))
                         if count else np.empty((0, self.width) if self.width > 1 else (0,), self.dtype))
        return self._map


class MultiVectorIndex:
    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._int8 = _Rows(self.folder / "int8.bin", np.int8, DIM)
        self._scales = _Rows(self.folder / "scales.bin", np.float32, 1)
        self._signs = _Rows(self.folder / "signs.bin", np.uint64, 2)
        self._pooled = _Rows(self.folder / "pooled.bin", np.uint64, 2)
        self._catalog_path = self.folder / "pages.json"
        # per page, in insertion order: id, first row and row count in the full and the pooled arrays
        self.page_ids = np.empty(0, np.int64)
        self.offsets = np.zeros(1, np.int64)
        self.pooled_offsets = np.zeros(1, np.int64)
        self.alive = np.empty(0, bool)
        self._load_catalog()
        self._planes: tuple[np.ndarray, np.ndarray] | None = None
        self._pooled_planes: tuple[np.ndarray, np.ndarray] | None = None

    # -- contents ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return int(self.alive.sum())

    def add(self, page_id: int, page: EncodedPage) -> None:
        self.add_many([page_id], [page])

    def add_many(self, page_ids: list[int], pages: list[EncodedPage]) -> None:
        if not pages:
            return
        self.remove(page_ids)  # a changed page replaces its old vectors
        self._int8.append(np.concatenate([p.int8 for p in pages]))
        self._scales.append(np.concatenate([p.scales for p in pages]))
        self._signs.append(np.concatenate([p.signs for p in pages]))
        self._pooled.append(np.concatenate([p.pooled_signs for p in pages]))
        self.page_ids = np.concatenate([self.page_ids, np.asarray(page_ids, np.int64)])
        self.offsets = np.concatenate([self.offsets, self.offsets[-1] + np.cumsum([len(p.int8) for p in pages])])
        self.pooled_offsets = np.concatenate(
            [self.pooled_offsets, self.pooled_offsets[-1] + np.cumsum([len(p.pooled_signs) for p in pages])])
        self.alive = np.concatenate([self.alive, np.ones(len(pages), bool)])
        self._planes = self._pooled_planes = None
        self._save_catalog()

    def remove(self, page_ids) -> int:
        """Forget pages (their rows are reclaimed by `compact`); returns how many were present."""
        gone = np.isin(self.page_ids, np.asarray(list(page_ids), np.int64)) & self.alive
        self.alive[gone] = False
        if gone.any():
            self._save_catalog()
        return int(gone.sum())

    # -- search -----------------------------------------------------------------------------

    def search(self, query: np.ndarray, k: int = 10, depth: SearchDepth = SearchDepth(),
               scope: np.ndarray | None = None) -> list[tuple[int, float]]:
        """The k best pages for a query [tokens, 128] as (page id, MaxSim score), best first; `scope`
        limits the search to those page ids."""
        query = np.asarray(query, dtype=np.float32)
        candidates = np.flatnonzero(self.alive if scope is None else self.alive & np.isin(self.page_ids, scope))
        if candidates.size == 0:
            return []
        query_signs = sign_codes(query)
        if candidates.size > depth.stage1:
            low, high = self._pooled_code_planes()
            scores = hamming_maxsim(query_signs, low, high, self.pooled_offsets, candidates)
            candidates = candidates[_top(scores, depth.stage1)]
        if candidates.size > depth.stage2:
            low, high = self._code_planes()
            scores = hamming_maxsim(query_signs, low, high, self.offsets, candidates)
            candidates = candidates[_top(scores, depth.stage2)]
        scores = int8_maxsim(query, self._int8.view(), self._scales.view(), self.offsets, candidates)
        best = _top(scores, k)
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(int(self.page_ids[i]), float(scores[j])) for i, j in zip(candidates[best], best)]

    def _code_planes(self) -> tuple[np.ndarray, np.ndarray]:
        if self._planes is None:  # loaded into RAM once: the second stage scans it
            self._planes = code_planes(np.array(self._signs.view()))
        return self._planes

    def _pooled_code_planes(self) -> tuple[np.ndarray, np.ndarray]:
        if self._pooled_planes is None:
            self._pooled_planes = code_planes(np.array(self._pooled.view()))
        return self._pooled_planes

    # -- persistence ------------------------------------------------------------------------

    def _save_catalog(self) -> None:
        data = {"page_ids": self.page_ids.tolist(), "rows": np.diff(self.offsets).tolist(),
                "pooled_rows": np.diff(self.pooled_offsets).tolist(), "alive": self.alive.tolist()}
        tmp = self._catalog_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, self._catalog_path)

    def _load_catalog(self) -> None:
        if not self._catalog_path.exists():
            return
        data = json.loads(self._catalog_path.read_text(encoding="utf-8"))
        self.page_ids = np.asarray(data["page_ids"], np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(data["rows"], dtype=np.int64)])
        self.pooled_offsets = np.concatenate([[0], np.cumsum(data["pooled_rows"], dtype=np.int64)])
        self.alive = np.asarray(data["alive"], bool)
        if self.offsets[-1] > self._int8.rows or self.pooled_offsets[-1] > self._pooled.rows:
            raise ValueError(f"{self.folder}: the page catalog names more rows than the files hold")

    def nbytes_on_disk(self) -> int:
        return sum(p.stat().st_size for p in self.folder.iterdir() if p.is_file())


def _top(scores: np.ndarray, n: int) -> np.ndarray:
    """Indices of the n highest scores (any order)."""
    if n >= len(scores):
        return np.arange(len(scores))
    return np.argpartition(-scores, n - 1)[:n]
