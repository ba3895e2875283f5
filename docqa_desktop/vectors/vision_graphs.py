"""ColQwen2.5's vision tower with its blocks replayed from CUDA graphs (index.visual_graphs = "on"; off by default).

The tower's 32 blocks are most of the page embedder's work. A batch's shapes vary with its pages (patch counts,
windows), and a CUDA graph replays fixed shapes, so the batch is padded to a bucket: its patches to a multiple of
BUCKET_PATCHES, its segment boundaries (cu_seqlens: windows, and whole images in the four full-attention layers) to
a multiple of SEGMENT_SLOTS. The padding patches form segments of their own, so no real patch attends to them, and
the boundary slots past the end are zero-length segments. One graph per bucket is captured on first use and replayed
after; the attention must take a segment's length from device tensors (torch's varlen kernel, vision_attention.py's
auto on CUDA), as a graph cannot hold a read back to the CPU. Where capture fails, the tower runs eagerly from then
on, with a warning.

Off by default because it did not pay: on an H200 (2026-11-28, 64 pages at 768 visual tokens) 26.81 pages/s with
graphs against 27.13 without; the tower is bound by its kernels' GPU time, not by launching them
(benchmarks/results/gpu_embedder_paths.json). It stays a setting for a GPU or torch where launches weigh more.

On a CPU nothing is captured; the same bucketed padding can still run eagerly (tests check it gives the tower's own
vectors)."""
from __future__ import annotations

import logging
import threading
import types
from collections import OrderedDict
from dataclasses import dataclass

log = logging.getLogger(__name__)

ON, OFF = "on", "off"  # what index.visual_graphs may say: on = on CUDA (on a CPU nothing is captured)
BUCKET_PATCHES = 4096  # ~1.3 pages at 768 visual tokens: at most that much padding a batch
SEGMENT_SLOTS = 256
FULL_SEQLEN_STEP = 1024  # the longest image's patch count, rounded up: part of a graph's key
MAX_GRAPHS = 4  # the batch sizes and budgets one library run meets; each holds its activations' memory
# held while a graph is captured: CUDA work from another thread then (the next batch patched on the GPU,
# page_embedder.py) would invalidate the capture and fail that thread's work too (the 2026-11-28 H200 check)
capturing = threading.Lock()


@dataclass(frozen=True)
class Bucket:
    """A batch laid out in a bucket's shape: what a captured graph is keyed by and fed."""
    tokens: int  # the batch's real patches
    padded: int  # patches after padding
    cu_full: list[int]  # segment boundaries for full-attention layers, padded to the bucket's slot count
    cu_window: list[int]  # and for window layers
    max_full: int
    max_window: int

    @property
    def key(self) -> tuple[int, int, int, int, int]:
        return self.padded, len(self.cu_full), len(self.cu_window), self.max_full, self.max_window


