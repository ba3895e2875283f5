"""What DocLens's navigator sampling buys: page recall of the union of the first j navigator samples, j = 1 … T_e.

The paper's ablation is the anchor: the union of 8 samples finds 97.3 % of evidence pages against 95.6 % for
one navigator pass (§5.2), and appendix E.1 shows recall rising from ~78 % at one sample to over 90 % at 8. This
script reads what `docqa eval` recorded for the doclens method — every navigator sample's reply is in the
trace — so it needs no model:

    python benchmarks/navigator_sampling.py benchmarks/eval-dev-1.5b/doclens-issue16/quick

Writes benchmarks/results/navigator_sampling.json (RESULTS.md via run_all.py --collect-only).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS  # noqa: E402

from docqa_desktop.methods.doclens.navigator import located_everything  # noqa: E402

_SAMPLE = re.compile(r"^navigate(?: \d+/\d+)?(?: \[sample (\d+)/(\d+)\])?$")


def samples_located(record: dict, max_share: float = 1.0) -> list[set[int]]:
    """The pages each navigator sample located (over all its batches), in sample order, leaving out what the
    method ignored (a batch reply naming more than `max_share` of the batch's pages). Page ids are the
    document's page numbers (one document per question, as `docqa eval` scopes it)."""
    per_sample: dict[int, set[int]] = defaultdict(set)
    for call in record.get("calls", []):
        match = _SAMPLE.match(call["step"])
        if not match:
            continue
        try:
            located = json.loads(call["output"])["located_pages"]
        except (json.JSONDecodeError, KeyError, TypeError):
            located = []  # a sample cut short counts as locating nothing
        located = set(int(p) for p in located)
        if located_everything(len(located), len(call["pages"]), max_share):
            located = set()
        per_sample[int(match.group(1) or 1)].update(located)
    return [per_sample[i] for i in sorted(per_sample)]


def curve(records: list[dict], max_share: float = 1.0) -> list[dict]:
    """Per j: mean recall, all-hit and pages of the union of the first j samples, over questions with evidence."""
    rows = []
    with_evidence = [(set(r["evidence_pages"]), samples_located(r, max_share)) for r in records
                     if r["method"] == "doclens" and r["evidence_pages"]]
    most = max((len(s) for _, s in with_evidence), default=0)
    for j in range(1, most + 1):
        unions = [(gold, set().union(*samples[:j])) for gold, samples in with_evidence if len(samples) >= j]
        rows.append({"samples": j, "questions": len(unions),
                     "recall": sum(len(g & u) / len(g) for g, u in unions) / len(unions),
                     "all_hit": sum(g <= u for g, u in unions) / len(unions),
                     "pages": sum(len(u) for _, u in unions) / len(unions)})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="an eval folder holding results.jsonl with doclens records")
    parser.add_argument("--out", type=Path, default=RESULTS / "navigator_sampling.json")
    args = parser.parse_args()
    records = [json.loads(line) for line in (args.run / "results.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    run = json.loads((args.run / "run.json").read_text(encoding="utf-8"))
    max_share = run.get("method_settings", {}).get("doclens", {}).get("max_located_share", 1.0)
    result = {"run": str(args.run), "max_located_share": max_share, "curve": curve(records, max_share)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for row in result["curve"]:
        print(f"T_e = {row['samples']}: recall {100 * row['recall']:.1f} %, all-hit {100 * row['all_hit']:.1f} %, "
              f"{row['pages']:.1f} pages ({row['questions']} questions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
