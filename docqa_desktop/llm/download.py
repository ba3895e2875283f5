"""Model downloads through huggingface_hub into the standard Hugging Face cache.

The cache is shared with every other tool on the machine, so a file already fetched by llama.cpp,
LM Studio's HF mode or transformers is reused without a byte of traffic. huggingface_hub resumes a
partial download from its `.incomplete` file; we add progress, cancellation, a clear offline message,
and a sha256 check after every download (a file that fails it is deleted, never used).
"""
from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .types import ModelError

SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")
ProgressFn = Callable[[int, int], None]  # (bytes done, bytes total)


class DownloadError(ModelError):
    pass


class Offline(DownloadError):
    pass


class ChecksumMismatch(DownloadError):
    pass


class DownloadCancelled(DownloadError):
    pass


@dataclass(frozen=True)
class Fetched:
    path: Path  # inside the HF cache: snapshots/<commit>/<file> -> blobs/<sha256>
    sha256: str


def fetch(repo: str, filename: str, sha256: str = "", *, revision: str | None = None,
          cache_dir: Path | None = None, endpoint: str | None = None,
          progress: ProgressFn | None = None, cancel: threading.Event | None = None) -> Fetched:
    """The file, from the cache if it is there, else downloaded (resuming a partial one) and verified."""
    from huggingface_hub import hf_hub_download, try_to_load_from_cache

    cached = try_to_load_from_cache(repo, filename, cache_dir=cache_dir, revision=revision)
    if isinstance(cached, str):
        return _verified(Path(cached), sha256, f"{repo}/{filename}")
    try:
        path = hf_hub_download(repo, filename, revision=revision, cache_dir=cache_dir, endpoint=endpoint,
                               tqdm_class=_progress_bar(progress, cancel))
    except DownloadCancelled:
        raise
    except Exception as exc:  # huggingface_hub raises many kinds; each becomes one clear message
        raise _explained(exc, repo, filename, endpoint) from exc
    return _verified(Path(path), sha256, f"{repo}/{filename}")


def fetch_snapshot(repo: str, patterns: tuple[str, ...], *, cache_dir: Path | None = None,
                   endpoint: str | None = None, cancel: threading.Event | None = None) -> Path:
    """A whole repository (transformers-format models such as ColQwen2.5), filtered by patterns."""
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(repo, allow_patterns=list(patterns) or None, cache_dir=cache_dir,
                                      endpoint=endpoint, tqdm_class=_progress_bar(None, cancel)))
    except DownloadCancelled:
        raise
    except Exception as exc:
        raise _explained(exc, repo, "", endpoint) from exc


def _verified(path: Path, expected: str, label: str) -> Fetched:
    """Check the file against the catalog's sha256, or against the hub's own LFS sha256, which names
    the cache blob; a mismatch deletes the file so it is never loaded and the next pull starts over."""
    blob_name = path.resolve().name
    expected = expected or (blob_name if SHA256_HEX.match(blob_name) else "")
    actual = sha256_of(path)
    if expected and actual != expected:
        delete_cached([str(path)])
        raise ChecksumMismatch(f"{label}: downloaded file is corrupt (sha256 {actual[:12]}…, expected "
                               f"{expected[:12]}…); it was deleted — pull again")
    return Fetched(path, actual)


def _explained(exc: Exception, repo: str, filename: str, endpoint: str | None) -> DownloadError:
    from huggingface_hub.errors import (GatedRepoError, LocalEntryNotFoundError, OfflineModeIsEnabled,
                                        RemoteEntryNotFoundError, RepositoryNotFoundError)

    what = f"{repo}/{filename}" if filename else repo
    where = endpoint or "huggingface.co"
    if isinstance(exc, GatedRepoError):
        return DownloadError(f"{what} needs you to accept its licence on {where} and log in "
                             "(`hf auth login`), then pull again")
    if isinstance(exc, RemoteEntryNotFoundError):
        return DownloadError(f"{what} does not exist on {where}")
    if isinstance(exc, RepositoryNotFoundError):
        return DownloadError(f"repository {repo} does not exist on {where} (or is private)")
    if isinstance(exc, (OfflineModeIsEnabled, LocalEntryNotFoundError, ConnectionError, TimeoutError)) \
            or "connect" in str(exc).lower():
        return Offline(f"cannot download {what}: {where} is not reachable from this machine. Download the file "
                       "elsewhere and register it with `docqa models import FILE.gguf [--projector MMPROJ.gguf]`")
    if isinstance(exc, OSError) and exc.errno == 28:
        return DownloadError(f"cannot download {what}: the disk is full (the partial file is kept and the "
                             "download resumes after you free space)")
    return DownloadError(f"cannot download {what}: {exc}")


def _progress_bar(progress: ProgressFn | None, cancel: threading.Event | None):
    """A tqdm stand-in for huggingface_hub: reports bytes and raises to stop when cancelled."""
    from tqdm.auto import tqdm

    class Bar(tqdm):
        def __init__(self, *args, **kwargs):
            kwargs["disable"] = True  # nothing on the terminal; the caller draws its own progress
            super().__init__(*args, **kwargs)
            self.done = kwargs.get("initial", 0) or 0

        def update(self, n=1):
            if cancel is not None and cancel.is_set():
                raise DownloadCancelled("download cancelled; pull again to resume where it stopped")
            self.done += n or 0
            if progress is not None and self.total:
                progress(self.done, int(self.total))
            return super().update(n)

    return Bar


def sha256_of(path: Path, chunk: int = 1 << 22) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def delete_cached(paths: list[str]) -> list[str]:
    """Delete cache entries: the snapshot symlink and the blob it points to."""
    deleted = []
    for raw in paths:
        link = Path(raw)
        target = link.resolve()
        for path in {link, target}:
            if path.exists() or path.is_symlink():
                path.unlink()
                deleted.append(str(path))
    return deleted
