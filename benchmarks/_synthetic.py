"""Synthetic libraries for the scale benchmarks: corpus words, varied per page, straight into a database."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pymupdf

PAGES_PER_DOCUMENT = 20
REPLACED = 0.2  # share of each page's words drawn anew from the vocabulary
_WORD = re.compile(r"\S+")


def corpus_pages(corpus: Path) -> list[list[str]]:
    pages = []
    for pdf in sorted(corpus.glob("*.pdf")):
        with pymupdf.open(pdf) as doc:
            pages += [words for page in doc if len(words := _WORD.findall(page.get_text())) >= 20]
    return pages


def synthetic_pages(base: list[list[str]], count: int, seed: int = 7):
    """`count` page texts: corpus pages in turn, each with REPLACED of its words resampled by frequency."""
    rng = np.random.default_rng(seed)
    vocabulary, counts = np.unique(np.concatenate([np.array(p) for p in base]), return_counts=True)
    weights = counts / counts.sum()
    for i in range(count):
        words = np.array(base[i % len(base)], dtype=object)
        swap = rng.random(len(words)) < REPLACED
        words[swap] = rng.choice(vocabulary, size=int(swap.sum()), p=weights)
        yield " ".join(words)


def add_documents(db, texts: list[str], first_doc: int) -> list[int]:
    """Documents of PAGES_PER_DOCUMENT pages holding `texts`; returns their ids."""
    docs = list(range(first_doc, first_doc + -(-len(texts) // PAGES_PER_DOCUMENT)))
    with db.transaction() as cur:
        db.insert_arrow(cur, "documents", pa.table({
            "id": pa.array(docs, pa.int64()), "sha256": [f"synthetic-{d}" for d in docs],
            "size": pa.array([0] * len(docs), pa.int64()), "pages": pa.array([PAGES_PER_DOCUMENT] * len(docs), pa.int32()),
            "title": [f"Synthetic {d}" for d in docs], "parser_version": pa.array([1] * len(docs), pa.int32())}))
        numbers = list(range(len(texts)))
        db.insert_arrow(cur, "pages", pa.table({
            "doc_id": pa.array([docs[n // PAGES_PER_DOCUMENT] for n in numbers], pa.int64()),
            "page": pa.array([n % PAGES_PER_DOCUMENT + 1 for n in numbers], pa.int32()),
            "label": [str(n % PAGES_PER_DOCUMENT + 1) for n in numbers],
            "width": pa.array([612.0] * len(texts), pa.float32()), "height": pa.array([792.0] * len(texts), pa.float32()),
            "text": texts, "text_source": ["layer"] * len(texts)}))
    return docs
