"""Licences a firm can accept: each hardware tier is recommended a model whose licence allows commercial use and
that answers in a few minutes there; every licence is shown in plain words; every catalog model is one the bundled
llama.cpp can run (its architecture and vision projector, checked against llama-cpp-python's own libraries)."""
from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from docqa_desktop.llm import llama_cpp_support
from docqa_desktop.llm.catalog import LICENCE_WORDS, load_catalog
from docqa_desktop.llm.catalog_choice import QUESTION_BUDGET_S, estimate, recommend
from docqa_desktop.llm.gguf_file import read_header
from docqa_desktop.llm.hardware import Gpu, Hardware

CATALOG = load_catalog()
TIERS = {  # name: (hardware, the kind of model that must be recommended there)
    "2 cores, 8 GB": Hardware(2, 8),
    "4 cores, 16 GB": Hardware(4, 16),
    "8 cores, 32 GB": Hardware(8, 32),
    "GPU 6 GB": Hardware(8, 32, (Gpu("RTX 3060", 6, 6, "nvidia"),), True),
    "GPU 12 GB": Hardware(8, 32, (Gpu("RTX 4070", 12, 11, "nvidia"),), True),
    "GPU 24 GB, CPU-only build": Hardware(8, 32, (Gpu("RTX 4090", 24, 20, "nvidia"),), False),
}


@pytest.mark.parametrize("tier", list(TIERS))
def test_each_tier_is_recommended_the_most_capable_quick_model_a_firm_may_use(tier):
    hardware = TIERS[tier]
    choice = recommend(CATALOG, hardware)
    entry = CATALOG.get(choice.name)
    assert entry.commercial and entry.licence_words in (LICENCE_WORDS["free"], LICENCE_WORDS["conditions"])
    assert entry.licence_words in choice.why
    assert choice.seconds_per_question == estimate(entry, hardware) <= QUESTION_BUDGET_S
    # nothing a firm may use that is as quick here has more parameters (a vision model on the GPU counts first)
    others = [e for e in CATALOG.entries if e.role in ("text", "vision") and e.commercial and not e.builtin
              and estimate(e, hardware) <= QUESTION_BUDGET_S
              and e.variant().memory_gb <= max(hardware.ram_gb * 0.6, hardware.gpu_memory_gb * hardware.uses_gpu)]
    assert entry in others
    if not (hardware.uses_gpu and entry.role == "vision"):
        assert entry.parameters == max(e.parameters for e in others)


def test_two_cpu_cores_get_a_small_text_model_not_a_ten_minute_research_vlm():
    hardware = TIERS["2 cores, 8 GB"]
    choice = recommend(CATALOG, hardware)
    entry = CATALOG.get(choice.name)
    assert entry.role == "text" and entry.parameters <= 2 and entry.licence_words == "free for commercial use"
    vlm = CATALOG.get("qwen2.5-vl-3b-instruct")  # what was recommended before: research only, ~11 min a question
    assert vlm.licence_words == "research only" and estimate(vlm, hardware) > 2.5 * QUESTION_BUDGET_S
    gpu = recommend(CATALOG, TIERS["GPU 12 GB"])
    assert CATALOG.get(gpu.name).role == "vision" and "on your GPU" in gpu.why  # a GPU reads charts and scans


def test_a_machine_without_room_for_any_model_keeps_the_built_in_one():
    choice = recommend(CATALOG, Hardware(2, 2))
    assert CATALOG.get(choice.name).builtin and "2 GB RAM" in choice.why
    slow = recommend(CATALOG, Hardware(1, 8))  # one core: nothing is quick, the quickest is said to be slow
    assert CATALOG.get(slow.name).commercial and slow.why.startswith("~27 s a question on 1 CPU core, ~7 min with SimpleDoc")


def test_licences_are_named_from_the_model_cards_in_plain_words():
    words = {entry.name: entry.licence_words for entry in CATALOG.entries}
    assert words["qwen2.5-vl-3b-instruct"] == words["qwen2.5-3b-instruct"] == "research only"  # Qwen Research
    assert words["qwen2.5-vl-7b-instruct"] == words["qwen2.5-1.5b-instruct"] == "free for commercial use"  # Apache
    assert words["gemma-3-4b-it"] == words["llama-3.2-3b-instruct"] == "commercial use with conditions"
    for entry in CATALOG.entries:
        assert entry.commercial_use in LICENCE_WORDS, entry.name
        assert entry.licence_note or entry.commercial_use != "conditions", entry.name  # the conditions are said
        if entry.role in ("text", "vision"):
            assert entry.parameters > 0, entry.name


# -- the bundled llama.cpp ------------------------------------------------------------------------------

def _library(name: str) -> bytes:
    import llama_cpp

    found = sorted((Path(llama_cpp.__file__).parent / "lib").glob(f"lib{name}.*"))
    assert found, f"llama-cpp-python ships no lib{name}"
    return found[0].read_bytes()


