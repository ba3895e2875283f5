"""`docqa search | render`: finding pages and drawing one."""
from __future__ import annotations

import argparse
import json
import os

from ..domain import DocumentFilter, parse_years
from ..service import SEARCH_MODES, Service
from .common import add_doc_option, local_path, positive


def add_parsers(sub, common) -> None:
    p = sub.add_parser("search", parents=[common], help="find pages by text, by page image, or both")
    p.add_argument("query")
    add_doc_option(p)
    p.add_argument("--k", type=positive, default=None, help="number of pages (default 10)")
    p.add_argument("--mode", choices=SEARCH_MODES, default=None,
                   help="text (BM25 + dense; or bm25, dense alone), visual (page images), hybrid (both), "
                        "auto: hybrid once page images are embedded (the default, setting search.mode)")
    p.add_argument("--author", default="", help="only documents whose authors include this (any part, case ignored)")
    p.add_argument("--year", type=years, default=(None, None),
                   help="only documents of this year or range: 2019, 2015-2020, 2015-, -2020")
    p.add_argument("--folder", type=local_path, help="only documents under this folder")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=search)

    p = sub.add_parser("render", parents=[common], help="write a page of an indexed document as PNG")
    p.add_argument("doc")
    p.add_argument("page", type=int, help="1-based page index")
    p.add_argument("-o", "--output", type=local_path, help="file to write (default: DOC-pPAGE.png)")
    p.add_argument("--size", type=int, default=1600, help="longer side in pixels")
    p.set_defaults(run=render)


def search(service: Service, args) -> int:
    where = DocumentFilter(args.author, args.year, args.folder or "")
    hits = service.pages.search(args.query, args.doc, args.k, args.mode, where)
    if args.json:
        print(json.dumps([h.as_json() for h in hits], indent=2, ensure_ascii=False))
        return 0
    if not hits:
        print("no matching pages")
    for rank, h in enumerate(hits, 1):
        where = _region_text(h.region) if h.region else ""
        print(f"{rank:2}. {h.doc}  p.{h.page}  ({h.score:.4f}){where}\n    {h.snippet}")
    return 0


def years(text: str) -> tuple[int | None, int | None]:
    try:
        return parse_years(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _region_text(region) -> str:
    x0, y0, x1, y1 = region
    return f" region x {x0:.2f}-{x1:.2f} y {y0:.2f}-{y1:.2f}"


def render(service: Service, args) -> int:
    png = service.pages.page_image(args.doc, args.page, args.size)
    output = args.output or local_path(f"{os.path.splitext(os.path.basename(args.doc))[0]}-p{args.page}.png")
    with open(output, "wb") as fh:
        fh.write(png)
    print(output)
    return 0
