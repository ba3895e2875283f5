"""Seconds per page (and per query) of the ColQwen2.5 page embedder on this machine, at several visual-token
budgets, with random weights: the tiny test model, or the real 3B-class architecture (speed does not depend on
the weights' values, so this is an honest estimate for the real checkpoint; ~16 GB RAM in float32).

    python benchmarks/visual_embed.py --size tiny --tokens 256 512 768 --pages 4
    python benchmarks/visual_embed.py --size real --tokens 256 512 768 --pages 2

Pages are real corpus pages (../shared/corpus) rendered as the indexing stage renders them. Writes
benchmarks/results/visual_embed-<size>.json.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import _common  # noqa: E402
from docqa_desktop.vectors.page_embedder import PageEmbedder  # noqa: E402
from docqa_desktop.pdf.page_images import page_images  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
QUERY = "What was the total revenue in fiscal year 2023 according to the table?"


def int8_drift(model, processor, pdf: str, budget: int) -> dict:
    """Quantize `model` in place; MaxSim of one query against two pages before and after."""
    from docqa_desktop.vectors.page_embedder import quantize_linear_layers

    embedder = PageEmbedder(model, processor, name="drift", device="cpu", visual_tokens=budget)
    images = [image for _page, image in page_images(pdf, [1, 2], budget)]

    def scores():
        query = embedder.embed_query(QUERY)
        return [float((query @ page.vectors.T).max(axis=1).sum()) for page in embedder.embed_pages(images)]

    before = scores()
    quantize_linear_layers(model)
    after = scores()
    return {"float32": [round(v, 4) for v in before], "int8": [round(v, 4) for v in after],
            "max_relative": round(max(abs(a - b) / abs(b) for a, b in zip(after, before)), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", choices=("tiny", "real"), default="tiny")
    parser.add_argument("--tokens", type=int, nargs="+", default=[256, 512, 768])
    parser.add_argument("--pages", type=int, default=4)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--int8", action="store_true",
                        help="time with int8 linear layers (as the app does on a CPU), and their score drift")
    parser.add_argument("--pdf", default=str(sorted(CORPUS.glob("*.pdf"))[0]) if CORPUS.exists() else None)
    args = parser.parse_args()

    import torch
    import tiny_colqwen

    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    model, processor = tiny_colqwen.build(args.size)
    build_s = time.perf_counter() - started
    params = sum(p.numel() for p in model.parameters())
    drift = None
    if args.int8:
        drift = int8_drift(model, processor, args.pdf, min(args.tokens))
    rows = []
    for budget in args.tokens:
        embedder = PageEmbedder(model, processor, name=f"{args.size}-random", device="cpu", visual_tokens=budget)
        images = [image for _page, image in page_images(args.pdf, range(1, args.pages + 1), budget)]
        embedder.embed_pages(images[:1])  # warm-up: first-call allocations
        started = time.perf_counter()
        pages = embedder.embed_pages(images)
        per_page = (time.perf_counter() - started) / len(images)
        started = time.perf_counter()
        query = embedder.embed_query(QUERY)
        per_query = time.perf_counter() - started
        rows.append({"visual_tokens": budget, "pages": len(images), "s_per_page": round(per_page, 3),
                     "vectors_per_page": round(sum(len(p.vectors) for p in pages) / len(pages), 1),
                     "grid": list(pages[0].grid), "s_per_query": round(per_query, 3),
                     "query_vectors": int(len(query))})
        print(json.dumps(rows[-1]), flush=True)
    result = {"size": args.size, "int8": args.int8, "score_drift": drift, "parameters": params, "threads": args.threads, "build_s": round(build_s, 1),
              "pdf": os.path.basename(args.pdf or ""), "peak_rss_mb": round(
                  resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), "runs": rows,
              "environment": _common.environment()}
    out = ROOT / "benchmarks" / "results" / f"visual_embed-{args.size}{'-int8' if args.int8 else ''}.json"
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
