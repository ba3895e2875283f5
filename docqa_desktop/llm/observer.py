"""Watches decoding step by step: entropy and log-probability of each token, and cancellation.

Runs as a llama.cpp logits processor, which sees the full next-token distribution before the grammar
and sampler narrow it: the entropy is that of the model's own belief (what Doc-React scores), not of
the constrained choice. This costs one softmax per step instead of `logits_all`'s n_ctx × n_vocab floats.
"""
from __future__ import annotations

import threading

import numpy as np


class TokenObserver:
    def __init__(self, measure: bool, cancel: threading.Event | None, first_tokens: dict[str, int] | None = None):
        self.measure = measure
        self.cancel = cancel
        self.first_tokens = first_tokens or {}  # {choice: its first token}: their probabilities at the first step
        self.choice_probabilities: dict[str, float] = {}
        self._first_step = True
        self.entropies: list[float] = []
        self.logprobs: list[float] = []
        self._last: np.ndarray | None = None  # log-softmax of the previous step
        self._seen = 0  # length of input_ids at the previous step
        self.cancelled = False  # this sample was stopped by cancellation

    def __call__(self, input_ids: np.ndarray, logits: np.ndarray) -> np.ndarray:
        if self._first_step:
            self._first_step = False
            if self.first_tokens:
                self._record_choices(np.asarray(logits, dtype=np.float64))
        if not self.measure:
            return logits
        self._record_chosen(input_ids)
        scores = np.asarray(logits, dtype=np.float64)
        top = scores.max()
        log_z = top + np.log(np.exp(scores - top).sum())
        log_p = scores - log_z
        self.entropies.append(float(-(np.exp(log_p) * log_p).sum()))
        self._last, self._seen = log_p, len(input_ids)
        return logits

    def _record_choices(self, scores: np.ndarray) -> None:
        """Each choice's share of the probability the first step gives all the choices' first tokens (choices
        that begin with the same token split its share)."""
        tokens = list(self.first_tokens.values())
        ids = sorted(set(tokens))
        picked = scores[ids]
        weights = np.exp(picked - picked.max())
        by_token = dict(zip(ids, weights / weights.sum()))
        self.choice_probabilities = {choice: float(by_token[token]) / tokens.count(token)
                                     for choice, token in self.first_tokens.items()}

    def _record_chosen(self, input_ids: np.ndarray) -> None:
        # The token chosen at the previous step is the one that entered input_ids since.
        if self._last is not None and len(input_ids) > self._seen:
            self.logprobs.append(float(self._last[int(input_ids[self._seen])]))

    def should_stop(self, input_ids, logits) -> bool:
        if self.cancel is not None and self.cancel.is_set():
            self.cancelled = True
        return self.cancelled


class TextStream:
    """Hands the text generated so far to `on_text` after each step (a llama.cpp stopping criterion that never
    stops). llama.cpp passes the tokens evaluated so far, so the text runs one token behind the sampler; the
    completion that follows has it all."""

    def __init__(self, detokenize, on_text):
        self._detokenize = detokenize
        self._on_text = on_text
        self._start: int | None = None  # where the output begins in input_ids (the prompt's length)
        self._shown = ""

    def __call__(self, input_ids, logits) -> bool:
        if self._start is None:
            self._start = len(input_ids)
        text = self._detokenize([int(t) for t in input_ids[self._start:]]).decode("utf-8", "ignore")
        if text != self._shown:
            self._shown = text
            self._on_text(text)
        return False
