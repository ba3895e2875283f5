"""The vision tower's attention, per window (transformers' SDPA path) against one call per layer
(docqa_desktop/vectors/vision_attention.py, index.visual_attention = "auto"): seconds per page and attention
calls per forward, the cosine between their vectors, and the calls the real 3B tower makes for a batch of 16
pages, counted from its config (on a GPU the bottleneck: the CPU launching one kernel per window).

    python benchmarks/page_embedder_attention.py --pages 4 --tokens 768                  # tiny model, this CPU
    PYTHONPATH=STUB python benchmarks/page_embedder_attention.py --size real --device cuda --pages 16 \
        --images PNG_FOLDER                                                              # the real size on a GPU

On a CPU "auto" is the padded path (torch's varlen kernel is CUDA-only); on CUDA it is the varlen kernel. Pages
are real corpus pages rendered as the indexing stage renders them, or PNGs rendered beforehand (--images: a GPU
machine without pymupdf; STUB holds an import-only pymupdf, as benchmarks/gpu_check does). Writes
benchmarks/results/page_embedder_attention[-real-cuda].json.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import _common  # noqa: E402
import tiny_colqwen  # noqa: E402
from docqa_desktop.vectors.page_embedder import PageEmbedder  # noqa: E402
from docqa_desktop.vectors.vision_attention import per_window_calls  # noqa: E402

PDF = ROOT.parent / "shared" / "corpus" / "1912.01214.pdf"
MODES = ("per_window", "auto")


def counted_calls():
    """Wrap torch's scaled_dot_product_attention; returns the list whose first item counts calls."""
    import torch

    calls = [0]
    real = torch.nn.functional.scaled_dot_product_attention

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    torch.nn.functional.scaled_dot_product_attention = counted
    return calls


def time_modes(embedder: PageEmbedder, images, repeats: int, calls: list[int], sync) -> dict:
    """Per mode: the best and median seconds per page over `repeats` passes over `images` in the embedder's
    batches (the modes take turns, so that a busy machine slows both alike), the attention calls of a one-page
    forward, and the pages' vectors."""
    runs = {}
    for mode in MODES:
        embedder.set_vision_attention(mode)
        calls[0] = 0
        embedder.embed_pages(images[:1])  # also the warm-up
        runs[mode] = {"sdpa_calls_per_page_forward": calls[0], "vectors": embedder.embed_pages(images),
                      "s_per_page_runs": []}
    for _ in range(repeats):
        for mode in MODES:
            embedder.set_vision_attention(mode)
            sync()
            started = time.perf_counter()
            embedder.embed_pages(images)
            sync()
            runs[mode]["s_per_page_runs"].append(round((time.perf_counter() - started) / len(images), 4))
    for run in runs.values():  # the best pass is the steadiest figure on a shared machine; the median beside it
        run["s_per_page"] = min(run["s_per_page_runs"])
        run["s_per_page_median"] = statistics.median(run["s_per_page_runs"])
    return runs


def load_images(args) -> list:
    if args.images:
        from PIL import Image

        files = sorted(Path(args.images).glob("*.png"))[:args.pages]
        return [Image.open(f).convert("RGB") for f in files]
    from docqa_desktop.pdf.page_images import page_images

    return [image for _, image in page_images(str(PDF), range(1, args.pages + 1), args.tokens)]


def real_tower_calls(grids: list[tuple[int, int]], batch: int = 16) -> dict:
    """Calls per forward of `batch` pages for the real tower (tests/tiny_colqwen.py's "real" size, as in the
    ColQwen2.5-v0.2 config: depth 32, full attention in 4 layers, 112-pixel windows, 14-pixel patches, 2x2 merge),
    pages cycling through `grids`, plus the language model's 36 layers (one call each)."""
    vision = tiny_colqwen.SIZES["real"]["vision"]
    pages = [grids[i % len(grids)] for i in range(batch)]
    old = per_window_calls(pages, window_size=112, patch_size=14, merge_size=2, depth=vision["depth"],
                           full_layers=len(vision["fullatt_block_indexes"]))
    text_layers = tiny_colqwen.SIZES["real"]["text"]["num_hidden_layers"]
    return {"pages": batch, "per_window": old + text_layers, "one_per_layer": vision["depth"] + text_layers,
            "one_per_layer_varlen_sdpa_calls": text_layers,  # on CUDA torch's varlen kernel is not an SDPA call
            "windows_per_page": [per_window_calls([g], window_size=112, patch_size=14, merge_size=2, depth=1,
                                                  full_layers=0) for g in grids]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", choices=["tiny", "real"], default="tiny")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--pages", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=768)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--images", help="a folder of page PNGs rendered beforehand (default: render a corpus PDF)")
    parser.add_argument("--out")
    args = parser.parse_args()

    import numpy as np
    import torch

    model, processor = tiny_colqwen.build(args.size)
    if args.device == "cuda":
        model = model.to("cuda", torch.bfloat16)  # as PageEmbedder.load places a checkpoint on a GPU
    embedder = PageEmbedder(model, processor, name=args.size, device=args.device, visual_tokens=args.tokens)
    images = load_images(args)
    calls = counted_calls()
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    with torch.inference_mode():
        runs = time_modes(embedder, images, args.repeats, calls, sync)
    old, new = (runs[mode].pop("vectors") for mode in MODES)
    cosines = [float(((a.vectors / np.linalg.norm(a.vectors, axis=1, keepdims=True))
                      * (b.vectors / np.linalg.norm(b.vectors, axis=1, keepdims=True))).sum(1).min())
               for a, b in zip(old, new)]
    grids = [tuple(int(x) for x in processor.process_images([image])["image_grid_thw"][0, 1:]) for image in images]
    data = {
        "date": time.strftime("%Y-%m-%d %H:%M"), "environment": _common.environment(),
        "device": torch.cuda.get_device_name() if args.device == "cuda" else "cpu", "size": args.size,
        "pages_from": args.images or PDF.name, "visual_tokens": args.tokens, "pages": len(images),
        "batch": embedder.batch_size, "threads": torch.get_num_threads(), "runs": runs,
        "speedup": round(runs["per_window"]["s_per_page"] / runs["auto"]["s_per_page"], 3),
        "cosine_min": round(min(cosines), 6),
        "same_vector_counts": all(len(a.vectors) == len(b.vectors) for a, b in zip(old, new)),
        "patch_grids": grids,
        "real_3b_calls_per_batch": real_tower_calls(grids),
    }
    name = "page_embedder_attention" + ("" if args.size == "tiny" else f"-{args.size}-{args.device}") + ".json"
    path = _common.write_json(data, args.out, name)
    per_window, auto = runs["per_window"], runs["auto"]
    print(f"per window {per_window['s_per_page']} s/page, {per_window['sdpa_calls_per_page_forward']} calls; one per "
          f"layer {auto['s_per_page']} s/page, {auto['sdpa_calls_per_page_forward']} calls; cosine >= "
          f"{data['cosine_min']}; real 3B, 16 pages: {data['real_3b_calls_per_batch']} -> {path}")


if __name__ == "__main__":
    main()
