#!/usr/bin/env bash
# Creates .venv/ in the project root and installs DocQA Desktop into it (idempotent).
#   bash packaging/setup.sh          # the app
#   bash packaging/setup.sh test     # the app + test tools
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# torch first and pinned: a package we depend on asks for torch, and an unpinned request
# pulls a multi-GB CUDA build where a CPU build is all this stage needs.
.venv/bin/python -m pip install --quiet "torch==2.13.0"
extra=""
[ "${1:-}" = "test" ] && extra="[test]"
.venv/bin/python -m pip install --quiet -e ".${extra}"
