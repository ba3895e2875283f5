"""What Doc-React's entropy term does: how often the choice by gain / entropy differs from the gain alone (the
retrieval score), and which of the two picks held an evidence page; plus the actions the model took.

Reads what `docqa eval` recorded for the docreact method (every candidate's gain, entropy and score, and the
choice beside the gain's, are notes in the trace), so it needs no model:

    python benchmarks/docreact_choice.py benchmarks/eval-dev-1.5b/combined-issue19/quick

Writes benchmarks/results/docreact_choice.json (RESULTS.md via run_all.py --collect-only).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, environment  # noqa: E402

_CHOICE = re.compile(r"^extract \d+: chose (.+); gain alone: (.+)$")
_CANDIDATE = re.compile(r"^extract \d+: .* H ([0-9.]+|inf) Δ [-0-9.e]+( ← chosen)?$")
_PAGE = re.compile(r" p\.(\d+)")


def pages_named(text: str) -> set[int]:
    return {int(p) for p in _PAGE.findall(text)}


def choices(records: list[dict]) -> dict:
    """Over every Search round with at least two candidates: how often the entropy changed the choice, and
    how often each pick held an evidence page (questions with evidence pages only for the latter)."""
    rounds = changed = 0
    hits = Counter()
    entropies = {"chosen": [], "other": []}
    for record in records:
        gold = set(record.get("evidence_pages") or [])
        for note in record.get("notes", []):
            if (candidate := _CANDIDATE.match(note)) and candidate.group(1) != "inf":
                entropies["chosen" if candidate.group(2) else "other"].append(float(candidate.group(1)))
            match = _CHOICE.match(note)
            if not match:
                continue
            rounds += 1
            chosen, by_gain = match.group(1), match.group(2)
            if by_gain == "the same":
                continue
            changed += 1
            if gold:
                hits["changed with evidence"] += 1
                hits["entropy pick is evidence"] += bool(pages_named(chosen) & gold)
                hits["gain pick is evidence"] += bool(pages_named(by_gain) & gold)
    mean = {k: sum(v) / len(v) if v else None for k, v in entropies.items()}
    return {"search_rounds": rounds, "changed": changed, "changed_share": changed / rounds if rounds else None,
            **hits, "mean_entropy_chosen": mean["chosen"], "mean_entropy_other": mean["other"]}


def actions(records: list[dict]) -> dict:
    """How many Thought steps chose each action, and the rounds per question."""
    counts = Counter()
    for record in records:
        for call in record.get("calls", []):
            if call["step"].startswith("thought"):
                try:
                    counts[json.loads(call["output"])["action"]] += 1
                except (json.JSONDecodeError, KeyError, TypeError):
                    counts["unparsed"] += 1
    rounds = [sum(c["step"].startswith("thought") for c in r.get("calls", [])) for r in records]
    return {"actions": dict(counts), "rounds_per_question": sum(rounds) / len(rounds) if rounds else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="an eval folder holding results.jsonl with docreact records")
    parser.add_argument("--method", default="docreact", help="the records' method name (a variant's, when renamed)")
    parser.add_argument("--out", type=Path, default=RESULTS / "docreact_choice.json")
    args = parser.parse_args()
    records = [r for line in (args.run / "results.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip() and (r := json.loads(line))["method"] == args.method]
    result = {"run": str(args.run), "method": args.method, "questions": len(records), **choices(records), **actions(records),
              "environment": environment()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
