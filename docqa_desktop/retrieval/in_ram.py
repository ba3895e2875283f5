"""What the in-RAM search structures (bm25.KeywordIndex, dense.ChunkVectors) share: one of each per library file,
made on the first search and kept for the process's life, and the version they start from."""
from __future__ import annotations

import threading
from typing import Callable, Generic, TypeVar

from ..store.database import Database

Index = TypeVar("Index")

NEVER = object()  # a change counter no store has: an index's first refresh always loads


class PerLibrary(Generic[Index]):
    """`registry(db)`: the index of db's file, the same object for every caller."""

    def __init__(self, make: Callable[[], Index]):
        self._make = make
        self._indexes: dict[str, Index] = {}
        self._guard = threading.Lock()

    def __call__(self, db: Database) -> Index:
        with self._guard:
            index = self._indexes.get(str(db.path))
            if index is None:
                index = self._indexes[str(db.path)] = self._make()
            return index
