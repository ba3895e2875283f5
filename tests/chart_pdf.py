"""Born-digital pages with a chart drawn as a report draws one: a bar chart of filled rectangles with its value
printed past each bar and its category beside it, a title above; a page of text; and the same chart as a picture
(pixels only, as a slide deck exported as images has it)."""
from __future__ import annotations

from pathlib import Path

BARS = [("Germany", 34), ("France", 51), ("Italy", 27), ("Spain", 45)]
TITLE = "Share who say relations are good"
BLUE = (0.16, 0.38, 0.62)
TEXT = "Relations between the two countries improved over the decade, according to the survey."


def draw_bar_chart(page, left: float = 72, top: float = 100) -> tuple[float, float, float, float]:
    """Bars across: category at the left, a bar 4 points a percent, its value printed past its end. Returns the
    chart's box."""
    page.insert_text((left, top), TITLE, fontsize=12)
    page.insert_text((left, top + 16), "% who say relations are good", fontsize=9)
    for i, (category, value) in enumerate(BARS):
        y = top + 30 + i * 26
        page.insert_text((left, y + 13), category, fontsize=10)
        page.draw_rect((left + 70, y, left + 70 + 4 * value, y + 18), color=None, fill=BLUE)
        page.insert_text((left + 75 + 4 * value, y + 13), f"{value}%", fontsize=10)
    return left, top - 12, left + 70 + 4 * max(v for _, v in BARS) + 30, top + 30 + 26 * len(BARS)


def write_chart_pdf(path: Path) -> Path:
    """Page 1: the bar chart under a line of text; page 2: text alone."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), TEXT, fontsize=10)
    draw_bar_chart(page)
    doc.new_page(width=612, height=792).insert_text((72, 72), TEXT + " Nothing here is drawn.", fontsize=10)
    doc.save(path)
    doc.close()
    return path


def write_raster_chart_pdf(path: Path, labels: bool = False) -> tuple[Path, tuple[float, float, float, float]]:
    """One born-digital page whose chart is a picture (an image of the bar chart, no vector marks), under a line of
    text; with `labels`, its values are also set as text over the picture where the image prints them (as a slide
    deck sets its data labels over a pasted chart). Returns the file and the picture's box."""
    import pymupdf

    with pymupdf.open() as drawn:
        box = draw_bar_chart(drawn.new_page(width=612, height=792))
        png = drawn[0].get_pixmap(dpi=100, clip=box).tobytes("png")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), TEXT, fontsize=10)
    picture = (72, 100, 72 + box[2] - box[0], 100 + box[3] - box[1])
    page.insert_image(picture, stream=png)
    if labels:  # where draw_bar_chart printed them, moved with the picture
        dx, dy = picture[0] - box[0], picture[1] - box[1]
        for i, (_, value) in enumerate(BARS):
            page.insert_text((72 + 75 + 4 * value + dx, 100 + 30 + i * 26 + 13 + dy), f"{value}%", fontsize=10)
    doc.save(path)
    doc.close()
    return path, picture
