"""The channel between a `docqa` process and the open app (cli/app_link.py, cli/console.py): a command served in
this process (standing in for the app) with a `run` function the test writes, a real `docqa`-side client in a
child process. tests/test_cli_beside_app.py runs the real app and the real commands."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test starts a `docqa`-side client process (2-5 s on 2 busy cores)

from docqa_desktop.cli.app_link import KEY_FILE, CommandServer, forward, shown_command
from docqa_desktop.cli.console import cancel_on_sigint, local_path
from docqa_desktop.host import command_address

CLIENT = ("import sys\n"
          "from docqa_desktop.cli.app_link import forward\n"
          "code = forward(sys.argv[2:], sys.argv[1])\n"
          "sys.exit(99 if code is None else code)\n")
NO_APP = 99


class Events:
    def __init__(self):
        self.seen: list[tuple] = []
        self.ended = threading.Event()

    def command_started(self, command):
        self.seen.append(("started", command))

    def command_ended(self, command, code):
        self.seen.append(("ended", command, code))
        self.ended.set()

    def bring_forward(self, paths):
        self.seen.append(("forward", paths))


@pytest.fixture
def routed(monkeypatch):
    """The standard streams put back after the test (serving a command replaces them with routers)."""
    for name in ("stdin", "stdout", "stderr"):
        monkeypatch.setattr(sys, name, getattr(sys, name))


@pytest.fixture
def serve(tmp_path, routed):
    servers = []

    def start(run) -> tuple[Path, Events]:
        data = tmp_path / "data"
        events = Events()
        servers.append(CommandServer(data, run, events))
        return data, events

    yield start
    for server in servers:
        server.close()


def client(data: Path, *argv: str, cwd: Path | None = None, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CLIENT, str(data), *argv], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen)


def test_output_error_output_and_exit_code_come_back_and_the_app_is_told(serve):
    def run(argv):
        print("answer to", " ".join(argv))
        print("a warning", file=sys.stderr)
        return 3

    data, events = serve(run)
    out, err = client(data, "ask", "what?").communicate(timeout=60)
    assert (out, err) == ("answer to ask what?\n", "a warning\n")
    assert events.ended.wait(10)
    assert events.seen == [("started", "docqa ask what?"), ("ended", "docqa ask what?", 3)]


def test_the_app_shows_a_command_as_typed_without_the_library_it_already_is():
    assert shown_command(["ask", "What was the revenue in 2023?", "--home", "/data/lib", "--json"]) == \
        "docqa ask 'What was the revenue in 2023?' --json"
    assert shown_command(["--home=/data/lib", "status"]) == "docqa status"
    assert shown_command(["ask", "What's Best Buy's revenue?"]) == 'docqa ask "What\'s Best Buy\'s revenue?"'
    assert shown_command(["ask", 'The "net" revenue, it\'s?']) == "docqa ask 'The \"net\" revenue, it'\"'\"'s?'"
    assert shown_command(["search", ""]) == "docqa search ''"


def test_the_exit_code_is_the_commands(serve):
    data, _ = serve(lambda argv: int(argv[0]))
    assert client(data, "7").wait(timeout=60) == 7


def test_a_path_the_user_names_is_read_from_the_folder_the_command_was_typed_in(serve, tmp_path):
    typed_in = tmp_path / "where the user is"
    typed_in.mkdir()
    data, _ = serve(lambda argv: print(local_path(argv[0])) or 0)
    out, _ = client(data, "report.pdf", cwd=typed_in).communicate(timeout=60)
    assert out.strip() == str(typed_in / "report.pdf")
    assert os.getcwd() != str(typed_in)


def test_the_apps_own_threads_keep_writing_to_the_apps_streams(serve, capsys):
    started, release = threading.Event(), threading.Event()

    def run(argv):
        started.set()
        print("for the client")
        release.wait(30)
        return 0

    data, _ = serve(run)
    process = client(data, "x")
    assert started.wait(60)
    print("the app's own line")  # this (main) thread serves no command
    release.set()
    out, _ = process.communicate(timeout=60)
    assert out == "for the client\n"
    assert capsys.readouterr().out == "the app's own line\n"


def test_ctrl_c_in_the_docqa_process_cancels_the_command_in_the_app(serve):
    cancelled = threading.Event()

    def run(argv):
        cancel = cancel_on_sigint()  # the served command's, set by the client's Ctrl-C
        print("working", flush=True)
        if cancel.wait(60):
            cancelled.set()
            return 130
        return 0

    data, _ = serve(run)
    process = client(data, "index", "big-folder")
    assert process.stdout.readline() == "working\n"
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=60) == 130
    assert cancelled.is_set()
    assert "cancelling" in process.stderr.read()


def test_a_docqa_process_that_goes_away_cancels_its_command(serve):
    cancelled = threading.Event()

    def run(argv):
        print("working", flush=True)
        if cancel_on_sigint().wait(60):
            cancelled.set()
        return 130

    data, _ = serve(run)
    process = client(data, "eval")
    assert process.stdout.readline() == "working\n"
    process.kill()
    process.wait(timeout=30)
    assert cancelled.wait(30)


def test_a_confirmation_is_asked_of_the_user_at_the_docqa_process(serve):
    data, _ = serve(lambda argv: print("you said", input("Download? [y/N] ").strip()) or 0)
    out, _ = client(data, "components", "install", stdin=subprocess.PIPE).communicate("yes\n", timeout=60)
    assert out == "Download? [y/N] you said yes\n"


def test_a_fault_in_a_served_command_prints_its_traceback_and_exits_1(serve):
    def run(argv):
        raise RuntimeError("a bug")

    data, _ = serve(run)
    process = client(data, "status")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    assert "Traceback" in err and "RuntimeError: a bug" in err


def test_without_an_open_app_the_docqa_process_runs_the_command_itself(tmp_path, serve):
    data = tmp_path / "data"
    assert forward(["status"], data) is None  # no app has run here
    data.mkdir()
    (data / KEY_FILE).write_bytes(b"a key from an app that crashed")
    address, _ = command_address(data)
    Path(address).write_text("")  # and its socket file, nobody listening
    assert forward(["status"], data) is None


def test_only_the_holder_of_the_key_is_served(serve):
    ran = []
    data, _ = serve(lambda argv: ran.append(argv) or 0)
    (data / KEY_FILE).write_bytes(os.urandom(32))  # what another user, or a stale file, would offer
    assert client(data, "status").wait(timeout=60) == NO_APP
    assert ran == []


def test_closing_the_app_stops_listening_and_takes_its_key_away(tmp_path, routed):
    data = tmp_path / "data"
    server = CommandServer(data, lambda argv: 0, Events())
    assert (data / KEY_FILE).exists()
    started = time.monotonic()
    server.close()
    assert time.monotonic() - started < 5  # the accepting thread woke up rather than waiting out a timeout
    assert not (data / KEY_FILE).exists()
    assert forward(["status"], data) is None


def test_a_data_folder_too_deep_for_a_unix_socket_gets_a_private_one(tmp_path, routed):
    data = tmp_path / ("deep-" * 30) / "data"
    address, family = command_address(data)
    assert family == "AF_UNIX" and len(address) <= 100
    assert (Path(address).parent.stat().st_mode & 0o777) == 0o700
    server = CommandServer(data, lambda argv: print("served") or 0, Events())
    try:
        out, _ = client(data, "status").communicate(timeout=60)
        assert out == "served\n"
    finally:
        server.close()
