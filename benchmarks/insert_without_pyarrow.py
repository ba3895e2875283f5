"""Could the Linux package drop pyarrow (111 MB)? DuckDB reads Python data only through pyarrow or pandas: a bulk
insert without either goes through a file DuckDB reads itself (CSV written with Python's csv module; Parquet would need
pyarrow to write) or executemany. This times the indexer's text stage on corpus PDFs (index_throughput.py's
text_only configuration) with its bulk inserts as they are (a pyarrow table registered, Database.insert_arrow) and
through a temporary CSV file read by read_csv, alternately, each run in its own process and fresh home; and one
executemany insert of a page's worth of rows, for scale.

    .venv/bin/python benchmarks/insert_without_pyarrow.py [--pdfs a.pdf,b.pdf] [--rounds 2] [--out FILE]

insert_s: seconds inside Database.insert_arrow (the CSV path: writing the file and INSERT … SELECT FROM read_csv; not
the conversion of the pyarrow table back to Python lists, which a CSV-only writer would not do). wall_s: the whole
Service.index() (that conversion included, so the CSV path's wall is a little pessimistic; insert_s is the clean
comparison).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

DEFAULT_PDFS = "ADI_2009.pdf,BESTBUY_2023_10K.pdf,List_of_French_monarchs.pdf,STEPBACK.pdf"
PATHS = ("arrow", "csv")


class _Null(float):
    """None in a numeric or text column: written bare as \\N (csv quotes every string, so a text \\N stays text)."""
    def __repr__(self):
        return "\\N"
    __str__ = __repr__


NULL = _Null(0)


def duck_types(table) -> dict[str, str]:
    import pyarrow as pa
    known = {pa.int64(): "BIGINT", pa.int32(): "INTEGER", pa.float32(): "FLOAT", pa.float64(): "DOUBLE",
             pa.string(): "VARCHAR", pa.large_string(): "VARCHAR", pa.bool_(): "BOOLEAN"}
    return {name: known[table.schema.field(name).type] for name in table.column_names}


def insert_through_csv(cur, table: str, columns: dict[str, list], types: dict[str, str]) -> None:
    """The rows of `columns` written to a CSV file that DuckDB reads back into `table`."""
    with tempfile.NamedTemporaryFile("w", suffix=".csv", newline="", delete=False, encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
        writer.writerows(tuple(NULL if v is None else v for v in row) for row in zip(*columns.values()))
    spec = ", ".join(f"'{n}': '{t}'" for n, t in types.items())
    try:
        cur.execute(f"INSERT INTO {table} ({', '.join(types)}) SELECT * FROM read_csv('{f.name}', header=false, "
                    f"columns={{{spec}}}, delim=',', quote='\"', escape='\"', new_line='\\n', auto_detect=false, "
                    "allow_quoted_nulls=false, nullstr='\\N')")
    finally:
        os.unlink(f.name)


def run_child(path: str, pdfs: list[Path]) -> dict:
    import index_throughput

    from docqa_desktop.store import database

    spent = {"seconds": 0.0, "calls": 0, "rows": 0}
    original = database.Database.insert_arrow

    def timed(self, cur, table, data):
        if data.num_rows == 0:
            return
        if path == "csv":
            columns, types = data.to_pydict(), duck_types(data)  # untimed: see the module's docstring
            started = time.perf_counter()
            insert_through_csv(cur, table, columns, types)
        else:
            started = time.perf_counter()
            original(self, cur, table, data)
        spent["seconds"] += time.perf_counter() - started
        spent["calls"] += 1
        spent["rows"] += data.num_rows

    database.Database.insert_arrow = timed
    with tempfile.TemporaryDirectory(prefix="docqa-insert-") as tmp:
        folder = _common.link_folder(Path(tmp) / "pdfs", pdfs)
        run = index_throughput.run_config("text_only", Path(tmp) / "home", folder, 2)
    return {"path": path, "pages": run["pages"], "wall_s": run["wall_seconds"], "insert_s": round(spent["seconds"], 3),
            "insert_calls": spent["calls"], "rows": spent["rows"], "failed": run["failed"]}


def executemany_rate(rows: int = 300) -> dict:
    """Seconds for `rows` word rows through executemany (the app's words table's columns)."""
    import duckdb
    con = duckdb.connect()
    con.execute("CREATE TABLE words (doc_id BIGINT, page INTEGER, seq INTEGER, line INTEGER, text VARCHAR, "
                "x0 FLOAT, y0 FLOAT, x1 FLOAT, y1 FLOAT)")
    data = [(1, 1, i, i // 12, f"word{i}", 1.0 * i, 2.0, 3.0 * i, 4.0) for i in range(rows)]
    started = time.perf_counter()
    con.executemany("INSERT INTO words VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", data)
    return {"rows": rows, "seconds": round(time.perf_counter() - started, 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdfs", default=DEFAULT_PDFS, help="comma-separated corpus PDF names")
    ap.add_argument("--rounds", type=int, default=2, help="runs of each path, alternating")
    ap.add_argument("--out")
    ap.add_argument("--_child", nargs=2, metavar=("PATH", "RESULT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    pdfs = [_common.CORPUS / name for name in args.pdfs.split(",")]
    if args._child:
        path, result = args._child
        Path(result).write_text(json.dumps(run_child(path, pdfs)))
        return 0
    runs = []
    with tempfile.TemporaryDirectory(prefix="docqa-insert-runs-") as tmp:
        for round_no in range(args.rounds):
            for path in PATHS:
                result = Path(tmp) / f"{path}-{round_no}.json"
                subprocess.run([sys.executable, __file__, "--pdfs", args.pdfs, "--_child", path, str(result)],
                               check=True)
                runs.append(json.loads(result.read_text()))
                print(runs[-1], flush=True)

    def mean(path: str, key: str) -> float:
        values = [r[key] for r in runs if r["path"] == path]
        return round(sum(values) / len(values), 3)

    summary = {path: {"wall_s": mean(path, "wall_s"), "insert_s": mean(path, "insert_s")} for path in PATHS}
    summary["csv_vs_arrow"] = {"wall": round(summary["csv"]["wall_s"] / summary["arrow"]["wall_s"] - 1, 3),
                               "insert_s_added": round(summary["csv"]["insert_s"] - summary["arrow"]["insert_s"], 3)}
    data = {"environment": _common.environment(), "pdfs": [p.name for p in pdfs], "runs": runs, "summary": summary,
            "executemany": executemany_rate()}
    path = _common.write_json(data, args.out, "insert_without_pyarrow.json")
    print(_common.markdown_table(["bulk insert", "wall s (mean)", "inside inserts s (mean)"],
                                 [[p, summary[p]["wall_s"], summary[p]["insert_s"]] for p in PATHS]))
    print(f"CSV against pyarrow: wall {summary['csv_vs_arrow']['wall']:+.1%}; executemany: "
          f"{data['executemany']['rows']} rows in {data['executemany']['seconds']} s -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
