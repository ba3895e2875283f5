"""The answer view follows the question (pytest-qt, offscreen): a new question clears the previous answer at once and
shows itself with its progress while the method runs, a failed one says why under itself; and the library panel's
stage lines say what the running method does (SimpleDoc writing page summaries for this question)."""
from __future__ import annotations

import re
import threading

import pytest

pytest.importorskip("pytestqt")  # the test extra installs it

from scripted_model import FixedRuntimes, ScriptedModel, reasoning  # noqa: E402
from docqa_desktop.llm import ModelInfo  # noqa: E402

FIRST = "English is the pivot language between the source and the target."
SECOND = "It has the most parallel data of any language."
HELD_AT = 3  # the page summary a held model waits in: two are written by then
SUMMARIES_NOW = re.compile(r"^Summaries: SimpleDoc is writing them for this question \(2 / (\d+) pages\)$", re.M)
SUMMARIES_OFF = re.compile(r"^Summaries: not needed by the current method \(.*\)$", re.M)  # none written yet
SUMMARIES_KEPT = re.compile(r"^Summaries: not needed by the current method \(.*\) — (\d+) / \d+ pages done$", re.M)


class HeldModel(ScriptedModel):
    """A scripted model, named `name` (page summaries are kept per model: a new name writes them again), that holds
    its HELD_AT-th page summary until `release` is set, so that a test can look at the window while the question
    runs; with `fails`, that call raises it instead of answering."""

    def __init__(self, name: str, reason: list, fails: Exception | None = None):
        super().__init__(reason)
        self.info = ModelInfo(name, "local", 8192, False)
        self.held, self.release, self.fails = threading.Event(), threading.Event(), fails

    def chat(self, messages, options, cancel=None):
        completion = super().chat(messages, options, cancel)
        if sum(kind == "summary" for kind, _ in self.prompts) == HELD_AT and not self.held.is_set():
            self.held.set()
            self.release.wait(60)
            if self.fails is not None:
                raise self.fails
        return completion


def _index(window, qtbot, folder) -> None:
    window.add_paths([str(folder)])
    qtbot.waitUntil(lambda: "Library up to date" in window.status_text.text(), timeout=180_000)


def _ask_held(window, qtbot, question: str, model: HeldModel) -> None:
    """Ask `question` with SimpleDoc picked by name, and wait until the model holds its page summary."""
    window.service.resources.use_runtimes(FixedRuntimes(model))
    window.ask_panel.method.setCurrentText("simpledoc")
    qtbot.waitUntil(window.ask_panel.ask_button.isEnabled, timeout=60_000)  # the previous question has ended
    window.ask_panel.question.setText(question)
    window.ask_panel.ask_button.click()
    qtbot.waitUntil(model.held.is_set, timeout=60_000)


def _answer_of(window, qtbot, model: HeldModel):
    model.release.set()
    qtbot.waitUntil(lambda: window.answer_view.answer is not None, timeout=60_000)
    return window.answer_view.answer


def _shown(window) -> str:
    return window.answer_view.text.toPlainText()


def test_a_new_question_replaces_the_answer_at_once_and_shows_its_progress(window, qtbot, paper):
    _index(window, qtbot, paper)
    first_model = HeldModel("first", [reasoning("answer", FIRST, [{"page": 1, "quote": "pivot"}])])
    _ask_held(window, qtbot, "Which languages are used as pivot?", first_model)
    first = _answer_of(window, qtbot, first_model)
    assert first.status.value == "answered" and FIRST in _shown(window)
    assert window.answer_view.pages.isVisible()

    # a new thread: nothing of the previous answer is left on screen while the method runs
    window.ask_panel.follow_up.setChecked(False)
    second_model = HeldModel("second", [reasoning("answer", SECOND, [{"page": 1, "quote": "English"}])])
    _ask_held(window, qtbot, "Why was English chosen?", second_model)
    qtbot.waitUntil(lambda: "Writing page summaries 3/" in _shown(window), timeout=10_000)
    lines = _shown(window).splitlines()
    assert lines[0] == "Why was English chosen?" and lines[1].startswith("Writing page summaries 3/")
    assert FIRST not in _shown(window) and "Which languages" not in _shown(window)
    assert window.answer_view.answer is None  # nothing to cite, copy or export until the answer comes
    assert window.viewer.box is None  # the first answer's cited region is not shown as this question's
    qtbot.waitUntil(lambda: "new question" in window.viewer.title.text(), timeout=10_000)
    assert not window.answer_view.pages.isVisible() and not window.answer_view.trace_toggle.isVisible()
    second = _answer_of(window, qtbot, second_model)
    assert second.status.value == "answered" and SECOND in _shown(window)
    assert "Writing page summaries" not in _shown(window)


