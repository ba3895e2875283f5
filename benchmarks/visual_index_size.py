"""Bytes the visual index stores per page (store/page_vectors.py's columns: int8 vectors, scales, pooled sign codes,
the grid's cell-to-vector map), without and with hierarchical token pooling (settings `visual_pool_factor`), on real
corpus pages at 768 visual tokens. The sizes follow from the vector count per page and the 128 dimensions, which the
tiny random ColQwen2.5 (tests/tiny_colqwen.py) shares with the real one; what pooling costs retrieval needs the real
weights and is not measured here.

    .venv/bin/python benchmarks/visual_index_size.py [--pages 16] [--out results/visual_index_size.json]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import _common  # noqa: E402

from docqa_desktop.pdf.page_images import page_images  # noqa: E402
from docqa_desktop.vectors.page_embedder import PageEmbedder  # noqa: E402
from docqa_desktop.visual.search_index import EncodedPage  # noqa: E402

CORPUS = _common.REPO.parent / "shared" / "corpus"
DOCUMENTS = ("BESTBUY_2023_10K.pdf", "2023.acl-long.386.pdf", "PIP_Seniors-and-Tech-Use_040314.pdf",
             "stereo_headset.pdf")  # a 10-K's tables, a paper, a report with charts, a manual
POOL_FACTORS = (1, 2, 3)
VISUAL_TOKENS = 768
FIXED_COLUMNS = 8 + 4 + 4 + 4 + 4  # doc_id, page, vector_count, grid_rows, grid_cols (the model name aside)


def stored_bytes(vectors, patch_rows) -> int:
    page = EncodedPage.from_vectors(vectors)
    return page.int8.nbytes + page.scales.nbytes + page.pooled_signs.nbytes + patch_rows.nbytes + FIXED_COLUMNS


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=16)
    ap.add_argument("--out")
    args = ap.parse_args()
    from tiny_colqwen import save_tiny

    per_document = max(1, args.pages // len(DOCUMENTS))
    images = [image for name in DOCUMENTS
              for _, image in page_images(str(CORPUS / name), range(1, per_document + 1), VISUAL_TOKENS)]
    rows = {}
    with tempfile.TemporaryDirectory(prefix="docqa-tiny-colqwen-") as tmp:
        folder = save_tiny(Path(tmp))
        for factor in POOL_FACTORS:
            embedder = PageEmbedder.load(folder, visual_tokens=VISUAL_TOKENS, pool_factor=factor)
            pages = embedder.embed_pages(images)
            sizes = [stored_bytes(p.vectors, p.patch_rows) for p in pages]
            rows[str(factor)] = {"vectors_per_page_mean": round(statistics.mean(len(p.vectors) for p in pages), 1),
                                 "kb_per_page_mean": round(statistics.mean(sizes) / 1000, 1),
                                 "kb_per_page_max": round(max(sizes) / 1000, 1)}
            print(f"pool factor {factor}: {rows[str(factor)]}", flush=True)
    data = {"environment": _common.environment(), "pages": len(images), "documents": list(DOCUMENTS),
            "visual_tokens": VISUAL_TOKENS, "by_pool_factor": rows}
    path = _common.write_json(data, args.out, "visual_index_size.json")
    print(f"-> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
