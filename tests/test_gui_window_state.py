"""The window as the user left it (pytest-qt, offscreen): its size, the panels' widths, the library's columns and
the reasoning trace's split come back at the next start (an ini file beside the home's settings, so a test never
reads the developer's), no panel collapses another however far a splitter is dragged, and the export dialog opens
in the documents folder or the folder last exported to, never the folder the app was started from."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")  # the test extra installs it

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QMouseEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from conftest import make_settings, open_window  # noqa: E402
from docqa_desktop.answers import Answer, AnswerStatus  # noqa: E402
from docqa_desktop.service import Service  # noqa: E402
from docqa_desktop.ui import main_window  # noqa: E402
from docqa_desktop.ui.library_panel import YEAR  # noqa: E402
from docqa_desktop.ui.window_state import STATE_FILE  # noqa: E402

SESSION = Path(__file__).with_name("window_session.py")
BIG_SCREEN = {"screens": [{"name": "big", "x": 0, "y": 0, "width": 1920, "height": 1080, "logicalDpi": 96,
                           "logicalBaseDpi": 96, "dpr": 1}]}



@pytest.fixture
def service(home):
    with Service(make_settings(home, layout=False, dense=False)) as opened:
        yield opened


def _resized(qtbot, window, size: tuple[int, int]) -> None:
    window.resize(*size)
    qtbot.waitUntil(lambda: window.size().toTuple() == size, timeout=10_000)


def _window_session(tmp_path, home, *args: str) -> dict:
    """The app's window opened and closed in a process of its own (tests/window_session.py) on a 1920 × 1080
    offscreen screen: the window fits it at any size the test gives it."""
    screen = tmp_path / "screen.json"
    screen.write_text(json.dumps(BIG_SCREEN))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={screen}"}
    run = subprocess.run([sys.executable, str(SESSION), str(home), *args], env=env, capture_output=True, text=True,
                         timeout=180, cwd=SESSION.parent)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.gui  # the app's window, in processes of its own
def test_a_restarted_app_opens_its_window_as_it_was_left(tmp_path, home):
    first = _window_session(tmp_path, home, "--arrange")
    default, arranged = first["shown"], first["arranged"]
    assert arranged["size"] == [1500, 900] and arranged["size"] != default["size"]
    assert arranged["panels"][0] > default["panels"][0] + 100  # the library was widened
    assert (home / "config" / STATE_FILE).exists()  # beside settings.toml, in the home the app was given

    again = _window_session(tmp_path, home)["shown"]
    assert again["size"] == arranged["size"] and again["position"] == arranged["position"]
    assert again["panels"] == arranged["panels"]
    assert again["status_width"] == arranged["status_width"] == 130
    assert again["sorted_by"] == arranged["sorted_by"] == [YEAR, Qt.SortOrder.DescendingOrder.value]
    rows, output = default["trace"]  # the trace's output has most of its height at first; the reader's split stays
    assert output > rows and again["trace"] == arranged["trace"] and arranged["trace"][0] > arranged["trace"][1]

    other = _window_session(tmp_path, tmp_path / "another-home")["shown"]  # a first start elsewhere: the defaults
    assert other == default


def _drag(handle, by: int) -> None:
    """A mouse drag of a splitter's handle `by` pixels to the right (to the left when negative)."""
    start = QPointF(handle.width() / 2, handle.height() / 2)
    end = start + QPointF(by, 0)
    for kind, at, buttons in ((QEvent.Type.MouseButtonPress, start, Qt.MouseButton.LeftButton),
                              (QEvent.Type.MouseMove, end, Qt.MouseButton.LeftButton),
                              (QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton)):
        event = QMouseEvent(kind, at, handle.mapToGlobal(at), Qt.MouseButton.LeftButton, buttons,
                            Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(handle, event)


def test_widening_a_panel_never_collapses_another(qtbot, service):
    window = open_window(qtbot, service)
    _resized(qtbot, window, (1280, 700))
    panels = window.panels
    left, middle, viewer = (panels.widget(i) for i in range(3))
    _drag(panels.handle(1), 2000)  # the library dragged as wide as it goes
    qtbot.wait(50)
    widths = panels.sizes()
    assert widths[0] > 400  # it did widen
    for widget, width in zip((middle, viewer), widths[1:]):
        assert width >= widget.minimumSizeHint().width() > 0, (widths, widget)  # both kept their controls' room
    assert _inside(window.ask_panel.ask_button, window) and _inside(window.viewer.open_button, window)

    _drag(panels.handle(2), -2000)  # the viewer dragged as wide as it goes, over the middle and the library
    qtbot.wait(50)
    widths = panels.sizes()
    assert widths[0] >= left.minimumSizeHint().width() > 0 and widths[1] >= middle.minimumSizeHint().width()
    assert widths[2] > 400
    window.close()


def _inside(widget, window) -> bool:
    top_left = widget.mapTo(window, QPoint(0, 0))
    return widget.isVisible() and widget.width() > 0 and 0 <= top_left.x() \
        and top_left.x() + widget.width() <= window.width()


def test_the_export_dialog_opens_in_the_documents_folder_then_the_last_one_used(qtbot, service, tmp_path,
                                                                               monkeypatch):
    documents, started_in, exports = tmp_path / "Documents", tmp_path / "started-here", tmp_path / "exports"
    for folder in (documents, started_in, exports):
        folder.mkdir()
    monkeypatch.chdir(started_in)
    monkeypatch.setattr("platformdirs.user_documents_dir", lambda: str(documents))
    asked = []

    def save_dialog(parent, title, start, filters):
        asked.append(start)
        return (str(exports / "hours.md"), "MD (*.md)") if exports.exists() else ("", "")  # "": cancelled

    monkeypatch.setattr(main_window.QFileDialog, "getSaveFileName", save_dialog)
    answer = Answer(id="a1", question="When does the reading room open?", method="quoted",
                    text="At 09:30 on weekdays.", status=AnswerStatus.ANSWERED)
    window = open_window(qtbot, service)
    window.answer_view.answer = answer
    window.choose_export()
    assert asked == [str(documents / "when-does-the-reading-room-open.md")]  # named after the question
    qtbot.waitUntil(lambda: (exports / "hours.md").exists(), timeout=30_000)
    window.choose_export()
    assert asked[-1] == str(exports / "when-does-the-reading-room-open.md")  # where the last export went
    window.close()

    again = open_window(qtbot, service)  # remembered at the next start
    again.answer_view.answer = answer
    again.choose_export(whole_thread=True)
    assert asked[-1] == str(exports / "thread-when-does-the-reading-room-open.md")
    (exports / "hours.md").unlink()
    exports.rmdir()  # the folder was since removed: the documents folder again
    again.choose_export()
    assert asked[-1] == str(documents / "when-does-the-reading-room-open.md")
    again.close()



SHORTCUT_SESSION = """
import sys
from PySide6.QtTest import QTest
from docqa_desktop.service import Service
from docqa_desktop.settings import Settings
from docqa_desktop.ui import main_window
from docqa_desktop.ui.app import make_app, open_main_window

exported = []
main_window.MainWindow.choose_export = lambda self, whole_thread=False: exported.append(whole_thread)
app = make_app([])
with Service(Settings.load(sys.argv[1])) as service:
    window = open_main_window(service)
    window.activateWindow()
    QTest.qWaitForWindowActive(window, 10000)
    question = window.ask_panel.question
    question.setFocus()
    QTest.keyClicks(question, "net revenue")
    for shortcut in (window.export_action.shortcut(), window.export_thread_action.shortcut()):
        QTest.keyClick(question, shortcut[0].key(), shortcut[0].keyboardModifiers())
        app.processEvents()
    answer_text = window.answer_view.text  # the answer being read: the other place an export starts from
    answer_text.setFocus()
    app.processEvents()
    shortcut = window.export_action.shortcut()
    QTest.keyClick(answer_text, shortcut[0].key(), shortcut[0].keyboardModifiers())
    app.processEvents()
    print(exported, repr(question.text()))
    window.close()
"""


@pytest.mark.gui
def test_the_export_shortcuts_work_while_typing_a_question(tmp_path):
    """The question box has the keyboard while the user works: on X11 a text field keeps Ctrl+E (end of line) for
    itself, so an export shortcut must not be one it takes; Ctrl+S works from the answer being read too. Run on the X11 platform (Xvfb): the offscreen one has
    no such key bindings."""
    assert shutil.which("xvfb-run"), "no xvfb-run: packaging/setup.sh test installs it as root (apt-get install xvfb)"
    done = subprocess.run(["xvfb-run", "-a", sys.executable, "-c", SHORTCUT_SESSION, str(tmp_path / "home")],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "QT_QPA_PLATFORM": "xcb"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "[False, True, False] 'net revenue'"
