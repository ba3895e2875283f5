"""The vision MLP widened with zero units (vectors/aligned_mlp.py): the same vectors from a wider tower, nothing
done twice, and wrapped layers left alone. What it is for, the GPU's faster kernels, is measured by
benchmarks/gpu_check (embed_check.py's paths)."""
from __future__ import annotations

import numpy as np
import pytest

import tiny_colqwen
from conftest import SMALL_PAPER, corpus_pdf
from docqa_desktop.pdf.page_images import page_images
from docqa_desktop.vectors.aligned_mlp import align_vision_mlp
from docqa_desktop.vectors.page_embedder import PageEmbedder, quantize_linear_layers

pytestmark = pytest.mark.model  # torch + transformers, a tiny random ColQwen2.5


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tiny_colqwen.save_tiny(tmp_path_factory.mktemp("tiny") / "model")
    return folder, [image for _, image in page_images(str(corpus_pdf(SMALL_PAPER)), [1, 2], 300)]


def test_a_widened_mlp_gives_the_same_vectors(tiny):
    folder, images = tiny
    embedder = PageEmbedder.load(folder, visual_tokens=300)
    before = embedder.embed_pages(images)
    mlp = embedder.model.visual.blocks[0].mlp
    width = mlp.gate_proj.out_features  # 64 in the tiny model: aligned to 8 already
    assert align_vision_mlp(embedder.model) == 0
    assert align_vision_mlp(embedder.model, multiple=48) == 32  # 64 -> 96: a width the tiny model can show it on
    for block in embedder.model.visual.blocks:
        assert block.mlp.gate_proj.out_features == block.mlp.up_proj.out_features == 96
        assert block.mlp.down_proj.in_features == 96 and block.mlp.down_proj.out_features == mlp.hidden_size
        assert not block.mlp.gate_proj.weight[width:].any() and not block.mlp.down_proj.weight[:, width:].any()
    assert align_vision_mlp(embedder.model, multiple=48) == 0  # nothing left to add
    after = embedder.embed_pages(images)
    for a, b in zip(before, after, strict=True):
        assert a.vectors.shape == b.vectors.shape and np.allclose(a.vectors, b.vectors, atol=1e-5)


def test_wrapped_layers_are_left_as_they_are(tiny):
    folder, _ = tiny
    embedder = PageEmbedder.load(folder, visual_tokens=300)
    quantize_linear_layers(embedder.model)  # int8 layers in place of torch.nn.Linear, as an adapter's would be
    assert align_vision_mlp(embedder.model, multiple=48) == 0
    assert embedder.model.visual.blocks[0].mlp.gate_proj.out_features == 64
