"""Compact forms of multi-vector page embeddings: int8 with one scale per vector (for scoring close to
float32) and 1-bit sign codes (for a fast first stage by Hamming distance)."""
from __future__ import annotations

import numpy as np


def quantize_int8(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric per-vector int8: vectors ≈ codes * scale[:, None]."""
    vectors = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(vectors).max(axis=1)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    codes = np.rint(vectors / scales[:, None]).astype(np.int8)
    return codes, scales


def sign_codes(vectors: np.ndarray) -> np.ndarray:
    """One bit per dimension (1 where positive), packed into uint64 words: [n, dim / 64]."""
    vectors = np.asarray(vectors)
    n, dim = vectors.shape
    if dim % 64:
        raise ValueError(f"sign codes need a dimension divisible by 64, got {dim}")
    bits = np.packbits(vectors > 0, axis=1, bitorder="little")
    return np.ascontiguousarray(bits).view(np.uint64).reshape(n, dim // 64)


def code_planes(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """128-bit sign codes as two contiguous word planes (what the Hamming kernel scans)."""
    if codes.shape[1] != 2:
        raise ValueError(f"the Hamming kernel takes 128-dimensional vectors, got {codes.shape[1] * 64}")
    return np.ascontiguousarray(codes[:, 0]), np.ascontiguousarray(codes[:, 1])


def pool_vectors(vectors: np.ndarray, groups: int, iterations: int = 4, seed: int = 0) -> np.ndarray:
    """A page's vectors summarised by `groups` normalized centroids (a few rounds of spherical k-means):
    the first search stage compares queries with these instead of every patch vector."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if len(vectors) <= groups:
        return vectors.copy()
    rng = np.random.default_rng(seed)
    centroids = vectors[rng.choice(len(vectors), groups, replace=False)].copy()
    for _ in range(iterations):
        assign = np.argmax(vectors @ centroids.T, axis=1)
        members = np.zeros((len(vectors), groups), np.float32)
        members[np.arange(len(vectors)), assign] = 1.0
        sums = members.T @ vectors
        empty = ~np.any(sums, axis=1)
        sums[empty] = centroids[empty]
        centroids = sums / np.linalg.norm(sums, axis=1, keepdims=True).clip(1e-12)
    return centroids
