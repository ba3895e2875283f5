"""Mutational PDF fuzzing through the real `docqa index` CLI: every file ends indexed or with a clear error.

    .venv/bin/python benchmarks/fuzz_pdfs.py --count N [--seed S] [--json] [--batch 150] [--out FILE]

Cases come from benchmarks/pdf_mutations.py (byte flips, truncation, damaged xref/trailer, corrupted and
mis-declared streams, encryption, JavaScript/launch/embedded files, huge images, absurd page sizes and
counts, deep nesting, a 2 MB text page), built from the first pages of the corpus PDFs. Each batch is
written to a scratch folder with one known-good control PDF and indexed by `docqa index FOLDER` in a
fresh --home (a subprocess, so a dying docqa process is seen; its stderr is a file, so it prints a line per
finished document, which the hang watchdog follows). A run that crashes or hangs is bisected over its
unfinished files until the culprit is alone. Per-file outcomes come from `docqa status --json`:

  indexed       status indexed
  error         status error with a reason from CLEAR_REASONS (a fixed list of what the product says)
  unclassified  any other error text (e.g. a raw exception), or no final status after a clean run
  crash         the docqa process died (signal, traceback, non-zero exit) on this file alone
  hang          on this file alone, the docqa process finished no document for STALL_SECONDS, or outlived
                its budget (SECONDS_BASE + SECONDS_PER_FILE per file)

Dense embeddings are off (DOCQA_INDEX_DENSE=0: they embed chunk text, not parse PDFs) and so is the visual
stage; text layer, OCR and layout run as by default. Peak RSS is polled from /proc every 0.2 s and summed over
the docqa process group (the CLI and its parser workers). Partial results are written after every batch.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
import pdf_mutations  # noqa: E402

# What the product says about a file it cannot index (docqa_desktop/pdf/document.py, index/parse_task.py, index/indexer.py).
# An error is "clear" when it starts with one of these; the technical detail may follow.
CLEAR_REASONS = [
    r"empty file \(0 bytes\)",
    r"not a PDF",
    r"corrupt or truncated PDF",
    r"damaged PDF",
    r"password-protected PDF",
    r"the PDF has no pages",
    r"the PDF parser process crashed on this file",
    r"the PDF parser gave up on this file",
    r"file vanished",
    r"file changed while",
    r"cannot read file",
    r"permission denied",
    r"too large to index",
]
_CLEAR = re.compile("|".join(f"(?:{r})" for r in CLEAR_REASONS))
CONTROL = _common.REPO / "resources" / "samples" / "harbour-solar-report.pdf"
CONTROL_WORD = "megawatt"
SECONDS_BASE = 90  # a run's budget: startup and model loading ...
SECONDS_PER_FILE = 20  # ... plus this per file (the 2 MB text page and huge images are the slow ones)
STALL_SECONDS = 240  # hang: no document finished for this long (the slowest cases need about a minute)
ENV = {"DOCQA_INDEX_DENSE": "0", "DOCQA_INDEX_VISUAL": "off", "HF_HUB_OFFLINE": "1"}


def classify(status: str | None, error: str | None) -> str:
    if status == "indexed":
        return "indexed"
    if status == "error" and error and _CLEAR.match(error):
        return "error"
    return "unclassified"


# -- running the CLI with memory polling ---------------------------------------------------------

@dataclass
class Run:
    returncode: int | None  # None: killed after the time budget
    stdout: str
    stderr: str
    seconds: float
    peak_rss_mb: float  # the docqa process group, summed
    peak_single_mb: float  # its largest single process

    @property
    def clean(self) -> bool:
        """The run finished: exit 0, or 1 when some files failed to index (their errors are in the status)."""
        return self.returncode in (0, 1)


def docqa_command() -> list[str]:
    script = Path(sys.executable).parent / "docqa"
    return [str(script)] if script.exists() else [sys.executable, "-c", "from docqa_desktop.cli import main; raise SystemExit(main())"]


def _group_rss_kb(pgid: int) -> tuple[int, int]:
    total = largest = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            if int(fields[2]) != pgid:  # field 5, pgrp, counted after the ")" of the command name
                continue
            with open(f"/proc/{entry.name}/statm", "rb") as fh:
                rss = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
        except (OSError, IndexError, ValueError):
            continue
        total += rss
        largest = max(largest, rss)
    return total, largest


def run_docqa(home: Path, args: list[str], timeout: float, scratch: Path, workers: int,
              stall: float | None = None) -> Run:
    """docqa ARGS in its own process group; killed after `timeout` s, or after `stall` s without a new
    line on stderr (the index progress prints one line per finished document when stderr is not a tty)."""
    env = {**os.environ, **ENV, "DOCQA_INDEX_WORKERS": str(workers)}
    out_path, err_path = scratch / "run.out", scratch / "run.err"
    started = last_output = time.monotonic()
    peak = single = err_size = 0
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen([*docqa_command(), "--home", str(home), *args], stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        timed_out = False
        while proc.poll() is None:
            total, largest = _group_rss_kb(proc.pid)
            peak, single = max(peak, total), max(single, largest)
            now = time.monotonic()
            if err_path.stat().st_size != err_size:
                err_size, last_output = err_path.stat().st_size, now
            if now - started > timeout or (stall is not None and now - last_output > stall):
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)  # the group we started: the CLI and its workers
                proc.wait()
                break
            time.sleep(0.2)
        _reap_group(proc.pid)
    return Run(None if timed_out else proc.returncode, out_path.read_text(errors="replace"),
               err_path.read_text(errors="replace"), time.monotonic() - started,
               round(peak / 1024, 1), round(single / 1024, 1))


def _reap_group(pgid: int) -> None:
    """Workers left behind by a docqa process that died (they exit on their own within a second)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def statuses(home: Path, scratch: Path) -> dict[str, tuple[str, str | None]]:
    run = run_docqa(home, ["status", "--json"], 120, scratch, 1)
    if not run.clean:
        raise RuntimeError(f"docqa status failed ({run.returncode}): {run.stderr[-2000:]}")
    return {d["path"]: (d["status"], d["error"]) for d in json.loads(run.stdout)["documents"]}


