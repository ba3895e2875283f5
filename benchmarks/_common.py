"""Helpers shared by the benchmark scripts (not part of the product)."""
from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import resource
import shlex
import subprocess
import sys
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
CORPUS = Path("/work/shared/corpus")
EVAL_FILE = Path("/work/shared/eval/dev.jsonl")


def link_folder(folder: Path, pdfs: list[Path]) -> Path:
    """A folder of symlinks to corpus PDFs (the corpus is read in place, never copied)."""
    folder.mkdir(parents=True, exist_ok=True)
    for pdf in pdfs:
        link = folder / pdf.name
        if link.is_symlink() or link.exists():
            if link.resolve() == pdf.resolve():
                continue
            link.unlink()
        link.symlink_to(pdf.resolve())
    return folder


def peak_rss_mb() -> dict:
    """Peak resident set size in MB (Linux reports ru_maxrss in KiB).

    children = the largest single waited-for child process (the parser workers), not a sum.
    """
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"main_mb": round(self_kb / 1024, 1), "workers_max_mb": round(child_kb / 1024, 1)}


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _mem_total_mb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def _git() -> dict:
    def run(*args):
        try:
            return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    return {"commit": run("rev-parse", "--short", "HEAD") or None,
            "dirty": bool(run("status", "--porcelain", "--", "docqa_desktop"))}


def environment() -> dict:
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    return {
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": shlex.join([os.path.relpath(sys.executable, REPO)
                               if sys.executable.startswith(str(REPO)) else sys.executable, *sys.argv]),
        "cwd": os.getcwd(),
        "machine": {
            "cpu_count": os.cpu_count(),
            "cpus_usable": affinity,
            "processor": platform.processor() or platform.machine(),
            "memory_mb": _mem_total_mb(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
        "packages": {n: _version(n) for n in ("docqa-desktop", "duckdb", "pymupdf", "pymupdf4llm",
                                              "rapidocr-onnxruntime", "onnxruntime", "numpy", "bm25s")},
        "git": _git(),
        # thread settings change latencies a lot on 2 cores (BLAS threads against DuckDB's)
        "env": {k: v for k, v in sorted(os.environ.items())
                if k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS") or k.startswith("DOCQA_")},
    }


def write_json(data: dict, out: str | None, default_name: str) -> Path:
    path = Path(out) if out else RESULTS / default_name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def markdown_table(headers: list[str], rows: list[list]) -> str:
    def cell(v):
        if v is None:
            return "–"
        if isinstance(v, float):
            return f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}"
        return str(v)
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
