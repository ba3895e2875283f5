"""The index stages, in the order they run (README "Adding an index stage").

Keywords come with the parse; the others are background passes that follow it, each over whatever it still
owes. The page-image stage (visual/stage.py) is the visual engine's: the service appends it to this list.
"""
from .base import Stage, StageContext, StageTimer
from .embeddings import Embeddings
from .keywords import Keywords
from .layout import Layout

STAGES: tuple[Stage, ...] = (Keywords(), Layout(), Embeddings())

__all__ = ["STAGES", "Stage", "StageContext", "StageTimer"]
