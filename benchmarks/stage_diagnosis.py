"""Where each answer went wrong, stage by stage: from an eval's results.jsonl, per question and method, the
evidence pages, what each stage kept (retrieved → selected → read, ✓ where it holds every evidence page),
each reasoning round's decision with the start of its scratchpad, and the final short answer and score.

    python benchmarks/stage_diagnosis.py benchmarks/eval-dev-1.5b/quick     # writes quick/diagnosis.md

Reads only what `docqa eval` recorded (every call's output and the pages each stage kept), so it runs on any
finished or partial run without a model.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

OUTPUT_FILE = "diagnosis.md"


def decisions(record: dict) -> list[str]:
    """Each answering call's decision and the start of its reasoning."""
    found = []
    for call in record.get("calls", []):
        try:
            reply = json.loads(call.get("output", ""))
        except json.JSONDecodeError:
            continue
        if not isinstance(reply, dict) or "answer_format" not in reply:
            continue
        decision = reply.get("response") or ("not_answerable" if reply["answer_format"] == "None" else "answer")
        thought = " ".join(str(reply.get("scratchpad") or reply.get("reasoning") or reply.get("analysis") or "").split())[:160]
        found.append(f"{call['step']}: **{decision}** — {thought}")
    return found


def stages(record: dict) -> str:
    gold = set(record["evidence_pages"])
    parts = []
    for stage, pages in record.get("stage_pages", {}).items():
        mark = " ✓" if gold and gold <= set(pages) else ""
        parts.append(f"{stage} {pages}{mark}")
    return " → ".join(parts) or "–"


def diagnosis(records: list[dict]) -> list[str]:
    lines = ["# Stage-by-stage diagnosis", "",
             "✓: the stage holds every evidence page. Decisions are each answering call's, in order.", ""]
    for qid in dict.fromkeys(r["qid"] for r in records):
        mine = [r for r in records if r["qid"] == qid]
        first = mine[0]
        lines += [f"## {first['doc']}: {first['question'][:150]}", "",
                  f"Gold {json.dumps(first['gold'])} ({first['answer_format']}), evidence pages "
                  f"{first['evidence_pages'] or 'none'}.", ""]
        for r in sorted(mine, key=lambda r: r["method"]):
            lines.append(f"- **{r['method']}** → {json.dumps(r.get('short_answer') or r['prediction'])[:80]} "
                         f"(score {r['score']:.2f}, {r['seconds']:.0f} s); {stages(r)}")
            lines += [f"  - {d}" for d in decisions(r)]
        lines.append("")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="a `docqa eval --out` folder")
    args = parser.parse_args()
    path = args.run / "results.jsonl"
    if not path.is_file():
        print(f"{path} does not exist", file=sys.stderr)
        return 2
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = args.run / OUTPUT_FILE
    out.write_text("\n".join(diagnosis(records)) + "\n", encoding="utf-8")
    print(f"{len(records)} results → {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
