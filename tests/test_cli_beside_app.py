"""The command line beside the open app (issue 46): the real app in its own process (offscreen), real `docqa`
processes beside it. Their commands are served by the app over its local socket and print what they print with
the app closed; an app that dies leaves the command line working on its own."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import fitz
import pytest

from conftest import SAMPLES
from docqa_desktop.cli.app_link import KEY_FILE
from docqa_desktop.host import command_address
from docqa_desktop.settings import Settings
from docqa_desktop.ui.window_state import STATE_FILE

pytestmark = [pytest.mark.gui, pytest.mark.slow]

QUESTION = "When does the last ferry to Gull Island leave?"
VARYING = ("id", "thread", "seconds")  # an answer's id (a new thread's id too) and time differ between two askings
APP_START_SECONDS = 120


def docqa(home: Path, *argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "docqa_desktop", *argv, "--home", str(home)], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def answer_json(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr
    answer = {k: v for k, v in json.loads(result.stdout).items() if k not in VARYING}
    if "proof" in answer:  # "quoted; 0.8 s": the check's time too
        answer["proof"]["check"] = re.sub(r"; [\d.]+ s$", "", answer["proof"]["check"])
    return answer


def the_commands(home: Path) -> dict[str, object]:
    """What the test compares between the app closed and open: status, search and an answer, as JSON."""
    status, search = docqa(home, "status", "--json"), docqa(home, "search", "last ferry Gull Island", "--json")
    assert status.returncode == 0 and search.returncode == 0, status.stderr + search.stderr
    return {"status": json.loads(status.stdout), "search": json.loads(search.stdout),
            "ask": answer_json(docqa(home, "ask", QUESTION, "--json"))}


@pytest.fixture
def app(tmp_path):
    """`docqa gui` on a home whose library holds the two samples; stopped with SIGKILL, as a crash would."""
    home, samples = tmp_path / "home", tmp_path / "samples"
    shutil.copytree(SAMPLES, samples)
    indexed = docqa(home, "index", str(samples))
    assert indexed.returncode == 0, indexed.stderr
    yield home, lambda: subprocess.Popen([sys.executable, "-m", "docqa_desktop", "gui", "--home", str(home)],
                                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_for_listener(home: Path, process: subprocess.Popen) -> None:
    socket = Path(command_address(Settings.load(home).locations.data_dir)[0])
    deadline = time.monotonic() + APP_START_SECONDS
    while not socket.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the app did not start listening: {process.communicate()[0][-3000:]}")
        time.sleep(0.2)


def one_page_pdf(path: Path, text: str) -> None:
    doc = fitz.open()
    doc.new_page().insert_text((72, 96), text, fontsize=12)
    doc.save(path)


def test_docqa_commands_run_in_the_open_app_as_they_do_without_it(app, tmp_path):
    home, start_app = app
    closed = the_commands(home)

    process = start_app()
    try:
        wait_for_listener(home, process)
        opened = the_commands(home)
        assert opened == closed  # the same status, pages and answer, whoever opened the database

        # a path is the user's: relative to where the command is typed, not to the app's working folder
        folder = tmp_path / "new"
        folder.mkdir()
        one_page_pdf(folder / "minutes.pdf", "Minutes of the harbour board: the pier reopens on 3 May 2027.")
        indexed = docqa(home, "index", "minutes.pdf", "--json", cwd=folder)
        assert indexed.returncode == 0, indexed.stderr
        assert json.loads(indexed.stdout)["added"] == 1
        status = json.loads(docqa(home, "status", "--json").stdout)
        assert {d["path"] for d in status["documents"]} == {d["path"] for d in closed["status"]["documents"]} | {
            str(folder / "minutes.pdf")}

        # the commands that need the database file to themselves say so, as for a database in use
        watch = docqa(home, "watch", str(folder))
        assert watch.returncode == 2 and "has this library open" in watch.stderr
    finally:
        process.send_signal(signal.SIGKILL)  # as a crash: the socket and key stay behind
        process.wait(timeout=60)

    after = docqa(home, "status", "--json")
    assert after.returncode == 0, after.stderr  # the stale socket is not mistaken for an open app
    assert len(json.loads(after.stdout)["documents"]) == len(closed["status"]["documents"]) + 1


def test_the_window_shows_a_command_it_runs_for_the_command_line_and_then_what_it_changed(window, qtbot, home,
                                                                                           tmp_path, monkeypatch):
    from docqa_desktop.cli.app import _command_server
    from docqa_desktop.ui.served_commands import ServedCommands

    for name in ("stdin", "stdout", "stderr"):  # serving routes them: put back after the test
        monkeypatch.setattr(sys, name, getattr(sys, name))
    events = ServedCommands()
    events.connect_to(window)
    server = _command_server(window.service, events)
    folder = tmp_path / "new"
    folder.mkdir()
    one_page_pdf(folder / "minutes.pdf", "Minutes of the harbour board: the pier reopens on 3 May 2027.")
    client = subprocess.Popen([sys.executable, "-m", "docqa_desktop", "index", "minutes.pdf", "--home", str(home)],
                              cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        qtbot.waitUntil(lambda: window.commands_label.isVisible(), timeout=60_000)
        assert window.commands_label.text() == "Command line: docqa index minutes.pdf running"  # no --home
        assert window.command_stages.isActive()  # the stage lines follow the command while it runs
        qtbot.waitUntil(lambda: client.poll() is not None, timeout=300_000)
        assert client.returncode == 0, client.stderr.read()
        qtbot.waitUntil(lambda: not window.commands_label.isVisible(), timeout=10_000)
        assert not window.command_stages.isActive()
        assert "docqa index minutes.pdf" in window.status_text.text()
        qtbot.waitUntil(lambda: window.library.tree.topLevelItemCount() > 0, timeout=30_000)  # the list re-read
    finally:
        client.kill()
        server.close()


def test_sigterm_closes_the_app_as_quit_does(app):
    """A logout (SIGTERM) closes the window properly: exit 0, its layout saved, its key taken back (a later docqa
    process is not sent to a listener that is gone)."""
    home, start_app = app
    process = start_app()
    wait_for_listener(home, process)
    locations = Settings.load(home).locations
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=120) == 0, process.communicate()[0][-3000:]
    assert not (locations.data_dir / KEY_FILE).exists()
    assert (locations.config_dir / STATE_FILE).exists()
