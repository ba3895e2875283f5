"""The page embedder's RMS norms as one fused kernel each on the GPU (torch.nn.functional.rms_norm).

transformers' Qwen2.5-VL RMSNorm is a chain of kernels over every token: cast to float32, square, mean, add,
reciprocal root, multiply, cast back, multiply by the weight. There are 65 in the vision tower and 73 in the language
model, and with the rotary embeddings they made up most of the ~150-200 ms of float32 element-wise work in an H200
forward of 16 pages (benchmarks/results/gpu_embedder_paths.json, the profile). torch's rms_norm is one kernel on
CUDA (a composite of the same steps elsewhere), also summing in float32; it rounds to bfloat16 once, after the
weight, where transformers rounds before it too: the vectors move by bfloat16 rounding (tests/test_fused_norms.py).
"""
from __future__ import annotations

import functools


def fuse_rms_norms(model) -> int:
    """Replace every RMSNorm of `model` (a ColQwen2.5 / Qwen2.5-VL model) in place by torch's rms_norm over the same
    weight; returns how many were replaced (0 when done already, or when this torch has no rms_norm)."""
    import torch

    if not hasattr(torch.nn.functional, "rms_norm"):  # torch < 2.4
        return 0
    fused = _fused_rms_norm_class()
    replaced = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if _is_transformers_rms_norm(child) and not isinstance(child, fused):
                setattr(parent, name, fused(child.weight, child.variance_epsilon))
                replaced += 1
    return replaced


def _is_transformers_rms_norm(module) -> bool:
    """Qwen2_5_VLRMSNorm and its twins (Qwen2RMSNorm…): a name ending in RMSNorm, a 1-D weight, variance_epsilon."""
    weight = getattr(module, "weight", None)
    return (type(module).__name__.endswith("RMSNorm") and hasattr(module, "variance_epsilon")
            and weight is not None and weight.dim() == 1)


@functools.cache
def _fused_rms_norm_class():
    """Defined on first use: importing this module must not import torch (`docqa --help` stays light)."""
    import torch

    class FusedRMSNorm(torch.nn.Module):
        """weight * x / sqrt(mean(x²) + eps) over the last dimension, in one call."""

        def __init__(self, weight, eps: float):
            super().__init__()
            self.weight, self.variance_epsilon = weight, eps

        def forward(self, hidden_states):
            return torch.nn.functional.rms_norm(hidden_states, self.weight.shape, self.weight, self.variance_epsilon)

        def extra_repr(self) -> str:
            return f"{tuple(self.weight.shape)}, eps={self.variance_epsilon}"

    return FusedRMSNorm
