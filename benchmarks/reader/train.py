"""Train the reader's scorer from data/candidates.jsonl.gz and write docqa_desktop/methods/extractive/reader_weights.json.

    .venv/bin/python benchmarks/reader/train.py [--check]   # --check: fail when the shipped file differs

1. Grouped cross-validation by document (FOLDS folds, each document's questions in one fold): a logistic regression
   over the candidates' standardised evidence, trained on the other folds, scores the held-out fold's candidates.
2. A Platt calibration, fitted on those held-out scores (the best candidate's score and its margin over the
   runner-up, and whether the hand-written rules would have answered it -> whether the best candidate is right; unanswerable questions count as wrong), makes a probability.
3. The threshold: the least probability at which the held-out answers above it stay right PRECISION of the time
   (with at least MIN_ANSWERED of them).
4. The shipped ranker is fitted on every question; calibration and threshold are those of step 2 and 3.
Deterministic (Newton's method, no random state): the test rebuilds the file from the committed data and compares.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))
import data  # noqa: E402
from docqa_desktop.methods.extractive.evidence import FEATURES  # noqa: E402
RULES = FEATURES.index("passes_rules")
from docqa_desktop.methods.extractive.scorer import NO_RUNNER_UP, WEIGHTS, value_key  # noqa: E402

FOLDS = 5
L2 = 1.0  # ridge on the standardised weights: 48 features, thousands of candidates
PRECISION = 0.95
MIN_ANSWERED = 5  # fewer answers than this say nothing of a threshold's precision


def fold_of(doc: str) -> int:
    return zlib.crc32(doc.encode("utf-8")) % FOLDS


def logistic(x: np.ndarray, y: np.ndarray, l2: float = L2, weights: np.ndarray | None = None,
             iterations: int = 50) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression by Newton's method (the intercept unpenalised)."""
    n, d = x.shape
    a = np.hstack([x, np.ones((n, 1))])
    w = np.ones(n) if weights is None else weights
    beta = np.zeros(d + 1)
    penalty = np.full(d + 1, l2)
    penalty[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(a @ beta, -30, 30)))
        gradient = a.T @ (w * (p - y)) + penalty * beta
        hessian = (a * (w * p * (1 - p))[:, None]).T @ a + np.diag(penalty) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-10:
            break
    return beta[:-1], float(beta[-1])


class Ranker:
    def __init__(self, rows: list[dict]):
        x, y = _matrix(rows)
        self.mean = x.mean(axis=0)
        self.scale = np.where(x.std(axis=0) > 1e-9, x.std(axis=0), 1.0)
        positives = max(1.0, y.sum())
        balance = np.where(y == 1, (len(y) - positives) / positives, 1.0)  # each class weighs the same
        self.coef, self.intercept = logistic((x - self.mean) / self.scale, y, weights=balance / balance.mean())

    def scores(self, row: dict) -> np.ndarray:
        if not row["candidates"]:
            return np.zeros(0)
        x = np.array([c["features"] for c in row["candidates"]], dtype=np.float64)
        return ((x - self.mean) / self.scale) @ self.coef + self.intercept


