"""Where on a page the evidence is: the query-to-patch similarity map (as colpali-engine's similarity maps),
reduced to the best-matching rectangle."""
from __future__ import annotations

import numpy as np

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 as fractions of the page's width and height


def similarity_map(query: np.ndarray, vectors: np.ndarray, patch_rows: np.ndarray,
                   grid: tuple[int, int]) -> np.ndarray:
    """[rows, cols]: for each grid cell, how much of the query it answers — per query token, the cell's
    similarity above that token's average over the page, summed over tokens."""
    per_cell = (query @ vectors.T)[:, patch_rows]  # [tokens, cells]
    lift = np.clip(per_cell - per_cell.mean(axis=1, keepdims=True), 0, None)
    return lift.sum(axis=0).reshape(grid)


def best_region(heat: np.ndarray, window: tuple[float, float] = (0.25, 0.5)) -> Box:
    """The window (a share of the page's height and width) holding the most heat, by summed-area table."""
    rows, cols = heat.shape
    h, w = max(1, round(rows * window[0])), max(1, round(cols * window[1]))
    area = np.pad(heat.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    sums = area[h:, w:] - area[:-h, w:] - area[h:, :-w] + area[:-h, :-w]
    top, left = np.unravel_index(int(np.argmax(sums)), sums.shape)
    return (left / cols, top / rows, (left + w) / cols, (top + h) / rows)
