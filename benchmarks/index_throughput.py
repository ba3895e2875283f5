"""Indexing throughput on the real corpus: text stage alone, then the full default pipeline.

    .venv/bin/python benchmarks/index_throughput.py [--quick] [--born-digital] [--workers 2] [--out FILE]

--born-digital keeps the PDFs whose every page has a text layer (no OCR): the rate of the background passes
(layout, embeddings) on real born-digital pages, issue 21's "full enrichment >= 3 pages/s".

Each configuration runs in its own child process with a fresh temporary DOCQA home, so that
peak RSS (main process and parser workers) is measured per configuration. The corpus PDFs are
read in place through a temporary folder of symlinks; nothing is copied into the repository.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

CONFIGS = {
    # name: (ocr, layout, dense)
    "text_only": (False, False, False),
    "full_default": (True, True, True),
}
QUICK_COUNT = 3


def page_count(pdf: Path) -> int:
    import pymupdf
    with pymupdf.open(pdf) as doc:
        return doc.page_count


def born_digital(pdf: Path) -> bool:
    """No page the indexer would OCR."""
    import pymupdf

    from docqa_desktop.pdf.document import needs_ocr, text_layer

    with pymupdf.open(pdf) as doc:
        return not any(needs_ocr(page, text_layer(page)[0]) for page in doc)


def select_pdfs(corpus: Path, quick: bool, only_born_digital: bool = False) -> list[Path]:
    pdfs = sorted(corpus.glob("*.pdf"))
    if only_born_digital:
        pdfs = [p for p in pdfs if born_digital(p)]
    if quick:
        pdfs = sorted(pdfs, key=lambda p: (page_count(p), p.name))[:QUICK_COUNT]
    return pdfs


# -- child: one configuration in a fresh home ---------------------------------------------------

def run_config(name: str, home: Path, folder: Path, workers: int) -> dict:
    import duckdb

    from docqa_desktop.service import Service
    from docqa_desktop.settings import Settings

    ocr, layout, dense = CONFIGS[name]
    settings = Settings.load(home)
    settings = dataclasses.replace(settings, index=dataclasses.replace(
        settings.index, ocr=ocr, layout=layout, dense=dense, workers=workers))
    with Service(settings) as service:
        started = time.perf_counter()
        report = service.library.index([str(folder)])
        wall = time.perf_counter() - started
    rss = _common.peak_rss_mb()  # after close: the workers have been joined

    con = duckdb.connect(str(settings.locations.database), read_only=True)
    try:
        sources = dict(con.execute("SELECT text_source, count(*) FROM pages GROUP BY 1").fetchall())
        chunks = con.execute("SELECT count(*), (SELECT count(*) FROM chunk_vectors) FROM chunks").fetchone()
        per_doc = con.execute("""
            SELECT regexp_extract(f.path, '[^/]+$') AS name, d.pages,
                   count(*) FILTER (WHERE p.text_source = 'ocr') AS ocr_pages,
                   count(*) FILTER (WHERE p.text_source = 'none') AS empty_pages
            FROM files f JOIN documents d ON d.id = f.doc_id JOIN pages p ON p.doc_id = d.id
            GROUP BY 1, 2 ORDER BY 1""").fetchall()
    finally:
        con.close()
    pages_db = sum(sources.values())
    stage = report.stage_seconds

    def per_stage(count: int, key: str):
        spent = stage.get(key)
        if not spent or not count:
            return None
        return round(count / (spent / workers), 2)

    stages = {
        "text": {"pages": pages_db, "worker_seconds": stage.get("text"),
                 "pages_per_s": per_stage(pages_db, "text")},
    }
    if ocr:
        stages["ocr"] = {"pages": sources.get("ocr", 0), "worker_seconds": stage.get("ocr"),
                         "pages_per_s": per_stage(sources.get("ocr", 0), "ocr"),
                         "note": "pages whose text_source is 'ocr'; pages OCRed without result count as 'none'"}
    if layout:
        stages["layout"] = {"pages": pages_db, "worker_seconds": stage.get("layout"),
                            "pages_per_s": per_stage(pages_db, "layout")}
    if dense:
        stages["embed"] = {"pages": pages_db, "chunks": chunks[1], "worker_seconds": stage.get("embed"),
                           "pages_per_s": per_stage(pages_db, "embed"),
                           "chunks_per_s": per_stage(chunks[1], "embed")}
    return {
        "config": name,
        "settings": {"ocr": ocr, "layout": layout, "dense": dense, "workers": workers,
                     "ocr_dpi": settings.index.ocr_dpi, "pages_per_task": settings.index.pages_per_task},
        "documents": report.added,
        "pages": report.pages,
        "wall_seconds": round(wall, 2),
        "indexer_seconds": report.seconds,
        "pages_per_s": round(report.pages / wall, 2) if wall else None,
        "failed": report.failed,
        "errors": report.errors,
        "stage_seconds": stage,
        "stages": stages,
        "text_sources": sources,
        "chunks": chunks[0],
        "chunks_embedded": chunks[1],
        "peak_rss": rss,
        "per_document": [{"name": n, "pages": p, "ocr_pages": o, "empty_pages": e} for n, p, o, e in per_doc],
    }


# -- parent ------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="JSON output (default benchmarks/results/index_throughput.json)")
    ap.add_argument("--quick", action="store_true", help=f"only the {QUICK_COUNT} smallest PDFs (smoke test)")
    ap.add_argument("--born-digital", action="store_true", help="only PDFs whose every page has a text layer")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--corpus", type=Path, default=_common.CORPUS)
    ap.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated subset of " + ",".join(CONFIGS))
    ap.add_argument("--keep", action="store_true", help="keep the temporary homes")
    ap.add_argument("--_child", nargs=4, metavar=("CONFIG", "HOME", "FOLDER", "RESULT"), help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args._child:
        name, home, folder, result = args._child
        data = run_config(name, Path(home), Path(folder), args.workers)
        Path(result).write_text(json.dumps(data), encoding="utf-8")
        return 0

    env = _common.environment()
    pdfs = select_pdfs(args.corpus, args.quick, args.born_digital)
    scratch = Path(tempfile.mkdtemp(prefix="docqa-bench-throughput-"))
    folder = _common.link_folder(scratch / "pdfs", pdfs)
    runs = {}
    try:
        for name in [c.strip() for c in args.configs.split(",") if c.strip()]:
            home = scratch / f"home-{name}"
            result = scratch / f"{name}.json"
            print(f"[index_throughput] {name}: indexing {len(pdfs)} PDFs ...", file=sys.stderr, flush=True)
            proc = subprocess.run([sys.executable, __file__, "--workers", str(args.workers),
                                   "--_child", name, str(home), str(folder), str(result)])
            if proc.returncode != 0 or not result.exists():
                runs[name] = {"config": name, "failed_run": f"child exited with {proc.returncode}"}
                continue
            runs[name] = json.loads(result.read_text(encoding="utf-8"))
            print(f"[index_throughput] {name}: {runs[name]['pages']} pages in "
                  f"{runs[name]['wall_seconds']} s", file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)

    data = {
        "benchmark": "index_throughput",
        **env,
        "quick": args.quick,
        "born_digital": args.born_digital,
        "workers": args.workers,
        "corpus": str(args.corpus),
        "pdfs": [{"name": p.name, "bytes": p.stat().st_size} for p in pdfs],
        "target_text_pages_per_s": 20,
        "definitions": {
            "pages_per_s": "pages indexed / wall seconds of Service.index() (spawn of workers, parsing, "
                           "DB writes and FTS rebuild included)",
            "stage pages_per_s": "pages processed by the stage / (summed worker seconds of the stage / workers)",
            "peak_rss.main_mb": "ru_maxrss of the process running Service.index (RUSAGE_SELF)",
            "peak_rss.workers_max_mb": "largest ru_maxrss among its joined worker processes (RUSAGE_CHILDREN)",
        },
        "runs": runs,
    }
    out = _common.write_json(data, args.out, "index_throughput.json")
    print(render(data))
    print(f"\nwritten: {out}")
    return 0 if all("failed_run" not in r for r in runs.values()) else 1


def render(data: dict) -> str:
    rows = []
    for name, r in data["runs"].items():
        if "failed_run" in r:
            rows.append([name, r["failed_run"]] + [None] * 11)
            continue
        st = r["stages"]

        def rate(stage, key="pages_per_s"):
            return st.get(stage, {}).get(key)
        rows.append([name, r["documents"], r["pages"], r["wall_seconds"], r["pages_per_s"],
                     rate("text"), rate("ocr"), rate("layout"), rate("embed"), rate("embed", "chunks_per_s"),
                     r["peak_rss"]["main_mb"], r["peak_rss"]["workers_max_mb"], len(r["errors"])])
    m = data["machine"]
    head = (f"Index throughput, {data['workers']} workers, {m['cpu_count']} CPUs, Python {m['python']}, "
            f"{data['date']}{' (QUICK)' if data['quick'] else ''}\n\n")
    table = _common.markdown_table(
        ["config", "docs", "pages", "wall s", "pages/s", "text p/s", "ocr p/s", "layout p/s", "embed p/s",
         "embed chunks/s", "RSS main MB", "RSS worker MB", "errors"], rows)
    extra = []
    for name, r in data["runs"].items():
        if "failed_run" in r:
            continue
        extra.append(f"- {name}: text sources {r['text_sources']}, chunks {r['chunks']}, "
                     f"stage worker-seconds {r['stage_seconds']}")
        for path, reason in r["errors"].items():
            extra.append(f"  - error: {Path(path).name}: {reason}")
    return head + table + "\n\n" + "\n".join(extra)


if __name__ == "__main__":
    sys.exit(main())
