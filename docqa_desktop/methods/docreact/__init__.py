"""Doc-React: rounds of Thought and Action; each sub-query's evidence chosen by information gain over the model's
uncertainty."""
from __future__ import annotations

from ..base import LANGUAGE_MODEL_FLOOR, MethodSpec
from .method import run
from .settings import CPU_PRESET, DocReactSettings

SPEC = MethodSpec(
    name="docreact", title="Doc-React",
    paper="Wu et al., 2025. Doc-React: Multi-page Heterogeneous Document Question-answering "
          "(papers/doc-react.txt)",
    description="Thinks in rounds: asks sub-queries, reads several candidate pages for each and keeps the one "
                "with the most information for the least uncertainty, then answers from what it observed.",
    cost="high", settings=DocReactSettings, cpu_preset=CPU_PRESET, run=run,
    uses=("vision-model", "page-embeddings"), min_model_params=LANGUAGE_MODEL_FLOOR)
