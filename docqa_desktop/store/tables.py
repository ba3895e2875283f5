"""Tables read as tables (index/tables.py) and charts read as tables (index/charts.py): a page's tables with their
cells, written a document at a time by the tables and charts stages and read back alike by the extractive reader,
the viewer and `docqa tables`."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import pyarrow as pa

from ..domain import TableCell, TableOnPage
from . import catalog
from .content import box_columns

TABLES = "tables"  # the stages' names in `enrichment`
CHARTS = "charts"
CHARTS_BY_MODEL = "charts by model"  # the charts stage's raster pass (index/chart_model.py), its own mark: a model
# installed later reads the pictures of documents whose vector charts were read before

# A page's charts are numbered from here, its tables from 0: both stages write the same rows, keyed by (doc_id, page,
# table_no), and each replaces only its own (the tables stage never wipes the charts, nor the other way round); read
# back in table_no order, a page's tables come first, then its charts.
CHART_NUMBERS = 1000


def insert_tables(db, cur, doc_id: int, by_page: dict[int, list[TableOnPage]]) -> None:
    """Replace the document's tables (not its charts) with `by_page` ({page number: tables in reading order})."""
    _replace(db, cur, doc_id, by_page, charts=False)


def insert_charts(db, cur, doc_id: int, by_page: dict[int, list[TableOnPage]]) -> None:
    """Replace the document's charts (Chart.as_table(), or read by the vision model) with `by_page`."""
    _replace(db, cur, doc_id, by_page, charts=True)


def _replace(db, cur, doc_id: int, by_page: dict[int, list[TableOnPage]], charts: bool) -> None:
    kind = "chart <> ''" if charts else "chart = ''"
    cur.execute(f"DELETE FROM table_cells WHERE doc_id = ? AND (page, table_no) IN "
                f"(SELECT (page, table_no) FROM page_tables WHERE doc_id = ? AND {kind})", [doc_id, doc_id])
    cur.execute(f"DELETE FROM page_tables WHERE doc_id = ? AND {kind}", [doc_id])
    first = CHART_NUMBERS if charts else 0
    tables = [(page, first + n, t) for page, found in sorted(by_page.items()) for n, t in enumerate(found)]
    if not tables:
        return
    db.insert_arrow(cur, "page_tables", pa.table({
        "doc_id": pa.array([doc_id] * len(tables), pa.int64()),
        "page": pa.array([p for p, _, _ in tables], pa.int32()),
        "table_no": pa.array([n for _, n, _ in tables], pa.int32()),
        **box_columns([t.bbox for _, _, t in tables]),
        "caption": [t.caption for _, _, t in tables],
        "scale": pa.array([t.scale for _, _, t in tables], pa.float64()),
        "n_rows": pa.array([t.rows for _, _, t in tables], pa.int32()),
        "n_columns": pa.array([t.columns for _, _, t in tables], pa.int32()),
        "header_rows": pa.array([t.header_rows for _, _, t in tables], pa.int32()),
        "from_scan": pa.array([t.from_scan for _, _, t in tables], pa.bool_()),
        "chart": [t.chart for _, _, t in tables],
        "by_model": pa.array([t.by_model for _, _, t in tables], pa.bool_()),
    }))
    cells = [(page, n, c) for page, n, t in tables for c in t.cells]
    db.insert_arrow(cur, "table_cells", pa.table({
        "doc_id": pa.array([doc_id] * len(cells), pa.int64()),
        "page": pa.array([p for p, _, _ in cells], pa.int32()),
        "table_no": pa.array([n for _, n, _ in cells], pa.int32()),
        "row_no": pa.array([c.row for _, _, c in cells], pa.int32()),
        "column_no": pa.array([c.column for _, _, c in cells], pa.int32()),
        "text": [c.text for _, _, c in cells],
        "row_path": [c.row_path for _, _, c in cells],
        "column_path": [c.column_path for _, _, c in cells],
        "number": pa.array([c.number for _, _, c in cells], pa.float64()),
        **box_columns([c.bbox for _, _, c in cells]),
        "row_span": pa.array([c.row_span for _, _, c in cells], pa.int32()),
        "column_span": pa.array([c.column_span for _, _, c in cells], pa.int32()),
        "header": pa.array([c.header for _, _, c in cells], pa.bool_()),
        "from_axis": pa.array([c.from_axis for _, _, c in cells], pa.bool_()),
    }))


