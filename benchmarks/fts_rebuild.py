"""DuckDB's full-text index at library scale (issue 21's starting point, the keyword index before v5): how long it
takes to rebuild, how fast BM25 answers, and what adding or removing one 20-page document costs, since every change
rebuilds the whole index. Kept to compare with the keyword index that replaced it (benchmarks/library_scale.py).

    .venv/bin/python benchmarks/fts_rebuild.py --pages 10000 [--queries 30] [--json]

The library is synthetic but its words are real: each page is a corpus page's text with a fifth of its words
replaced by words drawn from the corpus vocabulary by frequency (a seeded draw), so term statistics stay
document-like while pages differ. Pages go straight into a fresh database (no PDF parsing: this measures the
index, not the indexer); queries are the dev questions. Writes benchmarks/results/fts_rebuild-N.json.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from _synthetic import PAGES_PER_DOCUMENT, add_documents, corpus_pages, synthetic_pages  # noqa: E402

def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def rebuild_fts(db) -> None:
    """DuckDB FTS's index over all pages, as the product built it before the keyword index (store/keywords.py)."""
    cur = db.cursor()
    cur.execute("PRAGMA create_fts_index('pages', 'id', 'text', stemmer='porter', stopwords='english', "
                "ignore='(\\.|[^a-z0-9])+', strip_accents=1, lower=1, overwrite=1)")


def search_fts(db, query: str, limit: int) -> list:
    return db.cursor().execute(
        "SELECT doc_id, page, score FROM (SELECT doc_id, page, fts_main_pages.match_bm25(id, ?) AS score FROM pages) "
        "WHERE score IS NOT NULL ORDER BY score DESC, doc_id, page LIMIT ?", [query, limit]).fetchall()


def measure(pages: int, queries: list[str], base: list[list[str]]) -> dict:
    from docqa_desktop.store.database import Database

    with tempfile.TemporaryDirectory() as tmp:
        db = Database(Path(tmp) / "library.duckdb")
        started = time.perf_counter()
        texts = list(synthetic_pages(base, pages + PAGES_PER_DOCUMENT))
        add_documents(db, texts[:pages], 1)
        insert_s = time.perf_counter() - started
        rebuild_s = timed(lambda: rebuild_fts(db))
        latencies = []
        for query in queries:
            started = time.perf_counter()
            search_fts(db, query, 10)
            latencies.append(1000 * (time.perf_counter() - started))
        extra = pages // PAGES_PER_DOCUMENT + 1
        add_s = timed(lambda: (add_documents(db, texts[pages:], extra), rebuild_fts(db)))
        with db.transaction() as cur:
            remove_s = timed(lambda: cur.execute("DELETE FROM pages WHERE doc_id = ?", [extra]))
        remove_s += timed(lambda: rebuild_fts(db))
        db.close()
        db_mb = sum(f.stat().st_size for f in Path(tmp).glob("library.duckdb*")) / 2**20
    return {"pages": pages, "library_build_s": round(insert_s, 1), "fts_rebuild_s": round(rebuild_s, 2),
            "bm25_p50_ms": round(float(np.percentile(latencies, 50)), 1),
            "bm25_p90_ms": round(float(np.percentile(latencies, 90)), 1),
            "add_document_s": round(add_s, 2), "remove_document_s": round(remove_s, 2),
            "rss_mb": _common.peak_rss_mb()["main_mb"], "db_mb": round(db_mb, 1), "queries": len(queries)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, required=True)
    ap.add_argument("--queries", type=int, default=30, help="dev questions asked (p50/p90 of BM25)")
    ap.add_argument("--corpus", type=Path, default=_common.CORPUS)
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    ap.add_argument("--out")
    args = ap.parse_args()
    questions = [json.loads(line)["question"] for line in _common.EVAL_FILE.read_text().splitlines() if line.strip()]
    figures = measure(args.pages, questions[: args.queries], corpus_pages(args.corpus))
    path = _common.write_json({"environment": _common.environment(), **figures}, args.out,
                              f"fts_rebuild-{args.pages}.json")
    print(json.dumps(figures) if args.json else f"{figures}\nwritten to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
