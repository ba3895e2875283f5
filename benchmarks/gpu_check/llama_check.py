"""llama.cpp on the GPU: a random-weight GGUF of the Qwen2.5-7B text architecture, every layer offloaded.

    python3 llama_check.py gguf F16.gguf                 # write the F16 file and its vision projector beside it
                                                         # (the gguf package; no llama.cpp needed)
    python3 llama_check.py bench PACK F16.gguf OUT.json  # quantize to Q4_K_M, then prompt / generation tokens/s,
                                                         # the seconds a question takes per method, and the seconds
                                                         # a page image takes through libmtmd (the projector)
SMALL=1: the tiny size of the same architecture, on the installed llama_cpp.

Q4_K_M goes through llama.cpp's own quantize API in a child process with a time limit (QUANTIZE_TIMEOUT_S); if it
does not finish, the F16 file is measured instead and the JSON says so. The prompt is ~4,000 random token ids
(llama.cpp's speed does not depend on which), generation is held to its full length by banning the end token.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import qwen_gguf
from _part import SMALL, Record

PROMPT_TOKENS = 600 if SMALL else 4000
GENERATED = 16 if SMALL else 128
IMAGE_PAGES = 2 if SMALL else 6  # measured after a first page that warms the projector


def projector_path(f16: Path) -> Path:
    return f16.with_name("mmproj-F16.gguf")


def write_gguf(path: str) -> None:
    started = time.monotonic()
    text = qwen_gguf.TINY if SMALL else qwen_gguf.QWEN25_7B
    qwen_gguf.write(Path(path), **text)
    qwen_gguf.write_projector(projector_path(Path(path)), text["n_embd"],
                              **(qwen_gguf.TINY_VISION if SMALL else qwen_gguf.QWEN25_VL_VISION))
    print(json.dumps({"gguf_write_s": round(time.monotonic() - started, 1), "bytes": Path(path).stat().st_size,
                      "projector_bytes": projector_path(Path(path)).stat().st_size}))


def quantize(source: Path, target: Path, timeout: float) -> str:
    """Q4_K_M through llama_model_quantize, in a child so that a time limit can stop it. Written under another
    name and renamed when complete: a child stopped by the limit leaves a partial file, never one at `target`.
    (The same quantization of the same-shaped F16, written and loaded by the CPU build, loads and generates.)"""
    partial = target.with_name(target.name + ".partial")
    code = ("import sys, llama_cpp\n"
            "p = llama_cpp.llama_model_quantize_default_params()\n"
            "p.nthread = int(sys.argv[3]); p.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_K_M\n"
            "sys.exit(llama_cpp.llama_model_quantize(sys.argv[1].encode(), sys.argv[2].encode(), p))\n")
    try:
        result = subprocess.run([sys.executable, "-c", code, str(source), str(partial), str(os.cpu_count() or 4)],
                                capture_output=True, text=True, timeout=timeout)
        if result.returncode != 0:
            raise RuntimeError(f"quantize exited {result.returncode}: {result.stderr[-1500:]}")
        partial.rename(target)
    finally:
        partial.unlink(missing_ok=True)
    return "Q4_K_M"


def speed(model: Path) -> dict:
    import numpy as np
    import llama_cpp

    started = time.monotonic()
    llm = llama_cpp.Llama(model_path=str(model), n_gpu_layers=-1, n_ctx=PROMPT_TOKENS + GENERATED + 64,
                          n_batch=512, seed=0, verbose=True)  # llama.cpp's log (offload lines) goes to stderr
    load_s = time.monotonic() - started
    rng = np.random.default_rng(0)
    prompt = [int(t) for t in rng.integers(300, llm.n_vocab(), PROMPT_TOKENS)]
    ban = {llm.token_eos(): -100.0}
    llm.create_completion(prompt[:64], max_tokens=4, temperature=0.0, logit_bias=ban)  # warm-up
    llm.reset()
    started = time.monotonic()
    llm.create_completion(prompt, max_tokens=1, temperature=0.0, logit_bias=ban)
    prompt_s = time.monotonic() - started
    started = time.monotonic()  # the same prompt again: its KV cache is reused, so this is generation alone
    out = llm.create_completion(prompt, max_tokens=GENERATED, temperature=0.0, logit_bias=ban)
    generate_s = time.monotonic() - started
    produced = out["usage"]["completion_tokens"]
    return {"load_s": round(load_s, 2), "prompt_tokens": PROMPT_TOKENS, "prompt_s": round(prompt_s, 3),
            "prompt_tokens_per_s": round(PROMPT_TOKENS / prompt_s, 1), "generated_tokens": produced,
            "generate_s": round(generate_s, 3), "generation_tokens_per_s": round(produced / generate_s, 1),
            "supports_gpu_offload": bool(llama_cpp.llama_supports_gpu_offload())}


def page_images(model: Path, projector: Path, pack: Path) -> dict:
    """Page images through the product's LocalBackend and libmtmd, every layer offloaded, at the app's image budget
    (llm.image_max_pixels): seconds for a question about one page (the image encoded, the prompt read, one token
    out) against the same question without the page, and the image's tokens."""
    import io
    import statistics

    from PIL import Image

    from _part import use_checkout

    stub = use_checkout() == "stub"
    from docqa_desktop.llm import Message, Options, local
    from docqa_desktop.llm.local import LocalBackend, LocalConfig
    from docqa_desktop.settings import LlmSettings

    budget = LlmSettings().image_max_pixels
    manifest = json.loads((pack / "pages" / "pages.json").read_text())["pages"][:IMAGE_PAGES + 1]
    pages, sizes = [], {}
    for entry in manifest:
        with Image.open(pack / "pages" / entry["file"]) as image:
            image = image.convert("RGB")
            scale = min(1.0, (budget / (image.width * image.height)) ** 0.5)  # as llm/images.fit_image scales
            image = image.resize((max(28, int(image.width * scale)), max(28, int(image.height * scale))))
            png = io.BytesIO()
            image.save(png, "PNG")
            pages.append(png.getvalue())
            sizes[pages[-1]] = image.size
    if stub:  # the GPU machine has no pymupdf, which the backend decodes images with: the pages already fit
        local.fit_image = lambda data, max_pixels: data
        local.estimated_image_tokens = lambda data: -(-sizes[data][0] // 28) * -(-sizes[data][1] // 28) + 2
    started = time.monotonic()
    backend = LocalBackend("random-qwen2.5-vl-7b", model, LocalConfig(threads=os.cpu_count() or 4, gpu_layers=-1,
                                                                        context=8192, image_max_pixels=budget),
                           projector)
    question = "Which value does the table on this page give for the year?"
    backend.chat([Message("user", question)], Options(max_tokens=1))  # loads the model and the projector
    load_s = time.monotonic() - started
    timings, tokens = [], []
    for i, png in enumerate(pages):
        started = time.monotonic()
        completion = backend.chat([Message("user", question, (png,))], Options(max_tokens=1))
        if i:  # the first page warms the projector's kernels
            timings.append(time.monotonic() - started)
            tokens.append(completion.usage.prompt_tokens)
    started = time.monotonic()
    text_only = backend.chat([Message("user", question)], Options(max_tokens=1))
    text_s = time.monotonic() - started
    backend.close()
    return {"load_s": round(load_s, 2), "image_max_pixels": budget, "pages": len(timings),
            "seconds_per_page_question": round(statistics.median(timings), 3),
            "seconds_text_only_question": round(text_s, 3),
            "prompt_tokens_with_page": round(statistics.mean(tokens)), "prompt_tokens_text_only":
            text_only.usage.prompt_tokens}


def in_child(step: str, *args: Path) -> dict:
    """A step in a child process: a file llama.cpp cannot load may kill the process (the quantized 7B segfaulted
    while loading on the H200, 2026-11-26), and what follows should still be measured."""
    result = subprocess.run([sys.executable, __file__, step, *map(str, args)], capture_output=True, text=True)
    sys.stderr.write(result.stderr)  # llama.cpp's log: the offload lines
    if result.returncode != 0:
        raise RuntimeError(f"{step} on {args[0].name} exited {result.returncode}: {result.stderr[-1500:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def per_method(methods: dict, prompt_rate: float, generation_rate: float) -> dict:
    """Seconds a question would take for each method at its recorded token counts (benchmarks/eval-dev-1.5b),
    at these rates: prompt tokens not taken from the cache over the prompt rate, plus output over generation."""
    return {name: {**m, "seconds_per_question": round((m["prompt_tokens"] - m["cached_tokens"]) / prompt_rate
                                                      + m["output_tokens"] / generation_rate, 1)}
            for name, m in methods.items()}


def bench(pack: str, f16: str, out: str) -> None:
    R = Record(Path(out), "llama")
    source = Path(f16)
    R.data["f16_bytes"] = source.stat().st_size if source.exists() else None
    target = source.with_name("model-Q4_K_M.gguf")
    timeout = float(os.environ.get("QUANTIZE_TIMEOUT_S", "150"))
    R.data["quantized"] = R.step("quantize", quantize, source, target, timeout)
    model = target if R.data["quantized"] else source
    rates = R.step("speed", in_child, "speed", model)
    if rates is None and model != source and source.exists():
        model = source
        rates = R.step("speed_f16", in_child, "speed", model)
    R.data["speed"] = rates
    R.data["measured_file"] = {"type": "F16" if model == source else R.data["quantized"],
                               "bytes": model.stat().st_size}
    methods = Path(pack) / "methods.json"
    if rates and methods.exists():
        R.data["methods"] = R.step("per_method", per_method, json.loads(methods.read_text())["methods"],
                                   rates["prompt_tokens_per_s"], rates["generation_tokens_per_s"])
    if rates and projector_path(source).exists():
        R.data["page_images"] = R.step("page_images", in_child, "images", model, projector_path(source), Path(pack))
    R.save()


if __name__ == "__main__":
    if sys.argv[1] == "gguf":
        write_gguf(sys.argv[2])
    elif sys.argv[1] == "speed":
        print(json.dumps(speed(Path(sys.argv[2]))))
    elif sys.argv[1] == "images":
        print(json.dumps(page_images(*map(Path, sys.argv[2:5]))))
    else:
        bench(*sys.argv[2:5])
