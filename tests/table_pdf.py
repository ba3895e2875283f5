"""A born-digital report whose answers sit in tables: a ruled income statement with spanning period headers, a
share-repurchase table whose "Total fiscal 2023 fourth quarter" row is no revenue, and a paper's table ruled only
above and below its body (booktabs), whose rows the grid merges."""
from __future__ import annotations

from pathlib import Path

STATEMENT = [("Revenue", "$", "46,298", "$", "51,761"), ("Cost of sales", "", "36,386", "", "40,121"),
             ("Gross profit", "", "9,912", "", "11,640"), ("Restructuring charges", "", "147", "", "(34)"),
             ("Net earnings", "$", "1,419", "$", "2,454"), ("Diluted earnings per share", "$", "6.29", "$", "9.84")]
REPURCHASES = [("Period", "Total Number of Shares Purchased", "Average Price Paid per Share"),
               ("Oct. 30, 2022 to Nov. 26, 2022", "2,411,322", "$ 80.12"),
               ("Nov. 27, 2022 to Dec. 31, 2022", "4,727,153", "$ 81.44"),
               ("Total fiscal 2023 fourth quarter", "7,138,475", "$ 81.00")]
RESULTS = [("Method", "TimeQA", "TQA Easy", "TQA Hard"), ("PaLM-2L", "41.5%", "42.6%", "40.4%"),
           ("PaLM-2L + CoT", "40.8%", "41.8%", "39.8%"), ("PaLM-2L + RAG", "57.4%", "67.8%", "46.8%"),
           ("PaLM-2L + Step-Back (ours)", "66%", "70.4%", "61.6%"), ("GPT-4", "45.6%", "48.9%", "42.6%")]


def write_table_pdf(path: Path) -> Path:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 70), "Consolidated Statements of Earnings", fontsize=14, fontname="hebo")
    page.insert_text((72, 90), "$ in millions, except per share amounts", fontsize=9)
    widths = [200, 20, 70, 20, 70]
    _ruled_row(page, ["Fiscal Years Ended", "January 28, 2023", None, "January 29, 2022", None], widths, 100)
    for r, row in enumerate(STATEMENT, 1):
        _ruled_row(page, list(row), widths, 100 + 20 * r)
    page.insert_text((72, 300), "Revenue fell in fiscal 2023 as customers bought fewer computers and phones.",
                     fontsize=10)

    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 70), "Issuer Purchases of Equity Securities", fontsize=14, fontname="hebo")
    for r, row in enumerate(REPURCHASES):
        _ruled_row(page, list(row), [200, 150, 150], 100 + 20 * r)

    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 70), "Table 2: Results on TimeQA.", fontsize=10)
    x, widths, y = 72.0, [190, 80, 80, 80], 96.0
    page.draw_line((x, y - 14), (x + sum(widths), y - 14), width=1.0)
    for r, row in enumerate(RESULTS):
        cx = x
        for cell, w in zip(row, widths):
            page.insert_text((cx + 4, y), cell, fontsize=10)
            cx += w
        if r == 0:
            page.draw_line((x, y + 5), (x + sum(widths), y + 5), width=0.6)
        y += 16
    page.draw_line((x, y - 10), (x + sum(widths), y - 10), width=1.0)
    doc.save(path)
    return path


def _ruled_row(page, cells: list[str | None], widths: list[int], y: float) -> None:
    """One row of ruled cells; None extends the cell before it (a header spanning columns)."""
    import pymupdf

    x = 72.0
    spans: list[list] = []
    for cell, width in zip(cells, widths):
        if cell is None:
            spans[-1][1] += width
        else:
            spans.append([cell, width, x])
        x += width
    for text, width, left in spans:
        page.draw_rect(pymupdf.Rect(left, y, left + width, y + 20), color=(0, 0, 0), width=0.6)
        if text:
            page.insert_text((left + 4, y + 14), text, fontsize=9)
