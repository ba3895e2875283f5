"""MMRAG-DocQA's knobs: the paper's and its code's parameters by default (method section, appendix
"Implementation Details"), a CPU budget as preset."""
from __future__ import annotations

from dataclasses import dataclass

from ...settings import check_ranges


@dataclass(frozen=True)
class MMRAGSettings:
    # Page-level parent-page retrieval (eq. 11-12)
    chunk_k: int = 30  # top-K in-page chunks whose parent pages are re-ranked (the authors' code: 30)
    pages: int = 10  # parent pages read after re-ranking (paper: 10; 4 in Table 1's second row)
    llm_weight: float = 0.7  # rank = w × LLM score + (1 - w) × retrieval score (the authors' code; the
    #                          paper's eq. 12 ranks by the LLM score alone: 1.0)
    rerank_page_tokens: int = 1200  # most tokens of one candidate page shown to the re-ranker
    rerank_batch_pages: int = 4  # most pages scored in one call (the paper: one block a call); fewer when the
    #                              context is full
    rerank_reason_chars: int = 300  # the re-ranker's reasoning per page ("a few sentences")
    # Document-level summary retrieval (eq. 16)
    tree_nodes: int = 10  # top nodes from every layer of the summary tree (paper: 10); 0: no summary retrieval
    tree_leaves: bool = True  # leaves (the document's chunks) are candidates too, as in RAPTOR's collapsed tree
    # Summary tree (prepare step; RAPTOR's parameters, which the authors' code follows)
    tree_layers: int = 5  # most summary layers above the leaves
    reduction_dims: int = 10  # PCA dimensions before clustering (RAPTOR: UMAP to 10)
    cluster_threshold: float = 0.1  # soft assignment: a node joins every cluster it belongs to with p > this
    max_clusters: int = 50  # most Gaussian components tried by BIC
    cluster_tokens: int = 3500  # a cluster longer than this is clustered again (RAPTOR's max_length_in_cluster)
    summary_tokens: int = 100  # one summary (RAPTOR's summarization_length)
    # Answer (appendix "Prompt for Answer Generation")
    page_tokens: int = 1200  # most text tokens of one page read by the answering model
    node_tokens: int = 200  # most tokens of one tree node in the answer prompt
    analysis_steps: int = 8  # most steps of the step-by-step analysis (the paper: at least 5)
    step_chars: int = 250  # most characters of one step (5 steps of 250: the paper's "at least 150 words")
    answer_tokens: int = 900  # the reply: analysis, summary, pages, typed answer


# ask.preset = "cpu" (the 1.5B bench's quick budget): the paper's page=4 row, fewer candidates to score, short
# page texts, and a summary cluster cut to what a 4k context summarises in one call.
CPU_PRESET = {"chunk_k": 12, "pages": 4, "rerank_page_tokens": 300, "rerank_reason_chars": 160,
              "tree_nodes": 5, "cluster_tokens": 1500, "summary_tokens": 80, "page_tokens": 400,
              "node_tokens": 120, "analysis_steps": 6, "step_chars": 160,
              "answer_tokens": 700}


def check_settings(settings: MMRAGSettings) -> None:
    """A SettingsError naming the first setting out of range."""
    ranges = {"chunk_k": (1, None), "pages": (1, None), "rerank_batch_pages": (1, None), "tree_layers": (1, None),
              "reduction_dims": (1, None), "max_clusters": (1, None), "tree_nodes": (0, None),
              "llm_weight": (0.0, 1.0), "cluster_threshold": (0.0, 1.0)}
    check_ranges("mmrag", settings, ranges)
