"""Which text unit finds more evidence pages for MDocAgent's text agent: the top-k passages (chunks, the
paper's "segments") or the top-k pages? No model is called: retrieval only, on the dev questions.

    .venv/bin/python benchmarks/segment_recall.py --home HOME [--out FILE]

HOME must have the dev questions' documents indexed (eval_real.py's scratch base home does, or
`docqa --home HOME index` them). For every question with evidence pages, scoped to its document: SimpleDoc
A.3 page recall and all-hit of the pages the top-k passages come from, and of the top-k pages (text mode).
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from docqa_desktop.evaluation.pages import page_metrics  # noqa: E402
from docqa_desktop.evaluation.questions import load_questions  # noqa: E402
from docqa_desktop.retrieval.page_source import PageSource  # noqa: E402
from docqa_desktop.retrieval.scoped_search import ScopedSearch  # noqa: E402
from docqa_desktop.service import Service  # noqa: E402
from docqa_desktop.settings import Settings  # noqa: E402

KS = (1, 4, 8)


def measure(home: Path) -> dict:
    questions = [q for q in load_questions(_common.EVAL_FILE) if q.evidence_pages]
    figures: dict[str, list[dict]] = {f"{unit}@{k}": [] for unit in ("chunk", "page") for k in KS}
    with Service(Settings.load(str(home))) as service:
        pages = PageSource(service.resources.db)
        for q in questions:
            search = ScopedSearch(service.pages.retriever(), pages, service.pages.resolve_documents([q.doc]), "text")
            for k in KS:
                by_chunk = list(dict.fromkeys(c.page for c in search.chunks(q.question, k)))
                by_page = [r.page for r in search.pages(q.question, k, "text")]
                for unit, found in (("chunk", by_chunk), ("page", by_page)):
                    figures[f"{unit}@{k}"].append({**page_metrics(list(q.evidence_pages), found),
                                                   "pages": len(found)})
    return {"questions": len(questions),
            "units": {name: {"recall": statistics.fmean(m["recall"] for m in rows),
                             "all_hit": statistics.fmean(m["all_hit"] for m in rows),
                             "pages": statistics.fmean(m["pages"] for m in rows)} for name, rows in figures.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a home with the dev documents indexed")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    result = {"environment": _common.environment(), **measure(args.home)}
    path = _common.write_json(result, args.out, "segment_recall.json")
    for name, m in result["units"].items():
        print(f"{name}: recall {100 * m['recall']:.1f} %, all-hit {100 * m['all_hit']:.1f} %, "
              f"{m['pages']:.2f} distinct pages")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
