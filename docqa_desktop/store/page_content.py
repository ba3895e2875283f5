"""Reading one page's stored content: its layout elements and the words inside a region."""
from __future__ import annotations

from ..domain import BBox


def elements(cur, doc_id: int, page: int, kinds: set[str] | None = None) -> list[tuple[int, str, BBox, str]]:
    """(seq, kind, box, markdown) of a page's layout elements in reading order, optionally of some kinds only."""
    sql = "SELECT seq, kind, x0, y0, x1, y1, text FROM elements WHERE doc_id = ? AND page = ?"
    params: list = [doc_id, page]
    if kinds is not None:
        sql += " AND kind IN (SELECT unnest(?::VARCHAR[]))"
        params.append(sorted(kinds))
    rows = cur.execute(sql + " ORDER BY seq", params).fetchall()
    return [(seq, kind, (float(x0), float(y0), float(x1), float(y1)), text)
            for seq, kind, x0, y0, x1, y1, text in rows]


def words_in_box(cur, doc_id: int, page: int, box: BBox) -> list[tuple[int, str]]:
    """(line, text) of the words whose centre lies inside `box`, in reading order (text layer or OCR)."""
    x0, y0, x1, y1 = box
    return [tuple(r) for r in cur.execute(
        "SELECT line, text FROM words WHERE doc_id = ? AND page = ? "
        "AND (x0 + x1) / 2 BETWEEN ? AND ? AND (y0 + y1) / 2 BETWEEN ? AND ? ORDER BY seq",
        [doc_id, page, x0, x1, y0, y1]).fetchall()]
