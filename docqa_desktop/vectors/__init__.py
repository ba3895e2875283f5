"""Vectors for search: the text embedder (MiniLM) and the page embedder (ColQwen2.5), the torch runtime they
load on, int8/sign codes and the MaxSim kernels. Below indexing, retrieval and the visual index, which share them."""
