"""Today's keyword index at library scale (issue 21's starting point): how long DuckDB's full-text index takes to
rebuild, how fast BM25 answers, and what adding or removing one 20-page document costs, since every change
rebuilds the whole index.

    .venv/bin/python benchmarks/fts_rebuild.py --pages 10000 [--queries 30] [--json]

The library is synthetic but its words are real: each page is a corpus page's text with a fifth of its words
replaced by words drawn from the corpus vocabulary by frequency (a seeded draw), so term statistics stay
document-like while pages differ. Pages go straight into a fresh database (no PDF parsing: this measures the
index, not the indexer); queries are the dev questions. Writes benchmarks/results/fts_rebuild-N.json.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

PAGES_PER_DOCUMENT = 20
REPLACED = 0.2  # share of each page's words drawn anew from the vocabulary
_WORD = re.compile(r"\S+")


def corpus_pages(corpus: Path) -> list[list[str]]:
    pages = []
    for pdf in sorted(corpus.glob("*.pdf")):
        with pymupdf.open(pdf) as doc:
            pages += [words for page in doc if len(words := _WORD.findall(page.get_text())) >= 20]
    return pages


def synthetic_pages(base: list[list[str]], count: int, seed: int = 7):
    """`count` page texts: corpus pages in turn, each with REPLACED of its words resampled by frequency."""
    rng = np.random.default_rng(seed)
    vocabulary, counts = np.unique(np.concatenate([np.array(p) for p in base]), return_counts=True)
    weights = counts / counts.sum()
    for i in range(count):
        words = np.array(base[i % len(base)], dtype=object)
        swap = rng.random(len(words)) < REPLACED
        words[swap] = rng.choice(vocabulary, size=int(swap.sum()), p=weights)
        yield " ".join(words)


def add_documents(db, texts: list[str], first_doc: int) -> list[int]:
    """Documents of PAGES_PER_DOCUMENT pages holding `texts`; returns their ids."""
    docs = list(range(first_doc, first_doc + -(-len(texts) // PAGES_PER_DOCUMENT)))
    with db.transaction() as cur:
        db.insert_arrow(cur, "documents", pa.table({
            "id": pa.array(docs, pa.int64()), "sha256": [f"synthetic-{d}" for d in docs],
            "size": pa.array([0] * len(docs), pa.int64()), "pages": pa.array([PAGES_PER_DOCUMENT] * len(docs), pa.int32()),
            "title": [f"Synthetic {d}" for d in docs], "parser_version": pa.array([1] * len(docs), pa.int32())}))
        numbers = list(range(len(texts)))
        db.insert_arrow(cur, "pages", pa.table({
            "doc_id": pa.array([docs[n // PAGES_PER_DOCUMENT] for n in numbers], pa.int64()),
            "page": pa.array([n % PAGES_PER_DOCUMENT + 1 for n in numbers], pa.int32()),
            "label": [str(n % PAGES_PER_DOCUMENT + 1) for n in numbers],
            "width": pa.array([612.0] * len(texts), pa.float32()), "height": pa.array([792.0] * len(texts), pa.float32()),
            "text": texts, "text_source": ["layer"] * len(texts)}))
    return docs


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def measure(pages: int, queries: list[str], base: list[list[str]]) -> dict:
    from docqa_desktop.retrieval.bm25 import search_pages
    from docqa_desktop.store.database import Database

    with tempfile.TemporaryDirectory() as tmp:
        db = Database(Path(tmp) / "library.duckdb")
        started = time.perf_counter()
        texts = list(synthetic_pages(base, pages + PAGES_PER_DOCUMENT))
        add_documents(db, texts[:pages], 1)
        insert_s = time.perf_counter() - started
        rebuild_s = timed(db.rebuild_text_index)
        latencies = []
        for query in queries:
            started = time.perf_counter()
            search_pages(db, query, None, 10)
            latencies.append(1000 * (time.perf_counter() - started))
        extra = pages // PAGES_PER_DOCUMENT + 1
        add_s = timed(lambda: (add_documents(db, texts[pages:], extra), db.rebuild_text_index()))
        with db.transaction() as cur:
            remove_s = timed(lambda: cur.execute("DELETE FROM pages WHERE doc_id = ?", [extra]))
        remove_s += timed(db.rebuild_text_index)
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