def bucket_for(cu_full: list[int], cu_window: list[int], *, bucket_patches: int = BUCKET_PATCHES,
               segment_slots: int = SEGMENT_SLOTS) -> Bucket:
    """The bucket a batch of `cu_full[-1]` patches falls in: padding patches appended as segments no longer than
    the longest real one of each kind, then zero-length segments up to a multiple of `segment_slots`."""
    tokens = cu_full[-1]
    padded = -(-tokens // bucket_patches) * bucket_patches
    longest_window = max(b - a for a, b in zip(cu_window, cu_window[1:]))
    longest_image = max(b - a for a, b in zip(cu_full, cu_full[1:]))
    max_full = -(-longest_image // FULL_SEQLEN_STEP) * FULL_SEQLEN_STEP
    return Bucket(tokens, padded, _padded_bounds(cu_full, padded, max_full, segment_slots),
                  _padded_bounds(cu_window, padded, longest_window, segment_slots), max_full, longest_window)


def _padded_bounds(bounds: list[int], padded: int, longest: int, slots: int) -> list[int]:
    out = list(bounds)
    while out[-1] < padded:
        out.append(min(out[-1] + longest, padded))
    return out + [padded] * (-len(out) % slots)


def use_vision_graphs(model, mode: str, device: str) -> "TowerGraphs | None":
    """Replay the vision tower's blocks of `model` from CUDA graphs when `mode` is on and `device` is CUDA;
    otherwise leave (or put back) transformers' own forward. Returns the graphs in use, or None."""
    if mode not in (ON, OFF):
        raise ValueError(f"vision graphs {mode!r} is not one of on, off")
    tower = model.visual
    if mode == OFF or not device.startswith("cuda"):
        tower.__dict__.pop("forward", None)  # the class's forward again
        return None
    graphs = TowerGraphs(tower, capture=True)
    graphs.install()
    return graphs


class TowerGraphs:
    """The tower's forward with its blocks run in bucketed shapes: captured and replayed (capture=True, CUDA), or
    run eagerly in those shapes (capture=False: what the CPU tests check)."""

    def __init__(self, tower, *, capture: bool, bucket_patches: int = BUCKET_PATCHES,
                 segment_slots: int = SEGMENT_SLOTS):
        self.tower, self.capture = tower, capture
        self.bucket_patches, self.segment_slots = bucket_patches, segment_slots
        self.graphs: OrderedDict[tuple, _Captured] = OrderedDict()
        self.failed: str | None = None  # why capture failed: eager from then on
        self.replays = 0

    def install(self) -> None:
        self.tower.forward = types.MethodType(_bucketed_forward, self.tower)
        self.tower._docqa_graphs = self

    def run_blocks(self, hidden, cu_full, max_full, cu_window, max_window, position_embeddings):
        """The blocks over `hidden` [patches, dim]: in a bucket's shape, replayed where captured."""
        if self.failed is not None:
            return _eager_blocks(self.tower, hidden, cu_full, max_full, cu_window, max_window, position_embeddings)
        bucket = bucket_for(cu_full.tolist(), cu_window.tolist(), bucket_patches=self.bucket_patches,
                            segment_slots=self.segment_slots)
        inputs = _bucket_inputs(bucket, hidden, position_embeddings)
        if not self.capture:
            out = _eager_blocks(self.tower, inputs["hidden"], inputs["cu_full"], bucket.max_full,
                                inputs["cu_window"], bucket.max_window, (inputs["cos"], inputs["sin"]))
            return out[:bucket.tokens]
        try:
            captured = self._graph(bucket, inputs)
        except Exception as exc:  # noqa: BLE001 -- a kernel that reads back, an older driver: eager instead
            if "out of memory" in str(exc).lower():
                raise
            self.failed = f"{type(exc).__name__}: {exc}"
            self.graphs.clear()
            log.warning("CUDA graphs of the vision tower failed (%s); it runs eagerly from now on", self.failed)
            return _eager_blocks(self.tower, hidden, cu_full, max_full, cu_window, max_window, position_embeddings)
        self.replays += 1
        return captured.replay(inputs)[:bucket.tokens].clone()

    def _graph(self, bucket: Bucket, inputs: dict) -> "_Captured":
        captured = self.graphs.get(bucket.key)
        if captured is None:
            while len(self.graphs) >= MAX_GRAPHS:
                self.graphs.popitem(last=False)  # the least recently used bucket's memory goes back
            with capturing:
                captured = _Captured(self.tower, bucket, inputs)
            self.graphs[bucket.key] = captured
        self.graphs.move_to_end(bucket.key)
        return captured


def _bucket_inputs(bucket: Bucket, hidden, position_embeddings) -> dict:
    """The batch's tensors padded to the bucket: zero patches, and cos 1 / sin 0 (no rotation) for them."""
    import torch

    extra = bucket.padded - bucket.tokens
    cos, sin = position_embeddings
    device = hidden.device
    return {"hidden": torch.nn.functional.pad(hidden, (0, 0, 0, extra)),
            "cos": torch.nn.functional.pad(cos, (0, 0, 0, extra), value=1.0),
            "sin": torch.nn.functional.pad(sin, (0, 0, 0, extra)),
            "cu_full": torch.tensor(bucket.cu_full, dtype=torch.int32, device=device),
            "cu_window": torch.tensor(bucket.cu_window, dtype=torch.int32, device=device)}


class _Captured:
    """One bucket's graph: static input tensors copied into before each replay, and the output it writes."""

    def __init__(self, tower, bucket: Bucket, inputs: dict):
        import torch

        self.static = {name: tensor.clone() for name, tensor in inputs.items()}
        s = self.static

        def blocks():
            return _eager_blocks(tower, s["hidden"], s["cu_full"], bucket.max_full, s["cu_window"],
                                 bucket.max_window, (s["cos"], s["sin"]))

        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up off the default stream, as torch's CUDA graph notes ask
            blocks()
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.output = blocks()

    def replay(self, inputs: dict):
        for name, tensor in inputs.items():
            self.static[name].copy_(tensor)
        self.graph.replay()
        return self.output


def _eager_blocks(tower, hidden, cu_full, max_full, cu_window, max_window, position_embeddings):
    for layer, block in enumerate(tower.blocks):
        full = layer in tower.fullatt_block_indexes
        hidden = block(hidden, cu_seqlens=cu_full if full else cu_window,
                       max_seqlen=max_full if full else max_window, position_embeddings=position_embeddings)
    return hidden


def _bucketed_forward(tower, hidden_states, grid_thw, **kwargs):
    """transformers' Qwen2_5_VisionTransformerPretrainedModel.forward (5.17 to 5.24 alike), the blocks' loop handed
    to the graphs, without its output-capturing decorators (the page embedder reads only pooler_output)."""
    import torch
    from transformers.modeling_outputs import BaseModelOutputWithPooling
    from transformers.utils.generic import get_max_seqlen
    from transformers.vision_utils import (get_vision_attention_seqlens, get_vision_position_ids,
                                           get_vision_window_index)

    position_ids = get_vision_position_ids(grid_thw, tower.spatial_merge_size, kwargs=kwargs)
    cu_seqlens, max_seqlen = get_vision_attention_seqlens(grid_thw, tower.config, kwargs=kwargs)
    window_index, cu_window_seqlens = get_vision_window_index(
        grid_thw, spatial_merge_size=tower.spatial_merge_size, window_size=tower.window_size,
        patch_size=tower.patch_size, kwargs=kwargs)
    max_window_seqlen = get_max_seqlen(cu_window_seqlens, tower.config, kwargs=kwargs, kwarg_name="max_window_seqlen")
    hidden_states = tower.patch_embed(hidden_states)
    seq_len = hidden_states.shape[0]
    hidden_states = tower.permute_input_for_window_attn(hidden_states, window_index, seq_len=seq_len)
    position_embeddings = tower.rotary_pos_emb(hidden_states, position_ids)
    position_embeddings = tuple(tower.permute_input_for_window_attn(freq, window_index, seq_len=seq_len)
                                for freq in position_embeddings)
    hidden_states = tower._docqa_graphs.run_blocks(hidden_states, cu_seqlens.to(torch.int32), max_seqlen,
                                                   cu_window_seqlens, max_window_seqlen, position_embeddings)
    merged = tower.merger(hidden_states)[torch.argsort(window_index), :]
    return BaseModelOutputWithPooling(last_hidden_state=hidden_states, pooler_output=merged)
