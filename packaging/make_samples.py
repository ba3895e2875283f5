"""Writes the sample PDFs in resources/samples/ (our own text; the evaluation corpus may not be shipped).

    python packaging/make_samples.py
"""
from __future__ import annotations

from pathlib import Path

import pymupdf

OUT = Path(__file__).resolve().parent.parent / "resources" / "samples"

REPORT = [
    ("Contents", ["1 Harbour Solar Cooperative at a glance", "2 Output and finances", "3 Maintenance log"]),
    ("1 Harbour Solar Cooperative at a glance", [
        "The Harbour Solar Cooperative owns 412 rooftop panels on the old fish market in Port Ellery.",
        "Members elect a board of five every spring. In 2025 the cooperative had 238 members.",
        "The installation was commissioned on 14 May 2021 and feeds the town's ferry terminal.",
    ]),
    ("2 Output and finances", [
        "Annual output rose to 161 megawatt hours in 2025, up from 149 in 2024.",
        "Revenue from electricity sales was 24,150 euros; maintenance cost 3,900 euros.",
        "The table below lists output by quarter.",
    ]),
    ("3 Maintenance log", [
        "Inverter B was replaced in March 2025 after a storm surge damaged its housing.",
        "Panels are cleaned twice a year; salt spray lowers output by about four percent between cleanings.",
    ]),
]
QUARTERS = [("Quarter", "Output (MWh)", "Sunny days"), ("Q1", "28", "31"), ("Q2", "52", "58"),
            ("Q3", "55", "61"), ("Q4", "26", "24")]

MEMO = ["MEMO - Port Ellery Ferry Service", "The winter timetable starts on 3 November.",
        "The last ferry to Gull Island leaves at 18:40.", "Bicycles travel free on weekdays."]


def write_report(path: Path) -> None:
    doc = pymupdf.open()
    for title, lines in REPORT:
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 90), title, fontsize=16)
        y = 130
        for line in lines:
            page.insert_text((72, y), line, fontsize=11)
            y += 22
        if title.startswith("2 "):
            _table(page, 72, y + 20)
    # printed labels: roman front matter, then 1, 2, 3
    doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
                         {"startpage": 1, "prefix": "", "style": "D", "firstpagenum": 1}])
    doc.set_metadata({"title": "Harbour Solar Cooperative annual report 2025"})
    doc.save(path, garbage=4, deflate=True)


def _table(page, x: float, y: float) -> None:
    widths = [120, 120, 120]
    for row in QUARTERS:
        cx = x
        for cell, w in zip(row, widths):
            page.draw_rect(pymupdf.Rect(cx, y, cx + w, y + 20), color=(0, 0, 0), width=0.6)
            page.insert_text((cx + 6, y + 14), cell, fontsize=10)
            cx += w
        y += 20


def write_scanned_memo(path: Path) -> None:
    """A page with no text layer, only a picture of text: what a scanner produces."""
    source = pymupdf.open()
    page = source.new_page(width=595, height=420)
    for i, line in enumerate(MEMO):
        page.insert_text((60, 80 + 36 * i), line, fontsize=18 if i == 0 else 15)
    pixmap = page.get_pixmap(dpi=150)
    doc = pymupdf.open()
    scanned = doc.new_page(width=595, height=420)
    scanned.insert_image(scanned.rect, pixmap=pixmap)
    doc.save(path, garbage=4, deflate=True)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    write_report(OUT / "harbour-solar-report.pdf")
    write_scanned_memo(OUT / "ferry-memo-scanned.pdf")
    for pdf in sorted(OUT.glob("*.pdf")):
        print(pdf, pdf.stat().st_size, "bytes")
