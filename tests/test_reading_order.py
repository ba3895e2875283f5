"""Reading order: two-column papers are read column by column, tables row by row (real corpus pages), and the
geometry behind it on synthetic line boxes (text layer and OCR alike)."""
import pymupdf
import pytest

from conftest import corpus_pdf
from docqa_desktop.answers import PageRef
from docqa_desktop.domain import Word
from docqa_desktop.index import ocr
from docqa_desktop.pdf.document import open_pdf, text_layer, words_to_text
from docqa_desktop.pdf.reading_order import reading_order
from docqa_desktop.methods.citations import _locate

# (two-column paper, 0-based page, a sentence that runs over a line break inside one column, at the height of
# lines of the other column)
SENTENCES = [
    ("2023.acl-long.386.pdf", 2, "We focus on the few- shot setting, where only a small set of in-domain examples "
                                 "are available to teach the model."),
    ("tacl_a_00660.pdf", 2, "An open challenge for LLMs is that they often hallucinate by making up facts or citing "
                            "sources that do not exist"),
    ("1912.01214.pdf", 1, "However, the domain shift problem still exists, and the demand of parallel child data "
                          "for fine- tuning heavily hinders transfer learning"),
    ("2312.10997v5.pdf", 1, "We have summarized the current assessment methods of RAG, covering 26 tasks, nearly "
                            "50 datasets, outlining the evaluation objectives and metrics, as well as the current "
                            "evaluation benchmarks and tools."),
]


class _StoredPage:
    """What citations read of an indexed page: its words and boxes, in stored order."""

    def __init__(self, words: list[Word]):
        self._words = [(w.text, w.bbox) for w in words]

    def words(self, ref):
        return self._words


@pytest.mark.parametrize("name, page, sentence", SENTENCES)
def test_a_sentence_of_a_two_column_paper_reads_on_and_is_cited_within_its_column(name, page, sentence):
    with open_pdf(str(corpus_pdf(name))) as doc:
        middle = doc[page].rect.width / 2
        text, words = text_layer(doc[page])
    assert sentence in " ".join(text.split())
    citation = _locate(_StoredPage(words), PageRef(1, name, name, page + 1, str(page + 1)), sentence)
    assert citation.quote == sentence
    x0, _, x1, _ = citation.bbox
    assert x1 <= middle or x0 >= middle, f"the highlight {citation.bbox} spans both columns"


def test_a_financial_table_keeps_each_label_on_the_line_of_its_values():
    with open_pdf(str(corpus_pdf("BESTBUY_2023_10K.pdf"))) as doc:
        text, _ = text_layer(doc[38])  # Consolidated Balance Sheets
    lines = text.splitlines()
    for row in ("Cash and cash equivalents $ 1,874 $ 2,936", "Receivables, net 1,141 1,042",
                "Total assets $ 15,803 $ 17,504", "Accounts payable $ 5,687 $ 6,803"):
        assert row in lines


def _line(name: str, x0: float, x1: float, y: float, words: int = 8, height: float = 10) -> list[Word]:
    """A line of `words` words named name.0, name.1, ... spread over x0..x1 at height y."""
    step = (x1 - x0) / words
    return [Word(f"{name}.{i}", (x0 + i * step, y, x0 + (i + 1) * step - 3, y + height), 0) for i in range(words)]


def _column(prefix: str, x0: float, x1: float, top: float, count: int) -> list[list[Word]]:
    return [_line(f"{prefix}{i}", x0, x1, top + 12 * i) for i in range(count)]


def _line_names(words: list[Word]) -> list[str]:
    return [line.split()[0].split(".")[0] for line in words_to_text(words).splitlines()]


