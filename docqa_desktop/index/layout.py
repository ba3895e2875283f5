"""Layout elements (tables as markdown, pictures, headers, text blocks) from pymupdf's bundled layout model."""
from __future__ import annotations

import contextlib
import io
from functools import lru_cache

import pymupdf

from ..domain import Element
from ..pdf.document import page_turn
from ..pdf.orientation import moved, turn_upright
from .onnx_device import cores_shared, on_cuda


# The layout pass asks mupdf to collect text styles, which takes time quadratic in a page's characters
# (2 MB of text on one page: hours). Pages holding more are indexed from their text layer alone.
LAYOUT_MAX_CHARS = 50_000


def layout_elements(doc: pymupdf.Document, page_numbers: list[int], device: str = "auto") -> dict[int, list[Element]]:
    """Elements per 1-based page number, boxes in the page as shown (pdf/orientation.py). OCR is ours to do, so the
    layout pass never runs its own. The pages read are changed in memory (their /Rotate removed): close `doc` after."""
    import pymupdf4llm  # heavy: imported only in processes that analyse layout

    _layout_model_on(device)
    page_numbers = [n for n in page_numbers if _characters(doc[n - 1]) <= LAYOUT_MAX_CHARS]
    if not page_numbers:
        return {}
    # The model reads the page as shown, and text standing sideways there (a table printed turned) as a picture or
    # not at all: such a page is turned upright for it, its boxes mapped back to the page as shown. The turn stays:
    # pymupdf4llm rewrites each page it reads to remove its /Rotate (the document is changed in memory either way).
    back = {n: turn_upright(doc[n - 1], page_turn(doc[n - 1])) for n in page_numbers}
    with contextlib.redirect_stdout(io.StringIO()):  # it prints parser notes on stdout
        chunks = pymupdf4llm.to_markdown(doc, pages=[n - 1 for n in page_numbers], page_chunks=True,
                                         use_ocr=False, show_progress=False, header=True, footer=True)
    result: dict[int, list[Element]] = {}
    for chunk in chunks:
        number = chunk["metadata"]["page_number"]
        text = chunk.get("text", "")
        elements = []
        for box in chunk.get("page_boxes", []):
            start, end = box.get("pos", (0, 0))
            elements.append(Element(kind=box["class"], bbox=moved(tuple(float(v) for v in box["bbox"]), back[number]),
                                    text=text[start:end].strip()))
        result[number] = elements
    return result


@lru_cache(maxsize=1)
def _layout_model_on(device: str) -> None:
    """pymupdf loads the layout model on the CPU, with onnxruntime's default threads, when it is imported, which may
    be before an index worker takes its share of the cores (the spawned worker imports its parent's main module
    first). On CUDA, or in such a worker, a second model takes over: pymupdf calls whatever pymupdf._get_layout is."""
    import pymupdf.layout

    cuda = on_cuda(device)
    if cuda or cores_shared():
        model = pymupdf.layout.DocumentLayoutAnalyzer.get_model(use_gpu=cuda)
        pymupdf._get_layout = lambda *args, **kwargs: model.predict(*args, **kwargs)


def _characters(page: pymupdf.Page) -> int:
    """Characters anywhere in the page's content, off-page ones too (linear without style collection)."""
    return len(page.get_textpage(flags=0, clip=pymupdf.INFINITE_RECT()).extractText())
