"""How well the tables stage reads a table: the ICDAR 2013 Table Competition's measure on its own dataset (issue 54).

    .venv/bin/python benchmarks/icdar2013.py [--regions] [--only eu-001 us-017 ...] [--peers PYTHON] [--result PATH]
    .venv/bin/python benchmarks/icdar2013.py --scanned [--regions] [--ocr-dpi 110]

../shared/corpus-train/icdar2013/ holds 67 EU and US government documents with the ground truth of every table
cell (*-str.xml: start/end row and column, content) and region (*-reg.xml). The measure is the competition's:
the adjacency relations between non-empty cells — each cell with its nearest non-empty neighbour to the right in
its row and below in its column, compared by content (spaces and case aside) — and their precision, recall and F1,
micro over the dataset, with per-document F1. The product's default path reads whole pages (index/tables.grids_on
with no region; every table it finds on a page of the document counts, so a table that is none costs precision);
`--regions` gives it the ground truth's table regions instead. Header rows count: the grid as found, before its
rows become header paths. Writes benchmarks/results/icdar2013[-scanned][-regions].json (or --result).

`--scanned` reads each page as a scan: rendered to a 200-dpi image alone on a page, read by the app's OCR
(index/ocr.py, at index.ocr_dpi unless --ocr-dpi; benchmarks/icdar_scan.py keeps what the OCR recognised, which
takes a minute a dense page on 2 cores the first time), its tables read from the OCR's words as the tables stage
reads a scanned page's (index/tables.scanned_grids). Pages per second count the table reading, not the OCR.

`--peers PYTHON` also scores the peers of benchmarks/table_peers.py (Camelot stream, pdfplumber's text strategy,
PyMuPDF's find_tables with lines and with text), run by PYTHON — a benchmark virtualenv of their own, never the
product's:

    python3 -m venv /work/bench-venv && /work/bench-venv/bin/pip install -r benchmarks/requirements-peers.txt
    .venv/bin/python benchmarks/icdar2013.py --regions --peers /work/bench-venv/bin/python

Each document's request gives them the pages the product reads (the ground truth's regions, grown by the product's
REGION_MARGIN, or every page whole) and their tables are scored as the product's, pages per second from each
system's own seconds; the result's "peers" holds them by system, and a peer's failure (a page, a document, PYTHON
itself) is printed and kept in the result, the run going on.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
import table_peers  # noqa: E402  (its system names only: the peers run in their own virtualenv)
from docqa_desktop.index.tables import REGION_MARGIN, Grid, grids_on, scanned_grids  # noqa: E402
from docqa_desktop.settings import IndexSettings  # noqa: E402
from icdar_scan import scanned_words  # noqa: E402

ICDAR = Path("/work/shared/corpus-train/icdar2013")
RESULT = _common.REPO / "benchmarks" / "results" / "icdar2013.json"
PEERS = Path(table_peers.__file__).resolve()
PEER_TIMEOUT = 600  # seconds for all the peers on one document (the longest, whole pages: about 15 s with imports)

# a cell as the measure sees it: (first row, first column, last row, last column, text)
Cell = tuple[int, int, int, int, str]


def truth(name: str) -> dict[int, list[list[Cell]]]:
    """{page: [the cells of each table region on it]} from the ground truth."""
    pages: dict[int, list[list[Cell]]] = {}
    for region in ET.parse(ICDAR / f"{name}-str.xml").getroot().iter("region"):
        cells = [(int(c.get("start-row")), int(c.get("start-col")), int(c.get("end-row", c.get("start-row"))),
                  int(c.get("end-col", c.get("start-col"))), c.findtext("content") or "") for c in region.iter("cell")]
        pages.setdefault(int(region.get("page")), []).append(cells)
    return pages


def regions(name: str, page_height: dict[int, float]) -> dict[int, list[tuple[float, float, float, float]]]:
    """{page: table regions in PyMuPDF's frame} (the ground truth measures y from the page's bottom)."""
    found: dict[int, list[tuple[float, float, float, float]]] = {}
    for region in ET.parse(ICDAR / f"{name}-reg.xml").getroot().iter("region"):
        page, box = int(region.get("page")), region.find("bounding-box")
        x1, y1, x2, y2 = (float(box.get(k)) for k in ("x1", "y1", "x2", "y2"))
        height = page_height[page]
        found.setdefault(page, []).append((x1, height - y2, x2, height - y1))
    return found


def grid_cells(grid: Grid) -> list[Cell]:
    """The grid's cells, a cell merged into its left neighbour widening that neighbour's span."""
    cells: list[Cell] = []
    for r, row in enumerate(grid.rows):
        for c, cell in enumerate(row):
            if cell is not None:
                cells.append((r, c, r, c, cell.text))
            elif cells and cells[-1][0] == r:
                first_row, first_col, last_row, _, text = cells[-1]
                cells[-1] = (first_row, first_col, last_row, c, text)
    return cells


def relations(cells: list[Cell]) -> Counter:
    """The adjacency relations of one table: each non-empty cell with the nearest non-empty cell to its right in
    its first row, and below in its first column."""
    kept = [c for c in cells if _plain(c[4])]
    found: Counter = Counter()
    for r0, c0, r1, c1, text in kept:
        right = [c for c in kept if c[0] <= r0 <= c[2] and c[1] > c1]
        below = [c for c in kept if c[1] <= c0 <= c[3] and c[0] > r1]
        if right:
            found[(_plain(text), _plain(min(right, key=lambda c: c[1])[4]), "right")] += 1
        if below:
            found[(_plain(text), _plain(min(below, key=lambda c: c[0])[4]), "below")] += 1
    return found


def _plain(text: str) -> str:
    return "".join(text.split()).lower().replace("−", "-").replace("–", "-")


def measure(name: str, given_regions: bool, peers: str | None, scanned: int | None = None
            ) -> tuple[dict, dict[str, dict]]:
    """The document scored for the product and, with peers (their python), for each peer: score()'s. `scanned`:
    the pages as 200-dpi scans read by the app's OCR at that dpi (icdar_scan.py), their tables read from its words
    (the OCR's own time is not counted: it is the OCR stage's)."""
    import pymupdf
    expected: Counter = Counter()
    for tables in truth(name).values():
        for cells in tables:
            expected += relations(cells)
    pdf = ICDAR / f"{name}.pdf"
    doc = pymupdf.open(pdf)
    wanted = regions(name, {n + 1: doc[n].rect.height for n in range(doc.page_count)}) if given_regions else None
    pages = {n: None for n in range(1, doc.page_count + 1)} if wanted is None else dict(sorted(wanted.items()))
    found: list[list[Cell]] = []
    seconds = 0.0
    for number, boxes in pages.items():
        words = scanned_words(pdf, number, scanned) if scanned else None
        started = time.perf_counter()
        grids = grids_on(doc[number - 1], boxes) if words is None else scanned_grids(words, boxes)
        seconds += time.perf_counter() - started
        found += [grid_cells(grid) for grid, _ in grids]
    product = score(name, expected, found, len(pages), seconds)
    doc.close()
    if peers is None:
        return product, {}
    answer = run_peers(peers, pdf, pages)
    return product, {system: score(name, expected, [[tuple(c) for c in table] for tables in got["pages"].values()
                                                    for table in tables], len(pages), got["seconds"], got["error"])
                     for system, got in answer.items()}


def run_peers(python: str, pdf: Path, pages: dict[int, list | None]) -> dict[str, dict]:
    """table_peers.py's answer for the pages (regions grown by the product's margin); a request that fails whole
    is each system's error, with no tables and no seconds."""
    request = {"pdf": str(pdf), "pages": {str(n): boxes for n, boxes in pages.items()}, "margin": REGION_MARGIN,
               "systems": list(table_peers.SYSTEMS)}
    try:
        done = subprocess.run([python, str(PEERS)], input=json.dumps(request), capture_output=True, text=True,
                              timeout=PEER_TIMEOUT)
        if done.returncode:
            raise RuntimeError(f"table_peers.py exited {done.returncode}: {done.stderr.strip()[-500:]}")
        answer = json.loads(done.stdout)
    except (OSError, ValueError, RuntimeError, subprocess.SubprocessError) as exc:
        failure = f"{type(exc).__name__}: {exc}"
        return {system: {"pages": {}, "seconds": None, "error": failure} for system in table_peers.SYSTEMS}
    return {system: answer.get(system, {"pages": {}, "seconds": None, "error": "no answer"})
            for system in table_peers.SYSTEMS}


