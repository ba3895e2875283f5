"""Tasks on a pool of worker processes, handed back in submission order with a bounded look-ahead."""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

from .parse_task import init_worker


@dataclass(frozen=True)
class Task:
    job: int  # the unit that fails or is skipped as a whole (a document, a batch)
    args: tuple


class OrderedPool:
    def __init__(self, fn: Callable, tasks: Sequence[Task], workers: int, on_crash: Callable[[], Any],
                 timeout: float | None = None, on_timeout: Callable[[], Any] | None = None):
        self.fn = fn
        self.tasks = tasks
        self.workers = max(1, workers)
        self.window = self.workers * 2  # results held at once: memory stays bounded on huge PDFs
        self.on_crash = on_crash  # the result to report for a task whose worker died
        # A native library stuck in a loop would hold its worker, and the run, forever. Waiting for a task
        # starts once the one before it is back, so the limit covers its run plus at most one task's queueing.
        self.timeout = timeout
        self.on_timeout = on_timeout or on_crash
        self._next = 0
        self._inflight: dict[int, Future] = {}
        self._skipped_jobs: set[int] = set()
        self._pool: ProcessPoolExecutor | None = None

    def _start_pool(self) -> ProcessPoolExecutor:
        # single-threaded workers, so that N workers use N cores and no more
        saved = {v: os.environ.get(v) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
        os.environ.update({v: "1" for v in saved})
        try:
            pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=init_worker,
                                       initargs=(max(1, (os.cpu_count() or 1) // self.workers),))
            pool.submit(int).result()  # start the workers now, while the environment is set
        finally:
            for var, value in saved.items():
                if value is None:
                    os.environ.pop(var, None)
                else:
                    os.environ[var] = value
        return pool

    def _fill(self) -> None:
        if self._pool is None:
            self._pool = self._start_pool()
        while self._next < len(self.tasks) and len(self._inflight) < self.window:
            if self.tasks[self._next].job not in self._skipped_jobs:
                try:
                    self._inflight[self._next] = self._submit(self._next)
                except BrokenProcessPool:
                    # broken by a task already running: its future says so when its result is asked for,
                    # and result() then finds the culprit; resubmitting here could feed it the pool again
                    return
            self._next += 1

    def _submit(self, index: int) -> Future:
        try:
            return self._pool.submit(self.fn, *self.tasks[index].args)
        except OSError:
            # A submit may start a worker process. When another worker dies at that moment, the pool marks
            # itself broken and closes its queues under us, and the start fails on a closed pipe ("handle is
            # closed"): a broken pool, not an I/O error. Asking the pool again says which.
            self._pool.submit(int)  # raises BrokenProcessPool if broken
            raise

    def _reset_pool(self) -> None:
        """A fresh pool; tasks the broken one owed are submitted again, lazily and in order."""
        owed = list(self._inflight)
        self._next = min(owed + [self._next])
        self._inflight.clear()
        self._shutdown(kill=True)
        self._pool = self._start_pool()

    def result(self, index: int):
        """The result of task `index`; callers ask in order."""
        self._fill()
        future = self._inflight.pop(index, None)
        if future is None:  # the pool broke before this task could be submitted
            return self._retry_alone(index)
        try:
            return future.result(timeout=self.timeout)
        except BrokenProcessPool:
            return self._retry_alone(index)
        except TimeoutError:
            return self._give_up(index)

    def _retry_alone(self, index: int):
        """A worker died and every pending task saw it: run this task by itself on a fresh pool
        before blaming it (the others follow later)."""
        self._reset_pool()
        self._next = max(self._next, index + 1)  # this task is not owed again
        try:
            return self._submit(index).result(timeout=self.timeout)
        except BrokenProcessPool:
            self._reset_pool()
            return self.on_crash()
        except TimeoutError:
            return self._give_up(index)

    def _give_up(self, index: int):
        """A task past its time is not retried (that would cost the same wait again): its stuck worker goes
        with the pool, and the tasks the other workers held are submitted again."""
        self._reset_pool()
        self._next = max(self._next, index + 1)
        return self.on_timeout()

    def skip_job(self, job: int) -> None:
        """Drop the remaining tasks of a job that failed or was abandoned."""
        self._skipped_jobs.add(job)
        for index in [i for i in self._inflight if self.tasks[i].job == job]:
            self._inflight.pop(index).cancel()

    def _shutdown(self, kill: bool) -> None:
        if self._pool is None:
            return
        results = getattr(self._pool, "_result_queue", None)
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        if kill:  # cancellation should not wait for a long OCR page to finish
            for process in processes:
                process.terminate()
        self._pool.shutdown(wait=not kill, cancel_futures=True)
        self._pool = None
        if kill:
            _unblock_result_reader(processes, results)

    def close(self, kill: bool = False) -> None:
        self._shutdown(kill)


def _unblock_result_reader(processes, results) -> None:
    """A worker killed while it was sending a result leaves half a message in the result pipe; the pool's manager
    thread then waits for the rest forever, and interpreter exit waits for that thread (CI hung an hour on it).
    Once the workers are gone, closing the pipe's last write end (ours) makes that read end in EOF instead."""
    for process in processes:
        process.join(5)
        if process.is_alive():
            process.kill()
            process.join(5)
    writer = getattr(results, "_writer", None)
    if writer is not None:
        writer.close()
