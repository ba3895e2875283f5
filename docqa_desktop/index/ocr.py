"""OCR of pages without a usable text layer, with the PP-OCRv4 models bundled in rapidocr-onnxruntime.

The bundled recogniser is trained mostly on Chinese and drops the spaces in English lines
("Dateofincident:24thofMarch2015"); `restore_spaces` puts them back with a unigram word model,
because search and the language models need words.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import numpy as np
import pymupdf

from ..domain import Word
from .onnx_device import on_cuda
from ..pdf.document import words_to_text
from ..pdf.reading_order import reading_order

MAX_OCR_PIXELS = 2200 * 2200  # large pages are rendered smaller: cost grows with pixels
# codes like "A320" or "4U9525" stay whole; otherwise letters, numbers and punctuation are split apart
_GLUED = re.compile(r"\d*[A-Z]{1,3}\d+[A-Z\d]*|[A-Za-z]*[a-z](?=[A-Z]{1,3}\d)|[A-Za-z]+|\d+(?:[.,:]\d+)*|[^A-Za-z\d]")
_ORDINALS = {"st", "nd", "rd", "th"}


@lru_cache(maxsize=2)
def _engine(device: str = "auto"):
    from rapidocr_onnxruntime import RapidOCR  # loads ONNX models: only in processes that OCR

    cuda = on_cuda(device)
    return RapidOCR(det_use_cuda=cuda, cls_use_cuda=cuda, rec_use_cuda=cuda)


@lru_cache(maxsize=1)
def _vocabulary():
    import wordninja
    return wordninja.DEFAULT_LANGUAGE_MODEL


def _split_letters(run: str) -> list[str]:
    model = _vocabulary()
    if len(run) < 5 or run.lower() in model._wordcost:
        return [run]
    return model.split(run)


# the recogniser reads a dash standing alone (a table's empty cell, "—") as the CJK "one" or a long vowel mark
_READ_AS_DASH = {"一", "ー"}
_DASH = "—"
_OPENING = set("([{\"“")
_JOINING = set("-'’/&+_")


def restore_spaces(line: str) -> str:
    out: list[str] = []
    line = unicodedata.normalize("NFKC", line)  # the recogniser's full-width "（" and "：" are "(" and ":"
    for token in (_DASH if t in _READ_AS_DASH else t for t in line.split()):
        pieces: list[str] = []
        glue = False  # the next piece joins the previous one without a space
        for part in _GLUED.findall(token):
            words = _split_letters(part) if part.isalpha() else [part]
            for word in words:
                if pieces and (glue or (pieces[-1][-1].isdigit() and word.lower() in _ORDINALS)
                               or not (word[0].isalnum() or word in _OPENING)):
                    pieces[-1] += word  # closing punctuation, "24"+"th", or a glued join
                else:
                    pieces.append(word)
                glue = word in _OPENING or word in _JOINING
        out.append(" ".join(pieces))
    return " ".join(out)


def ocr_page(page: pymupdf.Page, dpi: int = 110, device: str = "auto") -> tuple[str, list[Word]]:
    """Render, recognise, and return text plus word boxes in PDF points."""
    image, scale = _rendered(page, dpi)
    result, _ = _engine(device)(image)
    return recognised_words(result or [], scale)


def ocr_region(page: pymupdf.Page, box, dpi: int = 200, device: str = "auto") -> list[Word]:
    """The words of a region of the page (a picture on a born-digital page: its printed labels are pixels), boxes
    in PDF points in the page space words are stored in."""
    clip = (pymupdf.Rect(box) * page.rotation_matrix) & page.rect  # pixmaps clip the page as shown
    if clip.is_empty:
        return []
    scale = dpi / 72
    pix = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), clip=clip, colorspace=pymupdf.csRGB, alpha=False)
    image = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, 3)
    result, _ = _engine(device)(image)
    _, words = recognised_words(result or [], scale)
    back = pymupdf.Matrix(1, 0, 0, 1, clip.x0, clip.y0) * page.derotation_matrix  # from the clip to the page
    return [Word(w.text, tuple(pymupdf.Rect(w.bbox) * back), w.line) for w in words]


def _rendered(page: pymupdf.Page, dpi: int) -> tuple[np.ndarray, float]:
    """The page as an RGB image at `dpi` (less for a large page), and its pixels per point."""
    rect = page.rect
    scale = dpi / 72
    pixels = rect.width * rect.height * scale * scale
    if pixels > MAX_OCR_PIXELS:
        scale *= (MAX_OCR_PIXELS / pixels) ** 0.5
    pix = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), colorspace=pymupdf.csRGB, alpha=False)
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, 3), scale


def recognised_words(result: list, scale: float) -> tuple[str, list[Word]]:
    """The recogniser's lines ([quad in pixels, text, score]) as the page's text and words in PDF points, in
    reading order, spaces restored."""
    lines = []
    for quad, raw_text, _score in result:
        xs = [p[0] / scale for p in quad]
        ys = [p[1] / scale for p in quad]
        lines.append(_words_in_line(restore_spaces(raw_text), (min(xs), min(ys), max(xs), max(ys))))
    words = reading_order(lines)  # the order the text layer gets: columns read one after the other
    return words_to_text(words), words


def _words_in_line(text: str, box) -> list[Word]:
    """Word boxes by splitting the line box in proportion to character counts."""
    x0, y0, x1, y1 = box
    per_char = (x1 - x0) / max(1, len(text))
    words = []
    for match in re.finditer(r"\S+", text):
        start, end = match.span()
        words.append(Word(match.group(), (x0 + start * per_char, y0, x0 + end * per_char, y1), 0))
    return words
