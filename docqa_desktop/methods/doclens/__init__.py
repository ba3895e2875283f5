"""DocLens: a page navigator that reads the whole document, element crops, sampled answers and an adjudicator."""
from __future__ import annotations

from ..base import LANGUAGE_MODEL_FLOOR, MethodSpec, PrepareContext
from ..toolkit.page_summaries import prepare_summaries
from .method import run
from .settings import CPU_PRESET, DocLensSettings


def prepare_navigator_input(ctx: PrepareContext) -> int:
    """Page summaries for every page when the navigator reads summaries; nothing to do when it reads pages."""
    return prepare_summaries(ctx) if ctx.settings.navigator_input == "summaries" else 0


SPEC = MethodSpec(
    name="doclens", title="DocLens",
    paper="Zhu et al., 2025. DocLens: A Tool-Augmented Multi-Agent Framework for Long Visual Document "
          "Understanding (papers/doclens.txt)",
    description="Looks over every page to find the useful ones, zooms into their figures and tables, answers "
                "several times and lets a judge pick: the most thorough method.",
    cost="high", settings=DocLensSettings, cpu_preset=CPU_PRESET, run=run,
    uses=("vision-model", "samples"), prepare=prepare_navigator_input,
    prepare_label="page summaries (when the navigator reads summaries)",
    min_model_params=LANGUAGE_MODEL_FLOOR)
