"""Outbound connection attempts of `docqa index` + `docqa ask` on the sample PDFs, watched with strace -f.

    .venv/bin/python benchmarks/network_guard.py [--json]

Two runs in scratch homes: the product as shipped, and a control with onnxruntime's telemetry switched back on
(ORT_DISABLE_TELEMETRY=0, i.e. the product before docqa_desktop/offline.py), which shows the watch is not blind.
Writes benchmarks/results/network_guard.json. tests/test_network_guard.py checks every command and the app.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

sys.path.insert(0, str(_common.REPO / "tests"))
from strace_log import outbound, traced  # noqa: E402

DOCQA = str(Path(sys.executable).with_name("docqa"))
SAMPLES = _common.REPO / "resources" / "samples"
QUESTION = "How many megawatts does the harbour solar plant produce?"
RUNS = {"as shipped": {}, "control: onnxruntime telemetry on": {"ORT_DISABLE_TELEMETRY": "0"}}


def attempts_of(env_changes: dict, work: Path) -> dict:
    home, folder = work / "home", work / "library"
    shutil.copytree(SAMPLES, folder)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCQA_", "HF_", "TRANSFORMERS_", "ORT_"))}
    env.update(env_changes, DOCQA_ASK_K="2", DOCQA_ASK_ITERATIONS="1", DOCQA_ASK_MAX_PAGES="1")
    figures = {}
    for name, args in (("index", ["index", str(folder), "--no-progress"]),
                       ("ask", ["ask", QUESTION, "--method", "m3docrag"])):
        log = work / f"{name}.strace"
        started = time.monotonic()
        done = subprocess.run(traced(shutil.which("strace"), log, [DOCQA, "--home", str(home), *args]),
                              env=env, capture_output=True, text=True)
        denied, _ = outbound(log)
        figures[name] = {"exit": done.returncode, "seconds": round(time.monotonic() - started, 1),
                         "outbound_attempts": len(denied), "dns_queries": sum(":53 " in d for d in denied),
                         "examples": denied[:3]}
    return figures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    ap.add_argument("--out", help="result file (default benchmarks/results/network_guard.json)")
    args = ap.parse_args()
    if shutil.which("strace") is None:
        sys.exit("strace is not installed (Debian/Ubuntu: apt-get install strace)")
    runs = {}
    for label, env_changes in RUNS.items():
        with tempfile.TemporaryDirectory(prefix="docqa-network-") as work:
            runs[label] = attempts_of(env_changes, Path(work))
            print(f"{label}: {json.dumps({k: v['outbound_attempts'] for k, v in runs[label].items()})}",
                  file=sys.stderr)
    result = {"date": time.strftime("%Y-%m-%d"), "runs": runs, "environment": _common.environment()}
    path = _common.write_json(result, args.out, "network_guard.json")
    print(json.dumps(result["runs"]) if args.json else f"written {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
