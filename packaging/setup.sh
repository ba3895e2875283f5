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
# llama.cpp is compiled here (the package index has only its source; ~13-25 min on 2 cores, once:
# pip caches the wheel). Portable x86-64 flags instead of -march=native: the native build turns on
# AMX, whose matrix kernel segfaults on the reference VM (Xeon with AMX), and a native wheel would
# not run on an older CPU anyway.
if ! .venv/bin/python -c "import llama_cpp" 2>/dev/null; then
    CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DLLAMA_CURL=OFF}" \
        CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
        .venv/bin/python -m pip install --quiet "llama-cpp-python==0.3.36"
fi
extra=""
[ "${1:-}" = "test" ] && extra="[test]"
.venv/bin/python -m pip install --quiet -e ".${extra}"
# The desktop app also needs system libraries pip cannot install (those of Qt's X11 plugin): say which are
# missing, with the one apt-get / dnf command that installs them. The command line works without them.
if ! .venv/bin/python -m docqa_desktop.ui.system_libraries; then
    echo "setup: done; \`docqa gui\` will start once the libraries above are installed" >&2
fi
