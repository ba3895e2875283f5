"""The vision tower's blocks in bucketed shapes (vectors/vision_graphs.py): the padding a CUDA graph needs changes no
page's vectors, the capture's failure leaves the eager tower, and the setting turns it all off. The CUDA graphs
themselves need a GPU: benchmarks/gpu_check/embed_check.py measures them there."""
from __future__ import annotations

import logging

import numpy as np
import pytest

import tiny_colqwen
from conftest import SMALL_PAPER, corpus_pdf
from docqa_desktop.pdf.page_images import page_images
from docqa_desktop.vectors.page_embedder import PageEmbedder
from docqa_desktop.vectors.vision_graphs import TowerGraphs, bucket_for, use_vision_graphs


def _windows(*images: int) -> list[int]:
    """Window bounds over images of these patch counts: windows of 64 patches, the last of each image partial."""
    bounds, start = [0], 0
    for patches in images:
        bounds += list(range(start + 64, start + patches, 64)) + [start + patches]
        start += patches
    return bounds


def test_a_batch_is_padded_to_its_bucket_with_segments_of_its_own_and_empty_slots():
    cu_full, cu_window = [0, 3000, 5500], _windows(3000, 2500)  # two images
    bucket = bucket_for(cu_full, cu_window, bucket_patches=4096, segment_slots=64)
    assert (bucket.tokens, bucket.padded) == (5500, 8192)
    assert bucket.max_full == 3072 and bucket.max_window == 64  # rounded up to 1024 / the longest window
    for bounds, longest in ((bucket.cu_full, bucket.max_full), (bucket.cu_window, bucket.max_window)):
        lengths = np.diff(bounds)
        assert len(bounds) % 64 == 0 and bounds[-1] == 8192 and (lengths >= 0).all() and lengths.max() <= longest
    assert bucket.cu_full[:3] == cu_full and bucket.cu_window[:len(cu_window)] == cu_window  # real segments kept
    assert bucket.cu_full[3] - 5500 <= 3072 and bucket.cu_full[-1] == bucket.cu_full[-2]  # padding, then empty slots
    # a batch of a few more patches falls in the same bucket (one graph), one of many more in the next
    assert bucket_for([0, 3000, 5600], _windows(3000, 2600), bucket_patches=4096,
                      segment_slots=64).key == bucket.key
    assert bucket_for([0, 9000], _windows(9000), bucket_patches=4096, segment_slots=64).padded == 12288


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Three rendered pages, the last smaller, so windows at the edges are partial and the images differ."""
    folder = tiny_colqwen.save_tiny(tmp_path_factory.mktemp("tiny") / "model")
    images = [image for _, image in page_images(str(corpus_pdf(SMALL_PAPER)), [1, 2, 3], 300)]
    images[2] = images[2].resize((images[2].width // 2, images[2].height // 3))
    return folder, images


def _embedded(embedder: PageEmbedder, images):
    embedder.batch_size = len(images)  # one forward, as on a GPU
    return embedder.embed_pages(images)


@pytest.mark.model
@pytest.mark.parametrize("attention", ["auto", "padded"])
def test_bucketed_blocks_give_the_towers_own_vectors(tiny, attention):
    folder, images = tiny
    embedder = PageEmbedder.load(folder, visual_tokens=300, vision_attention=attention)
    assert embedder.graphs is None and "forward" not in vars(embedder.model.visual)  # off by default
    reference = _embedded(embedder, images)
    graphs = TowerGraphs(embedder.model.visual, capture=False, bucket_patches=1000, segment_slots=16)
    graphs.install()
    seen = []
    run = graphs.run_blocks
    graphs.run_blocks = lambda hidden, *rest: (seen.append(len(hidden)), run(hidden, *rest))[1]
    bucketed = _embedded(embedder, images)
    assert seen and seen[0] % 1000 != 0  # the batch's real patches went in, padded inside to 1,000s
    for a, b in zip(reference, bucketed, strict=True):
        assert a.vectors.shape == b.vectors.shape and a.grid == b.grid
        assert np.allclose(a.vectors, b.vectors, atol=1e-5)


@pytest.mark.model
def test_a_capture_that_fails_leaves_the_eager_tower_for_good(tiny, caplog):
    """On this CPU the capture itself fails (no CUDA stream): as a kernel that reads back to the CPU would on a
    GPU. The tower runs eagerly from then on, and says so once."""
    folder, images = tiny
    embedder = PageEmbedder.load(folder, visual_tokens=300)
    reference = _embedded(embedder, images)
    graphs = TowerGraphs(embedder.model.visual, capture=True, bucket_patches=1000, segment_slots=16)
    graphs.install()
    with caplog.at_level(logging.WARNING):
        first, second = _embedded(embedder, images), _embedded(embedder, images)
    assert graphs.failed and not graphs.graphs and graphs.replays == 0
    assert caplog.text.count("runs eagerly from now on") == 1
    for a, b, c in zip(reference, first, second, strict=True):
        assert np.allclose(a.vectors, b.vectors, atol=1e-5) and np.allclose(a.vectors, c.vectors, atol=1e-5)


@pytest.mark.model
def test_the_setting_puts_back_transformers_forward(tiny):
    folder, _ = tiny
    embedder = PageEmbedder.load(folder, visual_tokens=300)
    tower = embedder.model.visual
    TowerGraphs(tower, capture=False).install()
    assert "forward" in vars(tower)
    assert use_vision_graphs(embedder.model, "off", "cuda") is None and "forward" not in vars(tower)
    TowerGraphs(tower, capture=False).install()
    assert use_vision_graphs(embedder.model, "on", "cpu") is None and "forward" not in vars(tower)
    with pytest.raises(ValueError, match="not one of on, off"):
        use_vision_graphs(embedder.model, "always", "cuda")


@pytest.mark.model
def test_pages_patched_where_the_model_runs_embed_as_on_the_cpu(tiny):
    """On a GPU the processor resizes and patches the pages there (preprocess_device): the same processor code on
    another device, so asked for by name here, it gives the same vectors."""
    folder, images = tiny
    embedder = PageEmbedder.load(folder, visual_tokens=300)
    assert embedder.preprocess_device is None  # a CPU embedder patches on the CPU without asking
    reference = _embedded(embedder, images)
    embedder.preprocess_device = "cpu"
    for a, b in zip(reference, _embedded(embedder, images), strict=True):
        assert np.array_equal(a.vectors, b.vectors)
