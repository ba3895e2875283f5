#!/usr/bin/env bash
# Set up (with test tools) and run the whole test suite.   bash packaging/run-tests.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/setup.sh test
export QT_QPA_PLATFORM=offscreen  # offline switches: the product sets its own (docqa_desktop/offline.py)
exec .venv/bin/python -m pytest "$@"
