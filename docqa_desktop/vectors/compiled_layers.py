"""The page embedder's layers compiled by torch.compile (index.visual_compile = "on"; off by default).

An H200 profile of one 16-page forward (benchmarks/results/gpu_embedder_paths.json) spent roughly a third of its
569 ms on float32 element-wise work around the matrix products: the RMS norms and rotary embeddings of the vision
tower's 32 blocks and the language model's 36 layers, each a chain of separate kernels over every token. Compiled,
each chain becomes a fused kernel. Each layer is compiled with dynamic shapes (a batch's token count varies), and
identical layers share the compiled code; the first batch pays the compile (46 s for the tiny test model on 2 CPU
cores; cached in torch's inductor folder for the next start). On a CPU it compiles too (C++ instead of Triton).
Not yet measured on a GPU: off until it is.
"""
from __future__ import annotations

ON, OFF = "on", "off"  # what index.visual_compile may say


def use_compiled_layers(model, mode: str) -> bool:
    """Compile (on) or restore (off) every vision block and language-model layer of `model`, a ColQwen2.5 /
    Qwen2.5-VL model, in place; returns whether they are compiled."""
    if mode not in (ON, OFF):
        raise ValueError(f"visual compile {mode!r} is not one of on, off")
    for layer in [*model.visual.blocks, *model.language_model.layers]:
        if mode == ON:
            layer.compile(dynamic=True)
        else:
            layer._compiled_call_impl = None  # what nn.Module.compile set: plain calls again
    return mode == ON
