"""One attention call per layer in ColQwen2.5's vision tower (Qwen2.5-VL's, in transformers).

With SDPA, transformers attends window by window: one call per window (64 patches, ~50 windows a 768-token page)
in 28 of the tower's 32 layers and one per image in the other four — ~22,000 calls for 16 pages, so on a GPU the
CPU launching kernels is the bottleneck. The tower hands the whole layer's packed tokens and their boundaries
(`cu_seqlens`) only to attention implementations whose name says "flash" (transformers 5.17 and 5.24 alike);
registering ours under such a name gets each layer in one call:

- varlen: torch.nn.attention.varlen (flash kernels: CUDA, half precision), no padding;
- padded: windows (or images) padded to the longest and batched as [segments, heads, length, dim] with a
  key-padding mask, one scaled_dot_product_attention call on any device and dtype. Padded keys weigh exactly
  zero, so the result is the per-window one.

Only the vision tower's config changes; the language model keeps SDPA.
"""
from __future__ import annotations

import functools
import logging
import threading

log = logging.getLogger(__name__)

AUTO, PADDED, PER_WINDOW = "auto", "padded", "per_window"  # what index.visual_attention may say
# registered names: "flash" makes the tower pass cu_seqlens (transformers' is_flash_attention_requested)
_REGISTERED = {AUTO: "docqa_flash_varlen_or_padded", PADDED: "docqa_flash_padded"}
_varlen_broken = False  # set once torch's varlen kernel failed here: the padded path from then on


def use_vision_attention(model, mode: str) -> None:
    """Switch the vision tower of `model` (a ColQwen2.5 / Qwen2.5-VL model) to `mode`: auto (varlen where torch
    has it for the device and dtype, else padded), padded, or per_window (transformers' own SDPA path)."""
    if mode not in (AUTO, PADDED, PER_WINDOW):
        raise ValueError(f"vision attention {mode!r} is not one of auto, padded, per_window")
    tower = getattr(model, "visual", None)
    if tower is None:
        raise ValueError(f"{type(model).__name__} has no vision tower (`visual`)")
    name = _REGISTERED.get(mode, "sdpa")
    if mode != PER_WINDOW:
        _register()
    # the tower and its attention modules may hold separate copies of the vision config
    for config in {id(c): c for c in [tower.config] + [block.attn.config for block in tower.blocks]}.values():
        config._attn_implementation = name


def _register() -> None:
    from transformers import AttentionInterface

    AttentionInterface.register(_REGISTERED[AUTO], _varlen_or_padded_attention)
    AttentionInterface.register(_REGISTERED[PADDED], _padded_attention)


def _varlen_or_padded_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, *,
                                cu_seq_lens_q=None, max_length_q=None, **kwargs):
    global _varlen_broken
    if not _varlen_broken and _varlen_usable(query, scaling):
        try:
            return _varlen(query, key, value, cu_seq_lens_q, max_length_q), None
        except Exception as exc:  # noqa: BLE001 -- an older torch's signature, an unsupported GPU: pad instead
            if "out of memory" in str(exc).lower():
                raise
            _varlen_broken = True
            log.warning("varlen attention failed (%s); the vision tower pads its windows instead", exc)
    return _padded_attention(module, query, key, value, attention_mask, scaling, dropout,
                             cu_seq_lens_q=cu_seq_lens_q, max_length_q=max_length_q, **kwargs)


def _varlen_usable(query, scaling) -> bool:
    import torch

    head_dim = query.shape[-1]
    return (query.is_cuda and query.dtype in (torch.float16, torch.bfloat16) and _has_varlen()
            and (scaling is None or abs(scaling - head_dim ** -0.5) < 1e-9))  # the kernel's default scale


@functools.cache
def _has_varlen() -> bool:
    """Whether this torch has torch.nn.attention.varlen (2.9 and later): a submodule, absent until imported."""
    try:
        from torch.nn.attention.varlen import varlen_attn  # noqa: F401
    except ImportError:
        return False
    return True


