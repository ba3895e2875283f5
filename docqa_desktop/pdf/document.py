"""Opening PDFs with clear errors, and reading a page's text layer, words and printed label."""
from __future__ import annotations

import pymupdf

from ..domain import ParsedPage, TextSource, Word
from ..errors import DocumentError
from .orientation import main_turn, moved, read_turned, turn_of

PDF_MAGIC = b"%PDF-"
# ligatures expanded ("ﬁ" -> "fi") so words match what people type
WORD_FLAGS = (pymupdf.TEXTFLAGS_WORDS | pymupdf.TEXT_MEDIABOX_CLIP) & ~pymupdf.TEXT_PRESERVE_LIGATURES
MIN_USABLE_CHARS = 20  # fewer letters/digits than this and the text layer is treated as missing
SPARSE_TEXT_CHARS = 200  # below this, a page full of pictures or vector art likely hides more text
MANY_DRAWINGS = 50
TALL_WORD_LETTERS = 3  # a word this long standing taller than wide runs up or down the page


class PdfError(DocumentError):
    """A PDF that cannot be read; the message says why."""


def open_pdf(path: str) -> pymupdf.Document:
    try:
        with open(path, "rb") as fh:
            head = fh.read(1024)
    except FileNotFoundError:
        raise PdfError("file vanished before it could be read") from None
    except PermissionError:
        raise PdfError("permission denied: the file is not readable") from None
    except IsADirectoryError:
        raise PdfError("is a directory, not a PDF") from None
    if not head:
        raise PdfError("empty file (0 bytes)")
    if PDF_MAGIC not in head:
        raise PdfError("not a PDF: the file does not start with a %PDF- header")
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except Exception as exc:  # pymupdf raises several types for damaged files
        raise PdfError(f"corrupt or truncated PDF ({exc})") from None
    try:
        locked = doc.needs_pass
        pages = 0 if locked else doc.page_count
    except Exception as exc:  # a page tree mupdf cannot count: absurd /Count, loops
        doc.close()
        raise PdfError(f"damaged PDF: the page tree cannot be read ({_detail(exc)})") from None
    if locked:
        doc.close()
        raise PdfError("password-protected PDF: remove the password to index it")
    if pages == 0:
        doc.close()
        raise PdfError("the PDF has no pages (corrupt or truncated?)")
    return doc


def page_failure(exc: BaseException, pages: str, stage: str) -> str:
    """The reason a page could not be parsed, for `docqa status`: what went wrong first, mupdf's words after."""
    if isinstance(exc, MemoryError) or type(exc).__name__ == "FzErrorLimit":
        return f"too large to index: {pages} exceeded memory or size limits in {stage} ({_detail(exc)})"
    return f"damaged PDF: {pages} failed in {stage} ({_detail(exc)})"


