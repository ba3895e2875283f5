#!/usr/bin/env bash
# Set up (with test tools) and run the test suite.
#   bash packaging/run-tests.sh [pytest args]          # everything (what CI runs: .ci/run)
#   bash packaging/run-tests.sh --fast [pytest args]   # only the tests marked neither slow, model nor gui
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
for arg in "$@"; do
    if [ "$arg" = "--fast" ]; then
        args=(-m "not slow and not model and not gui" ${args[@]+"${args[@]}"})
    else
        args+=("$arg")
    fi
done
bash packaging/setup.sh test
export QT_QPA_PLATFORM=offscreen  # offline switches: the product sets its own (docqa_desktop/offline.py)
# One test process per core, up to 4 (pytest-xdist), a test file's tests in one process (its module fixtures, e.g.
# an indexed library, are built once). Most slow tests run llama.cpp or OCR on one thread: on 2 cores the suite
# takes ~30 minutes instead of ~50. `-n 0` after these runs everything in this process.
workers=$(nproc)
[ "$workers" -gt 4 ] && workers=4
exec .venv/bin/python -m pytest -n "$workers" --dist loadfile ${args[@]+"${args[@]}"}
