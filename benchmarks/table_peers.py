"""Peer table extractors on one PDF, for benchmarks/icdar2013.py to score beside the product (issue 54).

Runs in its own virtualenv, never the product's (the peers are no product dependencies):

    python3 -m venv /work/bench-venv && /work/bench-venv/bin/pip install -r benchmarks/requirements-peers.txt
    echo '{"pdf": "/abs/x.pdf", "pages": {"1": [[50, 80, 300, 400]], "2": null}}' |
        /work/bench-venv/bin/python benchmarks/table_peers.py

Request (one JSON object on stdin): "pdf"; "pages": {1-based page number: table regions in PyMuPDF's frame (points,
origin top-left of the displayed page), or null to let each system find the page's tables itself}; "margin"
(points added on each side of a region, default 8); "systems" (default all of SYSTEMS). Answer (one JSON object on
stdout): {system: {"pages": {page: [table, ...]}, "seconds": wall time over the request (the system's modules
imported before the clock starts), "error": null or the failures, one per page}}, a table being a list of cells
[first_row, first_col, last_row, last_col, text], 0-based.
Frames, all after /Rotate: PyMuPDF measures from the crop box's top-left; pdfplumber's page.cropbox says where that
lies in its own frame; Camelot measures from the media box's bottom-left (a rotated page's crop box is taken to be its
media box). Camelot re-rotates a page whose text runs sideways, and areas given for it then miss (none in ICDAR 2013).
"""
from __future__ import annotations

import importlib
import inspect
import json
import logging
import os
import sys
import time
import warnings

SYSTEMS = ("camelot-stream", "pdfplumber-text", "pymupdf-lines", "pymupdf-text")
# imported before a system's clock starts (about 2 s for Camelot with PyMuPDF, once per request): its seconds are
# the reading's, as the product's are
MODULES = {"camelot-stream": ("pymupdf", "camelot"), "pdfplumber-text": ("pdfplumber",),
           "pymupdf-lines": ("pymupdf",), "pymupdf-text": ("pymupdf",)}


def grown(box, margin, bounds):
    """The region grown by margin on each side, clipped to bounds (x0, y0, x1, y1)."""
    (x0, y0, x1, y1), (left, top, right, bottom) = box, bounds
    return max(left, x0 - margin), max(top, y0 - margin), min(right, x1 + margin), min(bottom, y1 + margin)


def row_cells(rows):
    """Cells of a table given as rows of text, a None (merged) widening its left neighbour's last column."""
    cells = []
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            if text is not None:
                cells.append([r, c, r, c, text])
            elif cells and cells[-1][0] == r:
                cells[-1][3] = c
    return cells


def camelot_page(pdf, number, boxes, margin, frame, errors):
    """Camelot stream's tables on a page; its table_areas are "left,top,right,bottom" from the bottom-left."""
    if boxes is None:
        return camelot_read(pdf, number, None)
    width, height, dx, dy = frame
    grown_boxes = [grown((x0 + dx, y0 + dy, x1 + dx, y1 + dy), margin, (0, 0, width, height))
                   for x0, y0, x1, y1 in boxes]
    areas = [f"{x0},{height - y0},{x1},{height - y1}" for x0, y0, x1, y1 in grown_boxes]
    try:
        return camelot_read(pdf, number, areas)
    except Exception:  # an area without text fails the whole call (TypeError in stream): then one area at a time
        if len(areas) == 1:
            raise
    tables = []
    for i, area in enumerate(areas):
        try:
            tables += camelot_read(pdf, number, [area])
        except Exception as exc:
            errors.append(f"page {number} regions[{i}]: {type(exc).__name__}: {exc}")
    return tables


def camelot_read(pdf, number, areas):
    """Camelot stream on one page, in the given areas or finding its tables itself (areas None)."""
    import camelot
    kwargs = {} if areas is None else {"table_areas": areas}
    tables = camelot.read_pdf(pdf, flavor="stream", pages=str(number), suppress_stdout=True, **kwargs)
    # stream sets no cell edges, so every cell's hspan/vspan reads True: no span is reported, each cell is one slot
    return [row_cells(table.df.values.tolist()) for table in tables]


