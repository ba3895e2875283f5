"""The reader's training data: every labelled question asked of the product's default reader (the quoted method, built-in
models only), and each candidate it weighed kept with its evidence and whether it is the gold answer.

    .venv/bin/python benchmarks/reader/extract.py [--home DIR] [--only SET ...] [--limit N]

Indexes the questions' documents into one library (reused when already indexed), asks each question of its own
document (save=False), and writes data/candidates.jsonl.gz: one line per question with its candidates' values,
sources and features (methods/extractive/evidence.FEATURES) and labels (the evaluation's own scoring: a candidate is
right when `docqa eval` would score it so as the short answer). train.py learns from that file alone.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))
import data  # noqa: E402
from docqa_desktop.evaluation.extraction import extract  # noqa: E402
from docqa_desktop.evaluation.scoring import score  # noqa: E402
from docqa_desktop.methods.extractive.evidence import FEATURES  # noqa: E402
from docqa_desktop.service import Service  # noqa: E402
from docqa_desktop.settings import Settings  # noqa: E402

CANDIDATES_KEPT = 150  # a question's candidates kept at most (in the scorer's order): the file stays a few MB


def is_right(gold, value: str, answer_format: str) -> bool:
    """As `docqa eval` scores a short answer (evaluation/runner.score_record)."""
    if answer_format == "None":
        return False
    return score(gold, extract(value, True, answer_format), answer_format) >= 0.5


def question_row(q: dict, answer, seconds: float) -> dict:
    ranked = answer.candidates[:CANDIDATES_KEPT]
    return {
        "qid": q["qid"], "set": q["set"], "subset": q["subset"], "doc": q["doc"], "kind": q.get("kind", ""),
        "question": q["question"], "gold": q["answer"], "answer_format": q["answer_format"],
        "evidence_pages": q.get("evidence_pages", []), "evidence_sources": q.get("evidence_sources", []),
        "seconds": round(seconds, 3),
        "pages_read": sorted({p.page for p in answer.pages_used}),
        "status": answer.status.value, "short_answer": answer.short_answer,
        "candidates": [{"value": e.value, "source": e.source, "page": e.ref.page,
                        "features": [round(v, 4) for v in e.features],
                        "right": is_right(q["answer"], e.value, q["answer_format"])} for e, _ in ranked],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", default=str(HERE.parent / "out" / "reader-home"))
    ap.add_argument("--only", nargs="*", help="question sets to ask (default: all)")
    ap.add_argument("--limit", type=int, help="at most this many questions (a quick look)")
    ap.add_argument("--out", default=str(data.CANDIDATES))
    args = ap.parse_args()
    questions = [q for q in data.load_questions() if not args.only or q["set"] in args.only][:args.limit]
    out = Path(args.out)
    kept = {r["qid"]: r for r in data.read_candidates(out)} if out.exists() else {}
    with Service(Settings.load(Path(args.home))) as service:
        paths = sorted({q["path"] for q in questions})
        started = time.perf_counter()
        report = service.library.index(paths)
        print(f"indexed {len(paths)} documents in {time.perf_counter() - started:.0f} s: {report}", flush=True)
        for n, q in enumerate(questions, 1):
            started = time.perf_counter()
            answer = service.answers.ask(q["question"], docs=[q["path"]], method="quoted", save=False)
            kept[q["qid"]] = question_row(q, answer, time.perf_counter() - started)
            row = kept[q["qid"]]
            recall = any(c["right"] for c in row["candidates"])
            print(f"[{n}/{len(questions)}] {q['qid']} {answer.status.value} {row['seconds']:.1f}s "
                  f"candidates {len(row['candidates'])} gold-among {recall}", flush=True)
            if n % 50 == 0:
                data.write_candidates(list(kept.values()), out)
    data.write_candidates(sorted(kept.values(), key=lambda r: r["qid"]), out)
    print(json.dumps({"questions": len(kept), "features": len(FEATURES), "file": str(out)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
