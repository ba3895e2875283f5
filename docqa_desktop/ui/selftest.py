"""The packaged app checks itself as a new user would use it: `docqa-desktop --selftest` opens the main window on
a new, empty home, indexes the bundled samples, asks the ferry question with the default method, checks the answer
cites the ferry memo, saves a screenshot of the window and exits 0 (1 with the reason otherwise).

    python -m docqa_desktop.ui.selftest --samples FOLDER [--screenshot PNG] [--home DIR]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

QUESTION = "When does the last ferry to Gull Island leave?"
CITED_DOCUMENT = "ferry-memo-scanned.pdf"  # a scanned page: the answer needs OCR as well as the reader


def run(samples: Path, screenshot: Path, home: Path) -> str:
    """The checks; returns the answer as said, raises AssertionError, TaskFailed or TimeoutError with what went
    wrong."""
    from ..service import Service
    from ..settings import Settings
    from .app import make_app
    from .driving import ask, index_folder, settle, wait_until
    from .main_window import MainWindow

    app = make_app([])
    with Service(Settings.load(home)) as service:
        window = MainWindow(service)
        window.show()
        wait_until(app, window.isVisible, 30, "the window")
        index_folder(app, window, str(samples))
        window.ask_panel.question.setText(QUESTION)
        ask(app, window)
        answer = window.answer_view.answer
        cited = [c for c in answer.citations if c.doc.endswith(CITED_DOCUMENT)]
        assert cited, f"the answer cites no page of {CITED_DOCUMENT}: {answer.text!r} ({answer.status.value})"
        settle(app)
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        assert window.grab().save(str(screenshot)), f"could not write {screenshot}"
        window.close()
        return f"{answer.text} ({answer.status.value}; cited {cited[0].source})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="docqa-desktop --selftest", description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=Path, required=True, help="the folder of sample PDFs to index")
    ap.add_argument("--screenshot", type=Path, default=Path("docqa-selftest.png"))
    ap.add_argument("--home", type=Path, help="a home to use (default: a new temporary one, removed after)")
    args = ap.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="docqa-selftest-") as tmp:
        try:
            said = run(args.samples.resolve(), args.screenshot.resolve(), args.home or Path(tmp) / "home")
        except (AssertionError, RuntimeError, TimeoutError) as failed:  # RuntimeError: driving.TaskFailed
            print(f"selftest: FAILED: {failed}", file=sys.stderr)
            return 1
    print(f"selftest: answer: {said}")
    print(f"selftest: screenshot: {args.screenshot.resolve()}")
    print(f"selftest: passed in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
