"""The visual search structure: every page's multi-vector embedding in three forms, searched in three stages.

  stage 1  pooled 1-bit codes (a few centroids per page, in RAM)   Hamming MaxSim over all pages in scope
  stage 2  full 1-bit codes (every patch vector, in RAM)            Hamming MaxSim over stage 1's best
  stage 3  int8 vectors + scales (memory-mapped files)              MaxSim over stage 2's best, the ranking

Files live in one folder and are appended to as pages arrive; removed pages are forgotten at once (their
rows stay until the folder is rebuilt). The DuckDB store stays the source of truth; this folder is a cache of it."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..vectors.codes import pool_vectors, quantize_int8, sign_codes
from ..vectors.maxsim import hamming_maxsim, int8_maxsim

DIM = 128
POOLED_PER_PAGE = 32


@dataclass(frozen=True)
class SearchDepth:
    """How many pages each stage hands to the next: more is slower and closer to exact."""
    stage1: int = 300
    stage2: int = 30  # at least; more in large libraries, see `reranked`

    def reranked(self, pages: int) -> int:
        """Pages the int8 rerank scores: one per 1,000 pages in scope once that exceeds `stage2` — with more
        pages, more near-ties crowd the 1-bit ranking (100k pages: recall@10 0.975 at 30, 0.995 at 100)."""
        return min(self.stage1, max(self.stage2, pages // 1000))


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
        return cls.from_stored(codes, scales, sign_codes(pool_vectors(vectors, pooled)))

    @classmethod
    def from_stored(cls, int8: np.ndarray, scales: np.ndarray, pooled_signs: np.ndarray) -> "EncodedPage":
        """From what the database keeps: the full sign codes are the int8 codes' signs."""
        return cls(int8, scales, sign_codes(int8), pooled_signs)


