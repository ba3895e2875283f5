"""Measures how long the GUI thread is kept from its event loop: a timer that should fire every few
milliseconds records how late each tick arrives. Used by tests and benchmarks, not by the app."""
from __future__ import annotations

import statistics
import time

from PySide6.QtCore import QObject, QTimer


LONG_STALL = 0.050  # the target: a frame later than this is a visible hitch


class StallMeter(QObject):
    def __init__(self, interval_ms: int = 5, parent: QObject | None = None, label=lambda: ""):
        super().__init__(parent)
        self.interval = interval_ms / 1000
        self.gaps: list[float] = []  # seconds beyond the interval, one per tick
        self.label = label  # what the app was doing, noted with each long stall
        self.long_stalls: list[tuple[float, float, str]] = []  # (ms, seconds since start, label)
        self._started = 0.0
        self._last = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self._last = self._started = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        now = time.perf_counter()
        gap = max(0.0, now - self._last - self.interval)
        self.gaps.append(gap)
        if gap > LONG_STALL:
            self.long_stalls.append((round(gap * 1000, 1), round(now - self._started, 2), self.label()))
        self._last = now

    def summary(self) -> dict:
        gaps_ms = sorted(g * 1000 for g in self.gaps) or [0.0]
        return {"ticks": len(self.gaps), "longest_stall_ms": round(gaps_ms[-1], 1),
                "p99_stall_ms": round(gaps_ms[int(0.99 * (len(gaps_ms) - 1))], 1),
                "median_stall_ms": round(statistics.median(gaps_ms), 2),
                f"stalls_over_{LONG_STALL * 1000:.0f}_ms": len(self.long_stalls),
                "longest_stalls": sorted(self.long_stalls, reverse=True)[:10]}
