"""MDocAgent: text and page-image retrieval side by side, five agents, one synthesized answer."""
from __future__ import annotations

from ..base import LANGUAGE_MODEL_FLOOR, MethodSpec
from .method import run
from .settings import CPU_PRESET, MDocAgentSettings

SPEC = MethodSpec(
    name="mdocagent", title="MDocAgent",
    paper="Han et al., 2025. MDocAgent: A Multi-Modal Multi-Agent Framework for Document Understanding "
          "(papers/mdocagent.txt)",
    description="Retrieves passages and page images side by side; a text agent and an image agent answer "
                "from each, guided by a critical agent, and a summarizing agent reconciles them.",
    cost="medium", settings=MDocAgentSettings, cpu_preset=CPU_PRESET, run=run,
    uses=("vision-model", "page-embeddings"), min_model_params=LANGUAGE_MODEL_FLOOR)
