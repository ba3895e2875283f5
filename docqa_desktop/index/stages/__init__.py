"""The index stages, in the order they run (README "Adding an index stage"; the shape: base.py).

Keywords come with the parse: a document is keyword-searchable the moment it commits. The others are
background passes that follow it, each over whatever it still owes: they take documents in priority order
(store/enrichment.py: asked-about, then newest), commit as they go, stop at a cancel, and on the next run resume
with what is still missing, whatever happened in between. The page-image stage is the visual engine's
(visual/stage.py): the service appends it to this list (service.library.stages), and hands the charts stage its
vision model (`seeing`).
"""
from ..chart_model import VisionReader
from .base import Stage, StageContext
from .charts import Charts
from .embeddings import Embeddings
from .keywords import Keywords
from .layout import Layout
from .tables import Tables

STAGES: tuple[Stage, ...] = (Keywords(), Layout(), Tables(), Charts(), Embeddings())


def seeing(stages: tuple[Stage, ...], vision: VisionReader | None) -> tuple[Stage, ...]:
    """`stages` with the service's vision model handed to the one that reads pictures with it (the charts')."""
    return tuple(stage.seeing(vision) if isinstance(stage, Charts) else stage for stage in stages)


__all__ = ["STAGES", "Stage", "StageContext", "VisionReader", "seeing"]
