"""Quoted answers: no language model; a value of the asked kind quoted from a cited sentence, else the closest
passages."""
from __future__ import annotations

from ..base import MethodSpec
from .method import QuotedSettings, run

SPEC = MethodSpec(
    name="quoted", title="Quoted answer",
    paper="no paper: extractive value selection (weighted word coverage, MiniLM similarity, typed values and "
          "spans near the question's words, qualifier checks, table cells by their row and column labels)",
    description="No language model. Answers only with a value of the kind asked (a percentage, an amount, a date, "
                "a name, a list) that a cited sentence states next to the question's words, a table cell whose "
                "row and column name what is asked, or, for questions about the library, the index's exact "
                "answer; otherwise shows the closest passages, cited, for you to read. Instant; the default until "
                "a capable model is installed.",
    cost="low", settings=QuotedSettings, run=run, follow_ups="conversation")
