"""The app's OCR (index/ocr.py's ocr_page) read with OpenCV and with the package's numpy/Pillow stand-in for it
(packaging/installer/cv2_lite.py, shipped as cv2.py in the Linux package): the text of each page, its accuracy
where the truth is known, how far the two readings are apart, and the seconds a page takes with each.

Pages: the scanned memo of the samples (its text is packaging/make_samples.py's MEMO); every corpus page the
indexer OCRs (no text layer to speak of: the two slide decks, and the odd picture-only page); ICDAR 2013 pages
rendered as 200-dpi scans, their own text layer the truth. Each variant runs in its own process (RapidOCR imports
cv2 once), one after the other, the models loaded and a page read before the clock starts.

    .venv/bin/python benchmarks/ocr_without_opencv.py [--icdar 8] [--quick] [--out FILE]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

LITE = _common.REPO / "packaging" / "installer" / "cv2_lite.py"
MEMO_PDF = _common.REPO / "resources" / "samples" / "ferry-memo-scanned.pdf"
ICDAR = Path("/work/shared/corpus-train/icdar2013")
SCAN_DPI = 200
VARIANTS = ("opencv", "lite")


# -- pages ---------------------------------------------------------------------------------------------------------

def memo_truth() -> str:
    spec = importlib.util.spec_from_file_location("make_samples", _common.REPO / "packaging" / "make_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return "\n".join(module.MEMO)


def corpus_ocr_pages(quick: bool) -> list[tuple[str, int]]:
    """(pdf, 0-based page) of every corpus page the indexer would OCR."""
    import pymupdf

    from docqa_desktop.pdf.document import needs_ocr, text_layer

    found = []
    for pdf in sorted(_common.CORPUS.glob("*.pdf")):
        with pymupdf.open(pdf) as doc:
            found += [(str(pdf), n) for n in range(doc.page_count) if needs_ocr(doc[n], text_layer(doc[n])[0])]
    return found[::4] if quick else found


def icdar_pages(count: int) -> list[tuple[str, int]]:
    pdfs = sorted(ICDAR.glob("*.pdf"))[:count] if ICDAR.is_dir() else []
    return [(str(pdf), 0) for pdf in pdfs]


# -- child: one variant ---------------------------------------------------------------------------------------------

def read_pages(variant: str, jobs: list[dict], dpi: int) -> dict:
    if variant == "lite":  # before RapidOCR is imported: its modules bind cv2 at import
        spec = importlib.util.spec_from_file_location("cv2", LITE)
        sys.modules["cv2"] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    import pymupdf

    from docqa_desktop.index.ocr import ocr_page

    def page_of(job, doc, scan):
        page = doc[job["page"]]
        if job["kind"] != "icdar":
            return page
        image = page.get_pixmap(dpi=SCAN_DPI)  # the born-digital page as a scan: pixels only
        scanned = scan.new_page(width=page.rect.width, height=page.rect.height)
        scanned.insert_image(scanned.rect, pixmap=image)
        return scanned

    with pymupdf.open(jobs[0]["pdf"]) as doc:
        ocr_page(doc[jobs[0]["page"]], dpi, "cpu")  # models loaded, caches warm
    out = {}
    for job in jobs:
        with pymupdf.open(job["pdf"]) as doc, pymupdf.open() as scan:
            page = page_of(job, doc, scan)
            started = time.perf_counter()
            text, words = ocr_page(page, dpi, "cpu")
            out[job["id"]] = {"text": text, "words": len(words), "seconds": time.perf_counter() - started}
    import cv2
    return {"cv2": getattr(cv2, "__file__", "?"), "pages": out}


# -- measures -------------------------------------------------------------------------------------------------------

def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, one row of the table at a time in numpy."""
    if not a or not b:
        return len(a) + len(b)
    codes_b = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    steps = np.arange(len(b) + 1)
    row = steps.copy()
    codes_a = np.frombuffer(a.encode("utf-32-le"), dtype=np.uint32)
    for i, code in enumerate(codes_a, start=1):
        substitute = row[:-1] + (codes_b != code)
        best = np.empty_like(row)
        best[0] = i
        best[1:] = np.minimum(row[1:] + 1, substitute)
        row = np.minimum.accumulate(best - steps) + steps  # insertions along the row
    return int(row[-1])


def normalised(text: str) -> str:
    return " ".join(text.split())


def tokens(text: str) -> Counter:
    return Counter(t for t in (re.sub(r"^\W+|\W+$", "", w) for w in text.split()) if t)


def accuracy(read: str, truth: str) -> dict:
    """Characters: 1 - edit distance / truth length, whitespace collapsed. Words: the truth's words read (recall)
    and the read words in the truth (precision), as multisets, punctuation at the ends stripped."""
    got, want = tokens(read), tokens(truth)
    common = sum((got & want).values())
    return {"char_accuracy": 1 - edit_distance(normalised(read), normalised(truth)) / max(1, len(normalised(truth))),
            "word_recall": common / max(1, sum(want.values())), "word_precision": common / max(1, sum(got.values()))}


