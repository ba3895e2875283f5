"""Screenshots of the desktop app's main states, for the README, taken from the real app under Xvfb.

    xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python docs/screenshots.py

On the most common laptop screen (1366 x 768: the window takes the size it takes there), opens the main window on
a fresh temporary home with the built-in models, captures the first-run panel (this machine's recommended model,
each model's licence), adds resources/samples, captures the window while it indexes, asks a question with the default method (quoted answers, while only
the built-in models are installed), asks one a table's cell answers (the cell's box highlighted), one the learned reader is not sure of (the likeliest
value above the passages), asks the first again with M3DocRAG forced on the built-in 135M model (an unverified
draft: what a new user gets from a model method), opens the Models dialog and the About dialog (licences), and repeats the quoted answer in the
dark colour scheme. Writes docs/screenshot-*.png.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
QUESTION = "When was the installation commissioned?"
TABLE_QUESTION = "According to the quarterly table, what was the output in Q3, in MWh?"  # a cell read as a table
# the learned reader not sure enough: the closest passages, led by the likeliest value and how likely it is
LIKELIEST_QUESTION = "How many households does the cooperative supply?"
FORCED = "m3docrag"  # one model call: the quickest model method on the built-in model
# a small answering budget so the built-in model finishes in seconds on two cores
BUDGET = {"DOCQA_ASK_K": "3", "DOCQA_ASK_MAX_PAGES": "2", "DOCQA_ASK_PAGE_TOKENS": "300",
          "DOCQA_ASK_SUMMARY_TOKENS": "40", "DOCQA_ASK_ITERATIONS": "1"}


def main() -> int:
    os.environ.update(BUDGET)
    from PySide6.QtCore import Qt

    from docqa_desktop.service import Service
    from docqa_desktop.settings import Settings
    from docqa_desktop.ui.app import apply_theme, make_app
    from docqa_desktop.ui.driving import ask, settle, wait_until
    from docqa_desktop.ui.library_panel import STATUS
    from docqa_desktop.ui.main_window import MainWindow

    app = make_app([])
    out = ROOT / "docs"

    def shot(widget, name: str, pause: float = 0.6) -> None:
        settle(app, pause)
        widget.grab().save(str(out / f"screenshot-{name}.png"))
        print("wrote", out / f"screenshot-{name}.png")

    with tempfile.TemporaryDirectory() as tmp, Service(Settings.load(Path(tmp) / "home")) as service:
        window = MainWindow(service)
        window.show()
        panel = window.open_first_run()
        wait_until(app, lambda: "Recommended here" in panel.hardware.text(), 60, "the recommendation")
        shot(panel, "first-run")  # the hardware and the models are read on a worker thread
        panel.close()

        window.add_paths([str(ROOT / "resources" / "samples")])
        tree = window.library.tree
        wait_until(app, lambda: window.status_text.text().startswith("Indexing ") and tree.topLevelItemCount() > 0
                   and any("indexing" in tree.topLevelItem(0).child(i).text(STATUS)
                           for i in range(tree.topLevelItem(0).childCount())), 120, "a document being indexed")
        shot(window, "indexing", pause=0.05)  # the samples index in seconds
        wait_until(app, lambda: "Library up to date" in window.status_text.text(), 600, "the library")

        window.ask_panel.question.setText(QUESTION)
        ask(app, window, "")  # the default method
        window.answer_view.trace_toggle.setChecked(True)
        shot(window, "answer")
        window.ask_panel.question.setText(TABLE_QUESTION)
        ask(app, window, "")
        shot(window, "table")
        window.ask_panel.question.setText(LIKELIEST_QUESTION)
        ask(app, window, "")
        shot(window, "likeliest")
        window.ask_panel.question.setText(QUESTION)
        ask(app, window, FORCED)
        shot(window, "draft")
        ask(app, window, "")

        dialog = window.open_models()
        settle(app, 2)
        shot(dialog, "models")
        dialog.close()
        about = window.open_about()
        wait_until(app, lambda: about.models.rowCount() > 0, 60, "the installed models")
        shot(about, "about")
        about.close()

        apply_theme(app, Qt.ColorScheme.Dark)  # what a dark system scheme switches to
        shot(window, "dark")
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
