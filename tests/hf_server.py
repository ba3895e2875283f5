"""A fake Hugging Face Hub on 127.0.0.1 for testing real downloads (stdlib only): the model manager's
(huggingface_hub metadata + our resumable GET) and huggingface_hub's own `hf_hub_download`.

    with FakeHub() as hub:
        hub.add("org/repo", "model.gguf", data)
        path = hf_hub_download("org/repo", "model.gguf", cache_dir=tmp, endpoint=hub.endpoint)

It answers HEAD and GET on `/{repo_id}/resolve/{revision}/{filename}` (revision: the registered one, or COMMIT)
with the headers huggingface_hub 2.4.0 reads for a plain HTTP download (file_download.py, get_hf_file_metadata):

    X-Repo-Commit   required; without it the download fails with FileMetadataError. Names snapshots/<commit>/
                    and is written to refs/<revision>.
    X-Linked-Etag   preferred over ETag; the blob is stored as blobs/<etag>. Like an LFS file on the real hub it
                    is the file's sha256 - which huggingface_hub does NOT verify against the downloaded bytes.
    ETag            fallback etag (the same sha256, quoted, as for LFS files).
    X-Linked-Size   the expected size; the only integrity check the client makes is that the byte count matches.
    Content-Length  size of this response's body (the full file for HEAD and GET, the slice for a 206).
    Accept-Ranges   the client resumes a broken GET (within the same call) with `Range: bytes=N-`;
                    we answer 206 + Content-Range.

No X-Xet-Hash / `Link: <...>; rel="xet-auth"` headers are sent: with hf_xet installed they would switch the
client to the Xet protocol instead of a plain GET. Missing files get 404 with `X-Error-Code: EntryNotFound`
(RemoteEntryNotFoundError), unknown repos `RepoNotFound` (RepositoryNotFoundError), as the real hub does.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self
from urllib.parse import unquote, urlsplit

COMMIT = "0123456789abcdef0123456789abcdef01234567"  # the commit every served revision resolves to


@dataclass(frozen=True)
class SeenRequest:
    method: str
    path: str
    range: str | None  # the Range header, e.g. "bytes=1000-"


@dataclass
class _File:
    data: bytes
    sha256: str
    cuts: list[int]  # pending `cut_after` byte counts, one per upcoming GET
    corrupt: bool = False


class FakeHub:
    def __init__(self) -> None:
        self.requests: list[SeenRequest] = []
        self._files: dict[tuple[str, str, str], _File] = {}  # (repo_id, revision, filename)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- setup -------------------------------------------------------------------------------------------

    def add(self, repo_id: str, filename: str, data: bytes, revision: str = "main") -> str:
        """Serve `data`; returns its sha256 (= the etag, = the blob's name in the cache)."""
        entry = _File(data, hashlib.sha256(data).hexdigest(), [])
        with self._lock:
            self._files[(repo_id, revision, filename)] = entry
            self._files[(repo_id, COMMIT, filename)] = entry
        return entry.sha256

    def cut_after(self, repo_id: str, filename: str, nbytes: int, times: int = 1) -> None:
        """The next `times` GETs of the file send only `nbytes` of their body, then close the connection.

        huggingface_hub retries a broken GET itself (Range request, up to 5 retries without progress, 1 s apart),
        so `times=1` is survived within the same call; `nbytes=0, times=6` makes the call fail."""
        with self._lock:
            self._file(repo_id, filename).cuts.extend([nbytes] * times)

    def corrupt(self, repo_id: str, filename: str) -> None:
        """Serve other bytes of the same length than the advertised sha256 (every byte inverted)."""
        with self._lock:
            self._file(repo_id, filename).corrupt = True

    def _file(self, repo_id: str, filename: str) -> _File:
        return next(f for (r, _, n), f in self._files.items() if (r, n) == (repo_id, filename))

    # -- lifecycle ---------------------------------------------------------------------------------------

    @property
    def endpoint(self) -> str:
        assert self._server is not None, "FakeHub is not running"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="FakeHub", daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
        self._server = None


_API = re.compile(r"^/api/models/(?P<repo>.+?)/(?P<kind>revision|tree)/(?P<revision>[^/]+)$")
_RESOLVE = re.compile(r"^/(?P<repo>.+?)/resolve/(?P<revision>[^/]+)/(?P<filename>.+)$")
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


def _make_handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, like the real hub

        def log_message(self, *args) -> None:  # keep test output quiet
            pass

        def do_HEAD(self) -> None:
            self._serve(body=False)

        def do_GET(self) -> None:
            self._serve(body=True)

        def _api(self, repo: str, kind: str, revision: str) -> None:
            """Repository info and file listing: what snapshot_download asks before fetching each file."""
            with hub._lock:
                files = {name: f for (r, rev, name), f in hub._files.items() if r == repo and rev == revision}
            if not files:
                return self._error(404, "RepoNotFound")
            if kind == "revision":
                payload = {"id": repo, "sha": COMMIT, "siblings": [{"rfilename": name} for name in sorted(files)]}
            else:
                payload = [{"type": "file", "path": name, "size": len(f.data), "oid": f.sha256[:40],
                            "lfs": {"oid": f.sha256, "size": len(f.data), "pointerSize": 134}}
                           for name, f in sorted(files.items())]
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _serve(self, body: bool) -> None:
            rng = self.headers.get("Range")
            path = urlsplit(self.path).path
            api = _API.match(path)
            if api:
                with hub._lock:
                    hub.requests.append(SeenRequest(self.command, path, rng))
                return self._api(unquote(api["repo"]), api["kind"], unquote(api["revision"]))
            with hub._lock:
                hub.requests.append(SeenRequest(self.command, path, rng))
                match = _RESOLVE.match(path)
                repo, revision, filename = (unquote(match[k]) for k in ("repo", "revision", "filename")) \
                    if match else ("", "", "")
                entry = hub._files.get((repo, revision, filename))
                known_repo = any(r == repo for r, _, _ in hub._files)
                cut = entry.cuts.pop(0) if entry is not None and body and entry.cuts else None
            if entry is None:
                return self._error(404, "EntryNotFound" if known_repo else "RepoNotFound")

            data = bytes(b ^ 0xFF for b in entry.data) if entry.corrupt else entry.data
            size, start, end = len(data), 0, len(data) - 1
            status = 200
            if rng is not None:
                m = _RANGE.match(rng.strip())
                if m is None or (m[1] == "" and m[2] == ""):
                    return self._error(416, None, {"Content-Range": f"bytes */{size}"})
                if m[1] == "":  # suffix range: the last N bytes
                    start = max(size - int(m[2]), 0)
                else:
                    start, end = int(m[1]), min(int(m[2]), size - 1) if m[2] else size - 1
                if start >= size or start > end:
                    return self._error(416, None, {"Content-Range": f"bytes */{size}"})
                status = 206

            self.send_response(status)
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("X-Linked-Etag", f'"{entry.sha256}"')
            self.send_header("ETag", f'"{entry.sha256}"')
            self.send_header("X-Linked-Size", str(size))
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(end - start + 1))
            if status == 206:
                self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
            self.end_headers()
            if not body:
                return
            payload = data[start:end + 1]
            if cut is not None:
                payload = payload[:cut]
                self.close_connection = True  # the client sees a body shorter than Content-Length
            try:
                self.wfile.write(payload)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (e.g. a cancelled download)
                self.close_connection = True

        def _error(self, status: int, code: str | None, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            if code is not None:
                self.send_header("X-Error-Code", code)
            if code == "EntryNotFound":
                self.send_header("X-Repo-Commit", COMMIT)  # the real hub sends it; the client caches .no_exist
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler
