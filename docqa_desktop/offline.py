"""Nothing leaves the machine unless the user asks: the offline switches of every library the product loads.

Set here, once, when the package is imported (docqa_desktop/__init__.py does it first), so that every process —
the CLI, the app, the parser and embedding workers (spawned: they import the package and inherit the
environment) — has them before any of those libraries is loaded. A variable the user set keeps the user's value.
tests/test_network_guard.py runs every command and the app under strace and fails on any connection attempt.
"""
from __future__ import annotations

import os
from contextlib import contextmanager

SWITCHES = {
    # onnxruntime 1.32 (the layout model and OCR) carries a 1DS telemetry client whose uploader thread resolves
    # mobile.events.data.microsoft.com every few seconds once a session exists; disable_telemetry_events()
    # does not stop the look-ups (measured), this variable does.
    "ORT_DISABLE_TELEMETRY": "1",
    # Hugging Face hub / transformers (ColQwen2.5 through colpali-engine): models load from local folders and must
    # never ask the hub for a newer revision; a download the user asks for lifts this for its own duration.
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",  # also the hub's agent-detection look-up when it first builds headers
    # the cross-tool "no analytics" convention (Gradio, Hugging Face libraries, many CLIs)
    "DO_NOT_TRACK": "1",
}

# The switches this package set itself rather than the user, named for the processes that inherit them (workers,
# a `docqa` started from the app or a test run), so that they too tell our defaults from the user's choice.
SET_BY_DOCQA = "DOCQA_OFFLINE_DEFAULTS"


def _ours() -> set[str]:
    return {name for name in os.environ.get(SET_BY_DOCQA, "").split(",") if name}


# what the user's own environment said, before our defaults: their HF_HUB_OFFLINE forbids even asked-for downloads
_USER_HUB_OFFLINE = any(name not in _ours() and os.environ.get(name, "").strip().upper() in ("1", "ON", "YES", "TRUE")
                        for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def apply() -> None:
    ours = _ours()
    for name, value in SWITCHES.items():
        if name not in os.environ:
            os.environ[name] = value
            ours.add(name)
    os.environ[SET_BY_DOCQA] = ",".join(sorted(ours))


def downloads_forbidden() -> bool:
    """True when the user switched the hub off themselves (our own switch does not forbid an asked-for pull)."""
    return _USER_HUB_OFFLINE


@contextmanager
def network_allowed():
    """For a download the user asked for: the hub's offline switch is lifted while it runs (unless the user set
    it), then restored. Process-wide for that time; what else runs meanwhile loads local folders only."""
    from huggingface_hub import constants

    saved = constants.HF_HUB_OFFLINE
    constants.HF_HUB_OFFLINE = downloads_forbidden()
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE = saved
