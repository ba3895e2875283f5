"""A chart's two directions as one: every box turned into (along, across), where `along` grows with the value
(rightwards for bars across, upwards for bars up), so that bars, dots and line points of either orientation are
read by the same code; and the value axis's scale from its tick labels.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..domain import BBox
from .chart_marks import Piece

MIN_TICKS = 2
TICK_FIT = 0.02  # the most a tick may stand off the line through the others, as a share of the axis's span


@dataclass(frozen=True)
class Frame:
    across_bars: bool  # bars across (categories down the left) rather than bars up

    def along(self, box: BBox) -> tuple[float, float]:
        """The box's extent along the value axis, low end first."""
        return (box[0], box[2]) if self.across_bars else (-box[3], -box[1])

    def across(self, box: BBox) -> tuple[float, float]:
        return (box[1], box[3]) if self.across_bars else (box[0], box[2])

    def along_point(self, x: float, y: float) -> float:
        return x if self.across_bars else -y

    def across_point(self, x: float, y: float) -> float:
        return y if self.across_bars else x


@dataclass(frozen=True)
class Scale:
    """value = slope × along + offset, from the tick labels; `span` the axis's value range."""
    slope: float
    offset: float
    span: float

    def value(self, along: float) -> float:
        return self.slope * along + self.offset


def axis_scale(frame: Frame, ticks: list[Piece]) -> Scale | None:
    """The linear scale the value axis's tick labels give, when at least MIN_TICKS of them stand on one line;
    None when they do not (a log axis, labels that are no ticks)."""
    points = sorted({(round(frame.along_point(*t.centre), 2), t.number) for t in ticks if t.number is not None})
    if len(points) < MIN_TICKS or len({v for _, v in points}) < MIN_TICKS:
        return None
    n = len(points)
    mean_a = sum(a for a, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    spread = sum((a - mean_a) ** 2 for a, _ in points)
    if spread == 0:
        return None
    slope = sum((a - mean_a) * (v - mean_v) for a, v in points) / spread
    offset = mean_v - slope * mean_a
    values = [v for _, v in points]
    span = max(values) - min(values)
    if slope <= 0 or any(abs(slope * a + offset - v) > TICK_FIT * span for a, v in points):
        return None
    return Scale(slope, offset, span)
