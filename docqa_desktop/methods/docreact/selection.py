"""Doc-React's selection rule (eq. 4, 6 and 7): among the candidate evidence sets Ω′ of a sub-query, the one with
the best ratio of estimated information gain to the model's uncertainty when extracting from it.

- Information gain, the InfoNCE lower bound of eq. (6): gain(S′) = log( exp f(S′) / mean over Ω′ of exp f ),
  with f the retrieval score of S′ for [question, sub-query] divided by `score_temperature`.
- Uncertainty: H(S′), the mean per-token entropy (nats) of the model's free-text extraction from S′.

The paper's ratio Δ = gain / H (eq. 4) inverts for a negative gain: dividing a negative gain by a larger entropy
brings it nearer zero, so the more uncertain of two below-average sets would win. And a negative gain is the
rule, not the exception: the exp of the gains average to 1 over Ω′, so unless every score is equal some gain is
below zero. So by default (`gain_numerator = "probability"`) the numerator is the softmax probability of S′
within Ω′, p(S′) = exp f(S′) / Σ exp f = exp(gain) / |Ω′|: positive, in the gains' order (for equal entropies
the higher gain wins), and a lower entropy always raises the score. `gain_numerator = "gain"` is the paper's
ratio as written.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

MIN_ENTROPY = 1e-3  # nats: an extraction the model is sure of token by token would otherwise divide by zero


@dataclass(frozen=True)
class Scored:
    retrieval: float  # the set's retrieval score before the temperature
    gain: float  # eq. (6), nats
    probability: float  # softmax of f within Ω′
    entropy: float  # mean per-token entropy of the extraction, nats
    score: float  # Δ(S′)


def information_gains(retrieval: Sequence[float], temperature: float) -> list[float]:
    """gain(S′) = f(S′) - log mean exp f over Ω′, with f = retrieval / temperature (eq. 6)."""
    f = [score / temperature for score in retrieval]
    top = max(f)
    log_mean_exp = top + math.log(sum(math.exp(x - top) for x in f) / len(f))
    return [x - log_mean_exp for x in f]


def score_sets(retrieval: Sequence[float], entropies: Sequence[float], temperature: float,
               numerator: str = "probability") -> list[Scored]:
    """Δ(S′) for every candidate set, in the order given."""
    gains = information_gains(retrieval, temperature)
    scored = []
    for score, gain, entropy in zip(retrieval, gains, entropies):
        probability = math.exp(gain) / len(gains)
        top = probability if numerator == "probability" else gain
        scored.append(Scored(score, gain, probability, entropy, top / max(entropy, MIN_ENTROPY)))
    return scored


def best(scored: Sequence[Scored]) -> int:
    """Eq. (7): the index of the set with the highest Δ (the earlier, better-retrieved one on a tie)."""
    return max(range(len(scored)), key=lambda i: (scored[i].score, -i))


def best_by_gain(scored: Sequence[Scored]) -> int:
    """The set the gain alone would choose (what the entropy term is measured against)."""
    return max(range(len(scored)), key=lambda i: (scored[i].gain, -i))
