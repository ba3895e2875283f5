#!/usr/bin/env bash
# The main job on built-in defaults: set up, index a folder of PDFs (the bundled samples by
# default), search it, show the language models, and answer a question with citations on the
# built-in model, then open the desktop app on it when there is a display.
#   bash packaging/run-demo.sh [--gpu] [FOLDER] [QUESTION]     (--gpu: set up with the CUDA builds, setup.sh gpu)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --gpu ]; then
    shift
    bash packaging/setup.sh gpu
else
    bash packaging/setup.sh
fi
folder=${1:-resources/samples}
query=${2:-"When does the last ferry to Gull Island leave?"}
export DOCQA_HOME=${DOCQA_HOME:-"$PWD/.docqa-demo"}
.venv/bin/docqa index "$folder"
.venv/bin/docqa status
echo
echo "search: $query"
.venv/bin/docqa search "$query" --k 5
echo
.venv/bin/docqa models list
echo
echo "ask: $query"
.venv/bin/docqa ask "$query"
# then the desktop app on the same library, when there is a screen to show it on
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" || "$(uname)" == Darwin ]] && [[ "${DOCQA_DEMO_GUI:-1}" != 0 ]]; then
    echo
    echo "opening the desktop app (DOCQA_DEMO_GUI=0 skips this)"
    .venv/bin/docqa gui "$folder"
fi
