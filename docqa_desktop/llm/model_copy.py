"""Copying an imported model's files into the app's model folder, so that the model stays when the drive it came
from goes: the free space checked first, progress and cancel while it copies, each file's sha256 taken on the way
(the copy is read once), and a file appearing under its name only once it is whole."""
from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import threading
from pathlib import Path
from typing import Callable

from ..errors import Remedy
from ..progress import Cancelled
from .types import ModelError

BLOCK = 8 << 20
PARTIAL = ".partial"


class CopyCancelled(ModelError, Cancelled):
    """The cancel event was set: nothing of the copy is kept; a `Cancelled` to task runners."""


def gb(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.1f} GB" if n_bytes >= 2**30 / 10 else f"{n_bytes / 2**20:.0f} MB"


def check_space(files: list[Path], folder: Path) -> None:
    """Refuse before a byte is written when `folder`'s disk has not room for `files`, naming the file and the
    space it needs."""
    needed = sum(f.stat().st_size for f in files)
    free = shutil.disk_usage(_existing(folder)).free
    if needed > free:
        raise ModelError(f"cannot copy {files[0].name} into {folder}: it needs {gb(needed)} of free space and "
                         f"{gb(free)} is free there; free some space, or {{remedy}} to use the file where it lies",
                         remedy=Remedy.LINK_MODEL_FILE)


def copy_in(files: list[Path], folder: Path, progress: Callable[[int, int], None] | None = None,
            cancel: threading.Event | None = None) -> dict[Path, tuple[Path, str]]:
    """Copy `files` into `folder` (the free space checked first): each source file -> (its copy, its sha256).
    Cancelled or failed, nothing of the copy stays (a folder it made neither) and what was there before stays.
    Partial copies a crash left in `folder` are deleted first."""
    _delete(list(folder.glob("*" + PARTIAL)) if folder.is_dir() else [])
    check_space(files, folder)
    made = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        return _place(_read_through(files, folder, progress, cancel), folder)  # each deletes its partials on failure
    except BaseException:
        if made:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def _place(partials: dict[Path, tuple[Path, str]], folder: Path) -> dict[Path, tuple[Path, str]]:
    """Each whole copy under its name, all or none: a rename that fails takes the copies back out."""
    kept = {}
    try:
        for source, (partial, sha256) in partials.items():
            target = folder / source.name
            os.replace(partial, target)
            kept[source] = (target, sha256)
    except OSError as exc:
        _delete([target for target, _ in kept.values()] + [partial for partial, _ in partials.values()])
        raise ModelError(f"copying {source.name} into {folder} failed: {exc.strerror or exc}") from exc
    return kept


def checksums(files: list[Path], progress: Callable[[int, int], None] | None = None,
              cancel: threading.Event | None = None) -> dict[Path, str]:
    """Each file's sha256, read through with progress and cancel: a linked model's record of its files."""
    return {source: sha256 for source, (_, sha256) in _read_through(files, None, progress, cancel).items()}


def _read_through(files: list[Path], folder: Path | None, progress: Callable[[int, int], None] | None,
                  cancel: threading.Event | None) -> dict[Path, tuple[Path, str]]:
    """Read each file once, hashing it and, with a `folder`, writing it there as NAME.partial: source ->
    (partial copy or the source, sha256). Cancelled or failed, the partial copies are deleted."""
    total, done = sum(f.stat().st_size for f in files), 0
    partials, read = [], {}
    source = files[0]
    try:
        for source in files:
            partial = folder / (source.name + PARTIAL) if folder is not None else None
            digest = hashlib.sha256()
            with source.open("rb") as handle, (partial.open("wb") if partial else contextlib.nullcontext()) as out:
                if partial:
                    partials.append(partial)
                while chunk := handle.read(BLOCK):
                    if cancel is not None and cancel.is_set():
                        raise CopyCancelled(f"import of {source.name} cancelled; nothing of it was kept")
                    if out is not None:
                        out.write(chunk)
                    digest.update(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(done, total)
            read[source] = (partial or source, digest.hexdigest())
    except OSError as exc:
        _delete(partials)
        where = f"copying {source} into {folder}" if folder is not None else f"reading {source}"
        raise ModelError(f"{where} failed: {exc.strerror or exc}") from exc
    except BaseException:
        _delete(partials)
        raise
    return read


def _delete(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(OSError):
            path.unlink()


def _existing(folder: Path) -> Path:
    """The folder, or its nearest ancestor that exists (the model folder is made by the first copy)."""
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    return folder
