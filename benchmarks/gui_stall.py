"""How long the desktop app's GUI thread stalls while the app indexes the corpus (target <= 50 ms).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/gui_stall.py [--corpus DIR] [--full] [--runs N]

Opens the main window on a fresh temporary home, adds a folder of symlinks to the corpus PDFs and
measures, with a 5 ms timer on the GUI thread, how late each tick arrives until the library is up to
date. Text-only indexing by default (the stage that writes most often); --full runs OCR, layout and
embeddings too. Writes benchmarks/results/gui_stall.json.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402


def index_in_window(app, corpus: Path) -> dict:
    """One run on a fresh home: the window opened as `docqa gui` opens it, the corpus added, the Qt event
    loop running (as in the app) until the library is up to date."""
    from PySide6.QtCore import QEventLoop, QTimer

    from docqa_desktop.service import Service
    from docqa_desktop.settings import Settings
    from docqa_desktop.ui.app import open_main_window
    from docqa_desktop.ui.stall_meter import StallMeter

    with tempfile.TemporaryDirectory() as tmp:
        folder = _common.link_folder(Path(tmp) / "corpus", sorted(corpus.glob("*.pdf")))
        with Service(Settings.load(Path(tmp) / "home")) as service:
            window = open_main_window(service)
            meter = StallMeter(label=window.status_text.text)
            loop = QEventLoop()
            check = QTimer()
            check.timeout.connect(lambda: "Library up to date" in window.status_text.text() and loop.quit())
            check.start(50)
            QTimer.singleShot(3_600_000, loop.quit)  # give up after an hour
            meter.start()
            started = time.perf_counter()
            window.add_paths([str(folder)])
            loop.exec()
            meter.stop()
            seconds = time.perf_counter() - started
            done = "Library up to date" in window.status_text.text()
            window.close()
    if not done:
        raise SystemExit("indexing did not finish within an hour")
    return {"indexing_seconds": round(seconds, 1), **meter.summary()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=_common.CORPUS)
    ap.add_argument("--full", action="store_true", help="OCR, layout and embeddings too")
    ap.add_argument("--runs", type=int, default=3, help="independent runs (stalls vary from run to run)")
    ap.add_argument("--out")
    args = ap.parse_args()
    if not args.full:
        os.environ.update({"DOCQA_INDEX_OCR": "0", "DOCQA_INDEX_LAYOUT": "0", "DOCQA_INDEX_DENSE": "0"})
    from docqa_desktop.ui.app import make_app

    app = make_app([])
    runs = []
    for n in range(args.runs):
        runs.append(index_in_window(app, args.corpus))
        print(f"run {n + 1}: {runs[-1]}", flush=True)
    result = {"environment": _common.environment(), "pdfs": len(list(args.corpus.glob("*.pdf"))),
              "config": "full" if args.full else "text_only", "target_ms": 50,
              "longest_stall_ms": max(r["longest_stall_ms"] for r in runs),
              "runs_meeting_target": sum(r["longest_stall_ms"] <= 50 for r in runs), "runs": runs}
    path = _common.write_json(result, args.out, "gui_stall.json")
    print(f"longest stall {result['longest_stall_ms']} ms; {result['runs_meeting_target']}/{len(runs)} runs within "
          f"50 ms; written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