def _detail(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
    return text if len(text) <= 300 else text[:297] + "..."


def page_label(page: pymupdf.Page) -> str:
    try:
        label = page.get_label()
    except Exception:
        label = ""
    return label or str(page.number + 1)


def text_layer(page: pymupdf.Page) -> tuple[str, list[Word]]:
    """Reading-order text and word boxes from the PDF's own text layer, boxes in the page as shown
    (pdf/orientation.py): text turned on it is read in its upright frame."""
    words = read_turned(shown_lines(page), page.rect.width, page.rect.height)
    return words_to_text(words), words


def shown_lines(page: pymupdf.Page) -> list[tuple[int, list[Word]]]:
    """The text layer's lines as mupdf keeps them whole (unsorted: read_turned puts them in order, columns
    included), each with its turn on the shown page, word boxes in the shown page."""
    textpage = page.get_textpage(flags=WORD_FLAGS)
    shown = page.rotation_matrix if page.rotation else None
    lines: dict[tuple[int, int], list[Word]] = {}
    for x0, y0, x1, y1, text, block, line, _ in page.get_text("words", textpage=textpage):
        box = (x0, y0, x1, y1) if shown is None else moved((x0, y0, x1, y1), shown)
        lines.setdefault((block, line), []).append(Word(text, box, 0))
    turns = _line_turns(page, textpage, lines)
    return [(turns[key], words) for key, words in lines.items()]


def page_turn(page: pymupdf.Page) -> int:
    """How most of the page's text is turned as the page is shown (0: upright)."""
    return main_turn(shown_lines(page))


def _line_turns(page: pymupdf.Page, textpage, lines: dict[tuple[int, int], list[Word]]) -> dict[tuple[int, int], int]:
    """Each line's turn, from mupdf's direction of the line: asked for only when some line's words run other than
    left to right on the shown page (the text dictionary costs half again the words' time). A line mupdf does not
    list, or a slanted one, takes the turn most of the page's text has."""
    if not any(_may_be_turned(words) for words in lines.values()):
        return dict.fromkeys(lines, 0)
    m = page.rotation_matrix
    blocks = page.get_text("dict", textpage=textpage)["blocks"]
    turns: dict[tuple[int, int], int] = {}
    for block, line in lines:
        try:
            dx, dy = blocks[block]["lines"][line]["dir"]
        except (IndexError, KeyError):
            continue
        turn = turn_of(m.a * dx + m.c * dy, m.b * dx + m.d * dy)
        if turn is not None:
            turns[block, line] = turn
    usual = main_turn((turn, lines[key]) for key, turn in turns.items())
    return {key: turns.get(key, usual) for key in lines}


def _may_be_turned(words: list[Word]) -> bool:
    """A line whose words run other than left to right, or a word of a few letters standing taller than wide."""
    if len(words) > 1:
        (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = words[0].bbox, words[-1].bbox
        dx, dy = (bx0 + bx1 - ax0 - ax1) / 2, (by0 + by1 - ay0 - ay1) / 2
        return dx <= abs(dy)
    x0, y0, x1, y1 = words[0].bbox
    return len(words[0].text) >= TALL_WORD_LETTERS and y1 - y0 > x1 - x0


def words_to_text(words: list[Word]) -> str:
    lines: dict[int, list[str]] = {}
    for w in words:
        lines.setdefault(w.line, []).append(w.text)
    return "\n".join(" ".join(ws) for ws in lines.values())


def is_usable(text: str) -> bool:
    """A text layer is unusable when it is (almost) empty or mostly unmapped glyphs."""
    meaningful = _meaningful(text)
    garbage = text.count("\ufffd") + sum(0xE000 <= ord(ch) <= 0xF8FF for ch in text)
    return meaningful >= MIN_USABLE_CHARS and garbage < 0.1 * max(1, meaningful)


def has_text_layer(page: pymupdf.Page) -> bool:
    """Whether the page's own text layer is usable (parse_page's test): a scan's is not, only OCR reads it."""
    return is_usable(page.get_text(flags=WORD_FLAGS))


def needs_ocr(page: pymupdf.Page, text: str) -> bool:
    """No usable layer, or a few words (a running header) over pictures or text drawn as paths."""
    if not is_usable(text):
        return True
    if _meaningful(text) >= SPARSE_TEXT_CHARS:
        return False
    return bool(page.get_images()) or len(page.get_drawings()) > MANY_DRAWINGS


def _meaningful(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


def parse_page(page: pymupdf.Page, ocr=None) -> ParsedPage:
    """Text, words and label of one page; OCR (a callable page -> (text, words)) where the layer falls short."""
    text, words = text_layer(page)
    source = TextSource.LAYER if is_usable(text) else TextSource.NONE
    if ocr is not None and needs_ocr(page, text):
        ocr_text, ocr_words = ocr(page)
        # the OCR reads the whole rendered page, the layer's words included: keep whichever says more
        if _meaningful(ocr_text) > _meaningful(text):
            text, words, source = ocr_text, ocr_words, TextSource.OCR
    rect = page.rect
    return ParsedPage(number=page.number + 1, label=page_label(page), width=rect.width, height=rect.height,
                      text=text, text_source=source, words=words)
