"""Trust in quoted answers (issue 32): the quoted method with the built-in models only, on benchmarks/facts/facts.jsonl
and ../shared/eval/dev.jsonl, through `docqa eval`; figures per question kind written to
benchmarks/results/quoted_trust.json (RESULTS.md reads them through run_all.py).

    .venv/bin/python benchmarks/quoted_trust.py [--home DIR] [--report-only] [--out-dir DIR] [--result FILE]

The figures before issue 32 (commit d81cb27's quoted method and parser, results in benchmarks/quoted-trust/before)
are rebuilt with --report-only --out-dir benchmarks/quoted-trust/before --result
benchmarks/results/quoted_trust-before.json.

Per set: precision of answered (right / answered), answerable right, unanswerable declined, answered but wrong,
latency p50; per kind (facts.jsonl's "kind": number-in-text, table-cell, chart, name, date, ocr-slide,
two-column, list, phrase, library; dev.jsonl's evidence sources): answered, right, and how often the passages shown
held the gold answer. A set's questions marked "set": "unseen" (held out: documents no rule was written against) are
evaluated with the others but figured apart, as the set NAME_unseen (facts_unseen).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from docqa_desktop.evaluation.runner import score_record  # noqa: E402
from docqa_desktop.evaluation.scoring import contains_gold  # noqa: E402

BENCH = _common.REPO / "benchmarks"
SETS = {"facts": BENCH / "facts" / "facts.jsonl", "dev": _common.EVAL_FILE}
OUT = BENCH / "quoted-trust"
RESULT = BENCH / "results" / "quoted_trust.json"
SAMPLES = _common.REPO / "resources" / "samples"
UNSEEN = "unseen"  # a question's "set" when no rule was written against its document


def run_eval(name: str, questions: Path, home: Path, corpus: Path, report_only: bool, out_dir: Path,
             method: str = "quoted", env: dict | None = None) -> Path:
    out = out_dir / name
    command = [str(_common.REPO / ".venv" / "bin" / "docqa"), "--home", str(home), "eval", str(questions),
               "--corpus", str(corpus), "--method", method, "--out", str(out)]
    subprocess.run(command + (["--report-only"] if report_only else []), check=True, cwd=_common.REPO, env=env)
    return out


def figures(records: list[dict], kinds: dict[str, str]) -> dict:
    answerable = [r for r in records if r["answer_format"] != "None"]
    unanswerable = [r for r in records if r["answer_format"] == "None"]
    answered = [r for r in records if r["status"] == "answered"]
    right = [r for r in answered if r["answer_format"] != "None" and r["score"] >= 0.5]
    by_kind: dict[str, dict] = defaultdict(lambda: {"answerable": 0, "answered": 0, "right": 0,
                                                    "passages_hold_gold": 0})
    for r in answerable:
        for kind in [kinds[r["question"]]] if r["question"] in kinds else r["evidence_sources"] or ["none"]:
            row = by_kind[kind]
            row["answerable"] += 1
            row["answered"] += r["status"] == "answered"
            row["right"] += r["status"] == "answered" and r["score"] >= 0.5
            row["passages_hold_gold"] += r["status"] == "passages" and contains_gold(r["gold"], r["prediction"])
    return {
        "questions": len(records), "answerable": len(answerable), "unanswerable": len(unanswerable),
        "answered": len(answered), "answered_right": len(right),
        "precision_of_answered": len(right) / len(answered) if answered else None,
        "answerable_right": len(right) / len(answerable) if answerable else None,
        "unanswerable_declined": (sum(r["status"] != "answered" for r in unanswerable) / len(unanswerable)
                                  if unanswerable else None),
        "answered_wrong": len(answered) - len(right),
        "passages": sum(r["status"] == "passages" for r in records),
        "passages_hold_gold": sum(r["status"] == "passages" and contains_gold(r["gold"], r["prediction"])
                                  for r in answerable),
        "latency_p50_s": statistics.median(r["seconds"] for r in records),
        "by_kind": dict(sorted(by_kind.items())),
    }


def split_unseen(name: str, records: list[dict], questions: list[dict]) -> dict[str, list[dict]]:
    """The set's records without its held-out questions, and those apart as NAME_unseen; a part with no records
    is left out (dev.jsonl holds none, and results from before a question was written hold none of it)."""
    unseen = {q["question"] for q in questions if q.get("set") == UNSEEN}
    parts = {name: [r for r in records if r["question"] not in unseen],
             f"{name}_{UNSEEN}": [r for r in records if r["question"] in unseen]}
    return {part: rs for part, rs in parts.items() if rs}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", default=str(BENCH / "out" / "quoted-trust-home"))
    ap.add_argument("--report-only", action="store_true", help="rebuild the figures from the results in place")
    ap.add_argument("--out-dir", default=str(OUT), help="where the two evaluations keep their results")
    ap.add_argument("--result", default=str(RESULT), help="the figures file")
    args = ap.parse_args()
    corpus = _common.link_folder(BENCH / "out" / "quoted-trust-corpus",
                                 sorted(_common.CORPUS.glob("*.pdf")) + sorted(SAMPLES.glob("*.pdf")))
    result = {"environment": _common.environment(), "sets": {}}
    for name, questions in SETS.items():
        folder = run_eval(name, questions, Path(args.home), corpus, args.report_only, Path(args.out_dir))
        # scored again, as docqa's report does, so that the current rules apply to answers saved before them
        records = [score_record(json.loads(line))
                   for line in (folder / "results.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
        lines = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
        kinds = {q["question"]: q["kind"] for q in lines if "kind" in q}
        for part, part_records in split_unseen(name, records, lines).items():
            result["sets"][part] = figures(part_records, kinds)
    _common.write_json(result, args.result, RESULT.name)
    print(json.dumps({k: {f: v for f, v in s.items() if f != "by_kind"} for k, s in result["sets"].items()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
