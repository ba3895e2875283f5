"""The learned scorer: which candidate answers, and how likely it is to be right (issue 53).

Two small models, both trained by benchmarks/reader/train.py on labelled questions and shipped as
reader_weights.json (with the data and commit they came from; tests/test_reader_weights.py checks that the file is
what the script makes from the committed data):
- a logistic regression over a candidate's evidence (evidence.FEATURES, standardised) ranks a question's candidates;
- a Platt calibration turns the best candidate's score, its margin over the runner-up and whether the hand-written
  rules would have answered it (evidence feature "passes_rules") into the probability that it is the right answer, fitted on scores the ranker gave to questions of documents it was not trained on (grouped
  cross-validation), so that the probability holds on documents never seen.
"Answered" only at or above `threshold`: the least probability that kept the answered right 95 % of the time in
cross-validation. Inference is numpy only.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .evidence import FEATURES, Evidence

WEIGHTS = Path(__file__).with_name("reader_weights.json")
NO_RUNNER_UP = 4.0  # the margin of a lone candidate: as if the runner-up were far behind (a typical wide margin)


@dataclass(frozen=True)
class Scorer:
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    calibration: tuple[float, float, float, float]  # (on the best score, its margin, the rules' verdict; intercept)
    threshold: float

    def scores(self, evidence: list[Evidence]) -> np.ndarray:
        if not evidence:
            return np.zeros(0)
        matrix = np.array([e.features for e in evidence], dtype=np.float64)
        return ((matrix - self.mean) / self.scale) @ self.coef + self.intercept

    def ranked(self, evidence: list[Evidence]) -> list[tuple[Evidence, float]]:
        """Every candidate with its score, best first."""
        return sorted(zip(evidence, self.scores(evidence).tolist()), key=lambda pair: -pair[1])

    def probability(self, ranked: list[tuple[Evidence, float]]) -> float:
        """The probability that the best candidate is the answer (0 without candidates)."""
        if not ranked:
            return 0.0
        top, best = ranked[0]
        margin = best - ranked[1][1] if len(ranked) > 1 else NO_RUNNER_UP
        return calibrated(self.calibration, best, margin, top.feature("passes_rules"))


def value_key(value: str) -> str:
    """A candidate's value as compared with another's: the same value found twice counts once."""
    return " ".join(value.lower().split())


def each_value_once(ranked: list[tuple[Evidence, float]]) -> list[tuple[Evidence, float]]:
    """The ranked candidates with each value at its best place only."""
    return first_of_each_value(ranked, lambda scored: scored[0].value)


def first_of_each_value(items: list, value_of: Callable[[Any], str]) -> list:
    """`items` in their order, each value (value_key) kept where it comes first."""
    seen, kept = set(), []
    for item in items:
        key = value_key(value_of(item))
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def calibrated(calibration: tuple[float, ...], best: float, margin: float, rules: float) -> float:
    a, b, r, c = calibration
    z = a * best + b * margin + r * rules + c
    return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


def from_json(data: dict) -> Scorer:
    """The scorer the file describes. Evidence added to FEATURES since it was trained counts nothing (weight 0:
    it ranks as before, so that benchmarks/reader/extract.py can gather the new evidence to train on); a feature
    it names that FEATURES lacks is an error."""
    names = tuple(data["features"])
    unknown = set(names) - set(FEATURES)
    if unknown:
        raise ValueError(f"{WEIGHTS.name} was trained on features evidence.FEATURES lacks ({', '.join(sorted(unknown))})"
                         ": run benchmarks/reader/train.py")
    at = {name: i for i, name in enumerate(names)}

    def widened(values: list[float], default: float) -> np.ndarray:
        return np.array([values[at[name]] if name in at else default for name in FEATURES])

    return Scorer(FEATURES, widened(data["mean"], 0.0), widened(data["scale"], 1.0), widened(data["coef"], 0.0),
                  float(data["intercept"]), tuple(data["calibration"]), float(data["threshold"]))


@lru_cache(maxsize=1)
def shipped() -> Scorer:
    return from_json(json.loads(WEIGHTS.read_text(encoding="utf-8")))
