"""`docqa`'s manners, as a script or a pipeline sees them (real processes): exit codes documented in --help and
kept (2 for a missing folder or an empty query, 1 when some files failed to index), `history` saying how many it
shows of how many with each answer on its own two lines, and a reader that goes away (`| head`) ending the
command quietly."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, make_settings, write_pdf
from docqa_desktop.answers import Answer, AnswerStatus
from docqa_desktop.service import Service
from docqa_desktop.store import answers as answers_store

pytestmark = pytest.mark.slow  # every test starts docqa processes: ~4 s of imports each
QUICK_INDEX = {"DOCQA_INDEX_LAYOUT": "0", "DOCQA_INDEX_DENSE": "0"}


def docqa(*args: str, home, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "docqa_desktop", *args, "--home", str(home)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, **QUICK_INDEX},
                          timeout=300)


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """A folder with a good PDF and a broken one, and the home it is indexed into (once, by the first test)."""
    base = tmp_path_factory.mktemp("manners")
    folder = base / "library"
    folder.mkdir()
    write_pdf(folder / "ferry-timetable.pdf", ["The last ferry to Gull Island leaves at 18:40."])
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\nthis is not a PDF body\n")
    return folder, base / "home"


def test_help_documents_every_exit_code():
    run = subprocess.run([sys.executable, "-m", "docqa_desktop", "--help"], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert run.returncode == 0
    codes = dict(re.findall(r"^  (\d+)\s+(.+)$", run.stdout.split("exit codes:")[1], re.M))
    assert set(codes) == {"0", "1", "2", "130", "141"}
    assert "some files failed" in codes["1"] and "usage" in codes["2"] and "cancelled" in codes["130"]
    assert "output was closed" in codes["141"]


def test_a_run_where_files_failed_exits_1_and_indexes_the_rest(library):
    folder, home = library
    run = docqa("index", str(folder), "--json", home=home)
    assert run.returncode == 1, run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert (report["added"], report["failed"]) == (1, 1)
    assert list(report["errors"]) == [str(folder / "broken.pdf")]  # the report names the file (and why)
    found = docqa("search", "last ferry", home=home)
    assert found.returncode == 0 and "ferry-timetable.pdf" in found.stdout


def test_indexing_a_missing_folder_is_a_usage_error(library, tmp_path):
    _, home = library
    missing = tmp_path / "not-mounted"
    run = docqa("index", str(missing), home=home)
    assert run.returncode == 2
    assert run.stderr.strip() == f"docqa: cannot index {missing}: no such file or folder"
    assert run.stdout == ""  # nothing was run: no report


def test_an_empty_search_is_refused_like_an_empty_question(library):
    _, home = library
    for query in ("", "  \t "):
        run = docqa("search", query, home=home)
        assert (run.returncode, run.stdout) == (2, ""), run.stdout
        assert run.stderr.strip() == "docqa: the search query is empty"
    asked = docqa("ask", " ", home=home)
    assert asked.returncode == 2 and asked.stderr.strip() == "docqa: the question is empty"


ENTRY = re.compile(r"^[0-9a-z-]+  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  ")  # an answer's first line: id, time, …
SECOND = " " * 48  # … and its second line: the answer, under the question


@pytest.fixture
def three_answers(tmp_path):
    """A history of three answers, the newest first: one long, one with line breaks in question and answer."""
    home = tmp_path / "home"
    answers = [
        Answer("a-first", "When does the last ferry leave?", "quoted", "18:40", AnswerStatus.ANSWERED),
        Answer("a-lines", "Which ports\nand which\n\nferries?", "quoted",
               "Gull Island:\n  the 18:40 ferry\n\nHarbour:\tnone", AnswerStatus.PASSAGES),
        Answer("a-long", "Summarise the timetable", "quoted", "Ferries leave every hour. " * 20, AnswerStatus.PASSAGES),
    ]
    with Service(make_settings(home)) as service:
        for answer in answers:
            with service.resources.db.transaction() as cur:
                answers_store.save_answer(cur, answer)
    return home


def test_history_says_how_many_of_how_many_and_keeps_each_answer_on_two_lines(three_answers):
    run = docqa("history", "--limit", "2", home=three_answers)
    assert run.returncode == 0
    listing, footer = run.stdout.rstrip("\n").split("\n\n")
    lines = listing.split("\n")
    assert len(lines) == 4 and all(ENTRY.match(line) for line in lines[::2])
    assert all(line.startswith(SECOND) for line in lines[1::2])
    assert lines[0].startswith("a-long") and lines[1].endswith("…") and len(lines[1]) <= len(SECOND) + 100
    assert lines[2].startswith("a-lines") and lines[2].endswith("Which ports and which ferries?")
    assert lines[3] == SECOND + "Gull Island: the 18:40 ferry Harbour: none"
    assert footer == "2 of 3 answers, newest first (--limit N for more, --limit 0 for all)"

    everything = docqa("history", "--limit", "0", home=three_answers)
    assert everything.returncode == 0
    assert [line.split()[0] for line in everything.stdout.splitlines() if ENTRY.match(line)] == [
        "a-long", "a-lines", "a-first"]
    assert everything.stdout.rstrip().endswith("\n3 of 3 answers, newest first")

    helped = docqa("history", "--help", home=three_answers)
    assert "--limit N" in helped.stdout and "0: all of them" in helped.stdout


def test_a_reader_that_goes_away_ends_the_command_quietly(three_answers):
    """`docqa history | head -1`: once head has read its line and left, docqa's next write finds the pipe
    closed. Here the reader is gone before docqa writes at all, so the outcome does not depend on timing."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        run = docqa("history", "--limit", "0", home=three_answers, stdout=write_end)
    finally:
        os.close(write_end)
    assert (run.returncode, run.stderr) == (141, "")