def score(name: str, expected: Counter, tables: list[list[Cell]], pages: int, seconds: float | None,
          error: str | None = None) -> dict:
    """One document as one system read it: its tables' relations against the ground truth's."""
    found: Counter = Counter()
    for cells in tables:
        found += relations(cells)
    right = sum((expected & found).values())
    scored = {"document": name, "expected": sum(expected.values()), "found": sum(found.values()), "right": right,
              "f1": _f1(right, sum(found.values()), sum(expected.values())), "pages": pages,
              "seconds": None if seconds is None else round(seconds, 3)}
    if error:
        scored["error"] = error
    return scored


def summary(documents: list[dict]) -> dict:
    """Micro precision / recall / F1 over the documents, those below F1 0.5, pages per second (over the documents
    with seconds), the documents with an error, and per_document."""
    right, found, expected = (sum(d[k] for d in documents) for k in ("right", "found", "expected"))
    timed = [d for d in documents if d["seconds"] is not None]
    pages, seconds = sum(d["pages"] for d in timed), sum(d["seconds"] for d in timed)
    result = {"precision": round(right / found, 4) if found else 0.0,
              "recall": round(right / expected, 4) if expected else 0.0, "f1": _f1(right, found, expected),
              "below_half": sorted(d["document"] for d in documents if d["f1"] < 0.5),
              "pages_per_s": round(pages / seconds, 2) if seconds else None}
    errors = sorted(d["document"] for d in documents if d.get("error"))
    if errors:
        result["errors"] = errors
    return {**result, "per_document": documents}


