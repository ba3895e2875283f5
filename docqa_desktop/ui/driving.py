"""Driving the real main window from a script, as a person would: wait for a state, ask, let paint settle.
Used by the packaged app's self-test (ui/selftest.py) and docs/screenshots.py."""
from __future__ import annotations

import logging
import time


class TaskFailed(RuntimeError):
    pass


class TaskFailures(logging.Handler):
    """The app's task failures as ui/tasks.py logs them, so that a script stops at the first one instead of
    waiting out its timeout for a state that will not come."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("task "):
            self.messages.append(record.getMessage().splitlines()[0])


FAILURES = TaskFailures()
logging.getLogger("docqa_desktop.ui.tasks").addHandler(FAILURES)


def wait_until(app, condition, timeout: float, what: str) -> None:
    """Runs the event loop until `condition()` holds; TaskFailed at the app's first task failure, TimeoutError
    naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if FAILURES.messages:
            raise TaskFailed(f"{FAILURES.messages[0]} (while waiting for {what})")
        app.processEvents()
        time.sleep(0.01)
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")


def settle(app, seconds: float = 0.6) -> None:
    end = time.monotonic() + seconds
    wait_until(app, lambda: time.monotonic() > end, seconds + 1, "a pause")


def index_folder(app, window, folder: str, timeout: float = 600) -> None:
    """Adds `folder` to the library and waits until the library is up to date."""
    window.add_paths([folder])
    wait_until(app, lambda: window.status_text.text().startswith("Indexing "), 120, "indexing to start")
    wait_until(app, lambda: "Library up to date" in window.status_text.text(), timeout, "the library")


def ask(app, window, method: str = "", timeout: float = 600) -> None:
    """Asks the question in the box with `method` ("" the default, listed first) and waits for the cited page."""
    previous = window.answer_view.answer
    window.ask_panel.follow_up.setChecked(False)  # each question alone, not as a follow-up
    window.ask_panel.method.setCurrentIndex(window.ask_panel.method.findText(method) if method else 0)
    window.ask_panel.ask_button.click()
    wait_until(app, lambda: window.answer_view.answer not in (None, previous), timeout, "the answer")
    pages = window.answer_view.pages
    wait_until(app, lambda: "rendering" not in window.viewer.title.text()
               and all(not pages.item(i).icon().isNull() for i in range(pages.count())), 60, "the page")
