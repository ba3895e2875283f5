"""Gathers the parts' results into one JSON (run.sh's last step; safe on partial results):
    python3 merge.py WORK [WORK2 ...] OUT.json     (several folders: the calls of a check split over two, each
                                                   call's work.tgz unpacked)
Top-level figures: `pages_per_s` (page embedder at 768 visual tokens), `visual_stage_pages_per_s`,
`tokens_per_s` (llama.cpp prompt / generation, full offload), `card`, `beside` (what ran beside each part), `cpu`;
the parts' rows below them."""
from __future__ import annotations

import datetime
import json
import re
import sys
from pathlib import Path

WORKS, OUT = [Path(arg) for arg in sys.argv[1:-1]], Path(sys.argv[-1])


def text(name: str) -> str:
    """The file in each folder that has it, one after another."""
    return "".join(path.read_text(errors="replace") for path in (work / name for work in WORKS) if path.is_file())


def part(name: str) -> dict:
    found = [work / name for work in WORKS if (work / name).is_file()]
    try:
        return json.loads(found[0].read_text())
    except (IndexError, OSError, ValueError) as exc:
        return {"errors": [{"step": name, "error": f"no result: {exc or 'in none of the folders'}"}]}


def build() -> dict:
    status = text("build.status").split()
    log = text("llama_build.log")
    progress = re.findall(r"\[(\d+)/(\d+)\]", log)
    rc = int(status[0]) if status else None
    row = {"rc": rc, "seconds": float(status[1]) if len(status) > 1 else None, "ok": rc == 0,
           "timed_out": rc in (124, 137), "skipped": "skipped" in text("build.status"),
           "progress_last": "/".join(progress[-1]) if progress else None,
           "cmake_args": text("cmake_args.txt").strip(), "cuda_hints": text("cuda_hints.txt").strip().splitlines()}
    if rc not in (0, None):
        row["error_lines"] = [line.strip() for line in log.splitlines()
                              if re.search(r"CMake Error|error:|FAILED", line)][:20]
    return row


def main() -> None:
    embed, textp, llama = part("embed.json"), part("text.json"), part("llama.json")
    runs = embed.get("runs") or {}
    speed = llama.get("speed") or {}
    run_log = text("llama_run.log")
    offload = re.search(r"offloaded (\d+)/(\d+) layers to GPU", run_log)
    smi = text("smi.txt").strip().splitlines()
    card = smi[0].split(",")[0].strip() if smi and "," in smi[0] else None
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "small": bool(embed.get("small")),
        "card": card or embed.get("device_name") or "no GPU",
        "pages_per_s": (runs.get("768") or {}).get("pages_per_s"),
        "visual_stage_pages_per_s": (embed.get("stage") or {}).get("pages_per_s"),
        "tokens_per_s": {"prompt": speed.get("prompt_tokens_per_s"),
                         "generation": speed.get("generation_tokens_per_s")},
        "wall_s": sum(float(line) for line in text("wall.txt").split()) or None,  # of each call, added
        "beside": dict(line.split("\t", 1) for line in text("beside.tsv").splitlines() if "\t" in line),
        "cpu": dict(zip(("model", "cores"), text("cpu.txt").strip().splitlines())),
        "machine": {"nvidia_smi": smi, "versions": embed.get("versions"), "torch_threads": textp.get("torch_threads"),
                    "wheels": text("wheels.txt").strip().splitlines()[-3:], "exit_codes": text("rc.txt").split("\n")},
        "page_embedder": {"device": embed.get("device"), "parameters": embed.get("parameters"),
                          "load_s": embed.get("load_s"), "weights_gib_on_gpu": embed.get("weights_gib_on_gpu"),
                          "gpu_total_gib": embed.get("gpu_total_gib"), "pymupdf": embed.get("pymupdf"),
                          "by_visual_tokens": runs, "skipped_budgets": embed.get("skipped_budgets"),
                          "query_p50_ms": (runs.get("768") or {}).get("query_p50_ms")},
        "visual_stage": embed.get("stage"),
        "vision_attention": embed.get("vision_attention"),
        "embedder_paths": embed.get("paths"),
        "embedder_profile": embed.get("profile"),
        "chunk_embeddings": {"device": textp.get("device"), "runs": textp.get("runs")},
        "llama": {"build": build(), "gguf": text("gguf.txt").strip().splitlines()[-1:],
                  "measured_file": llama.get("measured_file"), "speed": speed,
                  "offloaded_layers": f"{offload.group(1)}/{offload.group(2)}" if offload else None,
                  "seconds_per_question": llama.get("methods"), "page_images": llama.get("page_images")},
        "errors": [{"part": name, **{k: v for k, v in e.items() if k != "trace"}}
                   for name, p in (("embed", embed), ("text", textp), ("llama", llama)) for e in p.get("errors", [])],
        "traces": [e.get("trace") for p in (embed, textp, llama) for e in p.get("errors", []) if e.get("trace")][:6],
    }
    OUT.write_text(json.dumps(result, indent=1, default=str))
    paths = {name: path["pages_per_s"] for name, path in (result["embedder_paths"] or {}).items()
             if isinstance(path, dict) and "pages_per_s" in path}
    print(json.dumps({k: result[k] for k in ("card", "pages_per_s", "visual_stage_pages_per_s", "tokens_per_s",
                                             "wall_s")}
                     | {"paths_pages_per_s": paths, "errors": [e["error"][:200] for e in result["errors"]]}, indent=1))


if __name__ == "__main__":
    main()
