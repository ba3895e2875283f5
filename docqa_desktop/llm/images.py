"""Page images scaled to a pixel budget before they reach a vision model.

Vision encoders cost time and memory in proportion to pixels (Qwen2.5-VL: one token per 28 × 28
pixels, so a 300-dpi page would be ~10k tokens and can make the encoder ask for absurd memory).
"""
from __future__ import annotations

import math

import pymupdf

from .types import ModelError

PIXELS_PER_TOKEN = 28 * 28  # Qwen2-VL / Qwen2.5-VL: 14-px patches merged 2 × 2


def fit_image(data: bytes, max_pixels: int) -> bytes:
    """PNG of the image shrunk (aspect kept) to at most `max_pixels`; unchanged if it already fits."""
    try:
        pix = pymupdf.Pixmap(data)
    except Exception as exc:  # pymupdf raises plain RuntimeError/ValueError for undecodable bytes
        raise ModelError(f"page image cannot be decoded: {exc}") from exc
    if pix.alpha or pix.n not in (1, 3):
        pix = pymupdf.Pixmap(pymupdf.csRGB, pix, 0)
    if pix.width * pix.height <= max_pixels:
        return data
    scale = math.sqrt(max_pixels / (pix.width * pix.height))
    width, height = max(28, int(pix.width * scale)), max(28, int(pix.height * scale))
    return pymupdf.Pixmap(pix, width, height, None).tobytes("png")


def image_size(data: bytes) -> tuple[int, int]:
    pix = pymupdf.Pixmap(data)
    return pix.width, pix.height


def estimated_image_tokens(data: bytes) -> int:
    width, height = image_size(data)
    return math.ceil(width / 28) * math.ceil(height / 28) + 2  # + vision start/end markers
