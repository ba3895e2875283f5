"""Opening PDFs with clear errors, and reading a page's text layer, words and printed label."""
from __future__ import annotations

import pymupdf

from ..domain import ParsedPage, TextSource, Word
from ..errors import DocumentError
from .reading_order import reading_order

PDF_MAGIC = b"%PDF-"
# ligatures expanded ("ﬁ" -> "fi") so words match what people type
WORD_FLAGS = (pymupdf.TEXTFLAGS_WORDS | pymupdf.TEXT_MEDIABOX_CLIP) & ~pymupdf.TEXT_PRESERVE_LIGATURES
MIN_USABLE_CHARS = 20  # fewer letters/digits than this and the text layer is treated as missing
SPARSE_TEXT_CHARS = 200  # below this, a page full of pictures or vector art likely hides more text
MANY_DRAWINGS = 50


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
    """Reading-order text and word boxes from the PDF's own text layer."""
    # unsorted: mupdf's own lines are kept whole, and reading_order puts them in order (columns included)
    lines: dict[tuple[int, int], list[Word]] = {}
    for x0, y0, x1, y1, text, block, line, _ in page.get_text("words", flags=WORD_FLAGS):
        lines.setdefault((block, line), []).append(Word(text, (x0, y0, x1, y1), 0))
    words = reading_order(lines.values())
    return words_to_text(words), words


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