def icdar_truth(job: dict) -> str:
    import pymupdf
    with pymupdf.open(job["pdf"]) as doc:
        return doc[job["page"]].get_text()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--icdar", type=int, default=8, help="ICDAR 2013 documents whose first page is read as a scan")
    ap.add_argument("--quick", action="store_true", help="every fourth corpus OCR page")
    ap.add_argument("--dpi", type=int, help="OCR resolution (the app's index.ocr_dpi by default)")
    ap.add_argument("--out")
    ap.add_argument("--_child", nargs=3, metavar=("VARIANT", "JOBS", "RESULT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    from docqa_desktop.settings import IndexSettings
    dpi = args.dpi or IndexSettings().ocr_dpi
    if args._child:
        variant, jobs_file, result_file = args._child
        data = read_pages(variant, json.loads(Path(jobs_file).read_text()), dpi)
        Path(result_file).write_text(json.dumps(data))
        return 0

    jobs = [{"id": "memo", "kind": "memo", "pdf": str(MEMO_PDF), "page": 0}]
    jobs += [{"id": f"{Path(pdf).stem}#{n + 1}", "kind": "corpus", "pdf": pdf, "page": n}
             for pdf, n in corpus_ocr_pages(args.quick)]
    jobs += [{"id": f"icdar/{Path(pdf).stem}#{n + 1}", "kind": "icdar", "pdf": pdf, "page": n}
             for pdf, n in icdar_pages(args.icdar)]
    readings = {}
    with tempfile.TemporaryDirectory(prefix="ocr-lite-") as tmp:
        jobs_file = Path(tmp) / "jobs.json"
        jobs_file.write_text(json.dumps(jobs))
        for variant in VARIANTS:
            result = Path(tmp) / f"{variant}.json"
            command = [sys.executable, __file__, "--dpi", str(dpi), "--_child", variant, str(jobs_file), str(result)]
            subprocess.run(command, check=True)
            readings[variant] = json.loads(result.read_text())
            print(f"{variant}: {len(jobs)} pages read with {readings[variant]['cv2']}", flush=True)

    truths = {"memo": memo_truth()}
    truths.update({job["id"]: icdar_truth(job) for job in jobs if job["kind"] == "icdar"})
    pages = []
    for job in jobs:
        a, b = (readings[v]["pages"][job["id"]] for v in VARIANTS)
        row = {"page": job["id"], "kind": job["kind"], "identical": a["text"] == b["text"],
               "apart_chars": edit_distance(normalised(a["text"]), normalised(b["text"])),
               "chars": len(normalised(a["text"])),
               "seconds": {v: round(readings[v]["pages"][job["id"]]["seconds"], 3) for v in VARIANTS}}
        if job["id"] in truths:
            row["accuracy"] = {v: accuracy(readings[v]["pages"][job["id"]]["text"], truths[job["id"]])
                               for v in VARIANTS}
        pages.append(row)

    def summary(kind: str | None) -> dict:
        chosen = [p for p in pages if kind is None or p["kind"] == kind]
        scored = [p for p in chosen if "accuracy" in p]
        out = {"pages": len(chosen), "identical_pages": sum(p["identical"] for p in chosen),
               "chars_apart_per_100": round(100 * sum(p["apart_chars"] for p in chosen)
                                            / max(1, sum(p["chars"] for p in chosen)), 3),
               "seconds": {v: round(sum(p["seconds"][v] for p in chosen), 2) for v in VARIANTS}}
        if scored:
            out["accuracy"] = {v: {m: round(float(np.mean([p["accuracy"][v][m] for p in scored])), 4)
                                   for m in ("char_accuracy", "word_recall", "word_precision")} for v in VARIANTS}
        return out

    data = {"environment": _common.environment(), "dpi": dpi,
            "summary": {"all": summary(None), **{k: summary(k) for k in ("memo", "corpus", "icdar")}},
            "pages": pages, "texts": {v: {k: p["text"] for k, p in readings[v]["pages"].items()} for v in VARIANTS}}
    path = _common.write_json(data, args.out, "ocr_without_opencv.json")
    rows = []
    for kind in ("memo", "corpus", "icdar", "all"):
        s = data["summary"][kind]
        acc = s.get("accuracy", {})
        rows.append([kind, s["pages"], s["identical_pages"], s["chars_apart_per_100"],
                     *(acc.get(v, {}).get("char_accuracy") for v in VARIANTS),
                     *(acc.get(v, {}).get("word_recall") for v in VARIANTS),
                     *(s["seconds"][v] for v in VARIANTS)])
    print(_common.markdown_table(["pages", "n", "identical", "chars apart /100", "char acc OpenCV", "char acc lite",
                                  "word recall OpenCV", "word recall lite", "s OpenCV", "s lite"], rows))
    print(f"-> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
