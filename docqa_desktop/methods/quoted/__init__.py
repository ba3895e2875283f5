"""Quoted answers: no language model; a value of the asked kind quoted from a cited sentence, else the closest
passages."""
from __future__ import annotations

from ..base import LANGUAGE_MODEL_FLOOR, MethodSpec
from .cascade import CascadeSettings, run as run_cascade
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

# the default ("auto"): quoted answers, then, with a model at or above the floor, its one choice among candidates
CASCADE = MethodSpec(
    name="cascade", title="Answer (quoted, then the model chooses)",
    paper="no paper: the quoted reader, then one grammar-constrained choice among checked candidates (constrained "
          "decoding over input-dependent candidates, Geng et al. 2023, arXiv 2305.13971; a margin and a \"none\" "
          "option, arXiv 2406.07545)",
    description="Quotes a value when the pages state it plainly (about a second, no model). Otherwise a text model of "
                f"{LANGUAGE_MODEL_FLOOR:g} B parameters or more chooses among the values, table cells and sentences "
                "found on the pages, or an operation over two values that the app computes, or none; the choice "
                "stands only when it is on its cited page and the model is sure enough. Else the closest passages.",
    cost="low", settings=CascadeSettings, run=run_cascade, follow_ups="conversation")
