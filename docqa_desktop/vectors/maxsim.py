"""MaxSim scoring kernels (ColBERT late interaction: for each query token the best-matching page vector,
summed over query tokens); the 1-bit kernel is compiled with numba and parallel over pages (hamming_kernel.py,
imported on first use: numba comes with the optional "visual" component).

Pages are stored back to back: page p owns rows offsets[p]:offsets[p + 1] of the vector arrays."""
from __future__ import annotations

import numpy as np


def exact_maxsim(query: np.ndarray, vectors: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Float32 reference: one matrix product per page."""
    query = np.asarray(query, dtype=np.float32)
    scores = np.empty(len(offsets) - 1, dtype=np.float32)
    for p in range(len(scores)):
        block = vectors[offsets[p]:offsets[p + 1]]
        scores[p] = (np.asarray(block, dtype=np.float32) @ query.T).max(axis=0).sum() if len(block) else -np.inf
    return scores


def hamming_maxsim(query_codes, low, high, offsets, pages):
    """For each page in `pages`: the sum over query tokens of (128 - 2 * the smallest Hamming distance to
    any of the page's sign codes) — a dot-product-like score, higher is better. 128-bit codes are given as
    two word planes (`low`, `high`: one uint64 per vector). Each page vector is loaded once and compared
    with every query token in the inner loop, which the compiler turns into SIMD population counts over
    tokens (2.7x faster than looping over the page's vectors inside each token)."""
    from .hamming_kernel import hamming_maxsim as compiled  # numba: loaded with the first visual search

    return compiled(query_codes, low, high, offsets, pages)


def int8_maxsim(query: np.ndarray, codes: np.ndarray, scales: np.ndarray, offsets: np.ndarray,
                pages: np.ndarray) -> np.ndarray:
    """MaxSim of a float32 query against int8 vectors (scale per vector) of the given pages: the pages'
    rows are gathered, widened to float32 and scored in one matrix product (BLAS); the per-vector scales
    are applied to the [tokens, rows] product, which is 5x smaller than the rows themselves."""
    query = np.asarray(query, dtype=np.float32)
    starts, lengths = offsets[pages], offsets[pages + 1] - offsets[pages]
    out = np.full(len(pages), -np.inf, dtype=np.float32)
    if lengths.sum() == 0:
        return out
    first = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    if np.array_equal(starts, first):  # already gathered back to back
        rows = slice(0, int(lengths.sum()))
    else:
        rows = np.repeat(starts - first, lengths) + np.arange(lengths.sum())
    similarities = query @ codes[rows].astype(np.float32).T  # [tokens, rows]
    similarities *= scales[rows]
    present = lengths > 0
    if np.all(lengths == lengths[0]):  # the usual case: one patch grid for every page
        out[:] = similarities.reshape(len(query), len(pages), lengths[0]).max(axis=2).sum(axis=0)
    else:
        out[present] = np.maximum.reduceat(similarities, first[present], axis=1).sum(axis=0)
    return out
