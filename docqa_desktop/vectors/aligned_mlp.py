"""The vision tower's MLP widened to a multiple of 8 with zero units, for the GPU's fast matrix kernels.

Qwen2.5-VL's vision MLP is 3,420 units wide, not a multiple of 8, so on an H200 cuBLAS runs its three matrix
products with Ampere kernels for 2-element alignment: 171 of the tower's 381 ms for 16 pages at 768 visual tokens
(benchmarks/results/gpu_embedder_paths.json, torch.profiler), where the language model's aligned products take
Hopper kernels. Four more units with zero weights and biases change nothing: each computes silu(0) * 0 = 0, and the
down projection's four new input columns are zero too. The weights grow by 0.1 %.
"""
from __future__ import annotations

ALIGNMENT = 8  # bf16 elements in 16 bytes: what tensor-core kernels want of every dimension


def align_vision_mlp(model, multiple: int = ALIGNMENT) -> int:
    """Widen every vision block's MLP of `model` (a ColQwen2.5 / Qwen2.5-VL model) in place to a multiple of
    `multiple` units; returns the units added per block (0 where already aligned)."""
    import torch

    added = 0
    for block in model.visual.blocks:
        mlp = block.mlp
        width = mlp.gate_proj.out_features
        extra = -width % multiple
        layers = (mlp.gate_proj, mlp.up_proj, mlp.down_proj)
        if not extra or any(type(layer) is not torch.nn.Linear for layer in layers):
            continue  # aligned already, or wrapped (an adapter's LoRA, quantized): left as it is
        with torch.no_grad():
            for name in ("gate_proj", "up_proj"):
                setattr(mlp, name, _widened(getattr(mlp, name), out_extra=extra))
            mlp.down_proj = _widened(mlp.down_proj, in_extra=extra)
        mlp.intermediate_size = width + extra
        added = extra
    return added


def _widened(linear, *, out_extra: int = 0, in_extra: int = 0):
    import torch

    weight = linear.weight
    wider = torch.nn.Linear(linear.in_features + in_extra, linear.out_features + out_extra,
                            bias=linear.bias is not None, device=weight.device, dtype=weight.dtype)
    wider.weight.zero_()
    wider.weight[:linear.out_features, :linear.in_features] = weight
    if linear.bias is not None:
        wider.bias.zero_()
        wider.bias[:linear.out_features] = linear.bias
    return wider.requires_grad_(False)
