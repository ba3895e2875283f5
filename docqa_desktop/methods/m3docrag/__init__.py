"""M3DocRAG, the baseline: retrieve the top pages, answer in one call."""
from __future__ import annotations

from ..base import LANGUAGE_MODEL_FLOOR, MethodSpec
from .method import CPU_PRESET, M3DocRagSettings, run

SPEC = MethodSpec(
    name="m3docrag", title="M3DocRAG",
    paper="Cho et al., 2024. M3DocRAG: Multi-modal Retrieval is What You Need for Multi-page Multi-document "
          "Understanding (baseline in papers/simpledoc.txt)",
    description="Reads the top retrieved pages and answers in one model call: the fastest method.",
    cost="low", settings=M3DocRagSettings, cpu_preset=CPU_PRESET, run=run, uses=("vision-model", "page-embeddings"),
    min_model_params=LANGUAGE_MODEL_FLOOR)
