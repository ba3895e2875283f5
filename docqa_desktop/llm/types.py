"""What goes into a model call and what comes back, independent of the backend."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import ModelError


@dataclass(frozen=True)
class Message:
    role: str  # system | user | assistant
    text: str
    images: tuple[bytes, ...] = ()  # PNG/JPEG bytes of page images, for vision models


@dataclass(frozen=True)
class Options:
    max_tokens: int = 256
    temperature: float = 0.0
    seed: int | None = None  # a seeded call gives the same output every time on the same backend
    schema: dict | None = None  # JSON schema: decoding is constrained and the output parsed
    grammar: str | None = None  # GBNF: decoding is constrained to it, the output left as text (not with schema)
    # the replies the grammar allows begin with one of these: the completion gives each one's probability at the
    # first step (its first token's, renormalised over them), the model's margin between the choices it had
    choices: tuple[str, ...] = ()
    logprobs: bool = False  # per-token log-probabilities and entropies of the output
    repeat_penalty: float = 1.0  # > 1 discourages loops in free text; keep 1.0 for JSON (it repeats quotes)
    # called with the whole text generated so far as it grows (streaming; one-sample calls only)
    on_text: Callable[[str], None] | None = field(default=None, compare=False, repr=False)
    # called with the number of samples finished, after each one (a call of several samples takes minutes on a CPU)
    on_sample: Callable[[int], None] | None = field(default=None, compare=False, repr=False)


@dataclass
class Usage:
    prompt_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    cached_tokens: int = 0  # prompt tokens llama.cpp took from its cache (the prefix shared with the last call)


@dataclass
class Completion:
    text: str
    finish_reason: str  # stop | length | cancelled
    usage: Usage
    parsed: Any = None  # the JSON value when Options.schema was given
    token_logprobs: list[float] = field(default_factory=list)
    token_entropies: list[float] = field(default_factory=list)  # nats, one per sampling step
    choice_probabilities: dict[str, float] = field(default_factory=dict)  # Options.choices: {choice: p}, sum 1

    @property
    def mean_entropy(self) -> float:
        return sum(self.token_entropies) / len(self.token_entropies) if self.token_entropies else 0.0


@dataclass(frozen=True)
class ModelInfo:
    name: str
    backend: str  # local | remote
    context: int  # tokens
    vision: bool
    path: str = ""  # model file, or server URL


class PromptTooLong(ModelError):
    """The prompt (plus room for the answer) does not fit the model's context window."""


class InvalidOutput(ModelError):
    """The model's output is not the JSON the call asked for, even after repair."""
