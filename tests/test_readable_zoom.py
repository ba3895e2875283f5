"""The sizes the viewer zooms a citation by (issue 56, item 6): how tall the cited words stand (pdf/text_height.py,
on a real page's words) and the zoom they read at, capped so the region stays in the pane and the page within the
renderer's pixels (ui/readable_zoom.py)."""
from __future__ import annotations

import pytest

from docqa_desktop.pdf.text_height import text_height
from docqa_desktop.ui.readable_zoom import MAX_RENDER_PIXELS, READABLE_POINTS, Pane, readable_zoom, render_size

LETTER = (612.0, 792.0)
NARROW = Pane(440, 700, 96.0)  # a page pane on a laptop, logical pixels


def _page_words():
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((60, 80), "Firearm checks by state", fontsize=16)
    page.insert_text((60, 300), "Texas 63,598 78,327", fontsize=6.5)
    page.insert_text((60, 310), "Utah 71,517 86,246", fontsize=6.5)
    return [(w[4], tuple(w[:4])) for w in page.get_text("words")]


def test_the_text_height_is_the_median_of_the_words_inside_the_region():
    words = _page_words()
    small = {text: box[3] - box[1] for text, box in words if text in ("Texas", "63,598")}
    assert len(set(small.values())) == 1
    # the two small rows: the large heading outside the region is not counted
    assert text_height(words, (50, 280, 300, 320)) == pytest.approx(small["Texas"])
    # a region reaching up to the heading: the median stays the small text's (one tall word among six)
    assert text_height(words, (50, 60, 300, 320)) == pytest.approx(small["Texas"])
    assert text_height(words, (400, 400, 500, 500)) is None  # nothing written there


def test_a_small_cell_is_zoomed_until_its_words_stand_readable():
    zoom = readable_zoom(8.9, (150, 611, 210, 624), LETTER, NARROW)
    width, height = render_size(NARROW, zoom)
    scale = min(width / LETTER[0], height / LETTER[1])  # device pixels per point; device ratio 1
    assert 8.9 * scale * 72 / NARROW.dpi == pytest.approx(READABLE_POINTS, rel=0.01)
    # a screen of 120 dpi shows a point with more pixels: the zoom grows with it
    assert readable_zoom(8.9, (150, 611, 210, 624), LETTER, Pane(440, 700, 120.0)) == pytest.approx(1.25 * zoom)


def test_large_text_reads_with_the_whole_page_in_view():
    assert readable_zoom(40, (60, 60, 500, 110), LETTER, NARROW) < 1


def test_a_tall_region_is_zoomed_only_as_far_as_it_still_fits_the_pane():
    region = (60, 100, 300, 700)  # a long quoted passage in small type
    zoom = readable_zoom(7, region, LETTER, NARROW)
    whole = min((NARROW.width - 8) / LETTER[0], (NARROW.height - 8) / LETTER[1])
    assert (region[3] - region[1]) * whole * zoom <= NARROW.height - 20
    assert zoom < readable_zoom(7, (60, 100, 300, 110), LETTER, NARROW)


def test_the_zoom_stops_where_the_rendered_page_would_pass_the_pixel_cap():
    pane = Pane(1200, 1600, 96.0, device_ratio=2.0)
    zoom = readable_zoom(1.0, (100, 100, 102, 101), LETTER, pane)  # hairline text: no zoom would be enough
    assert max(render_size(pane, zoom)) <= MAX_RENDER_PIXELS
    assert max(render_size(pane, zoom * 1.05)) == MAX_RENDER_PIXELS  # the cap is what stopped it
