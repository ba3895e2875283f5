"""The page embedder's RMS norms fused (vectors/fused_norms.py): every norm of the tower and the language model
replaced, the same vectors in float32, closer to float32 in bfloat16 than transformers' own, nothing done twice.
What it is for, one kernel per norm on a GPU, is measured by benchmarks/gpu_check (embed_check.py's paths)."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import tiny_colqwen
from conftest import SMALL_PAPER, corpus_pdf
from docqa_desktop.pdf.page_images import page_images
from docqa_desktop.vectors.fused_norms import fuse_rms_norms
from docqa_desktop.vectors.page_embedder import PageEmbedder

pytestmark = pytest.mark.model  # torch + transformers, a tiny random ColQwen2.5


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tiny_colqwen.save_tiny(tmp_path_factory.mktemp("tiny") / "model")
    return folder, [image for _, image in page_images(str(corpus_pdf(SMALL_PAPER)), [1, 2], 300)]


def _norms(model) -> list[str]:
    return [type(m).__name__ for m in model.modules() if type(m).__name__.endswith("RMSNorm")]


def test_every_norm_is_fused_and_the_vectors_stay(tiny):
    folder, images = tiny
    embedder = PageEmbedder.load(folder, visual_tokens=300)  # on the CPU: nothing tuned at load
    model = embedder.model
    expected = 2 * len(model.visual.blocks) + 1 + 2 * len(model.language_model.layers) + 1  # + merger, final norm
    assert len(_norms(model)) == expected and "FusedRMSNorm" not in _norms(model)
    before = embedder.embed_pages(images)
    assert fuse_rms_norms(model) == expected
    assert _norms(model) == ["FusedRMSNorm"] * expected
    assert fuse_rms_norms(model) == 0  # nothing left to replace
    after = embedder.embed_pages(images)
    for a, b in zip(before, after, strict=True):
        assert a.vectors.shape == b.vectors.shape and np.allclose(a.vectors, b.vectors, atol=1e-5)


def test_in_bfloat16_the_fused_norm_rounds_once(tiny):
    """transformers rounds the normalised value to bfloat16 before the weight, torch's rms_norm after it: over a
    tower-wide hidden state the fused norm is nearer the float32 result, never farther than one bfloat16 step."""
    import torch

    folder, _ = tiny
    norm = PageEmbedder.load(folder, visual_tokens=300).model.visual.blocks[0].norm1
    width = 1280  # the real tower's hidden size
    generator = torch.Generator().manual_seed(0)
    norm.weight = torch.nn.Parameter(torch.rand(width, generator=generator) * 2)
    x = (torch.randn(4096, width, generator=generator) * 3).bfloat16()
    holder = torch.nn.Sequential(copy.deepcopy(norm))
    exact = holder.float()(x.float())  # float32 over the same (bfloat16) inputs and weights
    theirs = holder.bfloat16()(x).float()
    assert fuse_rms_norms(holder) == 1
    ours = holder(x).float()
    assert (ours - exact).abs().mean() < (theirs - exact).abs().mean()
    assert torch.allclose(ours, exact, rtol=2**-7, atol=1e-6)  # within one bfloat16 step
