"""The desktop app driven as a user would, in its own process (for tests that watch a whole process):
open the window offscreen, add a folder and wait until it is indexed, ask a question and wait for the
answer, close. Prints the answer's status and exits 0; exits 1 with a reason on stderr if a step times out.

    python tests/app_session.py HOME FOLDER QUESTION [METHOD]
"""
from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def wait_until(app, condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            sys.exit(f"app session: timed out waiting for {what}")
        app.processEvents()
        time.sleep(0.05)


def main(home: str, folder: str, question: str, method: str = "m3docrag") -> int:
    from docqa_desktop.service import Service
    from docqa_desktop.settings import Settings
    from docqa_desktop.ui.app import make_app, open_main_window

    app = make_app([])
    with Service(Settings.load(home)) as service:
        window = open_main_window(service, offer_models=True)  # as `docqa gui` opens it: first-run panel too
        window.add_paths([folder])
        wait_until(app, lambda: "Library up to date" in window.status_text.text(), 600, "indexing")
        window.ask_panel.question.setText(question)
        window.ask_panel.method.setCurrentText(method)
        window.ask_panel.ask_button.click()
        wait_until(app, lambda: window.answer_view.answer is not None, 600, "the answer")
        print(window.answer_view.answer.status.value, flush=True)
        window.close()
        app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
