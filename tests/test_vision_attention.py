"""The vision tower attends with one call per layer instead of one per window (vectors/vision_attention.py):
the same vectors as transformers' per-window path, on real rendered pages, and a small constant number of
attention calls."""
from __future__ import annotations

import numpy as np
import pytest

import tiny_colqwen
from conftest import SMALL_PAPER, corpus_pdf
from docqa_desktop.pdf.page_images import page_images
from docqa_desktop.vectors.page_embedder import PageEmbedder
from docqa_desktop.vectors.vision_attention import per_window_calls

pytestmark = pytest.mark.model  # torch + transformers, a tiny random ColQwen2.5


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """(model folder, pages): three rendered pages, the last shrunk to another size, so that windows at the
    edges are partial and the images differ in length (both padded)."""
    folder = tiny_colqwen.save_tiny(tmp_path_factory.mktemp("tiny") / "model")
    images = [image for _, image in page_images(str(corpus_pdf(SMALL_PAPER)), [1, 2, 3], 300)]
    images[2] = images[2].resize((images[2].width // 2, images[2].height // 3))
    return folder, images


def counting_attention(monkeypatch) -> list[int]:
    import torch

    calls = [0]
    real = torch.nn.functional.scaled_dot_product_attention

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention", counted)
    return calls


def vectors_both_ways(embedder: PageEmbedder, images, mode: str, calls: list[int]):
    found = {}
    for way in ("per_window", mode):
        embedder.set_vision_attention(way)
        embedder.batch_size = len(images)  # one forward, as on a GPU
        calls[0] = 0
        found[way] = (embedder.embed_pages(images), calls[0])
    return found["per_window"], found[mode]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("mode", ["auto", "padded"])
def test_one_call_per_layer_gives_the_per_window_vectors(tiny, monkeypatch, dtype, mode):
    import torch

    folder, images = tiny
    embedder = PageEmbedder.load(folder, visual_tokens=300)
    embedder.model.to(getattr(torch, dtype))
    calls = counting_attention(monkeypatch)
    (old, old_calls), (new, new_calls) = vectors_both_ways(embedder, images, mode, calls)

    for a, b in zip(old, new, strict=True):
        assert a.vectors.shape == b.vectors.shape and a.grid == b.grid
        unit_a, unit_b = (v / np.linalg.norm(v, axis=1, keepdims=True) for v in (a.vectors, b.vectors))
        assert (unit_a * unit_b).sum(1).min() >= 0.999

    vision, text = embedder.model.config.vision_config, embedder.model.config.text_config
    grids = [(rows * 2, cols * 2) for rows, cols in (page.grid for page in old)]  # merged grid -> patches
    windows_per_image = per_window_calls(grids[:1], window_size=vision.window_size, patch_size=vision.patch_size,
                                         merge_size=vision.spatial_merge_size, depth=1, full_layers=0)
    assert windows_per_image >= 9  # several windows per image, some partial at the edges
    assert old_calls == per_window_calls(grids, window_size=vision.window_size, patch_size=vision.patch_size,
                                         merge_size=vision.spatial_merge_size, depth=vision.depth,
                                         full_layers=len(vision.fullatt_block_indexes)) + text.num_hidden_layers
    assert new_calls == vision.depth + text.num_hidden_layers  # one per layer, whatever the pages


def test_prepared_pages_embed_as_the_images_do_and_shrink_after_running_out_of_memory(tiny, monkeypatch):
    folder, images = tiny
    embedder = PageEmbedder.load(folder, visual_tokens=300)
    embedder.batch_size = 3
    reference = embedder.embed_pages(images)
    real, sizes = PageEmbedder._embed_inputs, []

    def small_gpu(self, inputs):
        sizes.append(len(inputs["image_grid_thw"]))
        if sizes[-1] > 1:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real(self, inputs)

    prepared = embedder.prepare(images)
    monkeypatch.setattr(PageEmbedder, "_embed_inputs", small_gpu)
    pages = embedder.embed_prepared(prepared)
    assert sizes == [3, 1, 1, 1] and embedder.batch_size == 1
    assert all(np.allclose(a.vectors, b.vectors, atol=1e-5) for a, b in zip(pages, reference, strict=True))


def test_pages_padded_on_the_device_embed_as_colpalis_own_processing_does(tiny):
    """prepare() leaves the pages' patches unpadded and _embed_inputs pads them where the model runs: the vectors
    of a batch of pages of two sizes equal those of colpali's process_images, padded on the CPU, through the model."""
    import torch

    folder, images = tiny
    embedder = PageEmbedder.load(folder, visual_tokens=300)
    embedder.batch_size = 3
    prepared = embedder.prepare(images)
    assert prepared.inputs["pixel_values"].dim() == 2  # [all pages' patches, 1176]: no padding on the CPU
    pages = embedder.embed_prepared(prepared)
    colpali = embedder.processor.process_images(images)
    assert colpali["pixel_values"].dim() == 3  # [pages, most patches, 1176]
    with torch.inference_mode():
        expected = embedder.model(**colpali).float()
    for i, page in enumerate(pages):
        kept = expected[i][colpali["attention_mask"][i].bool()].numpy()
        assert page.vectors.shape == kept.shape and np.allclose(page.vectors, kept, atol=1e-6)


def reference_varlen_attn(q, k, v, cu_q, cu_k, max_q, max_k):
    """torch's varlen_attn (a CUDA flash kernel) computed segment by segment: [tokens, heads, dim] in and out."""
    import torch

    bounds = cu_q.tolist()
    assert cu_q.dtype == torch.int32 and cu_k is cu_q and max_q == max_k == max(np.diff(bounds))
    parts = [torch.nn.functional.scaled_dot_product_attention(*(x[a:b].transpose(0, 1) for x in (q, k, v)))
             for a, b in zip(bounds, bounds[1:])]
    return torch.cat(parts, dim=1).transpose(0, 1)


def test_the_varlen_kernel_is_handed_the_packed_windows_and_its_output_laid_back(tiny, monkeypatch):
    """On CUDA, auto calls torch's varlen kernel: here a per-segment reference stands in for it (this CPU has no
    flash kernel), so what is checked is everything around the kernel."""
    import torch.nn.attention.varlen as varlen

    from docqa_desktop.vectors import vision_attention

    folder, images = tiny
    assert vision_attention._has_varlen()  # this torch has the module (2.9+); only its CUDA kernel is missing
    embedder = PageEmbedder.load(folder, visual_tokens=300)
    monkeypatch.setattr(vision_attention, "_varlen_usable", lambda query, scaling: True)
    monkeypatch.setattr(varlen, "varlen_attn", reference_varlen_attn)
    calls = counting_attention(monkeypatch)
    (old, _), (new, _) = vectors_both_ways(embedder, images, "auto", calls)
    for a, b in zip(old, new, strict=True):
        assert np.allclose(a.vectors, b.vectors, atol=1e-4)
    assert not vision_attention._varlen_broken


def test_a_varlen_kernel_that_fails_leaves_the_padded_path_for_good(tiny, monkeypatch, caplog):
    from docqa_desktop.vectors import vision_attention

    folder, images = tiny
    embedder = PageEmbedder.load(folder, visual_tokens=300)
    monkeypatch.setattr(vision_attention, "_varlen_usable", lambda query, scaling: True)
    monkeypatch.setattr(vision_attention, "_varlen_broken", False)
    calls = counting_attention(monkeypatch)
    (old, _), (new, new_calls) = vectors_both_ways(embedder, images, "auto", calls)  # the CPU has no flash kernel
    assert vision_attention._varlen_broken and "pads its windows instead" in caplog.text
    assert all(np.allclose(a.vectors, b.vectors, atol=1e-4) for a, b in zip(old, new, strict=True))
    config = embedder.model.config
    assert new_calls == config.vision_config.depth + config.text_config.num_hidden_layers