def plumber_page(page, boxes, margin):
    """pdfplumber's text-strategy tables on a page (a region: on the page cropped to it)."""
    settings = {"vertical_strategy": "text", "horizontal_strategy": "text"}
    if boxes is None:
        return [row_cells(t.extract()) for t in page.find_tables(settings)]
    left, top = page.cropbox[:2]  # pdfplumber's frame: PyMuPDF's moved to where the crop box starts
    tables = []
    for x0, y0, x1, y1 in boxes:
        box = grown((x0 + left, y0 + top, x1 + left, y1 + top), margin, page.bbox)
        tables += [row_cells(t.extract()) for t in page.crop(box).find_tables(settings)]
    return tables


def mupdf_page(page, boxes, margin, strategy):
    """PyMuPDF's find_tables with a strategy, on the whole page or clipped to each region."""
    import pymupdf
    kwargs = {"strategy": strategy}
    if "use_layout" in inspect.signature(pymupdf.table.find_tables).parameters:
        kwargs["use_layout"] = False  # the layout model gates tables: the plain finder is the peer measured
    clips = [None] if boxes is None else [grown(b, margin, page.rect) for b in boxes]
    return [row_cells(t.extract()) for clip in clips for t in page.find_tables(clip=clip, **kwargs).tables]


def media_frame(page):
    """(width, height, dx, dy) of a PyMuPDF page: its media box after /Rotate, and where the crop box starts in it."""
    box, crop = page.mediabox, page.cropbox
    width, height = (box.height, box.width) if page.rotation % 180 else (box.width, box.height)
    # PyMuPDF gives the crop box's x in user space but its y from the media box's top
    dx, dy = (0.0, 0.0) if page.rotation else (crop.x0 - box.x0, crop.y0)
    return width, height, dx, dy


def run_system(system, pdf, pages, margin):
    """One system over the request's pages: {"pages", "seconds", "error"}, each page's failure kept apart."""
    for module in MODULES.get(system, ()):
        try:
            importlib.import_module(module)
        except Exception:  # noqa: S110 - the import fails again below, and is reported there
            pass
    started, found, errors = time.perf_counter(), {}, []
    try:
        if system not in SYSTEMS:
            raise ValueError(f"unknown system; one of {', '.join(SYSTEMS)}")
        numbers = sorted(int(n) for n in pages)
        if system == "camelot-stream":
            import pymupdf
            opened = pymupdf.open(pdf)  # for the pages' geometry
            read = lambda n: camelot_page(pdf, n, pages[str(n)], margin, media_frame(opened[n - 1]), errors)  # noqa
        elif system == "pdfplumber-text":
            import pdfplumber
            opened = pdfplumber.open(pdf)
            read = lambda n: plumber_page(opened.pages[n - 1], pages[str(n)], margin)  # noqa: E731
        else:
            import pymupdf
            opened, strategy = pymupdf.open(pdf), system.split("-")[1]
            read = lambda n: mupdf_page(opened[n - 1], pages[str(n)], margin, strategy)  # noqa: E731
        for number in numbers:
            try:
                found[str(number)] = read(number)
            except Exception as exc:  # one page failing leaves the others
                errors.append(f"page {number}: {type(exc).__name__}: {exc}")
        opened.close()
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
    return {"pages": found, "seconds": round(time.perf_counter() - started, 3), "error": "; ".join(errors) or None}


def main():
    request = json.load(sys.stdin)
    # the peers print (PyMuPDF's advice, Camelot's notes): only the answer goes to the real stdout
    answer_out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    pages = {str(k): v for k, v in request["pages"].items()}
    margin = float(request.get("margin", 8))
    answer = {s: run_system(s, request["pdf"], pages, margin) for s in request.get("systems", SYSTEMS)}
    json.dump(answer, answer_out)
    answer_out.write("\n")
    answer_out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
