"""The page embedder and the visual stage on the GPU: the product's own PageEmbedder (vectors/page_embedder.py) at
the real ColQwen2.5-v0.2 / Qwen2.5-VL-3B size with random bf16 weights (speed and memory do not depend on them).

    python3 benchmarks/gpu_check/embed_check.py PACK OUT.json            # GPU machine
    SMALL=1 python3 benchmarks/gpu_check/embed_check.py PACK OUT.json    # any CPU: tiny sizes, 4 pages

The pack's colqwen25/ holds config + processor + tokenizer; the weights are drawn at random, saved and loaded back
through PageEmbedder.load (the app's load path). Then: pages/s, peak memory and batch size at 768 / 256 / 1024
visual tokens, query p50, and the visual stage's embedding loop (visual/stage.py) over the carried pages as the
indexer runs it, into a real library database, with only the PDF rendering swapped for reading the pages
that prepare.py rendered with the product's page_images().
"""
from __future__ import annotations

import gc
import gzip
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from _part import SMALL, Record, use_checkout

PACK, OUT = Path(sys.argv[1]), Path(sys.argv[2])
R = Record(OUT, "embed")
DEADLINE = time.monotonic() + float(os.environ.get("EMBED_SOFT_LIMIT_S", "200"))  # no new budget starts after this
BUDGETS = [768, 256, 1024]  # the app's default first
TINY = dict(text=dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2), vision=dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2,
                                                          out_hidden_size=64, fullatt_block_indexes=[1]))
QUERY_TEMPLATES = ["What was the total {x} in fiscal year {y} according to the table?",
                   "Which figure shows the {x} by year?", "How did {x} change between {y} and the previous year?",
                   "Where does the report compare {x} across regions in {y}?", "List the main causes of {x}."]
QUERY_WORDS = ["revenue", "net income", "operating margin", "headcount", "battery life", "election results",
               "retrieval accuracy", "tuition fees", "e-commerce growth", "warranty terms", "latency"]


def queries(n: int) -> list[str]:
    return [QUERY_TEMPLATES[i % len(QUERY_TEMPLATES)].format(x=QUERY_WORDS[(i * 7) % len(QUERY_WORDS)], y=2015 + i % 10)
            for i in range(n)]


