"""benchmarks/gpu_check end to end with SMALL=1 on the CPU: the same scripts the GPU machine runs (prepare.py's pack,
run.sh's parts, merge.py's JSON), at tiny sizes, the installed llama_cpp instead of the CUDA build, and pymupdf
replaced by the import stub the GPU machine gets."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHECK = REPO / "benchmarks" / "gpu_check"


@pytest.mark.slow
def test_small_check_runs_every_part_and_writes_one_json(tmp_path):
    pack = tmp_path / "pack"
    subprocess.run([sys.executable, str(CHECK / "prepare.py"), str(pack), "--small"], check=True, timeout=300)
    assert sum(f.stat().st_size for f in pack.rglob("*") if f.is_file()) < 40 * 2**20
    env = {**os.environ, "SMALL": "1", "PYTHON": sys.executable, "OUT": str(tmp_path / "out"),
           "WORK": str(tmp_path / "work"), "FORCE_PYMUPDF_STUB": "1", "PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", str(CHECK / "run.sh"), str(pack)], env=env, check=True, timeout=600,
                   capture_output=True)
    result = json.loads((tmp_path / "out" / "gpu_check.json").read_text())
    assert result["errors"] == [], result["traces"]
    assert result["small"] and result["card"] == "cpu"
    # each measured part ran alone (the build, skipped here, runs after them): issue 47
    assert result["beside"] == {"embed": "nothing", "text": "nothing", "llama": "nothing"}
    assert result["cpu"]["model"] and int(result["cpu"]["cores"]) >= 1
    assert result["pages_per_s"] > 0 and result["visual_stage_pages_per_s"] > 0
    runs = result["page_embedder"]["by_visual_tokens"]
    assert set(runs) == {"256", "768", "1024"}
    assert all(r["pages"] == 4 and r["nan_pages"] == 0 for r in runs.values())
    assert runs["256"]["grid_tokens_per_page_mean"] < runs["768"]["grid_tokens_per_page_mean"] <= 768
    assert runs["768"]["query_p50_ms"] > 0
    assert result["visual_stage"]["stored"] == result["visual_stage"]["pages"] == 4  # written to the library
    assert result["page_embedder"]["pymupdf"] == "stub"
    attention = result["vision_attention"]  # per window against one call per layer: the same vectors
    assert attention["cosine_min"] >= 0.999 and attention["same_vector_counts"] and not attention["varlen_kernel"]
    assert attention["auto"]["sdpa_calls_per_forward"] == 2 + 2 < attention["per_window"]["sdpa_calls_per_forward"]
    paths = result["embedder_paths"]  # on a CPU only the path before issue 47 runs
    assert set(paths) == {"pages", "batch_size", "before", "cosine_to_before"}
    assert paths["before"]["pages_per_s"] > 0 and paths["before"]["one_batch_forward_s"] > 0
    assert result["embedder_profile"] == {"note": "CUDA only"}
    chunks = result["chunk_embeddings"]["runs"]["cpu_batch32"]
    assert chunks["shape"] == [16, 384] and chunks["chunks_per_s"] > 0
    llama = result["llama"]
    assert llama["build"]["skipped"] and llama["measured_file"]["type"] == "Q4_K_M"
    assert result["tokens_per_s"]["prompt"] > 0 and result["tokens_per_s"]["generation"] > 0
    assert llama["speed"]["generated_tokens"] == 16
    images = llama["page_images"]  # a page through the random Qwen2.5-VL projector and libmtmd
    assert images["pages"] == 2 and images["seconds_per_page_question"] > 0
    assert images["prompt_tokens_with_page"] > images["prompt_tokens_text_only"] + 100
    methods = llama["seconds_per_question"]
    assert {"simpledoc", "m3docrag"} <= set(methods) and all(m["seconds_per_question"] > 0 for m in methods.values())


def test_merge_writes_what_finished_and_names_what_did_not(tmp_path):
    """A part killed by its time limit leaves no JSON: the merged one still holds the others and says so."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "build.status").write_text("124 400")
    (work / "llama_build.log").write_text("[10/20] nvcc ...\n")
    (work / "smi.txt").write_text("NVIDIA H100 80GB HBM3, 81559 MiB, 580.159.04, 9.0\n")
    (work / "text.json").write_text(json.dumps({"device": "cuda", "runs": {"cuda_batch256": {"chunks_per_s": 5000.0}},
                                                "errors": []}))
    subprocess.run([sys.executable, str(CHECK / "merge.py"), str(work), str(tmp_path / "gpu_check.json")],
                   check=True, capture_output=True)
    result = json.loads((tmp_path / "gpu_check.json").read_text())
    assert result["card"] == "NVIDIA H100 80GB HBM3"
    assert result["pages_per_s"] is None and result["tokens_per_s"] == {"prompt": None, "generation": None}
    assert result["chunk_embeddings"]["runs"]["cuda_batch256"]["chunks_per_s"] == 5000.0
    build = result["llama"]["build"]
    assert build["timed_out"] and not build["ok"] and build["progress_last"] == "10/20"
    assert {e["step"] for e in result["errors"]} == {"embed.json", "llama.json"}


def test_seconds_per_question_counts_uncached_prompt_and_output():
    sys.path.insert(0, str(CHECK))
    try:
        import llama_check
    finally:
        sys.path.remove(str(CHECK))
    methods = {"simpledoc": {"prompt_tokens": 5000, "cached_tokens": 1000, "output_tokens": 200}}
    row = llama_check.per_method(methods, prompt_rate=2000.0, generation_rate=100.0)["simpledoc"]
    assert row["seconds_per_question"] == 4.0  # 4000 / 2000 + 200 / 100


def test_a_check_split_over_two_calls_is_merged_from_both_folders(tmp_path):
    """PARTS="embed text" in one call, "llama" in a second (a fresh machine copy): merge.py takes both folders."""
    first, second = tmp_path / "first", tmp_path / "second"
    for folder, part in ((first, "embed"), (second, "llama")):
        folder.mkdir()
        (folder / "smi.txt").write_text("NVIDIA H200, 143771 MiB, 580.159.04, 9.0\n")
        (folder / "beside.tsv").write_text(f"{part}\tnothing\n")
        (folder / "wall.txt").write_text("90\n" if part == "embed" else "350\n")
    (first / "embed.json").write_text(json.dumps({"runs": {"768": {"pages_per_s": 22.85}}, "errors": []}))
    (second / "llama.json").write_text(json.dumps({"speed": {"prompt_tokens_per_s": 9000.0,
                                                             "generation_tokens_per_s": 150.0}, "errors": []}))
    subprocess.run([sys.executable, str(CHECK / "merge.py"), str(first), str(second), str(tmp_path / "all.json")],
                   check=True, capture_output=True)
    result = json.loads((tmp_path / "all.json").read_text())
    assert (result["card"], result["pages_per_s"], result["tokens_per_s"]["generation"]) == ("NVIDIA H200", 22.85, 150.0)
    assert result["beside"] == {"embed": "nothing", "llama": "nothing"} and result["wall_s"] == 440
    assert {e["step"] for e in result["errors"]} == {"text.json"}
