"""How well the tables stage reads a table: the ICDAR 2013 Table Competition's measure on its own dataset (issue 54).

    .venv/bin/python benchmarks/icdar2013.py [--regions] [--only eu-001 us-017 ...]

../shared/corpus-train/icdar2013/ holds 67 EU and US government documents with the ground truth of every table
cell (*-str.xml: start/end row and column, content) and region (*-reg.xml). The measure is the competition's:
the adjacency relations between non-empty cells — each cell with its nearest non-empty neighbour to the right in
its row and below in its column, compared by content (spaces and case aside) — and their precision, recall and F1,
micro over the dataset, with per-document F1. The product's default path reads whole pages (index/tables.grids_on
with no region; every table it finds on a page of the document counts, so a table that is none costs precision);
`--regions` gives it the ground truth's table regions instead. Header rows count: the grid as found, before its
rows become header paths. Writes benchmarks/results/icdar2013[-regions].json. Peers (Camelot, pdfplumber) are not
run here yet.
"""
from __future__ import annotations

import argparse
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from docqa_desktop.index.tables import Grid, grids_on  # noqa: E402

ICDAR = Path("/work/shared/corpus-train/icdar2013")
RESULT = _common.REPO / "benchmarks" / "results" / "icdar2013.json"

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


def measure(name: str, given_regions: bool) -> dict:
    import pymupdf
    expected: Counter = Counter()
    for tables in truth(name).values():
        for cells in tables:
            expected += relations(cells)
    found: Counter = Counter()
    doc = pymupdf.open(ICDAR / f"{name}.pdf")
    wanted = regions(name, {n + 1: doc[n].rect.height for n in range(doc.page_count)}) if given_regions else None
    started = time.perf_counter()
    for number in range(1, doc.page_count + 1):
        if wanted is not None and number not in wanted:
            continue
        for grid, _ in grids_on(doc[number - 1], None if wanted is None else wanted[number]):
            found += relations(grid_cells(grid))
    seconds = time.perf_counter() - started
    pages = doc.page_count if wanted is None else len(wanted)
    right = sum((expected & found).values())
    return {"document": name, "expected": sum(expected.values()), "found": sum(found.values()), "right": right,
            "f1": _f1(right, sum(found.values()), sum(expected.values())), "pages": pages,
            "seconds": round(seconds, 3)}


def _f1(right: int, found: int, expected: int) -> float:
    precision, recall = right / found if found else 0.0, right / expected if expected else 0.0
    return round(2 * precision * recall / (precision + recall), 4) if precision + recall else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--regions", action="store_true", help="give the stage the ground truth's table regions")
    ap.add_argument("--only", nargs="*", help="these documents (e.g. eu-001)")
    ap.add_argument("--result")
    args = ap.parse_args()
    # a "b" ground truth whose PDF is not shipped (eu-009b, us-011b, …) is left out
    names = sorted(n for n in (p.name[:-len("-str.xml")] for p in ICDAR.glob("*-str.xml"))
                   if (ICDAR / f"{n}.pdf").is_file())
    documents = [measure(n, args.regions) for n in names if not args.only or n in args.only]
    right, found, expected = (sum(d[k] for d in documents) for k in ("right", "found", "expected"))
    pages, seconds = sum(d["pages"] for d in documents), sum(d["seconds"] for d in documents)
    path_read = "the ground truth's regions" if args.regions else "whole pages"
    result = {"environment": _common.environment(), "path": path_read,
              "documents": len(documents), "precision": round(right / found, 4) if found else 0.0,
              "recall": round(right / expected, 4) if expected else 0.0, "f1": _f1(right, found, expected),
              "below_half": sorted(d["document"] for d in documents if d["f1"] < 0.5),
              "pages_per_s": round(pages / seconds, 2) if seconds else None, "per_document": documents}
    default = RESULT.with_name("icdar2013-regions.json") if args.regions else RESULT
    path = _common.write_json(result, args.result or str(default), default.name)
    print(f"{result['path']}: precision {result['precision']} recall {result['recall']} F1 {result['f1']}; "
          f"{len(result['below_half'])} documents below 0.5; {result['pages_per_s']} pages/s; written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
