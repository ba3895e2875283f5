"""What every backend shares: argument checks, room for structured output, chat = one sample."""
from __future__ import annotations

import threading

from .types import Completion, Message, Options


class Backend:
    def chat(self, messages: list[Message], options: Options = Options(),
             cancel: threading.Event | None = None) -> Completion:
        return self.sample(messages, options, 1, cancel)[0]

    def sample(self, messages: list[Message], options: Options = Options(), n: int = 1,
               cancel: threading.Event | None = None) -> list[Completion]:
        """`n` completions of one prompt (n > 1 for self-consistency and answer sampling)."""
        if n < 1:
            raise ValueError("n must be at least 1")
        return self._sample(messages, options, n, cancel)

    def _sample(self, messages: list[Message], options: Options, n: int,
                cancel: threading.Event | None) -> list[Completion]:
        raise NotImplementedError