def test_a_follow_up_shows_under_the_thread_with_its_progress_and_a_failure_under_itself(window, qtbot, paper):
    _index(window, qtbot, paper)
    first_model = HeldModel("first", [reasoning("answer", FIRST, [{"page": 1, "quote": "pivot"}])])
    _ask_held(window, qtbot, "Which languages are used as pivot?", first_model)
    _answer_of(window, qtbot, first_model)

    # a follow-up (checked after an answer): the earlier turn stays above, the new question and its step last
    assert window.ask_panel.follow_up.isChecked()
    failing = HeldModel("second", [], fails=OSError("the model file went away"))
    _ask_held(window, qtbot, "Why was it chosen?", failing)
    qtbot.waitUntil(lambda: "Writing page summaries 3/" in _shown(window), timeout=10_000)
    lines = _shown(window).splitlines()
    assert lines[-2] == "Why was it chosen?" and lines[-1].startswith("Writing page summaries 3/")
    assert FIRST in _shown(window) and _shown(window).index(FIRST) < _shown(window).index("Why was it chosen?")

    # it fails: the reason under the question, not the thread's last answer in its place
    failing.release.set()
    qtbot.waitUntil(lambda: "the model file went away" in _shown(window), timeout=60_000)
    assert _shown(window).splitlines()[-2:] == ["Why was it chosen?", "ask: the model file went away"]
    assert window.answer_view.answer is None and [a.question for a in window.thread] == [
        "Which languages are used as pivot?"]  # the thread is as it was: a next question follows it up


def test_the_summaries_line_says_simpledoc_is_writing_them_for_the_question(window, qtbot, paper):
    """The default method (the cascade) needs no summaries; SimpleDoc, picked by name, writes them for its
    question, and the library panel says so while it does, with the pages written of those it needs."""
    _index(window, qtbot, paper)
    stages = window.library.stages
    qtbot.waitUntil(lambda: SUMMARIES_OFF.search(stages.text()) is not None, timeout=30_000)
    model = HeldModel("summariser", [reasoning("answer", FIRST, [{"page": 1, "quote": "pivot"}])])
    _ask_held(window, qtbot, "Which languages are used as pivot?", model)
    qtbot.waitUntil(lambda: SUMMARIES_NOW.search(stages.text()) is not None, timeout=30_000)
    assert "not needed" not in stages.text()
    needed = int(SUMMARIES_NOW.search(stages.text()).group(1))  # the pages the question brought up
    answer = _answer_of(window, qtbot, model)
    assert needed == len(answer.stage_pages["candidates"])
    # the question is answered: the line is the library's again, the summaries written for it counted as done
    qtbot.waitUntil(lambda: SUMMARIES_KEPT.search(stages.text()) is not None, timeout=30_000)
    assert int(SUMMARIES_KEPT.search(stages.text()).group(1)) == needed


def test_the_summaries_line_follows_prepare_documents_too(window, qtbot, paper):
    """Tools → Prepare documents for SimpleDoc writes the library's page summaries ahead of questions: the library
    panel says so while it does, with the pages written, and counts them when it ends."""
    _index(window, qtbot, paper)
    stages = window.library.stages
    qtbot.waitUntil(lambda: SUMMARIES_OFF.search(stages.text()) is not None, timeout=30_000)
    model = HeldModel("preparer", [])
    window.service.resources.use_runtimes(FixedRuntimes(model))
    window.ask_panel.method.setCurrentText("simpledoc")
    window.prepare_documents()
    qtbot.waitUntil(model.held.is_set, timeout=60_000)
    ahead = re.compile(r"^Summaries: SimpleDoc is writing them ahead of questions \(2 / 8 pages\)$", re.M)
    qtbot.waitUntil(lambda: ahead.search(stages.text()) is not None, timeout=30_000)  # the paper's 8 pages
    model.release.set()
    qtbot.waitUntil(lambda: "page summaries prepared" in window.status_text.text(), timeout=60_000)
    qtbot.waitUntil(lambda: SUMMARIES_KEPT.search(stages.text()) is not None, timeout=30_000)
    assert int(SUMMARIES_KEPT.search(stages.text()).group(1)) == 8
