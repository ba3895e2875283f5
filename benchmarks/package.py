"""The Linux package (packaging/installer/bundle.py): its size on disk, part by part, its .tar.gz, and how long the
packaged app's self-test takes in a clean environment (env -i, a new HOME) under Xvfb.

    .venv/bin/python benchmarks/package.py [--out results/package.json]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

BUNDLE = _common.REPO / "packaging" / "installer" / "bundle.py"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="docqa-package-") as tmp:
        started = time.perf_counter()
        built = subprocess.run([sys.executable, str(BUNDLE), "--out", tmp], capture_output=True, text=True, check=True)
        build_s = time.perf_counter() - started
        launcher = Path(built.stdout.strip().splitlines()[-1])
        sizes = json.loads((launcher.parent / "SIZES.json").read_text())
        archive_mb = round(next(Path(tmp).glob("*.tar.gz")).stat().st_size / 1e6, 1)
        home = Path(tmp) / "home"
        home.mkdir()
        command = (f'exec env -i HOME="{home}" PATH=/usr/bin:/bin LANG=C.UTF-8 DISPLAY="$DISPLAY" '
                   f'XAUTHORITY="$XAUTHORITY" "{launcher}" --selftest --screenshot "{home}/selftest.png"')
        started = time.perf_counter()
        selftest = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1366x768x24", "sh", "-c", command],
                                  capture_output=True, text=True, cwd=home)
        selftest_s = time.perf_counter() - started
    data = {"environment": _common.environment(), "build_s": round(build_s, 1),
            "archive_mb": archive_mb, **sizes,
            "selftest": {"exit": selftest.returncode, "seconds": round(selftest_s, 1),
                         "said": selftest.stdout.strip().splitlines()}}
    path = _common.write_json(data, args.out, "package.json")
    print(f"unpacked {sizes['total_mb']} MB, archive {data['archive_mb']} MB, built in {build_s:.0f} s; self-test "
          f"exit {selftest.returncode} in {selftest_s:.0f} s -> {path}")
    return selftest.returncode


if __name__ == "__main__":
    raise SystemExit(main())
