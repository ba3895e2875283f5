"""The page embedder's layers compiled by torch.compile (vectors/compiled_layers.py, index.visual_compile): the
same vectors as the plain layers, on pages of several shapes, and off puts the plain calls back. The speed it is
for is measured on a GPU by benchmarks/gpu_check (embed_check.py's paths)."""
from __future__ import annotations

import numpy as np
import pytest

import tiny_colqwen
from conftest import SMALL_PAPER, corpus_pdf
from docqa_desktop.pdf.page_images import page_images
from docqa_desktop.vectors.compiled_layers import use_compiled_layers
from docqa_desktop.vectors.page_embedder import PageEmbedder

pytestmark = [pytest.mark.model, pytest.mark.slow]  # torch.compile of a tiny ColQwen2.5: about a minute on 2 cores


def test_compiled_layers_give_the_plain_layers_vectors_and_off_restores_them(tmp_path):
    folder = tiny_colqwen.save_tiny(tmp_path / "model")
    images = [image for _, image in page_images(str(corpus_pdf(SMALL_PAPER)), [1, 2, 3], 300)]
    images[2] = images[2].resize((images[2].width // 2, images[2].height // 3))  # another shape in the batch
    embedder = PageEmbedder.load(folder, visual_tokens=300)
    embedder.batch_size = 3
    plain = embedder.embed_pages(images)
    embedder.set_compiled_layers("on")
    layers = [*embedder.model.visual.blocks, *embedder.model.language_model.layers]
    assert embedder.layers_compiled and all(layer._compiled_call_impl is not None for layer in layers)
    for pages in (images, images[:2]):  # a second batch of other sizes: dynamic shapes
        compiled = embedder.embed_pages(pages)
        for a, b in zip(plain, compiled):
            assert a.vectors.shape == b.vectors.shape and np.allclose(a.vectors, b.vectors, atol=1e-5)
    embedder.set_compiled_layers("off")
    assert not embedder.layers_compiled and all(layer._compiled_call_impl is None for layer in layers)
    with pytest.raises(ValueError, match="not one of on, off"):
        use_compiled_layers(embedder.model, "max")
