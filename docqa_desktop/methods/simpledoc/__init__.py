"""SimpleDoc, the default method: page summaries, summary re-ranking, an iterative memory-guided reasoner."""
from __future__ import annotations

from ..base import LANGUAGE_MODEL_FLOOR, MethodSpec
from .method import run
from .settings import CPU_PRESET, SimpleDocSettings
from ..toolkit.page_summaries import prepare_summaries, summary_status

SPEC = MethodSpec(
    name="simpledoc", title="SimpleDoc",
    paper="Jain et al., 2025. SimpleDoc: Multi-Modal Document Understanding with Dual-Cue Page Retrieval and "
          "Iterative Refinement (papers/simpledoc.txt)",
    description="Re-ranks retrieved pages by their summaries, then reasons over them in up to three rounds, "
                "rewriting the query when pages are missing.",
    cost="medium", settings=SimpleDocSettings, cpu_preset=CPU_PRESET, run=run,
    uses=("vision-model", "page-embeddings"), prepare=prepare_summaries, prepare_label="page summaries",
    prepared=summary_status,
    follow_ups="conversation", min_model_params=LANGUAGE_MODEL_FLOOR)
