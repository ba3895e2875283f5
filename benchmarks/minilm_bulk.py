"""Bulk MiniLM chunk embedding on one core: the numpy model (the installer's base, no torch) against torch's
kernels (with the visual component), on the chunks of real corpus pages, and how far their vectors differ.

    .venv/bin/python benchmarks/minilm_bulk.py [--chunks 384] [--out results/minilm_bulk.json]

Chunks come from the product's own chunker over the text of three corpus PDFs; both embedders run one thread
(the index workers run one each) on the same chunks, after one warm-up batch.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

from docqa_desktop.index.chunking import chunk_page  # noqa: E402
from docqa_desktop.vectors.text_embedder import BulkMiniLMEmbedder, TorchMiniLMEmbedder  # noqa: E402

PDFS = ("2312.10997v5.pdf", "BESTBUY_2023_10K.pdf", "PIP_Seniors-and-Tech-Use_040314.pdf")


def corpus_chunks(limit: int) -> list[str]:
    import pymupdf

    chunks: list[str] = []
    for name in PDFS:
        with pymupdf.open(_common.CORPUS / name) as doc:
            for page in doc:
                chunks += [c.text for c in chunk_page(page.number, page.get_text())]
                if len(chunks) >= limit:
                    return chunks[:limit]
    return chunks


def rate(embedder, chunks: list[str]) -> tuple[float, np.ndarray]:
    embedder.embed(chunks[:32])  # warm-up: first-call allocations
    started = time.perf_counter()
    vectors = embedder.embed(chunks)
    return len(chunks) / (time.perf_counter() - started), vectors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=384)
    ap.add_argument("--out")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    chunks = corpus_chunks(args.chunks)
    numpy_rate, numpy_vectors = rate(BulkMiniLMEmbedder(), chunks)
    torch_rate, torch_vectors = rate(TorchMiniLMEmbedder(), chunks)
    cosine = (numpy_vectors * torch_vectors).sum(1)
    data = {"environment": _common.environment(), "chunks": len(chunks), "threads": 1,
            "numpy_chunks_per_s": round(numpy_rate, 1), "torch_chunks_per_s": round(torch_rate, 1),
            "numpy_over_torch": round(numpy_rate / torch_rate, 2), "min_cosine": float(cosine.min())}
    path = _common.write_json(data, args.out, "minilm_bulk.json")
    print(f"{len(chunks)} chunks, one thread: numpy {numpy_rate:.1f}/s, torch {torch_rate:.1f}/s "
          f"({numpy_rate / torch_rate:.2f}x), min cosine {cosine.min():.6f} -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
