"""The visual search structure on random data: codes, kernels against brute force, add / remove / reload."""
from __future__ import annotations

import numpy as np
import pytest

from docqa_desktop.vectors.codes import code_planes, quantize_int8, sign_codes
from docqa_desktop.vectors.maxsim import exact_maxsim, hamming_maxsim, int8_maxsim
from docqa_desktop.visual.search_index import EncodedPage, MultiVectorIndex, SearchDepth


def _unit(rng, n, dim=128):
    x = rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _pages(rng, count, vectors=40):
    return [_unit(rng, vectors) for _ in range(count)]


def test_int8_scores_agree_with_float_scores_within_a_stated_tolerance():
    rng = np.random.default_rng(1)
    pages = _pages(rng, 50)
    vectors = np.concatenate(pages)
    offsets = np.arange(0, len(vectors) + 1, 40)
    query = _unit(rng, 25)
    codes, scales = quantize_int8(vectors)
    exact = exact_maxsim(query, vectors, offsets)
    approx = int8_maxsim(query, codes, scales, offsets, np.arange(50))
    # per-vector int8 rounding: at most half a step (scale / 2) per dimension, summed over 25 query tokens
    assert np.max(np.abs(approx - exact)) < 25 * 0.01
    assert np.array_equal(np.argsort(-approx)[:5], np.argsort(-exact)[:5])


def test_hamming_kernel_equals_brute_force_hamming():
    rng = np.random.default_rng(2)
    vectors, query = _unit(rng, 300), _unit(rng, 7)
    offsets = np.array([0, 100, 100, 250, 300])  # an empty page too
    signs, query_signs = sign_codes(vectors), sign_codes(query)
    bits, qbits = vectors > 0, query > 0
    expected = []
    for p in range(4):
        block = bits[offsets[p]:offsets[p + 1]]
        if len(block) == 0:
            expected.append(sum(128 - 2 * 128 for _ in range(7)))
            continue
        distances = (block[:, None, :] != qbits[None, :, :]).sum(axis=2)  # [vectors, tokens]
        expected.append(int((128 - 2 * distances.min(axis=0)).sum()))
    low, high = code_planes(signs)
    assert hamming_maxsim(query_signs, low, high, offsets, np.arange(4)).tolist() == expected


def test_index_search_finds_a_page_from_its_own_vectors_and_respects_scope(tmp_path):
    rng = np.random.default_rng(3)
    pages = _pages(rng, 60)
    index = MultiVectorIndex(tmp_path / "visual")
    index.add_many(list(range(100, 160)), [EncodedPage.from_vectors(p) for p in pages])
    query = pages[17][:20] + 0.05 * _unit(rng, 20)
    depth = SearchDepth(stage1=30, stage2=10)  # all three stages run on 60 pages
    hits = index.search(query, 5, depth)
    assert hits[0][0] == 117 and hits[0][1] > hits[1][1]
    scoped = index.search(query, 5, depth, scope=np.array([120, 121, 122]))
    assert {page for page, _ in scoped} == {120, 121, 122}


def test_removed_pages_vanish_and_the_index_reloads_from_its_folder(tmp_path):
    rng = np.random.default_rng(4)
    pages = _pages(rng, 20)
    index = MultiVectorIndex(tmp_path / "visual")
    index.add_many(list(range(20)), [EncodedPage.from_vectors(p) for p in pages])
    assert index.remove([5, 6, 99]) == 2
    reloaded = MultiVectorIndex(tmp_path / "visual")
    assert len(reloaded) == 18
    hits = reloaded.search(pages[5][:10], 20)
    assert 5 not in {page for page, _ in hits} and len(hits) == 18
    # a changed page replaces its old vectors
    reloaded.add(7, EncodedPage.from_vectors(pages[3]))
    assert reloaded.search(pages[3][:10], 2)[0][0] in (3, 7) and len(reloaded) == 18


def test_page_vectors_must_be_128_dimensional():
    with pytest.raises(ValueError, match=r"\[n, 128\]"):
        EncodedPage.from_vectors(np.zeros((5, 64), np.float32))


def _synthetic_generator():
    """The benchmark's document-shaped synthetic library (benchmarks/maxsim_search.py)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "maxsim_search.py"
    spec = importlib.util.spec_from_file_location("maxsim_search", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Synthetic(seed=11)


@pytest.mark.slow
def test_recall_at_10_against_exact_float_maxsim_on_a_synthetic_library(tmp_path):
    data = _synthetic_generator()
    pages = 400
    index = MultiVectorIndex(tmp_path / "visual")
    queries = [data.query(p, i) for i, p in enumerate(range(5, pages, 40))]
    exact = np.zeros((len(queries), pages), np.float32)
    for start in range(0, pages, 50):
        block = [data.page(p) for p in range(start, start + 50)]
        index.add_many(list(range(start, start + 50)), [EncodedPage.from_vectors(v) for v in block])
        for q, query in enumerate(queries):
            exact[q, start:start + 50] = [(query @ v.T).max(axis=1).sum() for v in block]
    depth = SearchDepth(stage1=60, stage2=20)  # both cheap stages really cut: 400 → 60 → 20
    recalls = []
    for q, query in enumerate(queries):
        truth = set(np.argsort(-exact[q])[:10].tolist())
        recalls.append(len(truth & {page for page, _ in index.search(query, 10, depth)}) / 10)
    assert np.mean(recalls) >= 0.99


def test_a_write_cut_short_leaves_the_index_as_it_was_before(tmp_path):
    rng = np.random.default_rng(5)
    pages = _pages(rng, 6)
    index = MultiVectorIndex(tmp_path / "visual")
    index.add_many([0, 1, 2], [EncodedPage.from_vectors(p) for p in pages[:3]])
    # a crash after the data files were appended but before the page records were: stray rows at the end
    with open(tmp_path / "visual" / "int8.bin", "ab") as fh:
        fh.write(b"\1" * 128 * 17)
    with open(tmp_path / "visual" / "pages.bin", "ab") as fh:
        fh.write(b"\0" * 5)  # and a torn record
    reopened = MultiVectorIndex(tmp_path / "visual")
    assert len(reopened) == 3
    reopened.add_many([3, 4], [EncodedPage.from_vectors(p) for p in pages[3:5]])  # lands where the rows belong
    for page in range(5):
        assert reopened.search(pages[page][:8], 1)[0][0] == page
