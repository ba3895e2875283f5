"""Following folders: react to created, modified, moved and deleted documents (the kinds documents.py reads,
as scan.is_candidate decides) once they settle.

Events only say *that* something changed; the indexer's scan (cheap: size + mtime) decides
*what* changed, so moves, renames, copies and deletions all take the same tested path.
"""
from __future__ import annotations

import os
import threading
import time
from typing import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from .scan import is_candidate


class _Collector(FileSystemEventHandler):
    def __init__(self):
        self.lock = threading.Lock()
        self.dirty: dict[str, float] = {}  # path -> time of its last event

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        paths = [event.src_path, getattr(event, "dest_path", "")]
        relevant = [p for p in paths if p and (event.is_directory or is_candidate(p))]
        self.mark_dirty([os.fsdecode(p) for p in relevant])

    def mark_dirty(self, paths: list[str], delay: float = 0.0) -> None:
        """(Re)queue paths; `delay` postpones them, e.g. for a retry."""
        with self.lock:
            for path in paths:
                self.dirty[path] = time.monotonic() + delay

    def take_settled(self, settle: float) -> list[str]:
        """Paths quiet for `settle` seconds whose size no longer changes, removed from the set."""
        now = time.monotonic()
        with self.lock:
            quiet = [p for p, t in self.dirty.items() if now - t >= settle]
        settled = _stable_sizes(quiet, settle / 4)
        with self.lock:
            for p in settled:
                if self.dirty.get(p, now) <= now:
                    self.dirty.pop(p, None)
        return settled


def _stable_sizes(paths: list[str], wait: float) -> list[str]:
    """The paths whose size did not change over `wait`: a file being written (a copy, a download) grows."""
    if not paths:
        return []
    before = {p: _size(p) for p in paths}
    time.sleep(min(wait, 0.5))
    return [p for p in paths if _size(p) == before[p]]


def _size(path: str) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None  # deleted or moved away: nothing to wait for


def watch(roots: list[str], on_change: Callable[[list[str]], None], stop: threading.Event,
          settle_seconds: float = 1.0, poll: float = 0.25,
          on_error: Callable[[Exception], None] | None = None,
          first: Callable[[], None] | None = None) -> None:
    """Block until `stop` is set, calling on_change(changed_paths) after each settled burst.

    `first` (the initial sync) runs once the folders are watched, so a file changed while it runs is a burst
    of its own, not missed; its errors are the caller's. A failing burst (database busy, disk full) is
    reported and retried later, never fatal.
    """
    collector = _Collector()
    observer = Observer()
    for root in roots:
        observer.schedule(collector, root if os.path.isdir(root) else os.path.dirname(root), recursive=True)
    observer.start()
    try:
        if first:
            first()
        while not stop.wait(poll):
            changed = collector.take_settled(settle_seconds)
            if not changed:
                continue
            try:
                on_change(changed)
            except Exception as exc:
                if on_error:
                    on_error(exc)
                collector.mark_dirty(changed, delay=max(5.0, settle_seconds))
    finally:
        observer.stop()
        observer.join(timeout=5)
