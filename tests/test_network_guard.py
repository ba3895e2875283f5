"""Nothing leaves the machine: every command and the app run here as a user runs them, each under `strace -f`,
and any connect/sendto/sendmmsg to an AF_INET or AF_INET6 address — a DNS query included, and from any child
process or native library — fails the test. The one exception is the remote model server this test configures
itself, for the one question asked through it. strace is a prerequisite (Debian: apt-get install strace): without
it these tests fail, they do not skip."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

import tiny_colqwen
from conftest import SAMPLES, write_pdf
from strace_log import outbound, traced
from docqa_desktop.export import FORMATS
from docqa_desktop.methods import METHODS
from docqa_desktop.retrieval.page_retriever import SearchMode

pytestmark = [pytest.mark.slow, pytest.mark.model]

DOCQA = Path(sys.executable).with_name("docqa")
APP_SESSION = Path(__file__).with_name("app_session.py")
# Small budgets: what is watched is where connections go, not what the answer says. Every method at its CPU
# preset, the multi-call ones cut to a sample or a round each, one llama.cpp thread.
QUICK_ASK = {"DOCQA_ASK_K": "2", "DOCQA_ASK_ITERATIONS": "1", "DOCQA_ASK_MAX_PAGES": "1",
             "DOCQA_ASK_PAGE_TOKENS": "200", "DOCQA_ASK_SUMMARY_TOKENS": "32", "DOCQA_ASK_PRESET": "cpu",
             "DOCQA_DOCLENS_NAVIGATOR_SAMPLES": "1", "DOCQA_DOCLENS_ANSWER_SAMPLES": "1",
             "DOCQA_DOCLENS_ANSWER_TOKENS": "120", "DOCQA_DOCREACT_ROUNDS": "1", "DOCQA_DOCREACT_CANDIDATE_SETS": "2",
             "DOCQA_MMRAG_SUMMARY_TOKENS": "40", "DOCQA_MMRAG_ANSWER_TOKENS": "200",
             "DOCQA_MMRAG_ANALYSIS_STEPS": "2",
             "DOCQA_LLM_THREADS": "1",  # llama.cpp's threads sync through futexes, and strace stops at every one
             # the methods ask all at once: BLAS (MMRAG's clustering) on one thread each, not a pool per process
             "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
QUESTION = "How many megawatts does the harbour solar plant produce?"


def strace() -> str:
    found = shutil.which("strace")
    if found is None:
        pytest.fail("strace is not installed: the network guard needs it (Debian/Ubuntu: apt-get install strace)")
    return found


@dataclass
class Traced:
    returncode: int
    stdout: str
    stderr: str
    denied: list[str]
    permitted: list[str]


class Guard:
    """Runs commands under strace with one scratch home; each run keeps its own log."""

    def __init__(self, root: Path):
        self.root = root
        self.home = root / "home"
        self.runs = 0

    def command(self, *args: str, home: Path | None = None) -> list[str]:
        return [str(DOCQA), "--home", str(home or self.home), *args]

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCQA_", "HF_", "TRANSFORMERS_", "ORT_"))}
        # nothing of the test runner's own offline switches: the product must set its own
        return {**env, "QT_QPA_PLATFORM": "offscreen", "PYTHONUNBUFFERED": "1", **(extra or {})}

    def traced(self, argv: list[str]) -> tuple[list[str], Path]:
        self.runs += 1
        log = self.root / f"run-{self.runs}.strace"
        return traced(strace(), log, argv), log

    def run(self, argv: list[str], env: dict | None = None, allowed=frozenset(), timeout: float = 900) -> Traced:
        return self.finish(self.start(argv, env), allowed, timeout)

    def start(self, argv: list[str], env: dict | None = None) -> tuple[subprocess.Popen, Path]:
        command, log = self.traced(argv)
        return subprocess.Popen(command, env=self.env(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True), log

    def finish(self, started: tuple[subprocess.Popen, Path], allowed=frozenset(), timeout: float = 900) -> Traced:
        process, log = started
        stdout, stderr = process.communicate(timeout=timeout)
        return Traced(process.returncode, stdout, stderr, *outbound(log, allowed))


def assert_offline(run: Traced, what: str) -> None:
    assert run.returncode == 0, f"{what} failed ({run.returncode}): {run.stderr[-2000:]}"
    assert run.denied == [], f"{what} tried to reach the network: {run.denied[:10]}"


@pytest.fixture(scope="module")
def guard(tmp_path_factory) -> Guard:
    return Guard(tmp_path_factory.mktemp("network-guard"))


@pytest.fixture(scope="module")
def folder(guard) -> Path:
    """The sample PDFs: a born-digital report (layout model) and a scanned memo (OCR): both run onnxruntime."""
    folder = guard.root / "library"
    folder.mkdir()
    for sample in SAMPLES.glob("*.pdf"):
        shutil.copy(sample, folder / sample.name)
    return folder


@pytest.fixture(scope="module")
def indexed(guard, folder) -> Traced:
    """A page embedder installed (a tiny random ColQwen2.5: transformers and colpali-engine load it), then the
    library indexed with every stage on: text, OCR, layout, dense chunks, page images."""
    embedder = tiny_colqwen.save_tiny(guard.root / "tiny-colqwen2.5")
    assert_offline(guard.run(guard.command("models", "import", str(embedder), "--name", "tiny-colqwen")),
                   "docqa models import")
    return guard.run(guard.command("index", str(folder), "--no-progress"),
                     {"DOCQA_INDEX_VISUAL": "on", "DOCQA_INDEX_VISUAL_TOKENS": "256"})


def test_index_with_every_stage(indexed):
    assert_offline(indexed, "docqa index")
    assert "2 added" in indexed.stdout and "page images: 5 embedded" in indexed.stdout, indexed.stdout


def test_search_in_every_mode(guard, indexed):
    for mode in SearchMode:
        run = guard.run(guard.command("search", "solar megawatt", "--mode", mode.value, "--json"))
        assert_offline(run, f"docqa search --mode {mode.value}")
        assert json.loads(run.stdout), f"--mode {mode.value} found nothing"


@pytest.fixture(scope="module")
def answers(guard, indexed) -> dict[str, Traced]:
    """Each method asked by its own process, all at once: one llama.cpp thread each, so together they fill the
    cores (12 minutes one after another on 2 cores). DuckDB lets one process open a file, so every method but
    M3DocRAG (whose answer the export test reads from the main home) asks on a copy of the indexed home."""
    started = {}
    for method in sorted(METHODS):
        home = guard.home if method == "m3docrag" else guard.root / f"home-{method}"
        if home != guard.home:
            shutil.copytree(guard.home, home)
        started[method] = guard.start(guard.command("ask", QUESTION, "--method", method, "--json", home=home),
                                      QUICK_ASK)
    return {method: guard.finish(run) for method, run in started.items()}


def test_ask_with_each_method(answers):
    for method, run in answers.items():
        assert_offline(run, f"docqa ask --method {method}")
        assert json.loads(run.stdout)["citations"] or json.loads(run.stdout)["status"] != "answered"


def test_export_in_every_format_and_the_reading_commands(guard, folder, answers):
    answer_id = json.loads(answers["m3docrag"].stdout)["id"]
    for fmt in FORMATS:
        out = guard.root / f"answer.{fmt}"
        assert_offline(guard.run(guard.command("export", answer_id, "--format", fmt, "-o", str(out))),
                       f"docqa export --format {fmt}")
        assert out.stat().st_size > 0
    for args in (["status"], ["history"], ["render", "harbour-solar-report.pdf", "1", "-o",
                                              str(guard.root / "page.png")],
                 ["tables", str(folder / "harbour-solar-report.pdf"), "--json"]):
        assert_offline(guard.run(guard.command(*args)), f"docqa {args[0]}")


def test_models_list_and_verify(guard, indexed):
    for verb in ("list", "verify"):
        assert_offline(guard.run(guard.command("models", verb)), f"docqa models {verb}")


def test_eval_one_question(guard, folder, indexed):
    questions = guard.root / "questions.jsonl"
    questions.write_text(json.dumps({"doc": "harbour-solar-report.pdf", "question": QUESTION, "answer": "Not answerable",
                                     "answer_format": "None", "evidence_pages": [], "evidence_sources": []}) + "\n")
    run = guard.run(guard.command("eval", str(questions), "--corpus", str(folder), "--limit", "1", "--method",
                                  "m3docrag", "--out", str(guard.root / "eval")), QUICK_ASK)
    assert_offline(run, "docqa eval --limit 1")
    assert (guard.root / "eval" / "report.md").exists()


def test_watch_one_burst(guard):
    watched = guard.root / "watched"
    watched.mkdir()
    write_pdf(watched / "first.pdf", ["Ferries leave the harbour every hour."])
    command, log = guard.traced(guard.command("watch", str(watched)))
    process = subprocess.Popen(command, env=guard.env({"DOCQA_INDEX_SETTLE_SECONDS": "0.5"}),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert _read_until(process, "1 added"), "the first sync never reported"
        write_pdf(watched / "second.pdf", ["A second timetable arrived."])
        assert _read_until(process, "1 added"), "the burst was never indexed"
    finally:
        os.killpg(process.pid, signal.SIGINT)  # strace passes it on to docqa, which stops cleanly
        process.wait(timeout=60)
    denied, _ = outbound(log)
    assert denied == [], f"docqa watch tried to reach the network: {denied[:10]}"


def _read_until(process: subprocess.Popen, text: str, seconds: float = 300) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            return False
        if text in line:
            return True
    return False


@pytest.mark.gui
def test_the_app_opens_indexes_answers_and_closes(guard, folder):
    home = guard.root / "app-home"
    argv = [sys.executable, str(APP_SESSION), str(home), str(folder), QUESTION]
    run = guard.run(argv, QUICK_ASK)
    assert_offline(run, "the desktop app")
    assert run.stdout.strip() in ("answered", "unverified", "passages", "not_found"), run.stdout


def test_a_configured_remote_server_is_the_only_address_reached(guard, indexed, llama_server):
    """Also proves the guard sees connections at all: the question must reach the server it was sent to."""
    host, port = re.match(r"http://([\d.]+):(\d+)/", llama_server).groups()
    run = guard.run(guard.command("ask", QUESTION, "--method", "m3docrag", "--json"),
                    {**QUICK_ASK, "DOCQA_LLM_BACKEND": "remote", "DOCQA_LLM_REMOTE_URL": llama_server},
                    allowed={(host, int(port))})
    # The subject is where connections go. SmolLM2 behind llama.cpp's server may ramble past the typed answer's
    # JSON (the server builds its own grammar from the schema): a model failure is an answer, not a crash.
    answered = run.returncode == 0 or (run.returncode == 1 and '"status": "failed"' in run.stdout
                                       and "The model failed" in run.stdout)
    assert answered, f"docqa ask through a remote server crashed ({run.returncode}): {run.stderr[-2000:]}"
    assert run.denied == [], f"docqa ask through a remote server tried to reach the network: {run.denied[:10]}"
    assert run.permitted, "the question never reached the configured server: is the guard blind?"


def test_the_in_process_guard_stops_a_connection_beyond_loopback():
    import socket

    from conftest import OUTSIDE_ATTEMPTS

    before = len(OUTSIDE_ATTEMPTS)
    with pytest.raises(PermissionError, match="only loopback"):
        socket.create_connection(("192.0.2.1", 9), timeout=1)  # TEST-NET-1: never routed
    with pytest.raises(PermissionError):
        socket.getaddrinfo("example.org", 443)
    assert len(OUTSIDE_ATTEMPTS) == before + 2
    del OUTSIDE_ATTEMPTS[before:]  # expected here; the autouse check must not fail this test
