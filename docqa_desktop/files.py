"""Writing files so that nobody sees half of one; their content hashes."""
from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path


def write_atomically(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write to a temporary file beside `path`, then rename it over `path`: a reader (another thread, a
    PDF viewer, a second writer racing this one) sees the old file or the whole new one, never a part."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, _mode_for(path))  # mkstemp's file is private (0600): an export is for sharing
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def _mode_for(path: Path) -> int:
    """The permissions a plain open() would give `path`: those of the file it replaces, else 0666 less the
    umask."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        mask = os.umask(0o022)  # the umask can only be read by setting it: put straight back
        os.umask(mask)
        return 0o666 & ~mask


def sha256_of(path: str | os.PathLike, block: int = 1 << 20) -> str:
    """The file's content hash (documents are keyed by it; downloaded models are checked against it)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(block):
            digest.update(chunk)
    return digest.hexdigest()