# -- one batch ----------------------------------------------------------------------------------

@dataclass
class BatchResult:
    outcomes: dict[str, str] = field(default_factory=dict)  # file name -> indexed/error/unclassified/crash/hang
    errors: dict[str, str] = field(default_factory=dict)  # file name -> status error text
    culprits: dict[str, str] = field(default_factory=dict)  # file name -> what the dying run printed
    unattributed: list[str] = field(default_factory=list)  # crashes no single file reproduces
    control_ok: bool = False
    runs: int = 0
    peak_rss_mb: float = 0.0
    peak_single_mb: float = 0.0


def index_batch(folder: Path, home: Path, scratch: Path, workers: int,
                seconds_per_file: float = SECONDS_PER_FILE) -> BatchResult:
    result = BatchResult()
    files = sorted(str(p) for p in folder.glob("*.pdf"))

    def run(paths: list[str], whole_folder: bool) -> Run:
        budget = SECONDS_BASE + seconds_per_file * len(paths)
        r = run_docqa(home, ["index", *([str(folder)] if whole_folder else paths)], budget, scratch, workers,
                      stall=STALL_SECONDS)
        result.runs += 1
        result.peak_rss_mb = max(result.peak_rss_mb, r.peak_rss_mb)
        result.peak_single_mb = max(result.peak_single_mb, r.peak_single_mb)
        return r

    def unfinished(paths: list[str]) -> list[str]:
        known = statuses(home, scratch)
        return [p for p in paths if known.get(p, ("missing", None))[0] not in ("indexed", "error")]

    def settle(paths: list[str], whole_folder: bool = False) -> None:
        """Index paths; if the run dies, split what it left unfinished until the culprit is alone."""
        r = run(paths, whole_folder)
        if r.clean:
            return
        left = unfinished(paths)
        if len(paths) == 1:
            name = Path(paths[0]).name
            result.outcomes[name] = "hang" if r.returncode is None else "crash"
            result.culprits[name] = (f"exit {r.returncode}" if r.returncode is not None else
                                     f"no exit after {r.seconds:.0f} s") + ": " + r.stderr[-1500:]
            return
        if not left:  # the run died after its files were done (e.g. in the FTS rebuild): not one file's fault
            result.unattributed.append(f"exit {r.returncode}: {r.stderr[-1500:]}")
            return
        half = (len(left) + 1) // 2
        for part in (left[:half], left[half:]):
            if part:
                settle(part)

    settle(files, whole_folder=True)
    final = statuses(home, scratch)
    for path in files:
        name = Path(path).name
        status, error = final.get(path, (None, None))
        if name == CONTROL.name:
            result.control_ok = status == "indexed"
            continue
        if name not in result.outcomes:
            result.outcomes[name] = classify(status, error)
        if error:
            result.errors[name] = error
    if result.control_ok:
        found = run_docqa(home, ["search", CONTROL_WORD, "--mode", "bm25", "--k", "1", "--json"], 120, scratch, 1)
        result.control_ok = found.clean and json.loads(found.stdout or "[]")[:1] != [] and \
            json.loads(found.stdout)[0].get("doc") == CONTROL.name
    return result


