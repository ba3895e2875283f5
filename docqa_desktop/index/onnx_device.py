"""Where the ONNX models of indexing (layout, OCR) run: the one place that picks onnxruntime's execution providers.

With onnxruntime-gpu installed (`pip install ".[gpu]"`, README) and a CUDA device present, onnxruntime offers
CUDAExecutionProvider and both models use it; otherwise, or with index.device = "cpu", they run on the CPU. The
CPU provider always comes last, so an operator CUDA cannot run falls back to it.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence

log = logging.getLogger(__name__)

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"


def available_providers() -> list[str]:
    import onnxruntime

    return list(onnxruntime.get_available_providers())


def execution_providers(device: str = "auto", available: Sequence[str] | None = None) -> list[str]:
    """Providers in order of preference for `device` (auto | cpu | cuda), given what onnxruntime offers."""
    offered = available_providers() if available is None else list(available)
    if device != "cpu" and CUDA in offered:
        return [CUDA, CPU]
    if device == "cuda":
        log.warning("index.device = cuda, but onnxruntime offers only %s (is onnxruntime-gpu installed, with "
                    "CUDA and cuDNN?): layout and OCR run on the CPU", ", ".join(offered) or "nothing")
    return [CPU]


def on_cuda(device: str = "auto", available: Sequence[str] | None = None) -> bool:
    return execution_providers(device, available)[0] == CUDA


def describe(device: str = "auto", available: Sequence[str] | None = None) -> str:
    """For `docqa models list`: 'CUDA (onnxruntime-gpu)' or 'CPU', and why when it is the CPU."""
    offered = available_providers() if available is None else list(available)
    if on_cuda(device, offered):
        return "CUDA (onnxruntime-gpu)"
    if device == "cpu":
        return "CPU (index.device = cpu)"
    return "CPU (no CUDA provider in onnxruntime; see the README's GPU section)"
