"""What the damage checks cost: the quick check on every open, and the full read `docqa repair` makes.

    .venv/bin/python benchmarks/db_open_check.py --documents N [--repeats 20] [--json] [--out FILE]

Builds a real library file of N documents (one file each, 10 pages of ~1 KB text each) and times opening it
with Database (connect, schema check, the quick check of the small tables), the quick check alone, and
repair's full check (every block of every table read). Writes benchmarks/results/db_open_check-N.json.
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
from docqa_desktop.store.repair import damage_of  # noqa: E402

PAGES_PER_DOCUMENT = 10
WORDS = np.array("harbour solar output revenue board meeting minutes ferry schedule tariff".split())


def build(path: Path, documents: int) -> None:
    rng = np.random.default_rng(0)
    ids = np.arange(1, documents + 1, dtype=np.int64)
    pages = documents * PAGES_PER_DOCUMENT
    with Database(path) as db, db.transaction() as cur:
        db.insert_arrow(cur, "libraries", pa.table({"root": ["/srv/library"]}))
        db.insert_arrow(cur, "documents", pa.table({
            "id": pa.array(ids), "sha256": [f"{i:064x}" for i in ids.tolist()],
            "size": pa.array(np.full(documents, 1_500_000)), "pages": pa.array(np.full(documents, 10, np.int32)),
            "title": [f"Annual report {i}" for i in ids.tolist()],
            "parser_version": pa.array(np.full(documents, 2, np.int32))}))
        db.insert_arrow(cur, "files", pa.table({
            "path": [f"/srv/library/folder {i % 50}/report {i}.pdf" for i in ids.tolist()],
            "library_id": pa.array(np.ones(documents, np.int64)), "doc_id": pa.array(ids),
            "size": pa.array(np.full(documents, 1_500_000)), "mtime": pa.array(np.full(documents, 1.7e9)),
            "status": ["indexed"] * documents}))
        text = [" ".join(WORDS[rng.integers(0, len(WORDS), 150)]) for _ in range(pages)]
        db.insert_arrow(cur, "pages", pa.table({
            "doc_id": pa.array(np.repeat(ids, PAGES_PER_DOCUMENT)),
            "page": pa.array(np.tile(np.arange(1, PAGES_PER_DOCUMENT + 1, dtype=np.int32), documents)),
            "label": [str(p) for p in np.tile(np.arange(1, PAGES_PER_DOCUMENT + 1), documents).tolist()],
            "width": pa.array(np.full(pages, 612.0, np.float32)), "height": pa.array(np.full(pages, 792.0, np.float32)),
            "text": text, "text_source": ["layer"] * pages}))
    with Database(path) as db:
        db.con.execute("CHECKPOINT")


def measure(documents: int, repeats: int, work: Path) -> dict:
    path = work / "library.duckdb"
    build(path, documents)
    opens, checks = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        db = Database(path)
        opens.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        db._quick_check()
        checks.append((time.perf_counter() - start) * 1000)
        db.close()
    start = time.perf_counter()
    assert damage_of(path) is None
    full_s = time.perf_counter() - start
    return {"documents": documents, "pages": documents * PAGES_PER_DOCUMENT,
            "file_mb": round(path.stat().st_size / 2**20, 1),
            "open_p50_ms": round(statistics.median(opens), 1),
            "quick_check_p50_ms": round(statistics.median(checks), 2),
            "repair_full_check_s": round(full_s, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, required=True)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--out")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="docqa-open-check-") as work:
        result = measure(args.documents, args.repeats, Path(work))
    result["environment"] = _common.environment()
    _common.write_json(result, args.out, f"db_open_check-{args.documents}.json")
    print(json.dumps(result) if args.json else
          f"{args.documents:,} documents ({result['file_mb']} MB): open p50 {result['open_p50_ms']} ms, of which "
          f"the quick check {result['quick_check_p50_ms']} ms; repair's full check {result['repair_full_check_s']} s")


if __name__ == "__main__":
    main()