def write_batch(folder: Path, cases: list[pdf_mutations.Case]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for case in cases:
        (folder / case.file_name).write_bytes(case.data)
    shutil.copy(CONTROL, folder / CONTROL.name)


# -- the whole run --------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, required=True, help="fuzzed files to index")
    ap.add_argument("--seed", type=int, default=1, help="run seed: the same seed builds the same files")
    ap.add_argument("--json", action="store_true", help="print the summary as one JSON object on stdout")
    ap.add_argument("--batch", type=int, default=150, help="files per docqa run")
    ap.add_argument("--start", type=int, default=0, help="first case index (to regenerate or resume)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed-pages", type=int, default=1, help="pages taken from each corpus PDF as a seed")
    ap.add_argument("--corpus", type=Path, default=_common.CORPUS)
    ap.add_argument("--out", help="JSON output (default benchmarks/results/fuzz_pdfs.json)")
    ap.add_argument("--keep", metavar="DIR", type=Path, help="write each case into DIR (no indexing)")
    args = ap.parse_args()

    seeds = pdf_mutations.seeds_from(sorted(args.corpus.glob("*.pdf")), pages=args.seed_pages)
    indices = range(args.start, args.start + args.count)
    if args.keep:  # regenerate files to look at them, e.g. --start 1234 --count 1 --keep /tmp/case
        args.keep.mkdir(parents=True, exist_ok=True)
        for i in indices:
            case = pdf_mutations.make_case(args.seed, i, seeds)
            (args.keep / case.file_name).write_bytes(case.data)
            print(f"{case.file_name}: {case.seed}: {case.detail}", file=sys.stderr)
        return 0

    env = _common.environment()
    started = time.monotonic()
    totals: Counter = Counter()
    by_kind: dict[str, Counter] = {}
    reasons: Counter = Counter()
    notable: list[dict] = []  # unclassified, crash and hang files, with how to regenerate them
    unattributed: list[str] = []
    control_failures: list[int] = []
    peak = {"peak_rss_mb": 0.0, "peak_single_mb": 0.0}
    runs = 0
    scratch = Path(tempfile.mkdtemp(prefix="docqa-fuzz-"))

    def summary() -> dict:
        return {"files": sum(totals.values()), "indexed": totals["indexed"], "errors": totals["error"],
                "crashes": totals["crash"] + len(unattributed), "hangs": totals["hang"],
                "unclassified": totals["unclassified"], "peak_rss_mb": peak["peak_rss_mb"],
                "seconds": round(time.monotonic() - started, 1)}

    def save(done: bool) -> Path:
        s = summary()
        data = {"benchmark": "fuzz_pdfs", **env, "seed": args.seed, "count": args.count, "start": args.start,
                "finished": done, "summary": s,
                "files_per_s": round(s["files"] / s["seconds"], 3) if s["seconds"] else None,
                "settings": {"batch": args.batch, "workers": args.workers, **ENV, "ocr": True, "layout": True,
                             "seed_pages": args.seed_pages,
                             "seconds_per_run": f"{SECONDS_BASE} + {SECONDS_PER_FILE} per file",
                             "hang_after_seconds_without_progress": STALL_SECONDS,
                             "seeds": [{"name": sd.name, "bytes": len(sd.data)} for sd in seeds]},
                "definitions": {
                    "peak_rss_mb": "max over time of the summed RSS of the docqa process group (CLI + parser "
                                   "workers), polled from /proc every 0.2 s",
                    "peak_single_mb": "largest RSS of one process of that group",
                    "crashes": "files on which docqa died alone, plus deaths no single file reproduces",
                    "clear_reasons": CLEAR_REASONS},
                "peak_single_mb": peak["peak_single_mb"], "docqa_runs": runs,
                "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
                "reasons": dict(reasons.most_common()),
                "control_failures": control_failures, "unattributed_crashes": unattributed,
                "notable": notable,
                "regenerate": f".venv/bin/python benchmarks/fuzz_pdfs.py --seed {args.seed} --start INDEX "
                              "--count 1 --keep DIR"}
        return _common.write_json(data, args.out, "fuzz_pdfs.json")

    try:
        for number, first in enumerate(range(indices.start, indices.stop, args.batch)):
            cases = [pdf_mutations.make_case(args.seed, i, seeds) for i in range(first, min(first + args.batch,
                                                                                            indices.stop))]
            folder, home = scratch / "files", scratch / "home"
            shutil.rmtree(folder, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)
            write_batch(folder, cases)
            batch = index_batch(folder, home, scratch, args.workers)
            runs += batch.runs
            peak["peak_rss_mb"] = max(peak["peak_rss_mb"], batch.peak_rss_mb)
            peak["peak_single_mb"] = max(peak["peak_single_mb"], batch.peak_single_mb)
            unattributed.extend(batch.unattributed)
            if not batch.control_ok:
                control_failures.append(number)
            for case in cases:
                outcome = batch.outcomes.get(case.file_name, "unclassified")
                totals[outcome] += 1
                by_kind.setdefault(case.kind, Counter())[outcome] += 1
                error = batch.errors.get(case.file_name)
                if error:
                    reasons[_reason_head(error)] += 1
                if outcome in ("unclassified", "crash", "hang"):
                    notable.append({"index": case.index, "file": case.file_name, "outcome": outcome,
                                    "seed": case.seed, "detail": case.detail, "error": error,
                                    "docqa": batch.culprits.get(case.file_name)})
            out = save(done=False)
            s = summary()
            print(f"[fuzz_pdfs] {s['files']}/{args.count} files in {s['seconds']:.0f} s: {s['indexed']} indexed, "
                  f"{s['errors']} errors, {s['unclassified']} unclassified, {s['crashes']} crashes, "
                  f"{s['hangs']} hangs, peak {s['peak_rss_mb']} MB; control {'ok' if batch.control_ok else 'FAILED'}"
                  f" -> {out}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out = save(done=True)
    s = summary()
    print(json.dumps(s) if args.json else json.dumps(s, indent=2))
    print(f"written: {out}", file=sys.stderr)
    return 0 if s["crashes"] == s["hangs"] == s["unclassified"] == 0 and not control_failures else 1


def _reason_head(error: str) -> str:
    """The reason without its technical detail, for the histogram."""
    head = re.split(r"[(:]", error, maxsplit=1)[0].strip()
    return re.sub(r"\d+", "N", head)[:80]


if __name__ == "__main__":
    sys.exit(main())
