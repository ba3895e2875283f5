"""A read off the GUI thread that may be asked for at any rate (on every step of a running question, say): one
runs at a time, and requests while it runs make one more run after it, so what is shown last is never older than
the last request and a burst of requests costs two reads."""
from __future__ import annotations

from typing import Any, Callable

from .tasks import TaskRunner


class CoalescedRead:
    def __init__(self, tasks: TaskRunner, name: str, read: Callable[[], Any], show: Callable[[Any], None]):
        self.tasks, self.name, self.read, self.show = tasks, name, read, show
        self.running = False
        self.again = False  # asked for while running

    def request(self) -> None:
        if self.running:
            self.again = True
            return
        self.running, self.again = True, False
        self.tasks.start(self.name, lambda progress, cancel: self.read(), self.show, on_finished=self._ended)

    def _ended(self) -> None:
        self.running = False
        if self.again:
            self.request()
