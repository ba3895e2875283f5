"""Time to the first visible answer text in the desktop app, per method, on the built-in models.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/first_text.py [--runs N] [--method M ...]

Opens the main window on a fresh temporary home with the sample PDFs indexed, asks the ferry question with each
method and measures, on the GUI thread, the time from pressing Ask to the first text of the answer in the window
(a streamed piece, or the whole answer for a method that does not stream) and to the finished answer. Writes
benchmarks/results/first_text.json.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

QUESTION = "When does the last ferry to Gull Island leave?"
SAMPLES = _common.REPO / "resources" / "samples"


def ask_in_window(window, method: str) -> dict:
    from PySide6.QtCore import QEventLoop, QTimer

    loop, marks = QEventLoop(), {}
    view = window.answer_view
    show_partial, show_answer = view.show_partial, view.show_answer

    def partial(*args):
        marks.setdefault("first_text", time.perf_counter())
        marks["pieces"] = marks.get("pieces", 0) + 1
        show_partial(*args)

    def answer(*args):
        marks.setdefault("first_text", time.perf_counter())
        marks["answer"] = time.perf_counter()
        show_answer(*args)
        loop.quit()

    view.show_partial, view.show_answer = partial, answer
    window.new_thread()
    window.ask_panel.method.setCurrentText(method)
    window.ask_panel.question.setText(QUESTION)
    QTimer.singleShot(1_800_000, loop.quit)
    started = time.perf_counter()
    window.ask_panel.ask_button.click()
    loop.exec()
    view.show_partial, view.show_answer = show_partial, show_answer
    shown = view.answer
    return {"method": method, "first_text_s": round(marks["first_text"] - started, 2),
            "answer_s": round(marks["answer"] - started, 2), "streamed_pieces": marks.get("pieces", 0),
            "status": shown.status.value, "answer": shown.text[:200], "models": shown.models}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", action="append", help="default: quoted, m3docrag, simpledoc")
    ap.add_argument("--runs", type=int, default=2, help="questions per method (the first loads the model)")
    ap.add_argument("--out")
    args = ap.parse_args()
    from PySide6.QtCore import QEventLoop, QTimer

    from docqa_desktop.service import Service
    from docqa_desktop.settings import Settings
    from docqa_desktop.ui.app import make_app, open_main_window

    app = make_app([])
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        with Service(Settings.load(home)) as indexer:
            indexer.library.index([str(SAMPLES)])
        with Service(Settings.load(home)) as service:
            window = open_main_window(service)
            loop = QEventLoop()  # let the window read the library and settle before the first question
            QTimer.singleShot(3000, loop.quit)
            loop.exec()
            for method in args.method or ["quoted", "m3docrag", "simpledoc"]:
                for n in range(args.runs):
                    runs.append({**ask_in_window(window, method), "run": n + 1})
                    print(runs[-1], flush=True)
            window.close()
    result = {"environment": _common.environment(), "question": QUESTION, "runs": runs}
    path = _common.write_json(result, args.out, "first_text.json")
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
