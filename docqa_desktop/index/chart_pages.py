"""Where the charts stage looks on a page, decided in its worker from the page itself, cheaply: a page is read for
charts when the layout found a picture on it or it draws at least MIN_MARKS filled shapes (one get_cdrawings() call,
~2 ms a page: most pages of text draw none, and the reader of charts_on is left the pages worth its time). A picture
that draws no vector marks but holds an image is a raster chart's place: the vision model's (chart_model.py).
"""
from __future__ import annotations

import pymupdf

from ..domain import BBox, TableOnPage, Word
from ..pdf.document import shown_lines
from ..pdf.orientation import moved, moved_table
from .chart_model import Picture
from .charts import charts_on

MIN_MARKS = 3  # bars, wedges or dots: fewer filled shapes draw no chart (a rule, a shaded box, a logo)
PICTURE_PIXELS = 1280 * 28 * 28  # a picture sent to the vision model: about as many as a page image's budget
PICTURE_MAX_ZOOM = 4.0  # pixels per point at most: a small chart is enlarged, not blown up
WORD_MARGIN = 6.0  # points: a label set just outside the picture's box still belongs to it


def marks(drawings: list[dict], box: BBox | None = None) -> int:
    """Filled shapes among `drawings` (page.get_cdrawings()), inside `box` when given; a path of several rectangles
    counts each (a report's bars are often one path)."""
    inside = pymupdf.Rect(box) if box is not None else None
    count = 0
    for path in drawings:
        if "f" not in path.get("type", "") or (inside is not None and not inside.intersects(path["rect"])):
            continue
        count += max(1, sum(1 for item in path["items"] if item[0] == "re"))
    return count


def vector_charts(page: pymupdf.Page, pictures: list[BBox], drawings: list[dict]) -> list[TableOnPage]:
    """The page's charts drawn in vector marks, as tables; none looked for on a page with no picture and too few
    marks."""
    if not pictures and marks(drawings) < MIN_MARKS:
        return []
    # the marks and the text are drawn in the unrotated page; charts are stored in the page as shown
    return [moved_table(chart.as_table(), page.rotation_matrix) for chart in charts_on(page)]


def raster_pictures(page: pymupdf.Page, pictures: list[BBox], drawings: list[dict],
                    charts: list[TableOnPage]) -> list[BBox]:
    """The pictures of a born-digital page that may be raster charts: an image inside, fewer than MIN_MARKS vector
    marks, and no chart read from the vector marks there. Boxes in the page as shown; mupdf gives images and drawings
    in the unrotated page."""
    shown, unrotated = page.rotation_matrix, page.derotation_matrix
    images = [pymupdf.Rect(info["bbox"]) * shown for info in page.get_image_info()]
    return [box for box in pictures
            if any(image.intersects(box) for image in images) and marks(drawings, moved(box, unrotated)) < MIN_MARKS
            and not any(pymupdf.Rect(chart.bbox).intersects(box) for chart in charts)]


def picture(page: pymupdf.Page, box: BBox, words: list[Word]) -> Picture | None:
    """The picture at `box` rendered for the vision model, with the words printed in and around it; None when the
    box holds nothing of the page."""
    clip = pymupdf.Rect(box) & page.rect
    if clip.is_empty or clip.width < 1 or clip.height < 1:
        return None
    zoom = min(PICTURE_MAX_ZOOM, (PICTURE_PIXELS / (clip.width * clip.height)) ** 0.5)
    png = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip, alpha=False).tobytes("png")
    return Picture(tuple(box), png, tuple(w for w in words if _centre_near(w.bbox, box)))


def _centre_near(word: BBox, box: BBox) -> bool:
    x, y = (word[0] + word[2]) / 2, (word[1] + word[3]) / 2
    return box[0] - WORD_MARGIN <= x <= box[2] + WORD_MARGIN and box[1] - WORD_MARGIN <= y <= box[3] + WORD_MARGIN


def layer_words(page: pymupdf.Page) -> list[Word]:
    """The words of the page's text layer (labels set over a picture), with their boxes in the page as shown."""
    return [word for _, line in shown_lines(page) for word in line]
