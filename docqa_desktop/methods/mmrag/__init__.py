"""MMRAG-DocQA: parent pages of the best passages re-ranked by the LLM, a summary tree across pages, and a
chain-of-thought answer."""
from __future__ import annotations

from ..base import LANGUAGE_MODEL_FLOOR, MethodSpec
from .method import run
from .settings import CPU_PRESET, MMRAGSettings
from .tree import prepare_trees

SPEC = MethodSpec(
    name="mmrag", title="MMRAG-DocQA",
    paper="Gong et al., 2026. MMRAG-DocQA: A Multi-Modal Retrieval-Augmented Generation Method for Document "
          "Question-Answering with Hierarchical Index and Multi-Granularity Retrieval (papers/mmrag-docqa.txt)",
    description="Scores the pages of the best passages with the model, adds summaries of related parts from a "
                "per-document summary tree, and answers step by step.",
    cost="high", settings=MMRAGSettings, cpu_preset=CPU_PRESET, run=run,
    needs=("clustering",),  # the optional component with scikit-learn: the summary tree's clustering
    uses=("vision-model",), prepare=prepare_trees, prepare_label="summary-tree nodes",
    min_model_params=LANGUAGE_MODEL_FLOOR)
