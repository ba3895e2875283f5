"""Page content for methods (methods/toolkit/page_content.py): layout elements with their boxes, the page as
Markdown in reading order, and crops of regions at the requested resolution (the page port's: PageSource.crop) —
on a real PDF indexed by the real pipeline with layout analysis on."""
import pymupdf
import pytest

from conftest import LAYOUT_INDEX, add_layout_report, make_settings, write_pdf
from layout_pdf import CHART_WORDS, PAGE_SIZE, PICTURE_BOX
from docqa_desktop.answers import PageRef
from docqa_desktop.pdf.render import MAX_REGION_ZOOM, render_region
from docqa_desktop.retrieval.page_source import PageGone, PageSource
from docqa_desktop.methods.toolkit.page_content import PageElement, elements, page_markdown, placeholder
from docqa_desktop.service import Service


@pytest.fixture(scope="module")
def indexed(index_templates, tmp_path_factory):
    """(service, ref of the layout page, ref of a plain page indexed with layout off)."""
    base = tmp_path_factory.mktemp("page-content")
    pdf = base / "library" / "report.pdf"
    with index_templates.open_copy(base, add_layout_report, "library", LAYOUT_INDEX) as service:
        plain = write_pdf(base / "library" / "plain.pdf", ["Plain text only.\nA second line of it."])
        with Service(make_settings(base / "home", layout=False, dense=False, ocr=False)) as plain_service:
            plain_service.library.index([str(plain)])
        ids = {e.name: e.doc_id for e in service.library.status()}
        yield (service, PageRef(ids["report.pdf"], "report.pdf", str(pdf), 1, "1"),
               PageRef(ids["plain.pdf"], "plain.pdf", str(plain), 1, "1"))


def inside_page(box) -> bool:
    x0, y0, x1, y1 = box
    return 0 <= x0 < x1 <= PAGE_SIZE[0] and 0 <= y0 < y1 <= PAGE_SIZE[1]


def test_elements_come_back_in_reading_order_with_kinds_and_boxes_inside_the_page(indexed):
    service, ref, _ = indexed
    found = elements(PageSource(service.resources.db), ref)
    assert [e.kind for e in found] == ["section-header", "text", "table", "picture", "caption"]
    assert [e.seq for e in found] == sorted(e.seq for e in found)
    assert all(isinstance(e, PageElement) and inside_page(e.box) for e in found)
    picture = next(e for e in found if e.kind == "picture")
    assert picture.box == pytest.approx(PICTURE_BOX, abs=1)
    assert "|Q3|50|6.0|" in next(e for e in found if e.kind == "table").markdown
    assert [e.kind for e in elements(PageSource(service.resources.db), ref, {"table", "picture"})] == ["table", "picture"]
    assert elements(PageSource(service.resources.db), ref, {"formula"}) == []


def test_page_markdown_follows_reading_order(indexed):
    service, ref, _ = indexed
    picture = elements(PageSource(service.resources.db), ref, {"picture"})[0]
    text = page_markdown(PageSource(service.resources.db), ref)
    parts = ["## Harbour Solar Annual Report", "The harbour solar park produced 161 megawatt hours",
             "|Quarter|Output MWh|Revenue|", placeholder(1, picture), "Figure 1: Output per month"]
    positions = [text.index(p) for p in parts]
    assert positions == sorted(positions)
    assert placeholder(1, picture) == f"[picture p.1 #{picture.seq}]"
    assert " ".join(CHART_WORDS) in text and "<!--" not in text and "<br>" not in text  # the picture's words
    described = page_markdown(PageSource(service.resources.db), ref, {picture.seq: "A bar chart of monthly output."})
    assert f"[picture p.1 #{picture.seq}]\nA bar chart of monthly output." in described


def test_page_markdown_falls_back_to_the_page_text_without_elements(indexed):
    service, _, plain = indexed
    assert elements(PageSource(service.resources.db), plain) == []
    assert page_markdown(PageSource(service.resources.db), plain) == "Plain text only.\nA second line of it."
    with pytest.raises(PageGone):
        page_markdown(PageSource(service.resources.db), PageRef(plain.doc_id, "plain.pdf", plain.path, 9, "9"))


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pix = pymupdf.Pixmap(png)
    return pix.width, pix.height


@pytest.mark.parametrize("max_pixels", [50_000, 300_000, 800_000])  # zoom 0.94 to 3.8
def test_a_crop_has_the_requested_pixels_and_the_box_shape(indexed, max_pixels):
    service, ref, _ = indexed
    x0, y0, x1, y1 = PICTURE_BOX  # 300 x 187 points
    width, height = png_size(PageSource(service.resources.db).crop(ref, PICTURE_BOX, max_pixels))
    assert width * height <= max_pixels
    assert width * height >= 0.99 * max_pixels  # as sharp as the budget allows (the zoom cap is not reached)
    assert width / height == pytest.approx((x1 - x0) / (y1 - y0), rel=0.01)


def test_a_small_crop_stops_at_the_zoom_cap(indexed):
    service, ref, _ = indexed
    width, height = png_size(PageSource(service.resources.db).crop(ref, (100, 100, 150, 120), 1_000_000))
    assert (width, height) == (round(50 * MAX_REGION_ZOOM), round(20 * MAX_REGION_ZOOM))


def test_a_crop_is_clipped_to_the_page_and_shows_its_region(indexed):
    service, ref, _ = indexed
    # a box reaching past the bottom-right corner: only the part on the page is rendered
    width, height = png_size(PageSource(service.resources.db).crop(ref, (495, 742, 800, 1000), 40_000))
    assert width / height == pytest.approx(100 / 100, rel=0.02) and width * height <= 40_000
    # the picture's crop is the gradient image: red grows to the right, green downwards
    pix = pymupdf.Pixmap(PageSource(service.resources.db).crop(ref, PICTURE_BOX, 60_000))
    left, right = pix.pixel(5, pix.height // 2), pix.pixel(pix.width - 5, pix.height // 2)
    top, bottom = pix.pixel(pix.width // 2, 5), pix.pixel(pix.width // 2, pix.height - 5)
    assert right[0] - left[0] > 200 and bottom[1] - top[1] > 200


@pytest.mark.parametrize("box", [(600, 0, 700, 100), (0, 900, 100, 1000), (200, 200, 200, 300)])
def test_a_box_with_nothing_of_the_page_is_refused_naming_the_page(indexed, box):
    service, ref, _ = indexed
    with pytest.raises(ValueError, match="page 1"):
        PageSource(service.resources.db).crop(ref, box, 10_000)


def test_a_crop_of_a_rotated_page_shows_the_stored_box(tmp_path):
    """Words and elements are stored in the page as shown (its /Rotate applied: pdf/orientation.py), where the
    viewer draws them; the crop finds them there."""
    path = tmp_path / "rotated.pdf"
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=400)
    page.draw_rect(pymupdf.Rect(50, 60, 250, 110), color=(0, 0, 0), fill=(0, 0, 0))
    page.set_rotation(90)
    shown = pymupdf.Rect(50, 60, 250, 110) * page.rotation_matrix  # the wide box stands upright as shown
    doc.save(path)
    doc.close()
    region = render_region(str(path), 1, tuple(shown), 20_000)
    pix = pymupdf.Pixmap(region.png)
    assert pix.height > pix.width and region.box == tuple(shown)
    dark = sum(1 for y in range(pix.height) for x in range(pix.width) if pix.pixel(x, y)[0] < 64)
    assert dark > 0.9 * pix.width * pix.height
