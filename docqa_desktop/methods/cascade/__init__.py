"""The default answer ("auto"): the quoted answer, then, with a text model at or above the floor, the model reads
the passages: it writes a span that answers and checks each value one by one."""
from __future__ import annotations

from ..base import LANGUAGE_MODEL_FLOOR, MethodSpec
from .method import CascadeSettings, run

SPEC = MethodSpec(
    name="cascade", title="Answer (quoted, then the model reads)",
    paper="no paper: the quoted reader (a scorer learned from labelled questions, as DeepQA's), then a text model "
          "that writes a span from the passages and checks each value by its probability of \"yes\" (selective QA "
          "with a calibrated check: Kamath, Jia and Liang, ACL 2020)",
    description="Quotes a value when the pages state it plainly (about a second, no model). Otherwise a text model of "
                f"{LANGUAGE_MODEL_FLOOR:g} B parameters or more reads the closest passages, writes the words that "
                "answer and checks them and the reader's best values one by one, and says the value it leans to "
                "above the passages (its answers are off by default: with a 1.5B model they were not precise "
                "enough). Else the closest passages.",
    cost="low", settings=CascadeSettings, run=run, follow_ups="conversation")
