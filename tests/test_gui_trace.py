"""The reasoning trace reads (issue 56, item 7): on a laptop-sized window the model's output is shown whole below the
calls' rows, wrapped at the panel's full width — at least 60 characters a line, where the Output column beside
five others left it a third of that — and choosing another row shows that call's output."""
from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")  # the test extra installs it

from docqa_desktop.answers import Answer, AnswerStatus, LlmCall  # noqa: E402

LAPTOP = (1280, 700)
SELECTED = '{"document_summary": "Firearm checks by state in 2019, by kind of check", "selected_pages": [1, 2]}'
REASONED = ('{"type": "answer", "answer": "Texas had 63,598 handgun checks in 2019, according to the table row for '
            'Texas under the Handgun column; the Permit column (3,056) counts permits, not checks, and the Long gun '
            'column (78,327) rifles and shotguns.", "citations": [{"page": 1, "quote": "Texas 63,598"}]}')


def test_the_trace_shows_the_models_output_whole_at_a_readable_width(window, qtbot):
    window.resize(*LAPTOP)
    qtbot.waitUntil(lambda: window.size().toTuple() == LAPTOP, timeout=10_000)
    calls = [LlmCall("select pages", "qwen2.5-1.5b-instruct", 812, 40, 3.2, ["checks.pdf p.1"], SELECTED),
             LlmCall("reason 1", "qwen2.5-1.5b-instruct", 2400, 120, 21.4, ["checks.pdf p.1"], REASONED)]
    window.show_answer(Answer("t1", "How many handgun checks were there in Texas?", "simpledoc", "63,598",
                              AnswerStatus.ANSWERED, calls=calls, notes=["proof: 63,598 is in the cited cell"]))
    view = window.answer_view
    view.trace_toggle.click()
    panel, output = view.trace_panel, view.trace_panel.output
    qtbot.waitUntil(lambda: panel.isVisible() and output.viewport().width() > 100, timeout=10_000)

    assert output.toPlainText() == REASONED  # the answering call's output, whole (the row holds 200 characters)
    characters = output.viewport().width() / output.fontMetrics().averageCharWidth()
    column = view.trace.columnWidth(5) / view.trace.fontMetrics().averageCharWidth()
    assert characters >= 60 and characters > 2 * column, (characters, column)
    assert output.horizontalScrollBar().maximum() == 0  # wrapped: nothing to scroll sideways for
    assert output.verticalScrollBar().maximum() == 0 or output.height() >= 3 * output.fontMetrics().lineSpacing()

    view.trace.setCurrentItem(view.trace.topLevelItem(1))  # the page selection's call
    assert output.toPlainText() == SELECTED
    assert window.minimumSizeHint().width() <= LAPTOP[0]
