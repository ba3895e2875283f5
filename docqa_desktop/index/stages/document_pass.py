"""The loop of a stage that reads whole documents in worker processes and stores each in one commit (the tables and
charts stages): documents in the order given, a worker task a document, progress a document at a time, a file that
fails named in the run's errors with what was read before the failure kept, and a stop at the cancel."""
from __future__ import annotations

import logging
from collections.abc import Callable

from ...progress import ProgressTracker
from ..pipeline import OrderedPool, Task
from .base import StageContext

log = logging.getLogger(__name__)


def read_documents(ctx: StageContext, name: str, phase: str, what: str, todo: list[tuple[int, int]],
                   paths: dict[int, str], task: Callable, args: list[tuple], failed: Callable[[str], object],
                   store: Callable[[int, object], bool]) -> int:
    """Run `task(*args[i])` for each document of `todo` ((doc_id, pages), in order) in the workers, and hand each
    result to `store(doc_id, result)`, which commits it and returns False to stop (cancelled mid-way). `what` names
    the work in a crashed or timed-out task's error ("reading tables crashed on this file"), `failed(error)` makes
    such a result; `name` is the stage, in the run's errors and timings. Returns the pages of the documents stored."""
    s = ctx.settings
    pool = OrderedPool(task, [Task(i, a) for i, a in enumerate(args)], min(s.workers, len(args)),  # a task a document
                       on_crash=lambda: failed(f"{what} crashed on this file"),
                       timeout=s.task_timeout_seconds,
                       on_timeout=lambda: failed(f"{what} took over {s.task_timeout_seconds:.0f} s"))
    progress = ProgressTracker(len(todo), sum(pages for _, pages in todo), ctx.progress, phase=phase)
    done = 0
    try:
        for i, (doc_id, pages) in enumerate(todo):
            if ctx.cancel.is_set():
                break
            progress.start_document(paths[doc_id])
            result = pool.result(i)
            ctx.add_time({name: result.seconds})
            if result.error:  # the document keeps what was read before the failure
                ctx.errors[paths[doc_id]] = f"{name}: {result.error}"
                log.warning("%s of %s: %s", name, paths[doc_id], result.error)
            if not store(doc_id, result):
                break
            done += pages
            progress.pages_parsed(pages)
            progress.finish_document()
    finally:
        pool.close(kill=ctx.cancel.is_set())
    return done
