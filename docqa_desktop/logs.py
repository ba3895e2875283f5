"""One rotating log file under the log folder: what ran, what failed and why (never document text)."""
from __future__ import annotations

import logging
import logging.handlers

from .settings import Locations


def configure(locations: Locations, level: int = logging.INFO) -> None:
    locations.log_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(locations.log_dir / "docqa.log", maxBytes=2_000_000,
                                                   backupCount=3, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("docqa_desktop")
    root.setLevel(level)
    root.handlers[:] = [handler]
