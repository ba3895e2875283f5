"""Model downloads through huggingface_hub into the standard Hugging Face cache.

The cache is shared with every other tool on the machine, so a file already fetched by llama.cpp,
transformers or the hf CLI is reused without a byte of traffic. huggingface_hub finds files and asks
the hub which version to fetch; the bytes are ours to move so a download survives the app closing
(resume), reports progress, can be cancelled, and is checked against its sha256 before it is used.
"""
from __future__ import annotations

import errno
import http.client
import os
import re
import shutil
import socket
import threading
import types
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import Remedy
from ..files import sha256_of
from ..offline import network_allowed
from ..progress import Cancelled
from .types import ModelError

SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")
ProgressFn = Callable[[int, int], None]  # (bytes done, bytes total)
BLOCK = 1 << 20


class DownloadError(ModelError):
    pass


class Offline(DownloadError):
    pass


class ChecksumMismatch(DownloadError):
    pass


class DownloadCancelled(DownloadError, Cancelled):
    """The cancel event was set: a download error to the model manager, a `Cancelled` to task runners."""


@dataclass(frozen=True)
class Fetched:
    path: Path  # inside the HF cache: snapshots/<commit>/<file> -> blobs/<sha256>
    sha256: str


@network_allowed()  # the one place the product goes online, and only when the user asks for a model
def fetch(repo: str, filename: str, sha256: str = "", *, revision: str = "main",
          cache_dir: Path | None = None, endpoint: str | None = None,
          progress: ProgressFn | None = None, cancel: threading.Event | None = None,
          timeout: float = 30.0) -> Fetched:
    """The file, from the cache if it is there, else downloaded (resuming a partial one) and verified.

    huggingface_hub 2.4 resumes only within one call and deletes its partial file on failure, so a
    multi-GB pull interrupted by a closed laptop would start over; we keep `blobs/<sha>.incomplete`
    across runs and continue it with a Range request, writing the cache layout hub itself uses.
    """
    hub = _hub()
    cached = hub.try_to_load_from_cache(repo, filename, cache_dir=cache_dir, revision=revision)
    if isinstance(cached, str):
        return _verified(Path(cached), sha256, f"{repo}/{filename}")
    url = hub.hf_hub_url(repo, filename, revision=revision, endpoint=endpoint)
    try:
        meta = hub.get_hf_file_metadata(url, timeout=timeout, endpoint=endpoint)
    except Exception as exc:  # huggingface_hub raises many kinds; each becomes one clear message
        raise _explained(exc, repo, filename, endpoint) from exc
    if not meta.etag or not meta.commit_hash:
        raise DownloadError(f"{repo}/{filename}: the server did not say which version it serves")
    repo_dir = Path(cache_dir or hub.constants.HF_HUB_CACHE) / hub.repo_folder_name(repo_id=repo, repo_type="model")
    blob = repo_dir / "blobs" / meta.etag
    label = f"{repo}/{filename}"
    if not blob.exists():
        partial = blob.with_name(meta.etag + ".incomplete")
        try:
            _download(meta.location, partial, meta.size, _auth_headers(hub, url, meta.location), progress,
                      cancel, timeout, label)
        except (OSError, http.client.HTTPException) as exc:
            kept = partial.stat().st_size if partial.exists() else 0
            if kept and not (isinstance(exc, OSError) and exc.errno == errno.ENOSPC):
                raise DownloadError(f"download of {label} was interrupted after {kept:,} bytes ({exc}); "
                                    "pull again to resume") from exc
            raise _explained(exc, repo, filename, endpoint) from exc
        actual = _checked(partial, sha256 or (meta.etag if SHA256_HEX.match(meta.etag) else ""), label,
                          partial.unlink)
        os.replace(partial, blob)
    else:
        actual = ""  # a blob another revision fetched: checked below
    link = repo_dir / "snapshots" / meta.commit_hash / filename
    _link(link, blob)
    (repo_dir / "refs").mkdir(exist_ok=True)
    if revision != meta.commit_hash:
        (repo_dir / "refs" / revision).write_text(meta.commit_hash)
    return Fetched(link, actual) if actual else _verified(link, sha256, label)


def _download(url: str, partial: Path, size: int | None, headers: dict, progress: ProgressFn | None,
              cancel: threading.Event | None, timeout: float, label: str) -> None:
    partial.parent.mkdir(parents=True, exist_ok=True)
    done = partial.stat().st_size if partial.exists() else 0
    if size is not None and done > size:  # a partial file that cannot belong to this version
        partial.unlink()
        done = 0
    request = urllib.request.Request(url, headers={**headers, **({"Range": f"bytes={done}-"} if done else {})})
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and size is not None and done == size:
            return  # the partial file is already complete
        raise DownloadError(f"cannot download {label}: the server answered {exc.code} {exc.reason}") from exc
    with response:
        if done and response.status != 206:  # the server ignored the Range: start over
            done = 0
        with partial.open("ab" if done else "wb") as out:
            while True:
                if cancel is not None and cancel.is_set():
                    raise DownloadCancelled(f"download of {label} cancelled at {done:,} bytes; "
                                            "pull again to resume where it stopped")
                block = response.read(BLOCK)
                if not block:
                    break
                out.write(block)
                done += len(block)
                if progress is not None:
                    progress(done, size or 0)
    if size is not None and done != size:
        raise DownloadError(f"download of {label} was interrupted after {done:,} of {size:,} bytes; "
                            "pull again to resume")


