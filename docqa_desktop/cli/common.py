"""What the `docqa` command modules share: Ctrl-C as a cancel event, the progress bar of long tasks, argument
types."""
from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys

from ..presentation import one_line
from ..progress import Progress
from .console import cancel_on_sigint, local_path  # noqa: F401  (the commands' Ctrl-C and path arguments)


@contextlib.contextmanager
def signal_handlers_restored():
    """A command's Ctrl-C handler lasts as long as the command: `main()` called in-process (the tests, the
    Python API) leaves the caller's SIGINT and SIGTERM as they were, so a later SIGTERM still ends it."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


class ProgressBar:
    """A redrawn line on a terminal; one line per finished document when stderr is a log or pipe.

    A `ProgressFn` for indexing: draws the phases of the index stages (`service.library.stages`), each with its counts."""

    def __init__(self, stages, stream=None):
        self.counts = {stage.phase: stage.bar_text for stage in stages}
        self.stream = stream or sys.stderr  # the stderr of the moment (a served command's), not the one at import
        self.tty = self.stream.isatty()
        self.active = False
        self.docs_done = 0

    def __call__(self, p: Progress) -> None:
        if p.phase not in self.counts or not p.total:
            return
        width = 24
        filled = int(width * p.done / p.total)
        eta = f"{p.eta_seconds:.0f}s" if p.eta_seconds is not None else "?"
        name = os.path.basename(p.item or "")[:40]
        rate = (f"{p.rate:.1f}/s" if p.rate >= 1 or not p.rate
                else f"{1 / p.rate:.0f} s each")  # page images take seconds to minutes each
        line = f"[{'#' * filled}{'.' * (width - filled)}] {p.text(self.counts[p.phase])} {rate} ETA {eta} {name}"
        if self.tty:
            self.stream.write("\r" + line[:150].ljust(150))
            self.active = True
        elif p.docs_done != self.docs_done or (p.unit != "pages" and p.done == p.total):
            self.stream.write(line + "\n")
        self.docs_done = p.docs_done
        self.stream.flush()

    def close(self) -> None:
        if self.active:
            self.stream.write("\n")
            self.stream.flush()
            self.active = False
        self.docs_done = 0


def positive(text: str) -> int:
    """An argument type: a whole number of 1 or more."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def zero_or_more(text: str) -> int:
    """An argument type: a whole number of 0 or more."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


MAX_PAGE = 1_000_000  # the highest page a page list names: a range past it is refused before it is built


def page_list(text: str) -> list[int]:
    """An argument type: 1-based pages as "3,5-7" -> [3, 5, 6, 7] (sorted, each once)."""
    pages: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            start, end = int(first), int(last if dash else first)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is no page list: give pages like 3,5-7 (1-based)") from None
        if not 1 <= start <= end:
            raise argparse.ArgumentTypeError(f"{part.strip()!r}: pages count from 1, a range from low to high (5-7)")
        if end > MAX_PAGE:
            raise argparse.ArgumentTypeError(f"{part.strip()!r}: pages above {MAX_PAGE:,} are not read")
        pages.update(range(start, end + 1))
    return sorted(pages)


def require_existing(paths: list[str], verb: str) -> None:
    """A path the user named that is not there is a usage error (exit 2), said before any work starts."""
    missing = [path for path in paths if not os.path.exists(path)]
    if missing:
        raise FileNotFoundError(f"cannot {verb} {', '.join(missing)}: no such file or folder")


def clipped_line(text: str, width: int) -> str:
    """`text` on one line (presentation.one_line), cut to `width` characters with '…'."""
    flat = one_line(text)
    return flat if len(flat) <= width else flat[:width - 1].rstrip() + "…"


def add_doc_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--doc", action="append", help="limit to a document (file name); repeatable")
