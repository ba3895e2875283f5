"""Speed of the local model runtime with the built-in SmolLM2-135M (Q4_1) on the CPU.

    .venv/bin/python benchmarks/llm_speed.py [--threads 1,2] [--repeats 5] [--out FILE]

Measures, per thread count: model load time; prompt evaluation (tokens/s over a ~600-token page prompt);
generation (tokens/s); the cost of JSON-schema-constrained decoding against free decoding (ms per output
token); and the cost of n = 1, 2, 4, 8 samples of one prompt relative to n = 1, next to what n separate
calls would cost (n × the n = 1 call) and to the ideal with a reused prompt (input + n × output: the
n = 1 call plus the other samples' tokens at the measured generation rate).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

from docqa_desktop.llm import Message, Options  # noqa: E402
from docqa_desktop.llm.catalog import load_catalog  # noqa: E402
from docqa_desktop.llm.local import LocalBackend, LocalConfig  # noqa: E402

PAGE = ("Harbour Solar Cooperative annual report. Installed capacity grew from 4.2 MW to 6.8 MW, driven by "
        "the new ferry-terminal roof array. Generation reached 7,950 MWh, 12 % above plan, while curtailment "
        "fell to 1.4 %. Operating costs were 0.9 million euros; the board proposes a dividend of 3.1 %. ") * 9
QUESTION = "What was the generation in MWh and how did it compare with the plan?"
SCHEMA = {"type": "object",
          "properties": {"answer": {"type": "string", "maxLength": 160},
                         "pages": {"type": "array", "items": {"type": "integer", "enum": list(range(1, 21))},
                                   "maxItems": 4}},
          "required": ["answer", "pages"], "additionalProperties": False}


def median_of(fn, repeats: int) -> float:
    return statistics.median(fn() for _ in range(repeats))


def measure(threads: int, repeats: int) -> dict:
    path = load_catalog().get("smollm2-135m-instruct").builtin_path()
    config = LocalConfig(threads=threads, gpu_layers=0, context=4096, image_max_pixels=1_000_000)

    def load() -> float:
        started = time.perf_counter()
        backend = LocalBackend("smollm2", path, config)
        backend.count_tokens("warm")
        elapsed = time.perf_counter() - started
        backend.close()
        return elapsed

    load_s = median_of(load, repeats)
    model = LocalBackend("smollm2", path, config)
    prompt = [Message("user", f"{PAGE}\n\nQuestion: {QUESTION}")]
    prompt_tokens = model.chat(prompt, Options(max_tokens=1, seed=0)).usage.prompt_tokens

    # prompt evaluation: a seeded call starts from an empty cache and generates a single token
    prompt_s = median_of(lambda: model.chat(prompt, Options(max_tokens=1, seed=0)).usage.seconds, repeats)

    def generation_rate() -> float:
        c = model.chat([Message("user", "Write a long story about a lighthouse keeper.")],
                       Options(max_tokens=128, seed=1, temperature=0.7, repeat_penalty=1.1))
        short = model.chat([Message("user", "Write a long story about a lighthouse keeper.")],
                           Options(max_tokens=1, seed=1)).usage.seconds
        return (c.usage.output_tokens - 1) / max(1e-6, c.usage.seconds - short)

    gen_tps = median_of(generation_rate, repeats)

    def ms_per_token(schema) -> float:
        c = model.chat(prompt, Options(max_tokens=96, seed=2, temperature=0.7, schema=schema))
        return 1000 * (c.usage.seconds - prompt_s) / max(1, c.usage.output_tokens)

    free_ms, json_ms = median_of(lambda: ms_per_token(None), repeats), median_of(lambda: ms_per_token(SCHEMA), repeats)

    samples = {}
    for n in (1, 2, 4, 8):
        def run(n=n):
            started = time.perf_counter()
            outs = model.sample(prompt, Options(max_tokens=32, temperature=0.8, seed=3), n=n)
            return time.perf_counter() - started, sum(o.usage.output_tokens for o in outs)
        timings = [run() for _ in range(max(2, repeats // 2))]
        samples[n] = {"seconds": statistics.median(t for t, _ in timings),
                      "output_tokens": statistics.median(k for _, k in timings)}
    one = samples[1]["seconds"]
    for n, s in samples.items():
        # ideal with a reused prompt: the n = 1 call plus generating the other samples' tokens
        extra_tokens = s["output_tokens"] - samples[1]["output_tokens"]
        s["relative_to_n1"] = round(s["seconds"] / one, 2)
        s["ideal_reuse_relative"] = round((one + extra_tokens / gen_tps) / one, 2)
        s["n_separate_calls_relative"] = float(n)
        s["saving_vs_separate_calls"] = round(n * one / s["seconds"], 2)
    model.close()
    return {"threads": threads, "load_s": round(load_s, 3), "prompt_tokens": prompt_tokens,
            "prompt_tokens_per_s": round(prompt_tokens / prompt_s, 1), "generation_tokens_per_s": round(gen_tps, 1),
            "free_ms_per_output_token": round(free_ms, 2), "json_ms_per_output_token": round(json_ms, 2),
            "json_overhead": round(json_ms / free_ms, 2), "samples": samples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args()
    runs = [measure(int(t), args.repeats) for t in args.threads.split(",")]
    path = _common.write_json({"environment": _common.environment(), "model": "SmolLM2-135M-Instruct Q4_1",
                               "runs": runs}, args.out, "llm_speed.json")
    print(_common.markdown_table(
        ["threads", "load s", "prompt tok/s", "gen tok/s", "free ms/tok", "JSON ms/tok", "n=2", "n=4", "n=8"],
        [[r["threads"], r["load_s"], r["prompt_tokens_per_s"], r["generation_tokens_per_s"],
          r["free_ms_per_output_token"], r["json_ms_per_output_token"],
          *(f"{r['samples'][n]['relative_to_n1']}x (ideal {r['samples'][n]['ideal_reuse_relative']}x)"
            for n in (2, 4, 8))] for r in runs]))
    print(f"written to {path}")


if __name__ == "__main__":
    main()