def imports():
    R.data["pymupdf"] = use_checkout()
    from docqa_desktop.vectors.torch_runtime import import_torchvision

    R.data["torchvision_import"] = import_torchvision()
    import torch
    import transformers
    from docqa_desktop.vectors import page_embedder

    R.data["versions"] = {"python": sys.version.split()[0], "torch": torch.__version__, "cuda": torch.version.cuda,
                          "transformers": transformers.__version__, "embedder_file": page_embedder.__file__}
    R.data["device_name"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    return page_embedder


def checkpoint_folder() -> Path:
    """The carried folder, tokenizer.json un-gzipped, in a temporary copy."""
    folder = Path(tempfile.mkdtemp(prefix="colqwen25-")) / "colqwen25-random"
    shutil.copytree(PACK / "colqwen25", folder)
    gz = folder / "tokenizer.json.gz"
    if gz.exists():
        (folder / "tokenizer.json").write_bytes(gzip.decompress(gz.read_bytes()))
        gz.unlink()
    return folder


def save_random_model(folder: Path, device: str) -> None:
    import torch
    from colpali_engine.models import ColQwen2_5
    from transformers.models.qwen2_5_vl import Qwen2_5_VLConfig

    config = Qwen2_5_VLConfig.from_pretrained(str(folder))
    if SMALL:  # the same structure at tests/tiny_colqwen.py's tiny size
        for key, value in TINY["text"].items():
            setattr(config.text_config, key, value)
        for key, value in TINY["vision"].items():
            setattr(config.vision_config, key, value)
        config.text_config.layer_types = config.text_config.layer_types[:2]
        config.text_config.rope_parameters = {"rope_type": "default", "rope_theta": 1e6, "mrope_section": [2, 3, 3]}
    torch.manual_seed(0)
    with torch.device(device):
        model = ColQwen2_5._from_config(config, dtype=torch.bfloat16 if device == "cuda" else torch.float32)
    with torch.no_grad():  # random init zeroes the padding row and the projection bias: 0/0 = NaN (tiny_colqwen.py)
        model.language_model.embed_tokens.weight.normal_(0, 0.02)
        model.custom_text_proj.bias.normal_(0, 0.02)
    R.data["parameters"] = sum(p.numel() for p in model.parameters())
    model.save_pretrained(str(folder))
    del model
    gc.collect()
    if device == "cuda":
        torch.cuda.empty_cache()
    return True


def load_images():
    from PIL import Image

    manifest = json.loads((PACK / "pages" / "pages.json").read_text())
    images = []
    for p in manifest["pages"]:
        with Image.open(PACK / "pages" / p["file"]) as im:
            images.append(im.convert("RGB"))
    return manifest, images


def resized(images, rendered_budget: int, budget: int):
    """Pages at another budget: page_images' zoom scales with sqrt(budget), so scale the renders by as much."""
    from PIL import Image

    if budget == rendered_budget:
        return images
    f = (budget / rendered_budget) ** 0.5
    return [im.resize((max(1, round(im.width * f)), max(1, round(im.height * f))), Image.Resampling.LANCZOS)
            for im in images]


def measure_budget(embedder, images, budget: int, n_queries: int) -> dict:
    import numpy as np
    import torch

    cuda = embedder.device.startswith("cuda")
    row: dict = {"visual_tokens": budget, "batch_size_initial": embedder.batch_size}
    R.data["runs"][str(budget)] = row
    started = time.monotonic()
    embedder.embed_pages(images[:embedder.batch_size])  # warm-up: first-call allocations, kernel selection
    row["warmup_batch_s"] = round(time.monotonic() - started, 2)
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    started = time.monotonic()
    pages = embedder.embed_pages(images)
    if cuda:
        torch.cuda.synchronize()
    took = time.monotonic() - started
    row.update({"pages": len(images), "seconds": round(took, 3), "pages_per_s": round(len(images) / took, 2),
                "batch_size_final": embedder.batch_size,
                "grid_tokens_per_page_mean": round(float(np.mean([p.grid[0] * p.grid[1] for p in pages])), 1),
                "nan_pages": int(sum(bool(np.isnan(p.vectors).any()) for p in pages))})
    if cuda:
        row["peak_gpu_allocated_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    R.log(f"{budget} tokens:", row)
    if n_queries:
        texts = queries(n_queries + 5)
        for text in texts[:5]:
            embedder.embed_query(text)
        times = []
        for text in texts[5:]:
            started = time.perf_counter()
            embedder.embed_query(text)
            times.append((time.perf_counter() - started) * 1000)
        row["query_p50_ms"] = round(statistics.median(times), 2)
        row["queries"] = len(times)
    return row


# name: (vision MLP aligned, RMS norms fused, where pages are patched, vision graphs, layers compiled); in this order,
# as aligning and fusing are for good; compiling last, as its first batch waits for the compile (its warm-up says how
# long)
SPEED_PATHS = {
    "before": (False, False, None, "off", "off"),  # the embedder as of 74ba8dd
    "gpu_patching": (False, False, "cuda", "off", "off"),
    "aligned_mlp_gpu_patching": (True, False, "cuda", "off", "off"),
    "fused_norms_aligned_mlp_gpu_patching": (True, True, "cuda", "off", "off"),  # the app's default on a GPU
    "fused_norms_aligned_mlp_gpu_patching_graphs": (True, True, "cuda", "on", "off"),
    "fused_norms_aligned_mlp_gpu_patching_compiled": (True, True, "cuda", "off", "on"),
}


def measure_paths(embedder, images) -> dict:
    """The same pages through each way of running the embedder (issue 47), the embedder loaded as the checkpoint
    has it: pages/s, the seconds of one batch's patching (prepare) and of its forward, and each path's vectors
    against the first. Leaves the embedder as the app runs it. On a CPU only the first path runs."""
    import torch

    from docqa_desktop.vectors.aligned_mlp import align_vision_mlp
    from docqa_desktop.vectors.fused_norms import fuse_rms_norms

    cuda = embedder.device.startswith("cuda")
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    row: dict = {"pages": len(images), "batch_size": embedder.batch_size}
    vectors = {}
    try:
        for name, (aligned, fused, patching, graphs, compiled) in SPEED_PATHS.items():
            if (aligned or fused or patching) and not cuda:
                continue
            if aligned and "mlp_units_added" not in row:  # once: the paths after it keep the widened MLP
                row["mlp_units_added"] = align_vision_mlp(embedder.model)
            if fused and "rms_norms_fused" not in row:  # likewise
                row["rms_norms_fused"] = fuse_rms_norms(embedder.model)
            embedder.set_vision_graphs(graphs)
            embedder.set_compiled_layers(compiled)
            embedder.preprocess_device = patching
            batch = images[:embedder.batch_size]
            started = time.monotonic()
            embedder.embed_pages(batch)  # warm-up; captures the graph of this batch's bucket, or compiles
            sync()
            warmup = time.monotonic() - started
            started = time.monotonic()
            prepared = embedder.prepare(batch)
            sync()
            patched = time.monotonic() - started
            embedder.embed_prepared(prepared)
            sync()
            forward = time.monotonic() - started - patched
            started = time.monotonic()
            vectors[name] = embedder.embed_pages(images)
            sync()
            took = time.monotonic() - started
            row[name] = {"pages_per_s": round(len(images) / took, 2), "warmup_batch_s": round(warmup, 2),
                         "one_batch_patching_s": round(patched, 3), "one_batch_forward_s": round(forward, 3)}
            if embedder.graphs is not None:
                row[name].update({"graphs_captured": len(embedder.graphs.graphs), "replays": embedder.graphs.replays,
                                  "capture_failed": embedder.graphs.failed})
            R.log(f"path {name}:", row[name])
    finally:  # the app's default on this device again
        if cuda:
            align_vision_mlp(embedder.model)
            fuse_rms_norms(embedder.model)
        embedder.set_vision_graphs("off")
        embedder.set_compiled_layers("off")
        embedder.preprocess_device = "cuda" if cuda else None
    first = next(iter(vectors))
    row["cosine_to_" + first] = {name: cosines(vectors[first], pages) for name, pages in vectors.items()
                                 if name != first}
    R.log("paths:", row)
    return row


def measure_profile(embedder, images) -> dict:
    """Where one batch's forward spends its GPU time: the vision tower and the rest timed with CUDA events, and
    torch.profiler's operations and kernels by their own GPU time."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    if not embedder.device.startswith("cuda"):
        return {"note": "CUDA only"}
    prepared = embedder.prepare(images[:embedder.batch_size])
    embedder.embed_prepared(prepared)  # warm
    events = {}

    def mark(name):
        def hook(*_args):
            events[name] = torch.cuda.Event(enable_timing=True)
            events[name].record()
        return hook

    tower = embedder.model.visual
    hooks = [tower.register_forward_pre_hook(mark("tower_start")), tower.register_forward_hook(mark("tower_end"))]
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    try:
        start.record()
        embedder.embed_prepared(prepared)
        end.record()
        torch.cuda.synchronize()
    finally:
        for hook in hooks:
            hook.remove()
    row = {"pages": len(prepared.images), "forward_ms": round(start.elapsed_time(end), 1),
           "tower_ms": round(events["tower_start"].elapsed_time(events["tower_end"]), 1),
           "after_tower_ms": round(events["tower_end"].elapsed_time(end), 1)}
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        embedder.embed_prepared(prepared)
        torch.cuda.synchronize()
    own = sorted(((e.key, e.self_device_time_total / 1000, e.count) for e in prof.key_averages()
                  if e.self_device_time_total), key=lambda k: -k[1])
    row["top_self_gpu_ms"] = [[name[:160], round(ms, 2), count] for name, ms, count in own[:30]]
    R.log("profile:", {k: v for k, v in row.items() if k != "top_self_gpu_ms"})
    return row


def measure_attention(embedder, images) -> dict:
    """The vision tower per window (transformers' SDPA path, one call per window) against the product's one call
    per layer (index.visual_attention = "auto": torch's varlen kernel on CUDA): seconds per page over the same
    pages, attention (SDPA) calls per forward, the cosine between the vectors, and whether varlen ran."""
    import torch

    from docqa_desktop.vectors import vision_attention

    cuda = embedder.device.startswith("cuda")
    calls, real_sdpa = [0], torch.nn.functional.scaled_dot_product_attention

    def counted(*args, **kwargs):
        calls[0] += 1
        return real_sdpa(*args, **kwargs)

    row: dict = {"pages": len(images), "batch_size": embedder.batch_size}
    vectors = {}
    torch.nn.functional.scaled_dot_product_attention = counted
    try:
        for mode in ("per_window", "auto"):
            embedder.set_vision_attention(mode)
            embedder.embed_pages(images[:embedder.batch_size])  # warm-up
            calls[0] = 0
            if cuda:
                torch.cuda.synchronize()
            started = time.monotonic()
            vectors[mode] = embedder.embed_pages(images)
            if cuda:
                torch.cuda.synchronize()
            took = time.monotonic() - started
            row[mode] = {"pages_per_s": round(len(images) / took, 2), "sdpa_calls_per_forward":
                         round(calls[0] / -(-len(images) // embedder.batch_size))}
    finally:
        torch.nn.functional.scaled_dot_product_attention = real_sdpa
        embedder.set_vision_attention("auto")
    between = cosines(vectors["per_window"], vectors["auto"])
    row["cosine_min"], row["cosine_mean"] = between["min"], between["mean"]
    row["cosine_against_float32"] = against_float32(embedder, images, vectors)
    row["same_vector_counts"] = all(len(a.vectors) == len(b.vectors)
                                    for a, b in zip(vectors["per_window"], vectors["auto"]))
    row["varlen_kernel"] = (cuda and vision_attention._has_varlen() and not vision_attention._varlen_broken)
    R.log("vision attention:", row)
    return row


def cosines(pages_a, pages_b) -> dict:
    """Least and mean cosine between the same token's vectors of two embeddings of the same pages."""
    import numpy as np

    unit = lambda v: v / np.linalg.norm(v, axis=1, keepdims=True)  # noqa: E731
    each = np.concatenate([(unit(a.vectors) * unit(b.vectors)).sum(1) for a, b in zip(pages_a, pages_b)])
    return {"min": round(float(each.min()), 6), "mean": round(float(each.mean()), 6)}


def against_float32(embedder, images, vectors: dict) -> dict:
    """Both bf16 paths against the per-window path in float32 on the same pages: how far each is from exact, so
    that the two paths' distance from each other reads as bf16 rounding or as a difference of the kernel."""
    import torch

    dtype = next(embedder.model.parameters()).dtype
    if dtype == torch.float32:
        return {"note": "the model runs in float32 here: no bf16 to compare"}
    embedder.set_vision_attention("per_window")
    embedder.model.float()
    try:
        reference = embedder.embed_pages(images)
    finally:
        embedder.model.to(dtype)  # bf16 -> float32 -> bf16 is exact: the weights are as they were
        embedder.set_vision_attention("auto")
    return {mode: cosines(vectors[mode], reference) for mode in ("per_window", "auto")}


def measure_stage(embedder, manifest) -> dict:
    """visual/stage.py's embedding loop over the carried pages: a document at a time, committing every few pages
    into a real library database. Only the renderer is swapped: `page_images` reads (and decodes) the image that
    prepare.py rendered with the product's page_images() for that page."""
    from PIL import Image

    from docqa_desktop.domain import FileStatus
    from docqa_desktop.store import catalog
    from docqa_desktop.store.database import Database
    from docqa_desktop.visual import stage

    files = {(p["pdf"], p["page"]): PACK / "pages" / p["file"] for p in manifest["pages"]}
    budget = manifest["budget"]

    def rendered(path, pages, visual_tokens):
        for number in pages:
            with Image.open(files[(Path(path).name, number)]) as im:
                image = im.convert("RGB")
            yield number, resized([image], budget, visual_tokens)[0]

    stage.page_images = rendered
    home = Path(tempfile.mkdtemp(prefix="gpu-check-library-"))
    db = Database(home / "library.duckdb")
    pdfs = sorted({pdf for pdf, _ in files})
    with db.transaction() as cur:
        for doc_id, pdf in enumerate(pdfs, 1):
            catalog.set_file(cur, str(PACK / "pdfs" / pdf), library_id=None, doc_id=doc_id, size=0, mtime=0.0,
                             status=FileStatus.INDEXED)
    todo = sorted((pdfs.index(pdf) + 1, page) for pdf, page in files)
    embedder.visual_tokens = budget
    first = next(rendered(PACK / "pdfs" / pdfs[0], [min(p for f, p in files if f == pdfs[0])], budget))[1]
    stage.stored_page(1, 1, embedder.embed_pages([first])[0])  # numba compiles the page encoding on first use
    errors: dict[str, str] = {}
    started = time.monotonic()
    stored = stage._PageEmbedding(db, embedder, commit_pages=8).run(todo, lambda _progress: None,
                                                                      threading.Event(), errors)
    took = time.monotonic() - started
    db.close()
    shutil.rmtree(home, ignore_errors=True)
    row = {"visual_tokens": budget, "pages": len(todo), "documents": len(pdfs), "stored": stored,
           "seconds": round(took, 3), "pages_per_s": round(len(todo) / took, 2), "errors": errors,
           "batch_size": embedder.batch_size}
    R.log("visual stage:", row)
    return row


def main() -> None:
    module = R.step("imports", imports)
    if module is None:
        return
    import torch

    device = "cuda" if torch.cuda.is_available() and not SMALL else "cpu"
    R.data["device"] = device
    folder = checkpoint_folder()
    manifest, images = load_images()
    if SMALL:
        images = images[:4]
    R.data["runs"] = {}
    if not R.step("random_weights", save_random_model, folder, device):
        return
    started = time.monotonic()
    embedder = R.step("PageEmbedder.load", module.PageEmbedder.load, folder, device=device,  # measure_paths tunes
                      visual_tokens=BUDGETS[0], name="colqwen2.5-random", tune_for_gpu=False)
    if embedder is None:
        return
    R.data["load_s"] = round(time.monotonic() - started, 2)
    if device == "cuda":
        R.data["weights_gib_on_gpu"] = round(torch.cuda.memory_allocated() / 2**30, 2)
        R.data["gpu_total_gib"] = round(torch.cuda.mem_get_info()[1] / 2**30, 1)
    R.data["paths"] = R.step("paths", measure_paths, embedder, resized(images, manifest["budget"], BUDGETS[0]))
    for i, budget in enumerate(BUDGETS):
        if i and time.monotonic() > DEADLINE:
            R.data["skipped_budgets"] = BUDGETS[i:]
            break
        if i:  # a fresh embedder per budget: its batch size is chosen for that budget, as the app would
            embedder = module.PageEmbedder(embedder.model, embedder.processor, name=embedder.name,
                                           device=device, visual_tokens=budget)
        R.step(f"budget_{budget}", measure_budget, embedder,
               resized(images, manifest["budget"], budget), budget, (5 if SMALL else 200) if i == 0 else 0)
        if i == 0:
            R.data["profile"] = R.step("profile", measure_profile, embedder, resized(images, manifest["budget"], budget))
            R.data["stage"] = R.step("visual_stage", measure_stage, embedder, manifest)
            R.data["vision_attention"] = R.step("vision_attention", measure_attention, embedder,
                                                images[:4 if SMALL else 16])
    shutil.rmtree(folder.parent, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    finally:
        R.save()
        R.log("done; errors:", len(R.data["errors"]))
