"""Where the ONNX models of indexing (layout, OCR) run: the one place that picks onnxruntime's execution providers
and the threads of its sessions.

With onnxruntime-gpu installed (`pip install ".[gpu]"`, README) and a CUDA device present, onnxruntime offers
CUDAExecutionProvider and both models use it; otherwise, or with index.device = "cpu", they run on the CPU. The
CPU provider always comes last, so an operator CUDA cannot run falls back to it.

Threads: onnxruntime gives each session a thread per core. The index runs a worker process per core, so each
worker's sessions get their share of the cores instead (two layout workers on 2 cores: 2.8 pages/s with a thread
per core each, 4.2 with one each; benchmarks/README.md).
"""
from __future__ import annotations

import logging
from collections.abc import Sequence

log = logging.getLogger(__name__)

_session_threads = 0  # set in index workers (share_cores); 0 elsewhere: onnxruntime's default, a thread per core

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


def cores_shared() -> bool:
    return _session_threads > 0


def share_cores(threads: int) -> None:
    """Every onnxruntime session made in this process from now on, the ones libraries make inside too, uses
    `threads` threads (an index worker's share of the cores). A session whose maker chose its own thread count
    keeps it; sessions made before keep theirs (layout.py makes its model again in a worker)."""
    global _session_threads
    import onnxruntime

    _session_threads = max(1, threads)
    session = onnxruntime.InferenceSession
    if getattr(session.__init__, "shares_cores", False):
        return
    init = session.__init__

    def sharing_init(self, path_or_bytes, sess_options=None, *args, **kwargs):
        options = sess_options or onnxruntime.SessionOptions()
        if options.intra_op_num_threads == 0:
            options.intra_op_num_threads = _session_threads
        if options.inter_op_num_threads == 0:
            options.inter_op_num_threads = 1
        init(self, path_or_bytes, options, *args, **kwargs)

    sharing_init.shares_cores = True
    session.__init__ = sharing_init