class _Rows:
    """A growable on-disk array of fixed-width rows, memory-mapped for reading."""

    def __init__(self, path: Path, dtype, width: int = 1):
        self.path, self.dtype, self.width = path, np.dtype(dtype), width
        self.path.touch(exist_ok=True)
        self._map: np.ndarray | None = None

    @property
    def rows(self) -> int:
        return self.path.stat().st_size // (self.dtype.itemsize * self.width)

    def append(self, block: np.ndarray) -> None:
        with open(self.path, "ab") as fh:
            fh.write(np.ascontiguousarray(block, dtype=self.dtype).tobytes())
        self._map = None

    def truncate(self, rows: int) -> None:
        """Drop rows past `rows`: what a crash left between writing the data and recording it."""
        if self.rows > rows or self.path.stat().st_size % (self.dtype.itemsize * self.width):
            os.truncate(self.path, rows * self.dtype.itemsize * self.width)
            self._map = None

    def gather(self, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """The rows of a few scattered ranges, back to back, read with pread: unlike a memory map, reading
        does not map neighbouring file pages into the process (at 100k pages that grew it ~50 MB a query)."""
        row = self.dtype.itemsize * self.width
        out = np.empty((int(lengths.sum()), self.width) if self.width > 1 else (int(lengths.sum()),), self.dtype)
        buffer = memoryview(out.reshape(-1).view(np.uint8))
        fd = os.open(self.path, os.O_RDONLY)
        try:
            at = 0
            for start, length in zip(starts.tolist(), lengths.tolist()):
                size = length * row
                if os.preadv(fd, [buffer[at:at + size]], start * row) != size:
                    raise ValueError(f"{self.path} is shorter than its page records say")
                at += size
        finally:
            os.close(fd)
        return out

    def view(self) -> np.ndarray:
        """All rows, memory-mapped (pages are read from the OS cache as the search touches them)."""
        if self._map is None or len(self._map) != self.rows:
            count = self.rows
            shape = (count, self.width) if self.width > 1 else (count,)
            self._map = np.asarray(np.memmap(self.path, self.dtype, "r", shape=shape)) if count \
                else np.empty(shape, self.dtype)
        return self._map


class MultiVectorIndex:
    """Append-only files in one folder; `pages.bin` records each page's id and row counts after its data is
    written, and `removed.bin` the positions of removed pages, so no write rewrites what is already there."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._int8 = _Rows(self.folder / "int8.bin", np.int8, DIM)
        self._scales = _Rows(self.folder / "scales.bin", np.float32)
        # sign codes stored as the two 64-bit word planes the Hamming kernel scans
        self._signs = (_Rows(self.folder / "signs_lo.bin", np.uint64), _Rows(self.folder / "signs_hi.bin", np.uint64))
        self._pooled = (_Rows(self.folder / "pooled_lo.bin", np.uint64),
                        _Rows(self.folder / "pooled_hi.bin", np.uint64))
        self._pages = _Rows(self.folder / "pages.bin", np.int64, 3)  # page id, rows, pooled rows
        self._removed = _Rows(self.folder / "removed.bin", np.int64)
        self._load()

    def _load(self) -> None:
        self._pages.truncate(self._pages.rows)  # a torn last record
        pages = np.array(self._pages.view())
        self.page_ids = pages[:, 0].copy()
        self.offsets = np.concatenate([[0], np.cumsum(pages[:, 1])]).astype(np.int64)
        self.pooled_offsets = np.concatenate([[0], np.cumsum(pages[:, 2])]).astype(np.int64)
        self.alive = np.ones(len(pages), bool)
        self.alive[np.array(self._removed.view())] = False
        full, pooled = int(self.offsets[-1]), int(self.pooled_offsets[-1])
        for rows, count in ((self._int8, full), (self._scales, full), (self._signs[0], full),
                            (self._signs[1], full), (self._pooled[0], pooled), (self._pooled[1], pooled)):
            if rows.rows < count:
                raise ValueError(f"{self.folder}: the page records name more rows than {rows.path.name} holds")
            rows.truncate(count)

    # -- contents ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return int(self.alive.sum())

    def ids(self) -> np.ndarray:
        """Ids of the pages present."""
        return self.page_ids[self.alive]

    def add(self, page_id: int, page: EncodedPage) -> None:
        self.add_many([page_id], [page])

    def add_many(self, page_ids: list[int], pages: list[EncodedPage]) -> None:
        if not pages:
            return
        self.remove(page_ids)  # a changed page replaces its old vectors
        self._int8.append(np.concatenate([p.int8 for p in pages]))
        self._scales.append(np.concatenate([p.scales for p in pages]))
        for plane in (0, 1):
            self._signs[plane].append(np.concatenate([p.signs[:, plane] for p in pages]))
            self._pooled[plane].append(np.concatenate([p.pooled_signs[:, plane] for p in pages]))
        records = np.array([(pid, len(p.int8), len(p.pooled_signs)) for pid, p in zip(page_ids, pages)], np.int64)
        self._pages.append(records)  # last: the data it points at is already on disk
        self.page_ids = np.concatenate([self.page_ids, records[:, 0]])
        self.offsets = np.concatenate([self.offsets, self.offsets[-1] + np.cumsum(records[:, 1])])
        self.pooled_offsets = np.concatenate([self.pooled_offsets, self.pooled_offsets[-1] + np.cumsum(records[:, 2])])
        self.alive = np.concatenate([self.alive, np.ones(len(pages), bool)])

    def remove(self, page_ids) -> int:
        """Forget pages (their rows stay on disk until the folder is rebuilt); returns how many were present."""
        gone = np.flatnonzero(np.isin(self.page_ids, np.asarray(list(page_ids), np.int64)) & self.alive)
        if gone.size:
            self._removed.append(gone)
            self.alive[gone] = False
        return int(gone.size)

    def garbage_ratio(self) -> float:
        """Share of stored rows that belong to removed pages: worth a rebuild when large."""
        total = int(self.offsets[-1])
        live = int(np.diff(self.offsets)[self.alive].sum()) if total else 0
        return 0.0 if total == 0 else 1.0 - live / total

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
        reranked = depth.reranked(candidates.size)
        if candidates.size > depth.stage1:
            scores = hamming_maxsim(query_signs, self._pooled[0].view(), self._pooled[1].view(),
                                    self.pooled_offsets, candidates)
            candidates = candidates[_top(scores, depth.stage1)]
        if candidates.size > reranked:
            (low, high), offsets = self._read(self._signs, candidates)
            scores = hamming_maxsim(query_signs, low, high, offsets, np.arange(candidates.size))
            candidates = candidates[_top(scores, reranked)]
        (codes, scales), offsets = self._read((self._int8, self._scales), candidates)
        scores = int8_maxsim(query, codes, scales, offsets, np.arange(candidates.size))
        best = _top(scores, k)
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(int(self.page_ids[i]), float(scores[j])) for i, j in zip(candidates[best], best)]

    def _read(self, files: tuple[_Rows, ...], positions: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """These pages' rows of each file, back to back, and the offsets of each page in them."""
        starts = self.offsets[positions]
        lengths = self.offsets[positions + 1] - starts
        return [rows.gather(starts, lengths) for rows in files], np.concatenate(([0], np.cumsum(lengths)))

    def nbytes_on_disk(self) -> int:
        return sum(p.stat().st_size for p in self.folder.iterdir() if p.is_file())


def _top(scores: np.ndarray, n: int) -> np.ndarray:
    """Indices of the n highest scores (any order)."""
    if n >= len(scores):
        return np.arange(len(scores))
    return np.argpartition(-scores, n - 1)[:n]
