"""Which reading list keeps the evidence? SimpleDoc's first-round selection replayed offline under other
rules, from recorded eval results (the "select pages" call's candidates in retriever order and the pages
the re-ranker picked), with no model call: all-hit of the pages each rule would have read in round 1.

    python benchmarks/selection_policies.py benchmarks/eval-dev-1.5b/quick [more run folders]

Only round 1 is replayed (later rounds depend on the reasoner), over answerable questions.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace

from docqa_desktop.methods.simpledoc.method import reading_list

def _reading_list(keep_top: int):
    """The product's own rule (simpledoc.method.reading_list) with `keep_top`, n pages a round."""
    return lambda c, p, n: reading_list(c, p, SimpleNamespace(keep_top=keep_top, min_pages=n, max_pages=n))


POLICIES = {  # (candidates in retriever order, re-ranker's picks, pages per round) -> pages read
    "re-ranker's picks alone (paper: keep_top 0, min_pages 1)":
        lambda c, p, n: reading_list(c, p, SimpleNamespace(keep_top=0, min_pages=1, max_pages=n)),
    "picks + retriever's best, filled to n (keep_top 1, min_pages n)": _reading_list(1),
    "picks + retriever's best two, filled to n (keep_top 2)": _reading_list(2),
    "retriever's top n (keep_top n; M3DocRAG's pages)": lambda c, p, n: _reading_list(n)(c, p, n),
    "every candidate (k pages)": lambda c, p, n: list(c),
}


def first_selection(record: dict) -> tuple[list[int], list[int]] | None:
    for call in record.get("calls", []):
        if call["step"] == "select pages":
            candidates = [int(p.rsplit("p.", 1)[1]) for p in call["pages"]]
            try:
                picked = json.loads(call["output"])["selected_pages"]
            except (json.JSONDecodeError, KeyError):
                return None
            return candidates, [candidates[i - 1] for i in dict.fromkeys(picked) if 1 <= i <= len(candidates)]
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", type=Path, nargs="+", help="`docqa eval --out` folders with simpledoc results")
    parser.add_argument("--pages", type=int, default=3, help="pages read per round (quick budget: 3)")
    args = parser.parse_args()
    cases = []
    for run in args.runs:
        for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            if record.get("method") == "simpledoc" and record.get("evidence_pages"):
                selection = first_selection(record)
                if selection:
                    cases.append((set(record["evidence_pages"]), *selection))
    if not cases:
        print("no simpledoc results with evidence pages and a recorded selection", file=sys.stderr)
        return 2
    print(f"{len(cases)} answerable questions, {args.pages} pages per round; all-hit % of round 1's reading list:")
    for name, policy in POLICIES.items():
        read = [(gold, policy(candidates, picks, args.pages)) for gold, candidates, picks in cases]
        all_hit = sum(gold <= set(pages) for gold, pages in read) / len(read)
        mean_pages = sum(len(pages) for _, pages in read) / len(read)
        print(f"  {100 * all_hit:5.1f} %  ({mean_pages:.1f} pages)  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
