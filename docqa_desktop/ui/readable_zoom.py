"""The page viewer's sizes: the pixels a page is rendered at for a zoom (the whole page in view at 100 %), and the
zoom at which a cited region reads — its words at least READABLE_POINTS tall on screen, the region still inside
the pane, and no larger than the renderer's pixel cap allows."""
from __future__ import annotations

from dataclasses import dataclass

from ..domain import BBox

READABLE_POINTS = 14.0  # the words' height on screen: a 10 pt font's words stand 13-14 pt tall in a text layer
PANE_MARGIN = 8  # logical pixels left around the whole page in view
MIN_SIDE = 200  # a pane squeezed smaller still renders the page this large
MAX_RENDER_PIXELS = 4000  # a side of the rendered page, in device pixels: past it the PNG costs more than it shows
ROOM_SLACK = 24  # logical pixels of the pane a zoomed region leaves free: a scroll bar and the highlight's margin


@dataclass(frozen=True)
class Pane:
    width: int  # the viewport, logical pixels
    height: int
    dpi: float  # the screen's logical dots per inch (72 points make an inch)
    device_ratio: float = 1.0  # device pixels per logical pixel

    def sides(self) -> tuple[int, int]:
        return max(self.width - PANE_MARGIN, MIN_SIDE), max(self.height - PANE_MARGIN, MIN_SIDE)


def render_size(pane: Pane, zoom: float) -> tuple[int, int]:
    """The device pixels the page is fitted into at `zoom` (1.0: the whole page in view)."""
    return tuple(int(min(side * pane.device_ratio * zoom, MAX_RENDER_PIXELS)) for side in pane.sides())


def readable_zoom(text_points: float, region: BBox, page_size: tuple[float, float], pane: Pane) -> float:
    """The zoom at which words `text_points` tall (PDF points) stand READABLE_POINTS tall on screen, lowered so
    the region (PDF points, on a page `page_size` points) still fits in the pane and the page stays within the
    renderer's cap. A zoom below 1.0 means the text reads with the whole page in view."""
    page_width, page_height = page_size
    width, height = pane.sides()
    whole = min(width / page_width, height / page_height)  # logical pixels per PDF point at zoom 1
    wanted = READABLE_POINTS * pane.dpi / 72 / (text_points * whole)
    x0, y0, x1, y1 = region
    fits = min((pane.width - ROOM_SLACK) / max((x1 - x0) * whole, 1),
               (pane.height - ROOM_SLACK) / max((y1 - y0) * whole, 1))
    renderable = MAX_RENDER_PIXELS / (max(width, height) * pane.device_ratio)
    return max(min(wanted, fits, renderable), 0.0)
