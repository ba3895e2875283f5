"""Writing files so that nobody sees half of one."""
from __future__ import annotations

import contextlib
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
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path
