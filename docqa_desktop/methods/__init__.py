"""Answering methods as plug-ins: each is one module with a class implementing base.Method."""
from __future__ import annotations

import time

from ..answers import AnswerStatus
from ..llm import ModelError
from .base import Cancelled, Method, MethodContext
from .m3docrag import M3DocRag
from .simpledoc import SimpleDoc

METHODS: dict[str, type] = {m.name: m for m in (SimpleDoc, M3DocRag)}


def run_method(name: str, ctx: MethodContext) -> None:
    """Run a method on ctx.answer: failures and Stop end up in the answer's status, not as exceptions."""
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; choose one of {', '.join(METHODS)}")
    started = time.perf_counter()
    try:
        method: Method = METHODS[name]()
        method.run(ctx)
    except Cancelled:
        ctx.answer.status, ctx.answer.text = AnswerStatus.CANCELLED, "Stopped before an answer was found."
    except ModelError as exc:
        ctx.answer.status, ctx.answer.error = AnswerStatus.FAILED, str(exc)
        ctx.answer.text = f"The model failed: {exc}"
    ctx.answer.seconds = time.perf_counter() - started
    if ctx.gone:
        ctx.answer.notes.append("Skipped pages whose document was removed while answering: "
                                + ", ".join(f"{p.doc} p.{p.page}" for p in ctx.gone))
