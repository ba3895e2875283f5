"""The ICDAR 2013 pages as scans (issue 54): each page rendered to a 200-dpi image alone on a page of its size, read
by the app's OCR (index/ocr.py at the given dpi, the app's index.ocr_dpi by default) — the words a scanned table
is read from. OCR is slow on pages dense with figures (seconds to a minute a page on 2 cores), so each page's
recognised lines are kept under benchmarks/out/icdar-ocr/ and read from there the next time.

    .venv/bin/python benchmarks/icdar_scan.py [--ocr-dpi 110] [--regions-only]   # fill the cache ahead
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from docqa_desktop.domain import Word  # noqa: E402
from docqa_desktop.index.ocr import recognised_words  # noqa: E402
from docqa_desktop.settings import IndexSettings  # noqa: E402

SCAN_DPI = 200
CACHE = _common.REPO / "benchmarks" / "out" / "icdar-ocr"


def scanned_words(pdf: Path, page_number: int, ocr_dpi: int) -> list[Word]:
    """The OCR's words of the page rendered as a 200-dpi scan (1-based page number). The recogniser's own output is
    kept (index/ocr.py turns it into words each time, so a change there is measured without OCR'ing again)."""
    cached = CACHE / f"{pdf.stem}-p{page_number}-{ocr_dpi}dpi.json"
    if not cached.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(_recognised(pdf, page_number, ocr_dpi)))
    found = json.loads(cached.read_text())
    return recognised_words(found["lines"], found["scale"])[1]


def _recognised(pdf: Path, page_number: int, ocr_dpi: int) -> dict:
    import pymupdf

    from docqa_desktop.index.ocr import _engine, _rendered

    with pymupdf.open(pdf) as doc:
        page = doc[page_number - 1]
        image = page.get_pixmap(dpi=SCAN_DPI)
        with pymupdf.open() as scan:
            scanned = scan.new_page(width=page.rect.width, height=page.rect.height)
            scanned.insert_image(scanned.rect, pixmap=image)
            pixels, scale = _rendered(scanned, ocr_dpi)
    result, _ = _engine()(pixels)
    return {"scale": scale, "lines": [[[list(map(float, p)) for p in quad], text, float(score)]
                                      for quad, text, score in result or []]}


def main() -> int:
    import pymupdf

    from icdar2013 import ICDAR, regions

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ocr-dpi", type=int, default=IndexSettings().ocr_dpi)
    ap.add_argument("--regions-only", action="store_true", help="only the pages that hold a ground-truth table")
    args = ap.parse_args()
    for name in sorted(p.name[:-len("-str.xml")] for p in ICDAR.glob("*-str.xml")
                       if (ICDAR / p.name.replace("-str.xml", ".pdf")).is_file()):
        with pymupdf.open(ICDAR / f"{name}.pdf") as doc:
            pages = (sorted(regions(name, {n + 1: doc[n].rect.height for n in range(doc.page_count)}))
                     if args.regions_only else range(1, doc.page_count + 1))
        for number in pages:
            scanned_words(ICDAR / f"{name}.pdf", number, args.ocr_dpi)
        print(name, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
