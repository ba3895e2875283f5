"""Finding evidence pages: BM25 over page text, dense over chunks, fused."""