def _matrix(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    x = [c["features"] for r in rows for c in r["candidates"]]
    y = [float(c["right"]) for r in rows for c in r["candidates"]]
    return np.array(x, dtype=np.float64).reshape(-1, len(FEATURES)), np.array(y)


def best_of(row: dict, scores: np.ndarray) -> dict:
    """The question's best candidate by the scores (each value once), its margin, and whether it is right."""
    order = np.argsort(-scores, kind="stable")
    seen, ranked = set(), []
    for i in order:
        key = value_key(row["candidates"][i]["value"])
        if key not in seen:
            seen.add(key)
            ranked.append(i)
    if not ranked:
        return {"qid": row["qid"], "value": "", "score": -10.0, "margin": 0.0, "rules": 0.0, "right": False}
    top = ranked[0]
    margin = scores[top] - scores[ranked[1]] if len(ranked) > 1 else NO_RUNNER_UP
    return {"qid": row["qid"], "value": row["candidates"][top]["value"], "score": float(scores[top]),
            "margin": float(margin), "rules": float(row["candidates"][top]["features"][RULES]),
            "right": bool(row["candidates"][top]["right"])}


def held_out(rows: list[dict], measured: list[dict] = ()) -> list[dict]:
    """Each question's best candidate (of `rows`, then of `measured`, questions never trained on) as scored by a
    ranker trained on the other folds' `rows`: one that never saw its document."""
    results = {}
    for fold in range(FOLDS):
        ranker = Ranker([r for r in rows if fold_of(r["doc"]) != fold])
        for row in [*rows, *measured]:
            if fold_of(row["doc"]) == fold:
                results[row["qid"]] = {**best_of(row, ranker.scores(row)), "fold": fold}
    return [results[r["qid"]] for r in [*rows, *measured]]


def calibrate(best: list[dict]) -> tuple[float, float, float, float]:
    """Platt's calibration of (best score, margin over the runner-up, the rules' verdict). A higher score or a wider
    margin never makes an answer less likely: one the fit weighs below zero is left out and the rest fitted again."""
    x = np.array([[b["score"], b["margin"], b["rules"]] for b in best])
    y = np.array([float(b["right"]) for b in best])
    kept = [0, 1, 2]
    while True:
        coefficients, c = logistic(x[:, kept], y, l2=1e-3)
        weights = dict(zip(kept, (float(v) for v in coefficients)))
        falling = [i for i in (0, 1) if weights.get(i, 0.0) < 0]
        if not falling:
            return weights.get(0, 0.0), weights.get(1, 0.0), weights.get(2, 0.0), float(c)
        kept.remove(falling[0])


def probabilities(best: list[dict], calibration: tuple[float, ...]) -> np.ndarray:
    a, b, r, c = calibration
    z = np.array([a * x["score"] + b * x["margin"] + r * x["rules"] + c for x in best])
    return 1.0 / (1.0 + np.exp(-z))


def threshold_for(probability: np.ndarray, right: np.ndarray, precision: float = PRECISION) -> float:
    """The least probability whose answers at or above it are right `precision` of the time (MIN_ANSWERED of
    them at least); 1.0 when none is."""
    order = np.argsort(-probability, kind="stable")
    hits = np.cumsum(right[order])
    counts = np.arange(1, len(order) + 1)
    ok = (hits / counts >= precision) & (counts >= MIN_ANSWERED)
    # the lowest threshold whose cumulative precision holds, and also at every lower count from there down to
    # MIN_ANSWERED is not required: the cut is where the last count that holds ends
    if not ok.any():
        return 1.0
    last = int(np.nonzero(ok)[0].max())
    return float(probability[order][last])


def training_rows(rows: list[dict] | None = None) -> list[dict]:
    """The questions the scorer learns from: the written ones and facts.jsonl (not those measured apart)."""
    return [r for r in (data.read_candidates() if rows is None else rows) if r["set"] not in data.MEASURED_ONLY]


def weights_json() -> dict:
    rows = training_rows()
    best = held_out(rows)
    calibration = calibrate(best)
    probability = probabilities(best, calibration)
    threshold = threshold_for(probability, np.array([b["right"] for b in best], dtype=float))
    ranker = Ranker(rows)
    return {
        "trained_on": {"candidates": str(data.CANDIDATES.relative_to(data.REPO)), "sha256_16": data.digest(),
                       "questions": len(rows), "documents": len({r["doc"] for r in rows}),
                       "script": "benchmarks/reader/train.py"},
        "features": list(FEATURES),
        "mean": [round(v, 6) for v in ranker.mean], "scale": [round(v, 6) for v in ranker.scale],
        "coef": [round(v, 6) for v in ranker.coef], "intercept": round(ranker.intercept, 6),
        "calibration": [round(v, 6) for v in calibration], "threshold": round(threshold, 6),
        "precision_target": PRECISION, "folds": FOLDS,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the shipped file instead of writing it")
    args = ap.parse_args()
    made = weights_json()
    if args.check:
        shipped = json.loads(WEIGHTS.read_text(encoding="utf-8"))
        shipped.pop("commit", None)
        return 0 if shipped == made else 1
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=data.REPO).stdout.strip()
    WEIGHTS.write_text(json.dumps({**made, "commit": commit}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {WEIGHTS} (threshold {made['threshold']:.3f}, {made['trained_on']['questions']} questions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
