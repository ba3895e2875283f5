"""MiniLM chunk embeddings on the GPU: the product's TorchMiniLMEmbedder (vectors/text_embedder.py) with device
"cuda", over corpus chunks made by the product's chunker (prepare.py), against the same code on the CPU.

    python3 benchmarks/gpu_check/text_check.py PACK OUT.json   (SMALL=1: on the CPU, a few chunks)

The MiniLM weights (90 MB) are not carried: the pack holds its config, tokenizer and tensor shapes, and the
weights are drawn at random (speed does not depend on them).
"""
from __future__ import annotations

import gzip
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _part import SMALL, Record, use_checkout

PACK, OUT = Path(sys.argv[1]), Path(sys.argv[2])
R = Record(OUT, "text")


def random_model() -> Path:
    import numpy as np
    from safetensors.numpy import save_file

    folder = Path(tempfile.mkdtemp(prefix="minilm-"))
    source = PACK / "minilm"
    shutil.copy(source / "config.json", folder)
    (folder / "tokenizer.json").write_bytes(gzip.decompress((source / "tokenizer.json.gz").read_bytes()))
    rng = np.random.default_rng(0)
    shapes = json.loads((source / "shapes.json").read_text())
    save_file({name: (rng.standard_normal(shape, np.float32) * 0.05) for name, shape in shapes.items()},
              str(folder / "model.safetensors"))
    return folder


def rate(embedder, texts: list[str]) -> dict:
    import torch

    embedder.embed(texts[:8 if SMALL else 64])  # warm-up
    if embedder.device == "cuda":
        torch.cuda.synchronize()
    started = time.monotonic()
    vectors = embedder.embed(texts)
    if embedder.device == "cuda":
        torch.cuda.synchronize()
    took = time.monotonic() - started
    return {"chunks": len(texts), "seconds": round(took, 3), "chunks_per_s": round(len(texts) / took, 1),
            "batch_size": embedder.batch_size, "shape": list(vectors.shape)}


def main() -> None:
    use_checkout()
    import torch

    from docqa_desktop.vectors.text_embedder import TorchMiniLMEmbedder

    texts = json.loads(gzip.decompress((PACK / "chunks.json.gz").read_bytes()))["chunks"]
    texts = texts[:16] if SMALL else texts
    folder = R.step("random_weights", random_model)
    device = "cuda" if torch.cuda.is_available() and not SMALL else "cpu"
    R.data.update({"device": device, "torch_threads": torch.get_num_threads()})
    runs = R.data["runs"] = {}
    for batch in (32, 256):  # the indexer's batch, and one a GPU can fill
        runs[f"{device}_batch{batch}"] = R.step(f"{device}_batch{batch}", rate,
                                                TorchMiniLMEmbedder(folder, batch_size=batch, device=device), texts)
    if device == "cuda":  # the CPU on a slice, for the ratio (the same code the index workers run)
        runs["cpu_batch32"] = R.step("cpu_batch32", rate, TorchMiniLMEmbedder(folder, batch_size=32), texts[:1024])
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    try:
        R.step("main", main)
    finally:
        R.save()
