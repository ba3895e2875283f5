"""ui/driving.py, which the packaged app's self-test and docs/screenshots.py drive the window with: a task that
fails stops the wait at once, naming the task, instead of after the wait's timeout."""
from __future__ import annotations

import time

import pytest

from docqa_desktop.ui import driving
from docqa_desktop.ui.tasks import TaskRunner


def test_a_failed_task_stops_the_wait_at_once(qapp):
    runner = TaskRunner()
    driving.FAILURES.messages.clear()

    def broken(progress, cancel):
        raise OSError("libgomp.so.1: cannot open shared object file")

    runner.start("models", broken)
    started = time.monotonic()
    try:
        with pytest.raises(driving.TaskFailed, match=r"task models failed: libgomp.so.1.*while waiting for an answer"):
            driving.wait_until(qapp, lambda: False, 60, "an answer")
    finally:
        driving.FAILURES.messages.clear()
        runner.shutdown()
    assert time.monotonic() - started < 30