def tables_of_page(cur, doc_id: int, page: int) -> list[TableOnPage]:
    """The page's tables in reading order, then its charts read as tables, each with its cells in row then column
    order."""
    cells: dict[int, list[TableCell]] = defaultdict(list)
    for table_no, *cell in cur.execute(
            "SELECT table_no, row_no, column_no, text, row_path, column_path, number, x0, y0, x1, y1, row_span, "
            "column_span, header, from_axis FROM table_cells WHERE doc_id = ? AND page = ? "
            "ORDER BY table_no, row_no, column_no", [doc_id, page]).fetchall():
        cells[table_no].append(TableCell(*cell[:6], tuple(cell[6:10]), *cell[10:]))
    return [TableOnPage((x0, y0, x1, y1), caption, scale, rows, columns, header_rows, tuple(cells[table_no]), scan,
                        chart, by_model)
            for table_no, x0, y0, x1, y1, caption, scale, rows, columns, header_rows, scan, chart, by_model in
            cur.execute("SELECT table_no, x0, y0, x1, y1, caption, scale, n_rows, n_columns, header_rows, from_scan, "
                        "chart, by_model FROM page_tables WHERE doc_id = ? AND page = ? ORDER BY table_no",
                        [doc_id, page]).fetchall()]


def tables_of_document(cur, doc_id: int, pages: Iterable[int] | None = None) -> dict[int, list[TableOnPage]]:
    """{page: its tables} of every page of the document with a table read (of `pages` only, when given: the
    viewer asks for one page at a time)."""
    wanted = None if pages is None else set(pages)
    return {page: tables_of_page(cur, doc_id, page) for (page,) in cur.execute(
        "SELECT DISTINCT page FROM page_tables WHERE doc_id = ? ORDER BY page", [doc_id]).fetchall()
        if wanted is None or page in wanted}


def table_regions(cur, doc_id: int) -> dict[int, list[tuple[float, float, float, float]]]:
    """{page: boxes} of the tables the layout stage found in a document: where the tables stage looks."""
    return _regions(cur, doc_id, ("table",))


def picture_regions(cur, doc_id: int) -> dict[int, list[tuple[float, float, float, float]]]:
    """{page: boxes} of the pictures the layout stage found in a document: where the charts stage looks first."""
    return _regions(cur, doc_id, ("picture", "figure"))


def _regions(cur, doc_id: int, kinds: tuple[str, ...]) -> dict[int, list[tuple[float, float, float, float]]]:
    regions: dict[int, list] = defaultdict(list)
    for page, *box in cur.execute("SELECT page, x0, y0, x1, y1 FROM elements WHERE doc_id = ? AND kind IN "
                                  f"({', '.join('?' for _ in kinds)}) ORDER BY page, seq", [doc_id, *kinds]).fetchall():
        regions[page].append(tuple(box))
    return dict(regions)


def pages_by_source(cur, doc_id: int) -> tuple[list[int], list[int]]:
    """(pages whose text comes from the PDF's text layer, pages read by OCR), each in page order."""
    rows = cur.execute("SELECT page, text_source FROM pages WHERE doc_id = ? AND text_source IN ('layer', 'ocr') "
                       "ORDER BY page", [doc_id]).fetchall()
    return [p for p, source in rows if source == "layer"], [p for p, source in rows if source == "ocr"]


def pages_labelling(cur, words: list[str], doc_ids: list[int] | None, k: int) -> list[tuple[int, int]]:
    """(doc_id, page) of the k pages whose tables' row labels (charts' categories among them) hold the most of
    `words` (lower-case stems, matched inside the labels; the shortest such label first among equals), live
    documents in scope only: where a table answer may be that retrieval by the page's whole text ranked too low (an
    income statement among a 10-K's hundred pages)."""
    if not words:
        return []
    matches = [f"lower(row_path) LIKE ?" for _ in words]
    held = " + ".join(f"max(CASE WHEN {m} THEN 1 ELSE 0 END)" for m in matches)
    scope = f"AND doc_id IN ({catalog.listed(doc_ids)})" if doc_ids is not None else ""
    patterns = [f"%{w}%" for w in words]
    # more of the words first; then the page whose matching label is shortest: "Revenue" before "% of revenue"
    return [(d, p) for d, p, _, _ in cur.execute(
        f"SELECT doc_id, page, {held} AS held, min(CASE WHEN {' OR '.join(matches)} THEN length(row_path) END) "
        f"AS shortest FROM table_cells WHERE number IS NOT NULL AND NOT header {scope} "
        f"AND doc_id IN ({catalog.LIVE_DOCUMENTS}) "
        "GROUP BY doc_id, page HAVING held > 0 ORDER BY held DESC, shortest, doc_id, page LIMIT ?",
        patterns + patterns + [k]).fetchall()]
