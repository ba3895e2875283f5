"""Quoted answers: no language model, the best sentence of the retrieved pages quoted with its citation."""
from __future__ import annotations

from ..base import MethodSpec
from .method import QuotedSettings, run

SPEC = MethodSpec(
    name="quoted", title="Quoted answer",
    paper="no paper: extractive sentence selection (BM25-style word coverage, MiniLM similarity, answer type)",
    description="Quotes the sentence of the retrieved pages that answers the question, with no language model: "
                "instant, and never made up; the default until a capable model is installed.",
    cost="low", settings=QuotedSettings, run=run, follow_ups="conversation")
