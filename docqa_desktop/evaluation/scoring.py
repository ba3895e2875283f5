"""MMLongBench-Doc's answer scoring (Ma et al., 2024, `eval/eval_score.py`), rule for rule.

A prediction has already been reduced to a short answer in the question's format (extraction.py);
it is then compared with the gold answer per format: integers exactly, floats with 1 % tolerance
(also as a percentage: 0.12 ≈ 12 %), strings by ANLS (normalised Levenshtein similarity, 0 below
0.5) unless they are URLs, dates, phone numbers… which must match exactly, lists element-wise
after sorting. Generalized accuracy is the mean score; F1 treats "Not answerable" as the negative class.
One departure: numbers are read with their thousands separators ("1,138" is 1138), where the benchmark's
Int rule scores even a gold "1,138" against itself as 0.
"""
from __future__ import annotations

import ast
import re
from math import isclose

from .. import numbers

NOT_ANSWERABLE = "Not answerable"
FORMATS = ("Str", "Int", "Float", "List", "None")


def levenshtein(a: str, b: str) -> int:
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def anls(gold: str, prediction: str, threshold: float = 0.5) -> float:
    length = max(len(gold), len(prediction))
    value = 1.0 - (levenshtein(gold, prediction) / length if length else 0.0)
    return value if value > threshold else 0.0


def _precision(value: float) -> int:
    text = str(value)
    return len(text.split(".")[-1]) if "." in text else 3


def float_equal(gold: float, prediction: float, include_percentage: bool = True) -> bool:
    """Equal after rounding to the shorter precision (at least 2 places), or within 1 % relative."""
    candidates = [gold / 100, gold, gold * 100] if include_percentage else [gold]
    for item in candidates:
        if isclose(item, prediction, rel_tol=0.01):
            return True
        places = max(min(_precision(prediction), _precision(item)), 2)
        if round(prediction, places) == round(item, places):
            return True
    return False


def clean(value) -> str:
    """Lower-case, drop units the benchmark strips, parentheses, quotes, "$" and "%"."""
    s = str(value).lower().strip()
    for unit in ("miles", "mile", "million"):
        if s.endswith(unit):
            s = s[: -len(unit)].strip()
            break
    s = re.sub(r"\s*\([^)]*\)", "", s).strip()
    s = re.sub(r"^['\"]|['\"]$", "", s).strip()
    return s.lstrip("$").strip().rstrip("%").strip()


def plain_number(value) -> str:
    """clean(), then a number's thousands separators dropped ("$1,138.5" -> "1138.5"); a comma that does not
    group digits by three stays, so "1,2" is no number rather than 12."""
    s = clean(value)
    return s.replace(",", "") if numbers.NUMBER.fullmatch(s) else s


def needs_exact_match(s: str) -> bool:
    """URLs, code files, page references, phone numbers, times, dates and e-mails must match exactly."""
    return ("https://" in s or s.endswith((".py", "ipynb")) or s.startswith("page")
            or "a.m." in s or "p.m." in s
            or re.fullmatch(r"\b\d+(-\d+|\s\d+)?\b", s) is not None
            or re.fullmatch(r"\b\d{4}[-\s]\d{2}[-\s]\d{2}\b", s) is not None
            or re.fullmatch(r"\b\d{4}[-\s]\d{2}\b", s) is not None
            or re.fullmatch(r"[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}", s) is not None)


def _is_float(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def as_list(value) -> list:
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            parsed = ast.literal_eval(value.strip())
            if isinstance(parsed, (list, tuple)):
                return list(parsed)
        except (ValueError, SyntaxError):
            pass
    return list(value) if isinstance(value, (list, tuple)) else [value]


def score(gold, prediction, answer_format: str) -> float:
    """1.0 / 0.0, or the ANLS similarity for free-text answers."""
    if answer_format == "Int":
        try:
            return float(int(plain_number(gold)) == int(float(plain_number(prediction))))
        except (ValueError, TypeError, OverflowError):
            return 0.0
    if answer_format == "Float":
        try:
            return float(float_equal(float(plain_number(gold)), float(plain_number(prediction))))
        except (ValueError, TypeError, OverflowError):
            return 0.0
    if answer_format in ("Str", "None"):
        g, p = clean(gold), clean(prediction)
        return float(g == p) if needs_exact_match(g) else anls(g, p)
    if answer_format == "List":
        golds, preds = as_list(gold), as_list(prediction)
        if len(golds) != len(preds):
            return 0.0
        golds, preds = sorted(plain_number(g) for g in golds), sorted(plain_number(p) for p in preds)
        if not golds:
            return 1.0
        if _is_float(golds[0]) or needs_exact_match(golds[0]):
            return float("-".join(golds) == "-".join(preds))
        return min(anls(g, p) for g, p in zip(golds, preds))
    raise ValueError(f"unknown answer format {answer_format!r}; expected one of {', '.join(FORMATS)}")


def contains_gold(gold, prediction) -> bool:
    """Whether the prediction's text holds the gold answer (every item of a list), compared without case,
    punctuation, spaces or thousands separators: how a quoted sentence is judged, since it is never a bare value."""
    text = _squeezed(prediction)
    items = [clean(g) for g in as_list(gold)]
    return bool(items) and all(_squeezed(item) and _squeezed(item) in text for item in items)


def _squeezed(value) -> str:
    return re.sub(r"[^a-z0-9.]|\.(?!\d)", "", str(value).lower())


def is_not_answerable(value) -> bool:
    return str(value).strip().lower() == NOT_ANSWERABLE.lower()


def accuracy_and_f1(rows: list[tuple]) -> tuple[float, float]:
    """(generalized accuracy, F1) over (gold, prediction, score) rows, as MMLongBench-Doc defines them:
    recall over answerable questions, precision over questions the system did answer."""
    if not rows:
        return 0.0, 0.0
    accuracy = sum(s for _, _, s in rows) / len(rows)
    answerable = [s for g, _, s in rows if not is_not_answerable(g)]
    attempted = [p for _, p, _ in rows if not is_not_answerable(p)]
    if not answerable or not attempted:
        return accuracy, 0.0
    recall = sum(answerable) / len(answerable)
    precision = sum(answerable) / len(attempted)
    f1 = 2 * recall * precision / (recall + precision) if recall + precision > 0 else 0.0
    return accuracy, f1
