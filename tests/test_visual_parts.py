"""Pieces of visual retrieval on their own: regions from similarity maps, the CPU torchvision workaround,
adapter (LoRA) page embedders, quantized storage round trip."""
from __future__ import annotations

import numpy as np
import pytest

import tiny_colqwen
from docqa_desktop.llm import ModelError
from docqa_desktop.llm.manager import ModelManager
from docqa_desktop.vectors.page_embedder import EmbedderError, PageEmbedder
from docqa_desktop.visual.regions import best_region, similarity_map
from docqa_desktop.vectors.torch_runtime import import_torchvision


def test_best_region_covers_the_hot_cells():
    heat = np.random.default_rng(0).random((32, 24)) * 0.1
    heat[20:26, 3:9] += 5.0  # rows 20-25, columns 3-8
    x0, y0, x1, y1 = best_region(heat)
    assert x0 <= 3 / 24 and x1 >= 9 / 24 and y0 <= 20 / 32 and y1 >= 26 / 32
    assert (x1 - x0, y1 - y0) == pytest.approx((0.5, 0.25))


def test_similarity_map_lights_the_cell_whose_vector_the_query_repeats():
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(40, 128)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    patch_rows = np.arange(4, 40, dtype=np.int32)  # rows 0-3: the prompt's tokens, then a 6 x 6 grid
    query = vectors[[4 + 6 * 4 + 2]] + 0.01  # the vector of grid cell (4, 2)
    heat = similarity_map(query, vectors, patch_rows, (6, 6))
    assert np.unravel_index(np.argmax(heat), heat.shape) == (4, 2)


@pytest.mark.slow  # importing torch and torchvision is the whole test: seconds of import
def test_torchvision_imports_beside_the_cpu_torch():
    assert import_torchvision() in ("native", "shim")
    from torchvision.transforms import v2

    import torch
    resized = v2.Resize((8, 8))(torch.zeros(3, 16, 16))
    assert resized.shape == (3, 8, 8)


@pytest.mark.model
def test_an_adapter_embedder_loads_over_its_base_model(tmp_path):
    from peft import LoraConfig, get_peft_model

    base = tiny_colqwen.save_tiny(tmp_path / "base")
    model, processor = tiny_colqwen.build("tiny")
    lora = get_peft_model(model, LoraConfig(r=4, target_modules=["q_proj", "v_proj"], init_lora_weights=False))
    lora.save_pretrained(tmp_path / "adapter")
    processor.save_pretrained(tmp_path / "adapter")

    plain = PageEmbedder.load(base, cpu_int8=False)
    adapted = PageEmbedder.load(tmp_path / "adapter", base_folder=base, cpu_int8=False)
    query = "What is the revenue in 2023?"
    assert not np.allclose(plain.embed_query(query), adapted.embed_query(query), atol=1e-4)
    with pytest.raises(EmbedderError, match="adapter"):
        PageEmbedder.load(tmp_path / "adapter")

    manager = ModelManager(tmp_path / "models.json")
    with pytest.raises(ModelError, match="--base"):
        manager.import_file(tmp_path / "adapter")
    installed = manager.import_file(tmp_path / "adapter", base, name="colqwen-lora")
    assert installed.role == "page-embedder" and manager.page_embedder().base_path == base


@pytest.fixture(scope="module")
def tiny_pages(tmp_path_factory):
    from conftest import SMALL_PAPER, corpus_pdf
    from docqa_desktop.pdf.page_images import page_images

    folder = tiny_colqwen.save_tiny(tmp_path_factory.mktemp("tiny") / "model")
    return folder, [image for _, image in page_images(str(corpus_pdf(SMALL_PAPER)), [1, 2, 3, 4], 256)]


def test_out_of_memory_halves_the_batch_and_still_embeds_every_page(tiny_pages, monkeypatch):
    folder, images = tiny_pages
    embedder = PageEmbedder.load(folder, visual_tokens=256)
    reference = [p.vectors for p in embedder.embed_pages(images)]
    embedder.batch_size = 4  # as on a GPU with room for four pages
    real = PageEmbedder._embed_batch
    sizes = []

    def small_gpu(self, batch):
        sizes.append(len(batch))
        if len(batch) > 1:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real(self, batch)

    monkeypatch.setattr(PageEmbedder, "_embed_batch", small_gpu)
    pages = embedder.embed_pages(images)
    assert sizes == [4, 2, 1, 1, 1, 1] and embedder.batch_size == 1
    assert all(np.allclose(a.vectors, b, atol=1e-5) for a, b in zip(pages, reference))

    monkeypatch.setattr(PageEmbedder, "_embed_batch", lambda self, batch: (_ for _ in ()).throw(
        RuntimeError("CUDA out of memory")))
    with pytest.raises(RuntimeError, match="out of memory"):  # at one page there is nothing left to halve
        embedder.embed_pages(images[:1])


def test_token_pooling_shrinks_pages_and_keeps_every_grid_cell_mapped(tiny_pages):
    folder, images = tiny_pages
    full = PageEmbedder.load(folder, visual_tokens=256).embed_pages(images[:1])[0]
    pooled = PageEmbedder.load(folder, visual_tokens=256, pool_factor=3).embed_pages(images[:1])[0]
    assert len(pooled.vectors) <= len(full.vectors) // 3 + 1 and pooled.grid == full.grid
    assert pooled.patch_rows.min() >= 0 and pooled.patch_rows.max() < len(pooled.vectors)
    assert np.allclose(np.linalg.norm(pooled.vectors, axis=1), 1, atol=1e-4)
    # each cell's pooled vector is close to its own patch vector
    own = np.einsum("ij,ij->i", full.vectors[full.patch_rows], pooled.vectors[pooled.patch_rows])
    assert own.mean() > 0.5


def test_pooled_pages_score_and_rank_as_unpooled_ones_for_queries(tiny_pages):
    """MaxSim of queries against pooled pages (factor 2 and 3) beside the unpooled ones: within 2 %, and each query's
    best page the same. Random weights: what this shows is that pooling keeps what a query's tokens match best, not
    retrieval quality, which needs the real weights (README)."""
    from docqa_desktop.vectors.maxsim import exact_maxsim

    folder, images = tiny_pages
    queries = ["What is the revenue in 2023?", "Where is the table about cats?",
               "Which figure shows the results by year?", "Describe the image."]
    scores, counts = {}, {}
    for factor in (1, 2, 3):
        embedder = PageEmbedder.load(folder, visual_tokens=256, pool_factor=factor)
        pages = embedder.embed_pages(images)
        vectors = np.concatenate([p.vectors for p in pages])
        offsets = np.cumsum([0] + [len(p.vectors) for p in pages])
        scores[factor] = np.array([exact_maxsim(embedder.embed_query(q), vectors, offsets) for q in queries])
        counts[factor] = len(vectors)
    for factor in (2, 3):
        assert counts[factor] <= counts[1] // factor + len(images)
        ratio = scores[factor] / scores[1]
        assert 0.98 <= ratio.min() and ratio.max() <= 1.02
        assert (scores[factor].argmax(1) == scores[1].argmax(1)).all()
