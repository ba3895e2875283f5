"""Evaluation: labelled questions in, per-question results, MMLongBench-Doc scores and a report out."""
from .questions import EvalQuestion, QuestionFileError, load_questions
from .report import write_report
from .runner import EvalError, EvalOutcome, EvalPorts, EvalRunner, saved_records

__all__ = ["EvalQuestion", "QuestionFileError", "load_questions", "write_report", "EvalError", "EvalOutcome",
           "EvalPorts", "EvalRunner", "saved_records"]
