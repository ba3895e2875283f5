"""What the parts of the GPU check share: the pack's paths, SMALL mode, a JSON written after every step (a part
killed by its time limit still leaves what it measured), and the import path (this checkout's docqa_desktop, the
carried wheels, the pymupdf stub where the real one is missing)."""
from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SMALL = os.environ.get("SMALL") == "1"


def use_checkout() -> str:
    """Import this checkout's docqa_desktop; returns how pymupdf is provided ("real" or "stub")."""
    sys.path.insert(0, str(REPO))
    try:
        if os.environ.get("FORCE_PYMUPDF_STUB") == "1":  # the GPU machine's situation, on a machine that has it
            raise ImportError("forced")
        import pymupdf  # noqa: F401
        return "real"
    except ImportError:
        sys.path.insert(0, str(Path(__file__).resolve().parent / "stub"))
        return "stub"


class Record:
    """A part's JSON: each step's seconds, its errors with their traces, and whatever the step put in `data`."""

    def __init__(self, out: Path, name: str):
        self.out, self.name, self.t0 = Path(out), name, time.monotonic()
        self.data: dict = {"small": SMALL, "steps": {}, "errors": []}

    def log(self, *args) -> None:
        print(f"[{self.name} {time.monotonic() - self.t0:6.1f}s]", *args, flush=True)

    def save(self) -> None:
        self.data["elapsed_s"] = round(time.monotonic() - self.t0, 1)
        self.out.write_text(json.dumps(self.data, indent=1, default=str))

    def step(self, label: str, fn, *args, **kwargs):
        """Run one step; a failure is recorded and returns None, so the next step still runs."""
        started = time.monotonic()
        try:
            value = fn(*args, **kwargs)
            self.data["steps"][label] = round(time.monotonic() - started, 2)
            return value
        except Exception as exc:  # noqa: BLE001 -- every failure goes into the JSON
            self.data["errors"].append({"step": label, "error": f"{type(exc).__name__}: {exc}"[:2000],
                                        "trace": traceback.format_exc()[-4000:]})
            self.log(f"{label} FAILED: {type(exc).__name__}: {exc}")
            return None
        finally:
            self.save()
