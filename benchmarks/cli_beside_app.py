"""`docqa` commands with the app closed (the process opens the library itself) and with the app open (the app runs
them, cli/app_link.py): wall time per command, median of a few runs, on a home holding the two samples.

    .venv/bin/python benchmarks/cli_beside_app.py [--runs 5] [--out results/cli_beside_app.json]
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

from docqa_desktop.host import command_address  # noqa: E402
from docqa_desktop.settings import Settings  # noqa: E402

SAMPLES = _common.REPO / "resources" / "samples"
COMMANDS = {"status": ["status", "--json"], "search": ["search", "last ferry Gull Island", "--json"],
            "ask": ["ask", "When does the last ferry to Gull Island leave?", "--json"]}
APP_START_SECONDS = 180


def docqa(home: Path, argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "docqa_desktop", *argv, "--home", str(home)], check=True,
                   capture_output=True, text=True)
    return time.perf_counter() - started


def timings(home: Path, runs: int) -> dict[str, float]:
    return {name: round(statistics.median(docqa(home, argv) for _ in range(runs)), 2)
            for name, argv in COMMANDS.items()}


def open_app(home: Path) -> tuple[subprocess.Popen, float]:
    """The app, offscreen, once it listens; and how long that took from its start."""
    started = time.perf_counter()
    app = subprocess.Popen([sys.executable, "-m", "docqa_desktop", "gui", "--home", str(home)],
                           env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    socket = Path(command_address(Settings.load(home).locations.data_dir)[0])
    while not socket.exists():
        if app.poll() is not None or time.perf_counter() - started > APP_START_SECONDS:
            app.kill()
            raise SystemExit("the app did not start listening")
        time.sleep(0.1)
    return app, time.perf_counter() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="docqa-beside-") as tmp:
        home, folder = Path(tmp) / "home", Path(tmp) / "samples"
        shutil.copytree(SAMPLES, folder)
        docqa(home, ["index", str(folder)])
        closed = timings(home, args.runs)
        app, listening_s = open_app(home)
        try:
            served = timings(home, args.runs)
        finally:
            app.send_signal(signal.SIGTERM)
            app.wait(timeout=120)
    data = {"environment": _common.environment(), "runs": args.runs, "app_listening_s": round(listening_s, 1),
            "closed_s": closed, "served_s": served}
    path = _common.write_json(data, args.out, "cli_beside_app.json")
    print(f"median s, app closed / open: " + ", ".join(f"{n} {closed[n]} / {served[n]}" for n in COMMANDS)
          + f"; the app listened {listening_s:.1f} s after its start -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
