"""Overlapping word windows over one page's text: the unit of dense retrieval (never crosses pages)."""
from __future__ import annotations

from ..domain import Chunk


def chunk_page(page: int, text: str, size: int = 80, overlap: int = 20) -> list[Chunk]:
    words = text.split()
    if not words:
        return []
    step = max(1, size - overlap)
    chunks = []
    for seq, start in enumerate(range(0, max(1, len(words) - overlap), step)):
        chunks.append(Chunk(page=page, seq=seq, text=" ".join(words[start:start + size])))
    return chunks
