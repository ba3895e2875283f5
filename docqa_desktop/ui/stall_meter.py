"""Measures how long the GUI thread is kept from its event loop: a timer that should fire every few
milliseconds records how late each tick arrives. Used by tests and benchmarks, not by the app."""
from __future__ import annotations

import statistics
import time

from PySide6.QtCore import QObject, QTimer


class StallMeter(QObject):
    def __init__(self, interval_ms: int = 5, parent: QObject | None = None):
        super().__init__(parent)
        self.interval = interval_ms / 1000
        self.gaps: list[float] = []  # seconds beyond the interval, one per tick
        self._last = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append(max(0.0, now - self._last - self.interval))
        self._last = now

    def summary(self) -> dict:
        gaps_ms = sorted(g * 1000 for g in self.gaps) or [0.0]
        return {"ticks": len(self.gaps), "longest_stall_ms": round(gaps_ms[-1], 1),
                "p99_stall_ms": round(gaps_ms[int(0.99 * (len(gaps_ms) - 1))], 1),
                "median_stall_ms": round(statistics.median(gaps_ms), 2)}
