"""Questions of the dev set answered end to end (`Service.ask`) with the installed models — on this
machine the built-in SmolLM2-135M — until the evaluation command exists.

    .venv/bin/python benchmarks/ask_dev.py --home /tmp/bench-home [--limit 6] [--method simpledoc]

Uses (or creates) a DOCQA home indexed with the documents of the dev questions (retrieval_eval.py's
--home works as is). Questions are taken round-robin over documents so a --limit still covers all of
them. Per question: status, pages handed to the reasoner and their page recall against the evidence
pages, whether an unanswerable question was refused, model calls, tokens and seconds.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from itertools import chain, zip_longest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from retrieval_eval import load_questions  # noqa: E402

from docqa_desktop.service import Service  # noqa: E402
from docqa_desktop.settings import Settings  # noqa: E402


def round_robin(questions: list[dict]) -> list[dict]:
    by_doc: dict[str, list[dict]] = {}
    for q in questions:
        by_doc.setdefault(q["doc"], []).append(q)
    return [q for q in chain.from_iterable(zip_longest(*by_doc.values())) if q is not None]


def unanswerable(q: dict) -> bool:
    return not q["evidence_pages"] or str(q["answer"]).strip().lower() == "not answerable"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--limit", type=int, default=6)
    ap.add_argument("--method", default="simpledoc")
    ap.add_argument("--out")
    args = ap.parse_args()
    questions = round_robin(load_questions(_common.EVAL_FILE))[: args.limit]
    rows = []
    with Service(Settings.load(args.home)) as service:
        for i, q in enumerate(questions, 1):
            started = time.perf_counter()
            answer = service.ask(q["question"], [q["doc"]], args.method)
            seen = [p.page for p in answer.pages_used]
            evidence = set(q["evidence_pages"])
            rows.append({
                "doc": q["doc"], "question": q["question"], "gold": q["answer"], "prediction": answer.text,
                "status": answer.status.value, "error": answer.error, "unanswerable": unanswerable(q),
                "pages_used": seen, "evidence_pages": q["evidence_pages"],
                "page_recall": len(evidence & set(seen)) / len(evidence) if evidence else None,
                "llm_calls": len(answer.calls), "prompt_tokens": answer.prompt_tokens,
                "output_tokens": answer.output_tokens, "iterations": answer.iterations,
                "citations": [c.as_json() for c in answer.citations],
                "seconds": round(time.perf_counter() - started, 1)})
            print(f"{i}/{len(questions)} {answer.status.value:14} {rows[-1]['seconds']:6.1f}s pages {seen} "
                  f"evidence {q['evidence_pages']}", flush=True)
    answerable = [r for r in rows if not r["unanswerable"]]
    refused = [r for r in rows if r["unanswerable"]]
    summary = {
        "questions": len(rows), "method": args.method,
        "status": {s: sum(r["status"] == s for r in rows) for s in {r["status"] for r in rows}},
        "pages_to_reasoner_mean": round(statistics.fmean(len(r["pages_used"]) for r in rows), 2),
        "page_recall_mean": round(statistics.fmean(r["page_recall"] for r in answerable), 3) if answerable else None,
        "unanswerable_refused": f"{sum(r['status'] == 'not_answerable' for r in refused)}/{len(refused)}",
        "llm_calls_mean": round(statistics.fmean(r["llm_calls"] for r in rows), 1),
        "prompt_tokens_mean": round(statistics.fmean(r["prompt_tokens"] for r in rows)),
        "output_tokens_mean": round(statistics.fmean(r["output_tokens"] for r in rows)),
        "seconds_mean": round(statistics.fmean(r["seconds"] for r in rows), 1),
        "seconds_median": round(statistics.median(r["seconds"] for r in rows), 1),
    }
    path = _common.write_json({"environment": _common.environment(), "summary": summary, "questions": rows},
                              args.out, f"ask_dev_{args.method}.json")
    print(summary)
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
