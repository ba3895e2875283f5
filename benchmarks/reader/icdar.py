"""Questions generated from the ICDAR 2013 table competition's ground truth: row label x column header -> cell.

    .venv/bin/python benchmarks/reader/icdar.py     # writes icdar/generated.jsonl

For every table region of ../shared/corpus-train/icdar2013/*-str.xml: the header rows are the rows above the first
row holding a figure beyond its first column; a data cell's question names its row's label (the first column, under a
section row's label when that row has nothing else) and its column's header path. At most PER_TABLE cells a table,
spread over its rows; a pair of labels that two cells of the document share is left out (no single answer). Reported
apart from the written questions, never trained on: these questions are phrased by a template.
"""
from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import data  # noqa: E402

ICDAR = data.SHARED / "corpus-train" / "icdar2013"
PER_TABLE = 4
_FIGURE = re.compile(r"^[-−(]?[$€£]?\d[\d,.]*%?\)?$")


def cells_of(region: ET.Element) -> dict[tuple[int, int], str]:
    grid = {}
    for cell in region.iter("cell"):
        row, col = int(cell.get("start-row")), int(cell.get("start-col"))
        end_row, end_col = int(cell.get("end-row", row)), int(cell.get("end-col", col))
        text = " ".join((cell.findtext("content") or "").split())
        for r in range(row, end_row + 1):
            for c in range(col, end_col + 1):
                grid[(r, c)] = text
    return grid


def questions_of(name: str, region: ET.Element) -> list[dict]:
    grid = cells_of(region)
    if not grid:
        return []
    rows = max(r for r, _ in grid) + 1
    cols = max(c for _, c in grid) + 1
    header = next((r for r in range(rows) if any(_FIGURE.match(grid.get((r, c), "")) for c in range(1, cols))), None)
    if not header:
        return []
    found, section = [], ""
    for r in range(header, rows):
        label = grid.get((r, 0), "")
        if label and not any(grid.get((r, c), "") for c in range(1, cols)):
            section = label
            continue
        for c in range(1, cols):
            value = grid.get((r, c), "")
            column = " / ".join(dict.fromkeys(h for h in (grid.get((h, c), "") for h in range(header)) if h))
            if label and column and _FIGURE.match(value):
                row_label = f"{section}: {label}" if section and section != label else label
                found.append((row_label, column, value))
    page = int(region.get("page", "1"))
    step = max(1, len(found) // PER_TABLE)
    return [{"doc": f"corpus-train/icdar2013/{name}.pdf", "question": f"In the table, what is the {column} for "
             f"{row_label}?", "answer": value, "answer_format": "Str", "evidence_pages": [page],
             "evidence_sources": ["Table"], "origin": "icdar2013-generated", "kind": "table-cell",
             "quote": f"{row_label} | {column} | {value}"} for row_label, column, value in found[::step][:PER_TABLE]]


def main() -> int:
    rows = []
    for path in sorted(ICDAR.glob("*-str.xml")):
        name = path.name[:-len("-str.xml")]
        if not (ICDAR / f"{name}.pdf").is_file():  # us-011b, us-031b, us-035b: ground truth of a file not shipped
            continue
        document = [q for region in ET.parse(path).getroot().iter("region") for q in questions_of(name, region)]
        pairs = [(q["question"]) for q in document]
        rows += [q for q in document if pairs.count(q["question"]) == 1]
    data.GENERATED.parent.mkdir(parents=True, exist_ok=True)
    data.GENERATED.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in rows), encoding="utf-8")
    print(f"{len(rows)} questions over {len({q['doc'] for q in rows})} documents -> {data.GENERATED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
