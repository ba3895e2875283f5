"""The default answer, the cascade (issue 44), on benchmarks/facts/facts.jsonl and ../shared/eval/dev.jsonl through
`docqa eval --method cascade`, with a real text model (the 1.5B assembled by ../shared/recipes/qwen15b_gguf.sh,
imported into the home as --model) and ask.preset = cpu. Figures to benchmarks/results/cascade.json.

    .venv/bin/python benchmarks/cascade.py --home H --model qwen2.5-coder-1.5b [--sets dev,facts] [--report-only]

Per set: quoted_trust's figures (precision of answered, answerable right, unanswerable declined, per kind), and
- per step (quoted, chosen by the model, computed by the app, passages, not found): questions, answered right,
  precision, seconds p50 / p90;
- latency p50 / p90 over every question;
- the margin: every choice the model made (answered or held back), its probability and whether its value is right,
  and for each threshold what it would let through (right / wrong): what `min_probability` is set from (on dev).
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
import quoted_trust  # noqa: E402
from docqa_desktop.evaluation.runner import score_record  # noqa: E402

BENCH = _common.REPO / "benchmarks"
RESULT = BENCH / "results" / "cascade.json"
THRESHOLDS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
_CHOICE = re.compile(r"^cascade: the model replied (.+?), the value (.+?), with probability ([\d.]+)$")


def step_of(record: dict) -> str:
    check = record.get("check", "")
    if record["status"] != "answered":
        return record["status"]
    return ("chosen" if check.startswith("chosen") else "computed" if check.startswith("computed") else "quoted")


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def steps(records: list[dict]) -> dict:
    by_step: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_step[step_of(r)].append(r)
    return {step: {"questions": len(rs),
                   "right": sum(r["answer_format"] != "None" and r["score"] >= 0.5 for r in rs),
                   "precision": (sum(r["answer_format"] != "None" and r["score"] >= 0.5 for r in rs) / len(rs)
                                 if step in ("quoted", "chosen", "computed") else None),
                   "seconds_p50": percentile([r["seconds"] for r in rs], 0.5),
                   "seconds_p90": percentile([r["seconds"] for r in rs], 0.9)}
            for step, rs in sorted(by_step.items())}


def choices(records: list[dict]) -> list[dict]:
    """Every choice the model made, with its probability and whether its value is right."""
    made = []
    for r in records:
        for note in r.get("notes", []):
            match = _CHOICE.match(note)
            if match:
                value = ast.literal_eval(match.group(2))  # written with !r
                scored = score_record({**r, "status": "answered", "short_answer": value, "predicted_format": "Str"})
                unproven = any(n.startswith("cascade: the choice is not trusted: ") and
                               ("span" in n or " is not on " in n) for n in r["notes"])
                consistent = not any("in reverse order, the model chose otherwise" in n for n in r["notes"])
                made.append({"question": r["question"], "value": value, "probability": float(match.group(3)),
                             "right": r["answer_format"] != "None" and scored["score"] >= 0.5, "proven": not unproven,
                             "consistent": consistent, "answered": r["status"] == "answered", "kind": r.get("kind")})
                break  # the first asking (a second, the candidates reversed, is its check)
    return made


def margin_table(made: list[dict]) -> list[dict]:
    """What each threshold would let through of the choices whose quote checks out (a span copied, a value on
    its page) and that the model made again with the candidates reversed (where it was asked again: only a choice
    over the threshold is)."""
    proven = [c for c in made if c["proven"] and c["consistent"]]
    return [{"threshold": t, "let_through": sum(c["probability"] >= t for c in proven),
             "right": sum(c["probability"] >= t and c["right"] for c in proven),
             "wrong": sum(c["probability"] >= t and not c["right"] for c in proven)} for t in THRESHOLDS]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", required=True, help="a docqa home with the corpus indexed and the model imported")
    ap.add_argument("--model", required=True, help="the text model's name in that home")
    ap.add_argument("--sets", default="dev,facts")
    ap.add_argument("--method", default="cascade")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--out-dir", default=str(BENCH / "cascade"))
    ap.add_argument("--result", default=str(RESULT))
    args = ap.parse_args()
    corpus = _common.link_folder(BENCH / "out" / "quoted-trust-corpus",
                                 sorted(_common.CORPUS.glob("*.pdf")) + sorted(quoted_trust.SAMPLES.glob("*.pdf")))
    env = {**os.environ, "DOCQA_LLM_TEXT_MODEL": args.model, "DOCQA_ASK_PRESET": "cpu"}
    result = {"environment": _common.environment(), "model": args.model, "method": args.method, "sets": {}}
    for name in args.sets.split(","):
        questions = quoted_trust.SETS[name]
        folder = quoted_trust.run_eval(name, questions, Path(args.home), corpus, args.report_only,
                                       Path(args.out_dir), args.method, env)
        records = [score_record(json.loads(line))
                   for line in (folder / "results.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
        lines = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
        kinds = {q["question"]: q["kind"] for q in lines if "kind" in q}
        for part, part_records in quoted_trust.split_unseen(name, records, lines).items():
            made = choices(part_records)
            result["sets"][part] = {**quoted_trust.figures(part_records, kinds), "steps": steps(part_records),
                                    "latency_p90_s": percentile([r["seconds"] for r in part_records], 0.9),
                                    "margin": margin_table(made), "choices": made}
    _common.write_json(result, args.result, RESULT.name)
    print(json.dumps({k: {f: v for f, v in s.items() if f not in ("by_kind", "choices")}
                      for k, s in result["sets"].items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
