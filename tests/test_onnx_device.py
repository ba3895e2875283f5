"""Layout and OCR run where onnxruntime can: the CUDA provider when offered and allowed, else the CPU. This
machine has no GPU: the choice is tested against provider lists, and the fallback for real."""
from __future__ import annotations

import logging
import os

import pymupdf
import pytest

from docqa_desktop.index import layout, ocr, onnx_device
from docqa_desktop.index.onnx_device import CPU, CUDA, execution_providers

from conftest import SAMPLES, SMALL_PAPER, corpus_pdf

WITH_GPU = [CUDA, CPU]  # what onnxruntime-gpu offers on a CUDA machine
CPU_ONLY = [CPU]


@pytest.mark.parametrize("device, offered, chosen", [
    ("auto", WITH_GPU, [CUDA, CPU]),   # a GPU is used when there is one, with the CPU behind it
    ("auto", CPU_ONLY, [CPU]),
    ("cpu", WITH_GPU, [CPU]),          # the user can keep indexing off the GPU
    ("cuda", WITH_GPU, [CUDA, CPU]),
    ("cuda", ["AzureExecutionProvider", CPU], [CPU]),
])
def test_providers_follow_the_setting_and_what_onnxruntime_offers(device, offered, chosen):
    assert execution_providers(device, offered) == chosen


def test_asking_for_cuda_without_it_says_so_and_uses_the_cpu(caplog):
    with caplog.at_level(logging.WARNING):
        assert execution_providers("cuda", CPU_ONLY) == [CPU]
    assert "onnxruntime-gpu" in caplog.text
    assert onnx_device.describe("auto", WITH_GPU).startswith("CUDA")
    assert onnx_device.describe("auto", CPU_ONLY).startswith("CPU (no CUDA provider")


def test_this_machine_offers_the_cpu_provider():
    assert execution_providers("auto") == [CPU]  # the real onnxruntime here: no CUDA


@pytest.mark.model  # the real OCR and layout models, told that CUDA is there
def test_ocr_and_layout_set_up_for_cuda_fall_back_to_the_cpu_and_still_work(monkeypatch):
    monkeypatch.setattr(onnx_device, "available_providers", lambda: WITH_GPU)  # as if onnxruntime-gpu were here
    ocr._engine.cache_clear()
    try:
        engine = ocr._engine("auto")
        assert engine.text_det.infer.use_cuda is False  # rapidocr checked the real providers itself
        with pymupdf.open(SAMPLES / "ferry-memo-scanned.pdf") as doc:
            text, words = ocr.ocr_page(doc[0], 110, "auto")
        assert "ferry" in text.lower() and words
    finally:
        ocr._engine.cache_clear()
    layout._layout_model_on.cache_clear()
    try:
        with pymupdf.open(corpus_pdf(SMALL_PAPER)) as doc:
            found = layout.layout_elements(doc, [1], "auto")  # the GPU model asked for, CPU given
        assert found[1] and any(e.kind == "text" for e in found[1])
    finally:
        layout._layout_model_on.cache_clear()


@pytest.mark.model  # the real OCR models, loaded in a worker and here
def test_index_workers_run_onnx_models_on_their_share_of_the_cores():
    from docqa_desktop.index.pipeline import OrderedPool, Task
    from pool_tasks import ocr_session_threads

    pool = OrderedPool(ocr_session_threads, [Task(0, (0,))], workers=2, on_crash=lambda: None)
    try:
        in_worker = pool.result(0)
    finally:
        pool.close()
    assert in_worker == max(1, (os.cpu_count() or 1) // 2)  # two workers share the cores, not a thread per core each
    assert ocr_session_threads(0) == 0  # outside the index's workers: onnxruntime's own default


LAYOUT_SESSIONS = """
import gc, sys
import pymupdf  # importing it loads the layout model, with onnxruntime's default threads
import onnxruntime
from docqa_desktop.index import layout, onnx_device
onnx_device.share_cores(1)  # what an index worker does once its parent's main module is imported
with pymupdf.open(sys.argv[1]) as doc:
    assert layout.layout_elements(doc, [1])[1]
gc.collect()
print(sorted({s.get_session_options().intra_op_num_threads
              for s in gc.get_objects() if isinstance(s, onnxruntime.InferenceSession)}))
"""


@pytest.mark.model  # the real layout model, in a process of its own (share_cores changes onnxruntime for good)
def test_a_layout_model_loaded_before_the_share_is_made_again_on_it():
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", LAYOUT_SESSIONS, str(corpus_pdf(SMALL_PAPER))],
                         capture_output=True, text=True, check=True)
    assert run.stdout.split("\n")[-2] == "[1]", run.stdout + run.stderr  # no session left on a thread per core
