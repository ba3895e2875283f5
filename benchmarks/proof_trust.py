"""Trust in written answers (issue 33): a model method's answer with its proof checked (methods/proof) against the
same method's own verdict, with the real Qwen2.5-Coder-1.5B at the quick budget (ask.preset = cpu).

    .venv/bin/python benchmarks/proof_trust.py --home H --set dev=QUESTIONS --corpus dev=FOLDER --method m3docrag
    .venv/bin/python benchmarks/proof_trust.py --report-only --out-dir benchmarks/proof-trust   # figures again

H is a docqa home with the model imported as qwen2.5-coder-1.5b (`docqa models import F --name … --link`; F assembled by
../shared/recipes/qwen15b_gguf.sh) and the questions' documents indexed. Each set runs `docqa eval` into
OUT/<set>/ (resumable). `--before NAME=FOLDER` adds results of the code before issue 33 (the same questions, run
by that code's `docqa eval`) as the "before" rows.

Per method and set (benchmarks/results/proof_trust.json, RESULTS.md rows):
- after: precision of answered, answerable right, unanswerable declined (not marked answered) and refused (said
  not found), answered but wrong, unverified drafts, repair rounds, p50 seconds with and without the repair call;
- own verdict: the same figures for the method's verdict before the check, read from the trace ("proof: the
  method's own verdict: …"), its short answer scored by the benchmark's rules;
- quote match: every proof quote's score (quotes.locate), by bucket — the measured side of QUOTE_TOLERANCE;
- examples: wrong answers the check caught, and wrong answers it let through.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

from docqa_desktop.evaluation.runner import score_record  # noqa: E402
from docqa_desktop.evaluation.trust import trust_figures  # noqa: E402

BENCH = _common.REPO / "benchmarks"
OUT = BENCH / "proof-trust"
RESULT = BENCH / "results" / "proof_trust.json"
MODEL = "qwen2.5-coder-1.5b"
OWN_VERDICT = re.compile(r"^proof: the method's own verdict: (\w+)(?:, short answer '(.*)')?$")
QUOTE_SCORE = re.compile(r"^proof: quote p\.\d+ match ([0-9.]+)")
BUCKETS = ((1.0, "1.00"), (0.95, "0.95–0.99"), (0.85, "0.85–0.94"), (0.7, "0.70–0.84"), (0.0, "< 0.70"))


def run_eval(home: Path, questions: Path, corpus: Path, methods: list[str], out: Path) -> None:
    env = {**os.environ, "DOCQA_ASK_PRESET": "cpu", "DOCQA_LLM_TEXT_MODEL": MODEL}
    command = [sys.executable, "-m", "docqa_desktop", "--home", str(home), "eval", str(questions), "--corpus",
               str(corpus), *[a for m in methods for a in ("--method", m)], "--out", str(out)]
    subprocess.run(command, check=True, env=env, cwd=_common.REPO)


def load(folder: Path) -> list[dict]:
    path = folder / "results.jsonl"
    return [score_record(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def own_verdict(record: dict) -> dict:
    """The record as the method itself concluded, before the check (unchanged when the check did not run)."""
    for note in record.get("notes", []):
        match = OWN_VERDICT.match(note)
        if match:
            status, short = match.group(1), match.group(2) or ""
            answered = status == "answered"
            return score_record({**record, "status": status, "seconds": record["seconds"] - repair_seconds(record), "short_answer": short if answered else "",
                                 "prediction": short if answered else "Not answerable",
                                 # the draft's own format is not in the trace: a typed value, unless it said None
                                 "predicted_format": (record["predicted_format"] if record["predicted_format"]
                                                      != "None" else "Str") if answered else "None"})
    return record


def repair_seconds(record: dict) -> float:
    return sum(c["seconds"] for c in record.get("calls", []) if c["step"] == "repair proof")


def quote_buckets(records: list[dict]) -> dict[str, int]:
    """How many proof quotes scored in each bucket (BUCKETS: the first whose floor the score reaches)."""
    scores = [float(m.group(1)) for r in records for note in r.get("notes", []) for m in [QUOTE_SCORE.match(note)] if m]
    counts = Counter(next(label for low, label in BUCKETS if score >= low) for score in scores)
    return {label: counts[label] for _, label in BUCKETS}


def verdict_figures(records: list[dict]) -> dict:
    trust = trust_figures(records)
    unanswerable = [r for r in records if r["answer_format"] == "None"]
    return {"questions": len(records), "answered": trust["answered"], "answered_right": trust["answered_right"],
            "precision": trust["precision"], "answerable_right": trust["answered_right_share"],
            "answerable": trust["answerable"], "answered_wrong": trust["answered_wrong"],
            "unanswerable_declined": trust["declined_share"],
            "unanswerable_refused": (sum(r["status"] == "not_found" for r in unanswerable) / len(unanswerable)
                                     if unanswerable else None),
            "unverified": sum(r["status"] == "unverified" for r in records),
            "latency_p50_s": statistics.median(r["seconds"] for r in records) if records else None}


def method_figures(records: list[dict]) -> dict:
    after = verdict_figures(records)
    after["repair_rounds"] = sum(repair_seconds(r) > 0 for r in records)
    after["latency_p50_without_repair_s"] = (statistics.median(r["seconds"] - repair_seconds(r) for r in records)
                                             if records else None)
    own = [own_verdict(r) for r in records]
    return {"after": after, "own_verdict": verdict_figures(own), "quote_match": quote_buckets(records),
            "caught": [_example(o, r) for o, r in zip(own, records) if _wrong(o) and r["status"] != "answered"][:6],
            "let_through": [_example(o, r) for o, r in zip(own, records) if _wrong(r)][:6]}


def _wrong(record: dict) -> bool:
    return record["status"] == "answered" and not (record["answer_format"] != "None" and record["score"] >= 0.5)


def _example(own: dict, after: dict) -> dict:
    return {"question": after["question"], "gold": after["gold"], "model": own.get("short_answer", ""),
            "verdict": after["status"], "check": after.get("check", "")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, help="a home with the 1.5B imported and the documents indexed")
    ap.add_argument("--set", action="append", default=[], help="NAME=QUESTIONS.jsonl (repeatable)")
    ap.add_argument("--corpus", action="append", default=[], help="NAME=FOLDER of the set's PDFs")
    ap.add_argument("--method", action="append", help="repeatable (default m3docrag)")
    ap.add_argument("--before", action="append", default=[], help="NAME=FOLDER of results before issue 33")
    ap.add_argument("--report-only", action="store_true", help="figures from the results already in --out-dir")
    ap.add_argument("--out-dir", type=Path, default=OUT)
    ap.add_argument("--result", type=Path, default=RESULT)
    args = ap.parse_args()
    sets, corpora = dict(s.split("=", 1) for s in args.set), dict(c.split("=", 1) for c in args.corpus)
    if not args.report_only:
        for name, questions in sets.items():
            run_eval(args.home, Path(questions), Path(corpora[name]), args.method or ["m3docrag"],
                     args.out_dir / name)
    result = {"environment": _common.environment(), "model": MODEL, "preset": "cpu", "sets": {}}
    for folder in sorted(p for p in args.out_dir.iterdir() if (p / "results.jsonl").exists()):
        records = load(folder)
        result["sets"][folder.name] = {m: method_figures([r for r in records if r["method"] == m])
                                       for m in sorted({r["method"] for r in records})}
    for name, folder in (b.split("=", 1) for b in args.before):
        records = load(Path(folder))
        result["sets"].setdefault(name, {})
        for m in sorted({r["method"] for r in records}):
            result["sets"][name].setdefault(m, {})["before"] = verdict_figures([r for r in records if r["method"] == m])
    _common.write_json(result, args.result, args.result.name)
    print(json.dumps({s: {m: {k: v for k, v in f.items() if k in ("after", "own_verdict", "before")}
                          for m, f in ms.items()} for s, ms in result["sets"].items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
