"""A one-page born-digital PDF with one element of each common layout kind, for page-content tests."""
from __future__ import annotations

import io
from pathlib import Path

PAGE_SIZE = (595.0, 842.0)  # A4 in points
PICTURE_BOX = (72.0, 360.0, 372.0, 547.0)  # where the raster image is placed
CHART_WORDS = ("Megawatt", "hours", "per", "month")  # drawn over the image, as a chart's axis title


def write_layout_pdf(path: Path) -> Path:
    """A heading, a paragraph, a ruled table, a raster picture with a label over it, and a caption."""
    import pymupdf
    from PIL import Image

    doc = pymupdf.open()
    page = doc.new_page(width=PAGE_SIZE[0], height=PAGE_SIZE[1])
    page.insert_text((72, 90), "Harbour Solar Annual Report", fontsize=20, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 110, 523, 200),
                        "The harbour solar park produced 161 megawatt hours in its first year of operation. "
                        "Output rose in every quarter, and the panels on the north pier did best of all. " * 2,
                        fontsize=11)
    rows = [["Quarter", "Output MWh", "Revenue"], ["Q1", "31", "4.1"], ["Q2", "42", "5.3"], ["Q3", "50", "6.0"],
            ["Q4", "38", "4.9"]]
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            rect = pymupdf.Rect(72 + c * 120, 230 + r * 20, 72 + (c + 1) * 120, 230 + (r + 1) * 20)
            page.draw_rect(rect, color=(0, 0, 0), width=0.8)
            page.insert_text((rect.x0 + 4, rect.y1 - 6), cell, fontsize=10)
    image = Image.new("RGB", (400, 250))
    image.putdata([(x * 255 // 400, y * 255 // 250, 128) for y in range(250) for x in range(400)])
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    page.insert_image(pymupdf.Rect(PICTURE_BOX), stream=buffer.getvalue())
    page.insert_text((150, 380), " ".join(CHART_WORDS), fontsize=10, color=(1, 1, 1))
    page.insert_text((72, 565), "Figure 1: Output per month of the harbour park.", fontsize=9)
    doc.save(path)
    doc.close()
    return path