def _link(link: Path, blob: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.exists():
        link.unlink()
    try:
        link.symlink_to(os.path.relpath(blob, link.parent))
    except OSError:  # no symlinks (Windows without developer mode): hub copies too
        shutil.copyfile(blob, link)


def _auth_headers(hub, url: str, location: str) -> dict:
    """The user's token goes to the hub only, never to the CDN a download is redirected to."""
    headers = hub.build_hf_headers()
    if urllib.parse.urlsplit(url).netloc != urllib.parse.urlsplit(location).netloc:
        headers.pop("authorization", None)
        headers.pop("Authorization", None)
    return headers


def _hub():
    """huggingface_hub, loaded on first use (its telemetry is switched off in offline.py)."""
    import huggingface_hub as hub
    from huggingface_hub import constants
    from huggingface_hub.file_download import repo_folder_name
    from huggingface_hub.utils import build_hf_headers

    return types.SimpleNamespace(
        constants=constants, repo_folder_name=repo_folder_name, build_hf_headers=build_hf_headers,
        try_to_load_from_cache=hub.try_to_load_from_cache, hf_hub_url=hub.hf_hub_url,
        get_hf_file_metadata=hub.get_hf_file_metadata, snapshot_download=hub.snapshot_download)


@network_allowed()
def fetch_snapshot(repo: str, patterns: tuple[str, ...], *, cache_dir: Path | None = None,
                   endpoint: str | None = None, cancel: threading.Event | None = None) -> Path:
    """A whole repository (transformers-format models such as ColQwen2.5), filtered by patterns."""
    hub = _hub()
    try:
        return Path(hub.snapshot_download(repo, allow_patterns=list(patterns) or None, cache_dir=cache_dir,
                                      endpoint=endpoint, tqdm_class=_cancellable_bar(cancel)))
    except DownloadCancelled:
        raise
    except Exception as exc:
        raise _explained(exc, repo, "", endpoint) from exc


def _verified(path: Path, expected: str, label: str) -> Fetched:
    """Check a cached file against the catalog's sha256, or the hub's LFS sha256 that names its blob;
    a mismatch deletes it so it is never loaded and the next pull downloads it again."""
    blob_name = path.resolve().name
    expected = expected or (blob_name if SHA256_HEX.match(blob_name) else "")
    return Fetched(path, _checked(path, expected, label, lambda: delete_cached([str(path)])))


def _checked(path: Path, expected: str, label: str, remove: Callable[[], object]) -> str:
    """The file's sha256; a mismatch with `expected` removes the file and raises."""
    actual = sha256_of(path)
    if expected and actual != expected:
        remove()
        raise ChecksumMismatch(f"{label}: the file is corrupt (sha256 {actual[:12]}…, expected "
                               f"{expected[:12]}…); it was deleted — pull again")
    return actual


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
    if isinstance(exc, OfflineModeIsEnabled) or isinstance(exc.__cause__, OfflineModeIsEnabled):
        return Offline(f"cannot download {what}: downloads are switched off (HF_HUB_OFFLINE is set). Unset it, "
                       "or register a file you have with {remedy}", remedy=Remedy.IMPORT_MODEL_FILE)
    if _is_network_failure(exc, (LocalEntryNotFoundError,)):
        return Offline(f"cannot download {what}: {where} is not reachable from this machine. Download the file "
                       "elsewhere and register it with {remedy}", remedy=Remedy.IMPORT_MODEL_FILE)
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return DownloadError(f"cannot download {what}: the disk is full (the partial file is kept and the "
                             "download resumes after you free space)")
    return DownloadError(f"cannot download {what}: {exc}")


NETWORK_WORDS = ("name or service not known", "name resolution", "connection refused", "network is unreachable",
                 "no route to host", "timed out")


def _is_network_failure(exc: BaseException, hub_kinds: tuple) -> bool:
    """Whether `exc`, or anything that caused it, says the server cannot be reached (httpx, urllib and
    socket errors all look different)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, (ConnectionError, TimeoutError, socket.gaierror, *hub_kinds)) \
                or "Connect" in type(exc).__name__ or any(w in str(exc).lower() for w in NETWORK_WORDS):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _cancellable_bar(cancel: threading.Event | None):
    """A silent tqdm for huggingface_hub's snapshot downloads whose update() stops them when cancelled."""
    from tqdm.auto import tqdm

    class Bar(tqdm):
        def __init__(self, *args, **kwargs):
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

        def update(self, n=1):
            if cancel is not None and cancel.is_set():
                raise DownloadCancelled("download cancelled")
            return super().update(n)

    return Bar


def delete_cached(paths: list[str]) -> list[str]:
    """Delete cache entries: the snapshot symlink and the blob it points to."""
    deleted = []
    for raw in paths:
        link = Path(raw)
        if link.is_dir() and not link.is_symlink():  # a snapshot folder: each file, then the folder
            deleted += delete_cached([str(p) for p in sorted(link.rglob("*"), reverse=True) if not p.is_dir()])
            for folder in sorted((p for p in link.rglob("*") if p.is_dir()), reverse=True):
                folder.rmdir()
            link.rmdir()
            deleted.append(str(link))
            continue
        target = link.resolve()
        for path in {link, target}:
            if path.exists() or path.is_symlink():
                path.unlink()
                deleted.append(str(path))
    return deleted