def _varlen(query, key, value, cu_seqlens, max_seqlen):
    """[1, heads, tokens, dim] packed segments -> [1, tokens, heads, dim], one flash call."""
    import torch
    from torch.nn.attention.varlen import varlen_attn

    q, k, v = (x[0].transpose(0, 1).contiguous() for x in (query, key, value))  # [tokens, heads, dim]
    cu_seqlens = cu_seqlens.to(device=q.device, dtype=torch.int32)
    return varlen_attn(q, k, v, cu_seqlens, cu_seqlens, int(max_seqlen), int(max_seqlen)).unsqueeze(0)


def _padded_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, *,
                      cu_seq_lens_q=None, **_kwargs):
    """[1, heads, tokens, dim] packed segments -> [1, tokens, heads, dim], one SDPA call."""
    import torch

    tokens = query.shape[2]
    if cu_seq_lens_q is None:
        cu_seq_lens_q = torch.tensor([0, tokens], dtype=torch.int32)
    layout = _layout(cu_seq_lens_q, query.device)
    batched = [layout.pad(x[0].transpose(0, 1)) for x in (query, key, value)]  # [segments, heads, longest, dim]
    out = torch.nn.functional.scaled_dot_product_attention(*batched, attn_mask=layout.mask, scale=scaling)
    return layout.unpad(out).unsqueeze(0), None


class _Layout:
    """Where each packed token sits when the segments are padded to the longest: computed once per forward and
    layer kind (the tower passes the same cu_seqlens tensor to every layer of a kind)."""

    def __init__(self, cu_seqlens, device):
        import torch

        bounds = cu_seqlens.tolist()
        # zero-length segments (vision_graphs.py pads the boundaries to a fixed count with them) hold no token
        spans = [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]
        lengths = [b - a for a, b in spans]
        self.segments, self.longest, self.tokens = len(lengths), max(lengths), bounds[-1]
        self.slots = self.mask = None  # all segments of one length: plain reshapes, no mask
        if any(n != self.longest for n in lengths):
            sizes = torch.tensor(lengths, device=device)
            segment = torch.repeat_interleave(torch.arange(self.segments, device=device), sizes)
            starts = torch.tensor([a for a, _ in spans], device=device)
            self.slots = segment * self.longest + torch.arange(self.tokens, device=device) - starts[segment]
            self.mask = (torch.arange(self.longest, device=device) < sizes[:, None])[:, None, None, :]

    def pad(self, x):
        """[tokens, heads, dim] -> [segments, heads, longest, dim]"""
        if self.slots is not None:
            x = x.new_zeros(self.segments * self.longest, *x.shape[1:]).index_copy_(0, self.slots, x)
        return x.reshape(self.segments, self.longest, *x.shape[1:]).transpose(1, 2)

    def unpad(self, x):
        """[segments, heads, longest, dim] -> [tokens, heads, dim]"""
        segments, heads, longest, dim = x.shape
        x = x.transpose(1, 2).reshape(segments * longest, heads, dim)
        return x if self.slots is None else x.index_select(0, self.slots)


_layouts: dict[int, tuple[object, _Layout]] = {}  # id(cu_seqlens) -> (the tensor, its layout)
_layouts_lock = threading.Lock()


def _layout(cu_seqlens, device) -> _Layout:
    with _layouts_lock:
        held = _layouts.get(id(cu_seqlens))
        if held is not None and held[0] is cu_seqlens:
            return held[1]
    layout = _Layout(cu_seqlens, device)
    with _layouts_lock:
        if len(_layouts) >= 8:  # a forward uses two; older ones belong to finished forwards
            _layouts.clear()
        _layouts[id(cu_seqlens)] = (cu_seqlens, layout)
    return layout


def per_window_calls(grids: list[tuple[int, int]], *, window_size: int, patch_size: int, merge_size: int,
                     depth: int, full_layers: int) -> int:
    """Attention calls transformers' per-window path makes in the tower for images of `grids` (patch rows,
    columns): each window layer one per window of window_size pixels, each full layer one per image."""
    side = window_size // patch_size // merge_size  # merged tokens along a window's side
    windows = sum(-(-rows // merge_size // side) * -(-cols // merge_size // side) for rows, cols in grids)
    return windows * (depth - full_layers) + len(grids) * full_layers
