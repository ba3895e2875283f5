"""Can an "answered" verdict be trusted? Precision of what a method answers, how much it covers, what it
declines, and — where answers carry a confidence — how precision grows when only the surest are kept.

Reads scored records (runner.score_record): "status", "score", "answer_format" ("None": unanswerable gold)
and the optional "confidence".
"""
from __future__ import annotations

import math
from collections import Counter

from ..answers import AnswerStatus

RIGHT_SCORE = 0.5  # the benchmark's rule: a score at or above it counts as right
COVERAGE_LEVELS = (0.25, 0.5, 0.75, 1.0)
STATUS_COUNTED = (AnswerStatus.ANSWERED, AnswerStatus.UNVERIFIED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND,
                  AnswerStatus.FAILED)
# not given as the answer: an unverified draft, passages or not found (the reader is shown where to look)
DECLINED = (AnswerStatus.UNVERIFIED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND)


def ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def verdict(record: dict) -> AnswerStatus:
    """The record's verdict; results saved before Nov 2026 say "not_answerable", which reads as not_found."""
    return AnswerStatus(record["status"])


def is_answerable(record: dict) -> bool:
    return record["answer_format"] != "None"


def is_answered(record: dict) -> bool:
    return verdict(record) is AnswerStatus.ANSWERED


def is_right(record: dict) -> bool:
    """Whether an answered record is right: it scores >= 0.5 on an answerable question. On an unanswerable
    question answering is always wrong, even when the extracted text reads "Not answerable" and scores 1."""
    return is_answerable(record) and record["score"] >= RIGHT_SCORE


def status_counts(records: list[dict]) -> dict[str, int]:
    """Records per verdict: answered / unverified / passages / not_found / failed (legacy not_answerable as
    not_found)."""
    found = Counter(verdict(r) for r in records)  # cancelled answers are never recorded: the next run asks again
    return {status.value: found[status] for status in STATUS_COUNTED}


def trust_figures(records: list[dict]) -> dict:
    """One method's trust figures (shares are None where their denominator is 0):

    precision = answered and right / answered; coverage = answered answerable questions / answerable ones;
    answered_right_share = answered and right / answerable; answered_wrong = answered - answered and right;
    declined_share = (unverified, passages or not_found) on unanswerable questions / unanswerable ones;
    risk_coverage: see risk_coverage()."""
    answered = [r for r in records if is_answered(r)]
    answerable = sum(map(is_answerable, records))
    unanswerable = [r for r in records if not is_answerable(r)]
    right = sum(map(is_right, answered))
    declined = sum(verdict(r) in DECLINED for r in unanswerable)
    return {"answered": len(answered), "answered_right": right, "answered_wrong": len(answered) - right,
            "precision": ratio(right, len(answered)),
            "coverage": ratio(sum(map(is_answerable, answered)), answerable),
            "answered_right_share": ratio(right, answerable),
            "answerable": answerable, "unanswerable": len(unanswerable), "declined": declined,
            "declined_share": ratio(declined, len(unanswerable)),
            "risk_coverage": risk_coverage(answered, answerable)}


def risk_coverage(answered: list[dict], answerable: int) -> list[dict] | None:
    """Precision when only the surest answers are kept, at each coverage level in COVERAGE_LEVELS.

    Take the answered records and sort them by confidence, highest first (one without a confidence ranks
    below every one with; equal confidences keep the results' order). Coverage c keeps the top
    k = floor(c × answered + 0.5) of them (round half up). Each level reports
    {"coverage": c, "answers": k, "precision": right among the k / k (None when k is 0),
     "answerable_share": answerable questions among the k / answerable questions}
    — at c = 1 that is the method's precision and coverage. None when no answered record carries a
    confidence: there is nothing to rank by."""
    if not any(r.get("confidence") is not None for r in answered):
        return None
    ranked = sorted(answered, key=_surest_first, reverse=True)  # stable under reverse too
    levels = []
    for level in COVERAGE_LEVELS:
        top = ranked[:math.floor(level * len(ranked) + 0.5)]
        levels.append({"coverage": level, "answers": len(top), "precision": ratio(sum(map(is_right, top)), len(top)),
                       "answerable_share": ratio(sum(map(is_answerable, top)), answerable)})
    return levels


def _surest_first(record: dict) -> tuple[bool, float]:
    confidence = record.get("confidence")
    return confidence is not None, confidence if confidence is not None else 0.0
