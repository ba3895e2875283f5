"""OCR of pages without a usable text layer, with the PP-OCRv4 models bundled in rapidocr-onnxruntime.

The bundled recogniser is trained mostly on Chinese and drops the spaces in English lines
("Dateofincident:24thofMarch2015"); `restore_spaces` puts them back with a unigram word model,
because search and the language models need words.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from functools import lru_cache

import numpy as np
import pymupdf

from ..domain import Word
from .onnx_device import on_cuda
from ..pdf.document import words_to_text
from ..pdf.orientation import moved, read_turned, upright

MAX_OCR_PIXELS = 2200 * 2200  # large pages are rendered smaller: cost grows with pixels
ORIENTATION_LINES = 24  # the longest lines shown to the 0/180 classifier to tell an upside-down page
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
    """Render, recognise, and return text plus word boxes in PDF points, in the page as shown. Text standing
    sideways or upside down on it (a scan turned by the page's /Rotate, a landscape page scanned upright) is
    recognised again with the image turned upright: the recogniser reads such lines one by one, but misses some and
    lays out their words the wrong way."""
    image, scale = _rendered(page, dpi)
    engine = _engine(device)
    result = engine(image)[0] or []
    turn = _turn(engine, image, result)
    if turn:
        result = engine(np.ascontiguousarray(np.rot90(image, turn // 90)))[0] or []
    return recognised_words(result, scale, turn, (page.rect.width, page.rect.height))


def _turn(engine, image: np.ndarray, result: list) -> int:
    """How the recognised text is turned on the page (pdf/orientation.py): sideways when most of its letters stand
    in lines taller than wide; upside down when the recogniser's own 0/180 classifier says so of most of the longest
    lines, by its confidence (a tall line is given it turned a quarter anticlockwise, as the recogniser turns it:
    upside down then means the text runs up the page)."""
    tall = [_is_tall(quad) for quad, _, _ in result]
    letters = [len(text.strip()) if len(text.strip()) > 1 else 0 for _, text, _ in result]
    sideways = sum(n for n, t in zip(letters, tall) if t) > sum(n for n, t in zip(letters, tall) if not t)
    longest = sorted((n, i) for i, (n, t) in enumerate(zip(letters, tall)) if t == sideways and n)[-ORIENTATION_LINES:]
    crops = [crop for crop in (_crop(image, result[i][0], sideways) for _, i in longest) if crop.size]
    labels = engine.text_cls(crops)[1] if crops else []
    upside_down = sum(score if label == "180" else -score for label, score in labels) > 0
    return (90 if sideways else 0) + (180 if upside_down else 0)


def _is_tall(quad) -> bool:
    xs, ys = [p[0] for p in quad], [p[1] for p in quad]
    return max(ys) - min(ys) > max(xs) - min(xs)


def _crop(image: np.ndarray, quad, sideways: bool) -> np.ndarray:
    x0, y0 = (max(0, int(min(p[i] for p in quad))) for i in (0, 1))
    x1, y1 = (int(max(p[i] for p in quad)) + 1 for i in (0, 1))
    crop = image[y0:y1, x0:x1]
    return np.ascontiguousarray(np.rot90(crop)) if sideways else crop


def ocr_region(page: pymupdf.Page, box, dpi: int = 200, device: str = "auto") -> list[Word]:
    """The words of a region of the page (a picture on a born-digital page: its printed labels are pixels); `box`
    and the words' boxes in PDF points in the page as shown, where words are stored."""
    clip = pymupdf.Rect(box) & page.rect
    if clip.is_empty:
        return []
    scale = dpi / 72
    pix = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), clip=clip, colorspace=pymupdf.csRGB, alpha=False)
    image = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, 3)
    result, _ = _engine(device)(image)
    _, words = recognised_words(result or [], scale)
    back = pymupdf.Matrix(1, 0, 0, 1, clip.x0, clip.y0)  # from the clip to the page
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


def recognised_words(result: list, scale: float, turn: int = 0, page_size: tuple[float, float] = (0.0, 0.0)
                      ) -> tuple[str, list[Word]]:
    """The recogniser's lines ([quad in pixels, text, score]) as the page's text and words in PDF points, in
    reading order, spaces restored. `turn`: how the text stands on the page (`page_size` points) that was turned
    upright to be read: the quads are in that upright image, the words' boxes are mapped back to the page."""
    back = ~upright(turn, *page_size)
    lines = []
    for quad, raw_text, _score in result:
        xs = [p[0] / scale for p in quad]
        ys = [p[1] / scale for p in quad]
        along = _words_in_line(restore_spaces(raw_text), (min(xs), min(ys), max(xs), max(ys)))
        lines.append((turn, [replace(w, bbox=moved(w.bbox, back)) for w in along]))
    words = read_turned(lines, *page_size)  # the order the text layer gets: columns read one after the other
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
