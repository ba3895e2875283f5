"""What a visual search costs before it scans: the checks against the database that every search makes.

    .venv/bin/python benchmarks/visual_bookkeeping.py --pages N [--repeats 30] [--json] [--out FILE]

maxsim_search.py times the search structure alone. A search through the service first asks the database
which pages the embedder has embedded (VisualLibraryIndex.sync compares the live page keys with the
cache's). This builds a real library file of N pages in documents of 10 (one short vector
per page: the checks read only the key columns, which do not grow with the vectors) with its search cache,
then times those checks when nothing changed, and the catch-up after 1 % of the documents were replaced.
Writes benchmarks/results/visual_bookkeeping-N.json (or --out).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from docqa_desktop.store.database import Database  # noqa: E402
from docqa_desktop.visual.library_index import VisualLibraryIndex  # noqa: E402

MODEL, PAGES_PER_DOCUMENT = "bench-embedder", 10


def add_documents(db: Database, first: int, count: int) -> None:
    """Documents first..first+count-1, each a live file with embedded pages."""
    docs = np.arange(first, first + count, dtype=np.int64)
    pages = PAGES_PER_DOCUMENT * count
    with db.transaction() as cur:
        db.insert_arrow(cur, "files", pa.table({
            "path": [f"/library/{d}.pdf" for d in docs.tolist()], "doc_id": pa.array(docs),
            "status": ["indexed"] * count}))
        vector = np.ones((1, 128), np.int8).tobytes()
        db.insert_arrow(cur, "page_vectors", pa.table({
            "doc_id": pa.array(np.repeat(docs, PAGES_PER_DOCUMENT)),
            "page": pa.array(np.tile(np.arange(1, PAGES_PER_DOCUMENT + 1, dtype=np.int32), count)),
            "model": [MODEL] * pages, "vector_count": pa.array(np.ones(pages, np.int32)),
            "grid_rows": pa.array(np.ones(pages, np.int32)), "grid_cols": pa.array(np.ones(pages, np.int32)),
            "int8": [vector] * pages, "scales": [np.ones(1, np.float32).tobytes()] * pages,
            "pooled_signs": [np.zeros((1, 2), np.uint64).tobytes()] * pages,
            "patch_rows": [np.zeros(1, np.int32).tobytes()] * pages}))


def forget_documents(db: Database, docs: list[int]) -> None:
    with db.transaction() as cur:
        cur.execute("UPDATE files SET doc_id = NULL WHERE doc_id IN (SELECT unnest(?::BIGINT[]))", [docs])


def checks_ms(index: VisualLibraryIndex) -> float:
    """What VisualModels.library_index() does before each search once the cache is open."""
    start = time.perf_counter()
    changed = index.sync()
    assert len(index)
    elapsed = (time.perf_counter() - start) * 1000
    assert changed == (0, 0), changed
    return elapsed


def measure(pages: int, repeats: int, work: Path) -> dict:
    documents = pages // PAGES_PER_DOCUMENT
    db = Database(work / "library.duckdb")
    add_documents(db, 1, documents)
    index = VisualLibraryIndex(lambda: db, work / "cache", MODEL)
    start = time.perf_counter()
    index.sync()
    first_sync_s = time.perf_counter() - start
    times = [checks_ms(index) for _ in range(repeats)]

    replaced = max(1, documents // 100)  # a folder sync that changed 1 % of the documents
    forget_documents(db, list(range(1, replaced + 1)))
    add_documents(db, documents + 1, replaced)
    start = time.perf_counter()
    added, removed = index.sync()
    catch_up_ms = (time.perf_counter() - start) * 1000
    assert (added, removed) == (replaced * PAGES_PER_DOCUMENT,) * 2, (added, removed)
    db.con.close()
    return {"pages": pages, "checks_p50_ms": round(statistics.median(times), 2),
            "checks_p90_ms": round(float(np.percentile(times, 90)), 2),
            "first_sync_s": round(first_sync_s, 2),
            "catch_up_ms": round(catch_up_ms, 1), "catch_up_pages": replaced * PAGES_PER_DOCUMENT * 2}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, required=True)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--out")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="docqa-bookkeeping-") as work:
        result = measure(args.pages, args.repeats, Path(work))
    result["environment"] = _common.environment()
    _common.write_json(result, args.out, f"visual_bookkeeping-{args.pages}.json")
    print(json.dumps(result) if args.json else
          f"{args.pages:,} pages: checks before each search p50 {result['checks_p50_ms']} ms, "
          f"p90 {result['checks_p90_ms']} ms; catch-up of {result['catch_up_pages']:,} changed pages "
          f"{result['catch_up_ms']} ms")


if __name__ == "__main__":
    main()
