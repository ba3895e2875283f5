"""Finding documents (the kinds documents.py reads) below folders: recursive, symlink-loop safe, temporary files
ignored."""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..documents import is_document

_TEMP_PREFIXES = ("~$", ".~", "._", ".")
_TEMP_SUFFIXES = (".part", ".crdownload", ".download", ".tmp", ".partial", ".swp")


def is_candidate(path: str | os.PathLike) -> bool:
    """A document a user means to index: not hidden, not an editor lock or half-finished download."""
    name = os.path.basename(path)
    lower = name.lower()
    if name.startswith(_TEMP_PREFIXES) or lower.endswith(_TEMP_SUFFIXES):
        return False
    return is_document(name)


def normalise(path: str | os.PathLike) -> str:
    """Absolute path as the index stores it (symlinks kept: the user's name for the file)."""
    return os.path.abspath(os.path.expanduser(os.fspath(path)))


def find_documents(root: str) -> tuple[list[str], list[str]]:
    """All candidate documents below root (or root itself if it is a file), sorted, and the folders that
    could not be listed (their files are unknown, not deleted)."""
    if os.path.isfile(root):
        return ([root] if is_candidate(root) else []), []
    found, visited, unreadable = [], set(), []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True,
                                                onerror=lambda e: unreadable.append(e.filename)):
        try:
            st = os.stat(dirpath)
        except OSError:
            dirnames[:] = []
            continue
        key = (st.st_dev, st.st_ino)
        if key in visited:  # a symlink loop, or the same folder reached twice
            dirnames[:] = []
            continue
        visited.add(key)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        found.extend(os.path.join(dirpath, f) for f in filenames if is_candidate(f))
    return sorted(found), unreadable


@dataclass(frozen=True)
class FileState:
    size: int
    mtime: float

    @classmethod
    def of(cls, path: str) -> "FileState":
        st = os.stat(path)
        return cls(st.st_size, st.st_mtime)