def _f1(right: int, found: int, expected: int) -> float:
    precision, recall = right / found if found else 0.0, right / expected if expected else 0.0
    return round(2 * precision * recall / (precision + recall), 4) if precision + recall else 0.0


def _line(name: str, scored: dict) -> str:
    errors = f"; errors on {len(scored['errors'])} documents ({', '.join(scored['errors'])})" \
        if scored.get("errors") else ""
    return (f"{name}: precision {scored['precision']} recall {scored['recall']} F1 {scored['f1']}; "
            f"{len(scored['below_half'])} documents below 0.5; {scored['pages_per_s']} pages/s{errors}")


def _peer_packages(python: str) -> dict | str:
    """The peers' virtualenv: its python's version and the peers' packages, or why it could not be asked."""
    script = ("import json, platform; from importlib import metadata\n"
              "def v(n):\n    try: return metadata.version(n)\n    except metadata.PackageNotFoundError: return None\n"
              "print(json.dumps({'python': platform.python_version(), "
              "**{n: v(n) for n in ('camelot-py', 'pdfplumber', 'pdfminer.six', 'pymupdf')}}))")
    try:
        done = subprocess.run([python, "-c", script], capture_output=True, text=True, timeout=60, check=True)
        return json.loads(done.stdout)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        return f"{type(exc).__name__}: {exc}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--regions", action="store_true", help="give the stage the ground truth's table regions")
    ap.add_argument("--only", nargs="*", help="these documents (e.g. eu-001)")
    ap.add_argument("--peers", metavar="PYTHON",
                    help="also score table_peers.py's systems, run by this python (the peers' own virtualenv)")
    ap.add_argument("--scanned", action="store_true",
                    help="read the pages as 200-dpi scans through the app's OCR (cached by icdar_scan.py)")
    ap.add_argument("--ocr-dpi", type=int, default=IndexSettings().ocr_dpi, help="with --scanned (the app's default)")
    ap.add_argument("--result")
    args = ap.parse_args()
    if args.scanned and args.peers:
        ap.error("--scanned reads scans with the product's OCR alone: no peer reads a scan")
    peers, peers_error = args.peers, None
    if peers is not None and shutil.which(peers) is None:
        peers_error = (f"{peers}: no such python; peers not run (their virtualenv: python3 -m venv DIR && "
                       "DIR/bin/pip install -r benchmarks/requirements-peers.txt)")
        peers = None
        print(peers_error, file=sys.stderr)
    # a "b" ground truth whose PDF is not shipped (eu-009b, us-011b, …) is left out
    names = sorted(n for n in (p.name[:-len("-str.xml")] for p in ICDAR.glob("*-str.xml"))
                   if (ICDAR / f"{n}.pdf").is_file())
    product: list[dict] = []
    by_peer: dict[str, list[dict]] = {}
    for name in names:
        if args.only and name not in args.only:
            continue
        ours, theirs = measure(name, args.regions, peers, args.ocr_dpi if args.scanned else None)
        product.append(ours)
        for system, scored in theirs.items():
            by_peer.setdefault(system, []).append(scored)
            if scored.get("error"):
                print(f"{name} {system}: {scored['error']}", file=sys.stderr)
    path_read = "the ground truth's regions" if args.regions else "whole pages"
    if args.scanned:
        path_read += f", scanned (200 dpi, the app's OCR at {args.ocr_dpi} dpi)"
    result = {"environment": _common.environment(), "path": path_read, "documents": len(product),
              **summary(product)}
    if args.peers is not None:
        result["peers_environment"] = {"python": args.peers,
                                       "packages": _peer_packages(peers) if peers else None, "margin": REGION_MARGIN}
        result["peers"] = {system: summary(documents) for system, documents in by_peer.items()}
        if peers_error:
            result["peers_error"] = peers_error
    default = RESULT.with_name(f"icdar2013{'-scanned' * args.scanned}{'-regions' * args.regions}.json")
    path = _common.write_json(result, args.result or str(default), default.name)
    print(f"{_line(result['path'] + ' (the product)', result)}; written to {path}")
    for system, scored in result.get("peers", {}).items():
        print(_line(f"  {system}", scored))
    if peers_error:
        print(f"  {peers_error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
