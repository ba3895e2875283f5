"""Parsing real corpus pages: text layer, words, labels, OCR, layout, chunks."""
import pytest

from conftest import SAMPLES, SLIDES_OCR, SMALL_PAPER, corpus_pdf
from docqa_desktop.domain import TextSource
from docqa_desktop.index.chunking import chunk_page
from docqa_desktop.index.layout import layout_elements
from docqa_desktop.index.ocr import ocr_page, restore_spaces
from docqa_desktop.index.parse_task import embed_texts, parse_pages
from docqa_desktop.settings import IndexSettings
from docqa_desktop.pdf.document import is_usable, open_pdf, parse_page


def test_text_layer_words_have_boxes_inside_the_page():
    with open_pdf(str(corpus_pdf(SMALL_PAPER))) as doc:
        page = parse_page(doc[0])
    assert page.text_source is TextSource.LAYER
    assert len(page.words) > 300
    for w in page.words:
        x0, y0, x1, y1 = w.bbox
        assert 0 <= x0 <= x1 <= page.width + 1 and 0 <= y0 <= y1 <= page.height + 1
    assert all(w.text in page.text for w in page.words[:50])
    assert "\ufb01" not in page.text  # the "fi" ligature is expanded so that words match queries


def test_printed_page_labels_differ_from_indices():
    with open_pdf(str(corpus_pdf("2023.acl-long.386.pdf"))) as doc:
        assert parse_page(doc[4]).label == "6985"  # the proceedings' page number, not 5
    with open_pdf(str(SAMPLES / "harbour-solar-report.pdf")) as doc:
        assert [parse_page(p).label for p in doc] == ["i", "1", "2", "3"]


def test_unusable_text_layer_detection():
    assert not is_usable("")
    assert not is_usable("   \n 3 ")
    assert not is_usable("\ufffd" * 50 + "abc" * 10)
    assert is_usable("Total revenue was 46 billion dollars in fiscal 2023.")


@pytest.mark.parametrize("glued, expected", [
    ("Dateofincident:24thofMarch2015", "Date of incident: 24th of March 2015"),
    ("Thelastferryleavesat18:40.", "The last ferry leaves at 18:40."),
    ("Timeofcrash:10:45CET(Estimate)", "Time of crash: 10:45 CET (Estimate)"),
    ("already spaced words stay", "already spaced words stay"),
])
def test_restore_spaces(glued, expected):
    assert restore_spaces(glued) == expected


@pytest.mark.model
def test_ocr_reads_an_image_only_slide_with_spaces_and_boxes():
    with open_pdf(str(corpus_pdf(SLIDES_OCR))) as doc:
        page = doc[1]
        assert not is_usable(page.get_text())  # no text layer at all
        text, words = ocr_page(page)
        rect = page.rect
    assert "March 2015" in text and "Airbus A320" in text
    assert all(0 <= w.bbox[0] < w.bbox[2] <= rect.width + 2 for w in words)


@pytest.mark.model
def test_ocr_fallback_is_used_only_when_needed():
    result = parse_pages(str(SAMPLES / "ferry-memo-scanned.pdf"), 1, 1, IndexSettings(layout=False))
    assert result.error is None
    page = result.pages[0]
    assert page.text_source is TextSource.OCR
    assert "Gull Island" in page.text and "18:40" in page.text
    off = parse_pages(str(SAMPLES / "ferry-memo-scanned.pdf"), 1, 1,
                      IndexSettings(ocr=False, layout=False))
    assert off.pages[0].text_source is TextSource.NONE


@pytest.mark.model
def test_layout_finds_tables_as_markdown_on_a_real_10k_page():
    with open_pdf(str(corpus_pdf("BESTBUY_2023_10K.pdf"))) as doc:
        elements = layout_elements(doc, [31])[31]
    kinds = {e.kind for e in elements}
    assert "table" in kinds and "text" in kinds
    table = next(e for e in elements if e.kind == "table")
    assert table.text.startswith("|") and "|---" in table.text
    assert all(e.bbox[0] < e.bbox[2] and e.bbox[1] < e.bbox[3] for e in elements)


def test_chunks_cover_the_page_with_overlap_and_stay_on_it():
    text = " ".join(f"w{i}" for i in range(200))
    chunks = chunk_page(7, text, size=80, overlap=20)
    assert all(c.page == 7 for c in chunks)
    assert [len(c.text.split()) for c in chunks] == [80, 80, 80]
    covered = {w for c in chunks for w in c.text.split()}
    assert covered == set(text.split())
    assert chunk_page(1, "   ") == []


def test_parse_task_reports_errors_instead_of_raising(tmp_path):
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"not a pdf at all")
    result = parse_pages(str(bad), 1, 3, IndexSettings())
    assert result.pages == [] and "not a PDF" in result.error


@pytest.mark.model
def test_embedding_task_returns_unit_vectors_per_chunk():
    result = parse_pages(str(SAMPLES / "harbour-solar-report.pdf"), 1, 4, IndexSettings(layout=False))
    vectors, seconds = embed_texts([c.text for c in result.chunks])
    assert vectors.shape == (len(result.chunks), 384) and seconds > 0
    assert abs((vectors ** 2).sum(1) - 1).max() < 1e-4


@pytest.mark.model
def test_a_running_header_over_text_drawn_as_paths_still_gets_ocr():
    """Page 8 of this annual report has a letter-spaced header in its text layer; the rest is vector art."""
    with open_pdf(str(corpus_pdf("afe620b9beac86c1027b96d31d396407.pdf"))) as doc:
        page = parse_page(doc[7], ocr_page)
    assert page.text_source is TextSource.OCR
    assert "BOARD OF DIRECTORS" in page.text and "State Bank of India" in page.text


def test_born_digital_pages_with_figures_keep_their_text_layer(tmp_path):
    with open_pdf(str(corpus_pdf("2023.acl-long.386.pdf"))) as doc:
        calls = []
        page = parse_page(doc[6], lambda p: calls.append(p) or ("", []))  # a page with a chart
    assert page.text_source is TextSource.LAYER and calls == []