def test_columns_are_read_one_after_the_other_between_lines_that_span_them():
    title = _line("title", 150, 460, 40, words=6, height=16)
    caption = _line("caption", 72, 540, 400, words=16)
    page_number = _line("folio", 296, 316, 760, words=1)
    lines = [title, *_column("a", 72, 300, 80, 20), *_column("b", 312, 540, 80, 20), caption,
             *_column("c", 72, 300, 430, 25), *_column("d", 312, 540, 430, 25), page_number]
    ordered = reading_order(reversed(lines))  # the order lines come in does not matter
    assert _line_names(ordered) == (["title"] + [f"a{i}" for i in range(20)] + [f"b{i}" for i in range(20)]
                                    + ["caption"] + [f"c{i}" for i in range(25)] + [f"d{i}" for i in range(25)]
                                    + ["folio"])
    line_numbers = [w.line for w in ordered]
    assert line_numbers == sorted(line_numbers) and set(line_numbers) == set(range(len(lines)))


def test_three_columns_are_read_left_to_right():
    lines = [*_column("c", 460, 600, 60, 30), *_column("b", 260, 400, 60, 30), *_column("a", 60, 200, 60, 30)]
    names = _line_names(reading_order(lines))
    assert names == [f"{c}{i}" for c in "abc" for i in range(30)]


def test_a_table_is_read_row_by_row_even_with_a_clear_gap_between_its_columns():
    rows = [[*_line(f"r{i}", 72, 260, 80 + 14 * i, words=5), *_line(f"v{i}", 400, 440, 80 + 14 * i, words=1),
             *_line(f"w{i}", 480, 520, 80 + 14 * i, words=1)] for i in range(30)]
    lines = [line for row in rows for line in (row[:5], row[5:6], row[6:])]
    text = words_to_text(reading_order(lines))
    assert text.splitlines()[3] == "r3.0 r3.1 r3.2 r3.3 r3.4 v3.0 w3.0"


def test_a_tall_glyph_does_not_pull_the_next_line_of_its_column_into_its_row():
    first = _line("a0", 72, 300, 100)
    first[3] = Word("K", (first[3].bbox[0], 100, first[3].bbox[2], 120), 0)  # a script K reaching below the line
    lines = [first, _line("a1", 72, 300, 112)]
    assert words_to_text(reading_order(lines)).splitlines()[1].startswith("a1.0")


def test_a_vertical_margin_stamp_is_read_after_the_page_not_inside_a_column():
    stamp = [Word(text, (12, y0, 36, y0 + 60), 0) for text, y0 in (("arXiv:2312.10997v5", 400), ("[cs.CL]", 320))]
    lines = [*_column("a", 72, 300, 300, 20), stamp]
    assert words_to_text(reading_order(lines)).splitlines()[-1] == "arXiv:2312.10997v5 [cs.CL]"


def test_ocr_lines_are_ordered_like_the_text_layer(monkeypatch):
    """OCR boxes of a two-column page (stand-in engine: the order is what is tested, not the recogniser)."""
    scale = 110 / 72
    boxes = [("left", 72, 300), ("right", 312, 540)]
    result = []
    for i in range(12):
        for side, x0, x1 in boxes:
            y = 80 + 12 * i
            quad = [[x0 * scale, y * scale], [x1 * scale, y * scale], [x1 * scale, (y + 10) * scale],
                    [x0 * scale, (y + 10) * scale]]
            result.append((quad, f"{side} line {i} of the page here", 0.9))
    class Engine:  # the recogniser, and its 0/180 classifier saying each line stands upright
        def __call__(self, image):
            return result, 0.0

        def text_cls(self, crops):
            return crops, [["0", 1.0] for _ in crops], 0.0

    monkeypatch.setattr(ocr, "_engine", lambda device: Engine())
    doc = pymupdf.open()
    text, words = ocr.ocr_page(doc.new_page(width=612, height=792))
    lines = text.splitlines()
    assert lines[:2] == ["left line 0 of the page here", "left line 1 of the page here"]
    assert lines[12] == "right line 0 of the page here"
    assert [w.line for w in words] == sorted(w.line for w in words)
