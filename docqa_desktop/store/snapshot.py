"""Consistent reads: several queries that must see one state of the library file."""
from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def snapshot(cur):
    """Reads on `cur` inside see one state of the file, whatever other connections commit meanwhile."""
    cur.execute("BEGIN TRANSACTION")
    try:
        yield cur
    finally:
        cur.execute("COMMIT")
