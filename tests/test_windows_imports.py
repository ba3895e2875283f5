"""Windows starts: with the POSIX-only modules gone and our code taking its Windows branches, every module of
docqa_desktop imports, and indexing, search, the default answer and the exports work (the ferry question answered
from the scanned memo, cited to its page). And `docqa --help` stays light: no torch.

What "as on Windows" means here, honestly:
- `fcntl` and `resource` are made unimportable (sys.modules[name] = None), after importing the standard modules that
  use them on Linux (subprocess, multiprocessing, ...: Windows has its own versions of those, Linux's need them).
- The operating system is asked in one module, docqa_desktop/host.py, which branches on its own `PLATFORM`
  (sys.platform read once); the script sets that to "win32". sys.platform itself is not patched: the standard library
  and our dependencies choose their implementation from it at import (subprocess would import msvcrt, platformdirs
  would look for the Windows shell folders), and those are Linux builds here; on Windows their Windows builds run.
  test_only_host_asks_the_operating_system keeps it that way: a new branch on the platform outside host.py fails it,
  but for the two about the Linux desktop listed there (they answer "not here" elsewhere).
- Windows' own interfaces (kernel32, msvcrt) do not exist on Linux. The one host.py reaches on this path, kernel32
  (the job object that limits a parser worker's memory, the RAM query), is stood in for by an object that answers
  every call with success and writes its name to a file, so the test sees the workers ask for their limit. (It
  fills in nothing: the RAM query reads 0 GB, "unknown", as Windows always read before host.py.)
- The setup runs at the top of a script, not under __main__: the parser workers are spawned interpreters that run
  the script again (as __mp_main__) before they import our modules, so they too run without fcntl and resource, on
  host.py's Windows branches.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "docqa_desktop"
SAMPLES = ROOT / "resources" / "samples"
QUESTION = "When does the last ferry to Gull Island leave?"

AS_ON_WINDOWS = r'''
import os
import sys

# the standard modules that import fcntl or resource on Linux (their Windows versions do not)
import asyncio, concurrent.futures.process, multiprocessing.pool, multiprocessing.popen_spawn_posix, pty, selectors
import shutil, subprocess, tempfile, tty

for posix_only in ("fcntl", "resource"):
    sys.modules[posix_only] = None  # `import fcntl` now raises ImportError

from docqa_desktop import host

host.PLATFORM = "win32"


class Kernel32:
    """Stands in for Windows' kernel32.dll: every function succeeds, and its name is written down."""
    def __getattr__(self, name):
        def call(*args):
            with open(os.environ["KERNEL32_CALLS"], "a") as calls:
                calls.write(f"{os.getpid()} {name}\n")
            return 1
        return call


host._kernel32 = Kernel32


def import_everything():
    import importlib, pkgutil
    import docqa_desktop

    # all but __main__, which runs the CLI when imported (test_docqa_help_imports_no_torch runs it)
    names = [m.name for m in pkgutil.walk_packages(docqa_desktop.__path__, "docqa_desktop.")
             if m.name != "docqa_desktop.__main__"]
    for name in names:
        importlib.import_module(name)
    return names


def index_search_ask_export(home, folder, out):
    import dataclasses
    from docqa_desktop.service import Service
    from docqa_desktop.settings import Settings

    settings = Settings.load(home)
    settings = dataclasses.replace(settings, index=dataclasses.replace(settings.index, layout=False, dense=False))
    with Service(settings) as service:
        report = service.library.index([folder])
        hits = service.pages.search("last ferry to Gull Island", k=3)
        answer = service.answers.ask(QUESTION)
        exports = {fmt: str(service.answers.export(answer, fmt, os.path.join(out, "answer." + fmt)))
                   for fmt in ("md", "html", "pdf", "json")}
    return {"added": report.added, "failed": report.failed, "top_hit": [hits[0].doc, hits[0].page],
            "short_answer": answer.short_answer, "method": answer.method,
            "citations": [[c.doc, c.page, c.quote] for c in answer.citations], "exports": exports}


if __name__ == "__main__":
    import json

    home, folder, out = sys.argv[1:]
    modules = import_everything()
    result = index_search_ask_export(home, folder, out)
    result.update(modules=len(modules), memory_limit=host.memory_limit_words(), main_pid=os.getpid(),
                  still_unimportable=[name for name in ("fcntl", "resource") if sys.modules.get(name) is not None])
    print(json.dumps(result))
