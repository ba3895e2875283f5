"""Finding evidence pages (BM25 over page text, dense over chunks, fused; scoped to a question's documents) and
reading them as answering methods do (page_source)."""
