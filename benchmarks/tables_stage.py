"""The tables stage (issue 43): pages per second and index growth per page, on corpus PDFs whose layout is done.

    .venv/bin/python benchmarks/tables_stage.py --home DIR [--out FILE]

DIR is a home whose documents have been indexed with layout by a build before the tables stage (schema v7), e.g.
a copy of the quoted_trust home; the copy is opened here (the migration adds the tables' tables) and indexed
again, so that the tables stage is the only work left. Reported: the stage's seconds, born-digital pages done,
pages/s, pages holding a table region, tables and cells read, the database file's bytes per page before and after (after a
CHECKPOINT each time; DuckDB reuses free blocks, so the file may not grow) and the bytes of the blocks the two new
tables occupy, per page. Written to benchmarks/results/tables_stage.json (RESULTS.md via run_all.py).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

from docqa_desktop.service import Service  # noqa: E402
from docqa_desktop.settings import Settings  # noqa: E402

DB = Path("data") / "library.duckdb"


def _size_after_checkpoint(service: Service) -> int:
    db = service.resources.db
    db.cursor().execute("CHECKPOINT")
    return Path(db.path).stat().st_size


def _table_bytes(cur, table: str) -> int:
    """The bytes of the blocks a table's columns occupy (DuckDB reuses free blocks, so the file alone may not
    grow)."""
    blocks, size = cur.execute(f"SELECT count(DISTINCT block_id), any_value(block_size) FROM (SELECT block_id, "
                               f"(SELECT block_size FROM pragma_database_size()) AS block_size FROM "
                               f"pragma_storage_info('{table}') WHERE block_id >= 0)").fetchone()
    return blocks * (size or 0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", required=True, help="a home indexed with layout before the tables stage existed")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "home"
        shutil.copytree(args.home, home)
        settings = Settings.load(home)
        with Service(settings) as service:
            cur = service.resources.db.cursor()
            before = _size_after_checkpoint(service)
            paths = [p for (p,) in cur.execute("SELECT path FROM files WHERE status = 'indexed'").fetchall()]
            report = service.library.index(paths)
            after = _size_after_checkpoint(service)
            pages, born_digital = cur.execute(
                "SELECT count(*), count(*) FILTER (WHERE text_source = 'layer') FROM pages").fetchone()
            regions = cur.execute("SELECT count(DISTINCT (doc_id, page)) FROM elements WHERE kind = 'table'").fetchone()[0]
            tables, cells = (cur.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("page_tables", "table_cells"))
            stored = sum(_table_bytes(cur, t) for t in ("page_tables", "table_cells"))
    seconds = report.stage_seconds.get("tables", 0.0)
    result = {
        "environment": _common.environment(), "documents": len(paths), "pages": pages,
        "born_digital_pages": born_digital, "pages_with_table_regions": regions, "tables": tables, "cells": cells,
        "tables_seconds": round(seconds, 2),
        "born_digital_pages_per_s": round(born_digital / seconds, 2) if seconds else None,
        "region_pages_per_s": round(regions / seconds, 2) if seconds else None,
        "db_bytes_per_page_before": round(before / pages), "db_bytes_per_page_after": round(after / pages),
        "file_growth_bytes_per_page": round((after - before) / pages),
        "tables_bytes": stored, "tables_bytes_per_page": round(stored / pages),
        "errors": report.errors,
    }
    _common.write_json(result, args.out, "tables_stage.json")
    print(json.dumps({k: v for k, v in result.items() if k != "environment"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