'''


@pytest.mark.slow  # imports every module and indexes the samples (OCR in a worker pool): 5-7 s on 2 cores
def test_every_module_imports_and_index_search_ask_export_work_as_on_windows(tmp_path):
    script = tmp_path / "as_on_windows.py"
    script.write_text(AS_ON_WINDOWS.replace("QUESTION", repr(QUESTION)))
    folder, out, calls = tmp_path / "samples", tmp_path / "out", tmp_path / "kernel32-calls"
    folder.mkdir()
    out.mkdir()
    for sample in SAMPLES.glob("*.pdf"):
        (folder / sample.name).write_bytes(sample.read_bytes())
    env = {**os.environ, "KERNEL32_CALLS": str(calls), "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run([sys.executable, str(script), str(tmp_path / "home"), str(folder), str(out)],
                         capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-4000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])

    assert result["modules"] == len(list(PACKAGE.rglob("*.py"))) - 2  # all but the package's __init__ and __main__
    assert result["still_unimportable"] == []
    assert (result["added"], result["failed"]) == (2, 0)
    assert result["top_hit"] == ["ferry-memo-scanned.pdf", 1]  # read by OCR in a worker
    assert result["short_answer"] == "18:40"
    doc, page, quote = result["citations"][0]
    assert (doc, page) == ("ferry-memo-scanned.pdf", 1) and "18:40" in quote
    exports = {fmt: Path(path).read_bytes() for fmt, path in result["exports"].items()}
    exported = json.loads(exports["json"])
    assert (exported["short_answer"], exported["citations"][0]["doc"]) == ("18:40", "ferry-memo-scanned.pdf")
    assert b"18:40" in exports["html"] and b"18:40" in exports["md"] and exports["pdf"].startswith(b"%PDF")
    assert result["memory_limit"] == "committed memory limited to 4 GB per parser worker (Windows job object)"
    # the parser workers (other processes) put themselves in a job object with a memory limit
    worker_calls = {line.split()[1] for line in calls.read_text().splitlines()
                    if int(line.split()[0]) != result["main_pid"]}
    assert {"CreateJobObjectW", "SetInformationJobObject", "AssignProcessToJobObject"} <= worker_calls


# What may ask the operating system outside host.py: Linux desktop specifics that answer "not here" elsewhere.
PLATFORM_BRANCHES_ALLOWED = {
    "docqa_desktop/launcher.py": "a freedesktop .desktop entry: Linux desktops only",
    "docqa_desktop/ui/system_libraries.py": "the libraries of Qt's X11 (xcb) plugin: Linux only",
}
POSIX_OR_WINDOWS_MODULES = {"fcntl", "resource", "msvcrt", "winreg", "_winapi", "termios", "pwd", "grp"}


def operating_system_questions(source: str) -> list[str]:
    """What `source` asks the operating system directly: sys.platform, os.name, platform.system(), an import of
    a POSIX- or Windows-only module, a path under /proc."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                (node.value.id, node.attr) in {("sys", "platform"), ("os", "name"), ("platform", "system")}:
            found.append(f"{node.value.id}.{node.attr}")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found += [f"import {n}" for n in names if n.split(".")[0] in POSIX_OR_WINDOWS_MODULES]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("/proc"):
            found.append(node.value)
    return found


def test_only_host_asks_the_operating_system():
    asking = {path.relative_to(ROOT).as_posix(): operating_system_questions(path.read_text(encoding="utf-8"))
              for path in sorted(PACKAGE.rglob("*.py"))}
    asking = {path: found for path, found in asking.items() if found and path != "docqa_desktop/host.py"}
    assert set(asking) <= set(PLATFORM_BRANCHES_ALLOWED), f"ask docqa_desktop/host.py instead: {asking}"
    assert all(set(found) == {"sys.platform"} for found in asking.values()), asking


@pytest.mark.parametrize("found, source", [
    (["import fcntl"], "import fcntl\n"),
    (["import resource"], "def f():\n    from resource import setrlimit\n"),
    (["sys.platform"], "import sys\nWINDOWS = sys.platform == 'win32'\n"),
    (["os.name"], "import os\nPOSIX = os.name == 'posix'\n"),
    (["/proc/meminfo"], "TOTAL = open('/proc/meminfo').read()\n"),
])
def test_the_scan_sees_each_way_of_asking(found, source):
    assert operating_system_questions(source) == found


HELP_WITHOUT_TORCH = r'''
import runpy, sys
sys.argv = ["docqa", "--help"]
try:
    runpy.run_module("docqa_desktop", run_name="__main__", alter_sys=True)
except SystemExit as done:
    assert done.code in (0, None), done.code
heavy = sorted(name for name in sys.modules if name.split(".")[0] in ("torch", "torchvision", "transformers"))
print(" ".join(heavy) or "none")
'''


@pytest.mark.slow  # a fresh interpreter importing the CLI: 2-4 s
def test_docqa_help_imports_no_torch():
    run = subprocess.run([sys.executable, "-c", HELP_WITHOUT_TORCH], capture_output=True, text=True, timeout=120,
                         cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "usage: docqa" in run.stdout
    assert run.stdout.strip().splitlines()[-1] == "none"