def test_every_catalog_model_runs_on_the_bundled_llama_cpp():
    assert version("llama-cpp-python") == llama_cpp_support.VERSION  # a new version: copy its lists again
    llama, mtmd = _library("llama"), _library("mtmd")
    gguf = [e for e in CATALOG.entries if e.role in ("text", "vision")]
    assert gguf
    for entry in gguf:
        assert entry.architecture in llama_cpp_support.ARCHITECTURES, entry.name
        assert entry.architecture.encode() + b"\0" in llama, entry.name  # and in the library that loads it
        if entry.role == "vision":
            assert entry.projector_type in llama_cpp_support.PROJECTOR_TYPES, entry.name
            assert entry.projector_type.encode() + b"\0" in mtmd, entry.name
    builtin = CATALOG.get("smollm2-135m-instruct")
    assert read_header(builtin.builtin_path()).architecture == builtin.architecture  # the file says so itself


def test_the_checked_in_lists_are_the_installed_libraries_names():
    """Every name copied from the sources is in the compiled libraries' string tables (a name may end a longer
    one: the linker shares tails), and a made-up one is not: the lists are this build's."""
    llama, mtmd = _library("llama"), _library("mtmd")
    assert all(name.encode() + b"\0" in llama for name in llama_cpp_support.ARCHITECTURES)
    assert all(name.encode() + b"\0" in mtmd for name in llama_cpp_support.PROJECTOR_TYPES)
    assert b"\0qwen2vl\0" in llama and b"qwen9vl\0" not in llama and b"qwen9vl_merger\0" not in mtmd


# -- the CLI --------------------------------------------------------------------------------------------

@pytest.mark.slow  # a docqa process: ~3-10 s
def test_models_list_shows_each_licence_in_plain_words_and_marks_the_recommendation(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    out = subprocess.run([sys.executable, "-m", "docqa_desktop", "models", "list", "--home", str(tmp_path)],
                         capture_output=True, text=True, env=env, timeout=120, check=True).stdout
    table = out.split("LICENCE\n", 1)[1].split("\n\n", 1)[0].splitlines()
    rows = {line[2:].split()[1]: line for line in table}  # "* ROLE NAME STATE …", the recommended one marked
    assert "research only (Qwen Research License)" in rows["qwen2.5-vl-3b-instruct"]
    assert "free for commercial use (Apache-2.0)" in rows["qwen2.5-vl-7b-instruct"]
    marked = [name for name, line in rows.items() if line.startswith("* ")]
    assert len(marked) == 1 and f"Recommended here (*): {marked[0]} " in out
    assert CATALOG.get(marked[0]).commercial


def test_a_question_on_a_gpu_takes_simpledocs_recorded_tokens_at_the_rates_measured_on_the_h200():
    """Not a ÷10 guess: the GPU figure is SimpleDoc's mean tokens per question (the 1.5B records) at the prompt and
    generation rates the GPU check measured (its H200 run of 2026-11-26, the last with llama.cpp's speeds), scaled by
    parameters and bytes."""
    import json

    from docqa_desktop.llm import hardware as hw

    check = json.loads((Path(__file__).parents[1] / "benchmarks/results/gpu_check-h200-2026-11-26.json").read_text())
    rates = check["tokens_per_s"]
    assert check["card"] == "NVIDIA H200" and rates["model"].startswith("random Qwen2.5-7B")
    f16_7b_mb = 15.2e9 / 2**20
    h200 = Hardware(16, 128, (Gpu("NVIDIA H200", 140, 139, "nvidia"),), True)
    expected = hw.SIMPLEDOC_PROMPT_TOKENS / rates["prompt"] + hw.SIMPLEDOC_OUTPUT_TOKENS / rates["generation"]
    assert h200.seconds_per_question(f16_7b_mb, 16, 7.6) == pytest.approx(expected, rel=0.01)
    assert expected == pytest.approx(check["llama"]["seconds_per_question"]["simpledoc"]["seconds_per_question"],
                                     abs=0.1)
    workstation = Hardware(16, 64, (Gpu("NVIDIA GeForce RTX 4090", 24, 23, "nvidia"),), True)
    assert workstation.seconds_per_question(f16_7b_mb, 16, 7.6) == pytest.approx(4 * expected, rel=0.01)
    too_big = workstation.seconds_per_question(f16_7b_mb, 30, 7.6)  # does not fit the card: the CPU's figure
    assert too_big == Hardware(16, 64).seconds_per_question(f16_7b_mb, 30, 7.6) > 20 * expected
    # a quantized file of unknown parameters: its count is read from Q4_K_M's bits per weight
    q4_7b_mb = 7.6e9 * 4.85 / 8 / 2**20
    assert h200.seconds_per_question(q4_7b_mb, 6) == pytest.approx(h200.seconds_per_question(q4_7b_mb, 6, 7.6),
                                                                   rel=0.01)
