"""How long the desktop app's GUI thread stalls while the app indexes the corpus (target <= 50 ms).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/gui_stall.py [--corpus DIR] [--full]

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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=_common.CORPUS)
    ap.add_argument("--full", action="store_true", help="OCR, layout and embeddings too")
    ap.add_argument("--out")
    args = ap.parse_args()
    if not args.full:
        os.environ.update({"DOCQA_INDEX_OCR": "0", "DOCQA_INDEX_LAYOUT": "0", "DOCQA_INDEX_DENSE": "0"})
    from docqa_desktop.service import Service
    from docqa_desktop.settings import Settings
    from docqa_desktop.ui.app import make_app
    from docqa_desktop.ui.main_window import MainWindow
    from docqa_desktop.ui.stall_meter import StallMeter

    app = make_app([])
    with tempfile.TemporaryDirectory() as tmp:
        folder = _common.link_folder(Path(tmp) / "corpus", sorted(args.corpus.glob("*.pdf")))
        with Service(Settings.load(Path(tmp) / "home")) as service:
            window = MainWindow(service)
            window.show()
            meter = StallMeter(label=window.status_text.text)
            meter.start()
            started = time.perf_counter()
            window.add_paths([str(folder)])
            while "Library up to date" not in window.status_text.text():
                app.processEvents()
                time.sleep(0.001)
                if time.perf_counter() - started > 3600:
                    raise SystemExit("indexing did not finish within an hour")
            meter.stop()
            seconds = time.perf_counter() - started
            window.close()
    result = {"environment": _common.environment(), "pdfs": len(list(args.corpus.glob("*.pdf"))),
              "config": "full" if args.full else "text_only", "indexing_seconds": round(seconds, 1),
              "target_ms": 50, **meter.summary()}
    path = _common.write_json(result, args.out, "gui_stall.json")
    print(result, f"\nwritten to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
