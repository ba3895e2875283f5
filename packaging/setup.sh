#!/usr/bin/env bash
# Creates .venv/ in the project root and installs DocQA Desktop into it (idempotent).
#   bash packaging/setup.sh          # the app
#   bash packaging/setup.sh test     # the app + test tools
#   bash packaging/setup.sh gpu      # the app with the CUDA builds of torch, llama.cpp and onnxruntime
#   bash packaging/setup.sh gpu --dry-run   # only check, and print the commands it would run
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
mode=${1:-}
if [ "$mode" = gpu ]; then
    # everything is checked before anything is installed: a machine that lacks a piece is told which, unchanged
    gpu_plan=$("$PYTHON" packaging/gpu_setup.py --python .venv/bin/python --folder .) || exit $?
    if [ "${2:-}" = --dry-run ]; then
        echo "$gpu_plan"
        exit 0
    fi
fi
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# torch first and pinned: a package we depend on asks for torch, and an unpinned request
# pulls a multi-GB CUDA build where a CPU build is all this stage needs.
run_plan() {  # the lines of the gpu plan on stdin, each shown before it runs
    while IFS= read -r command; do
        echo "setup gpu: $command"
        bash -euo pipefail -c "$command"
    done
}
if [ "$mode" = gpu ]; then
    # CUDA torch and the CUDA build of llama.cpp before the app asks for them (packaging/gpu_setup.py's plan)
    head -2 <<< "$gpu_plan" | run_plan
else
    .venv/bin/python -m pip install --quiet "torch==2.13.0"
fi
# llama.cpp is compiled here (the package index has only its source; ~13-25 min on 2 cores, once:
# pip caches the wheel). Portable x86-64 flags instead of -march=native: the native build turns on
# AMX, whose matrix kernel segfaults on the reference VM (Xeon with AMX), and a native wheel would
# not run on an older CPU anyway.
# (gpu mode built it with CUDA above)
if [ "$mode" != gpu ] && ! .venv/bin/python -c "import llama_cpp" 2>/dev/null; then
    CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DLLAMA_CURL=OFF}" \
        CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
        .venv/bin/python -m pip install --quiet "llama-cpp-python==0.3.36"
fi
extra=""
[ "$mode" = "test" ] && extra="[test]"
.venv/bin/python -m pip install --quiet -e ".${extra}"
if [ "$mode" = gpu ]; then
    tail -n +3 <<< "$gpu_plan" | run_plan  # onnxruntime-gpu over the CPU onnxruntime the app pulled in
    .venv/bin/docqa models list | sed -n 1,2p  # the GPU found, and where each part now runs
fi
# What the tests run beside Python: strace (the network guard) and Xvfb (the packaged app's self-test). Root with
# apt-get installs them here, and says so; anyone else is told by the tests that need them.
if [ "$mode" = test ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    missing=$(for tool in strace:strace xvfb-run:xvfb; do command -v "${tool%%:*}" >/dev/null || echo "${tool#*:}"; done)
    if [ -n "$missing" ]; then
        echo "setup: installing the test prerequisites: apt-get install" $missing >&2
        apt-get install -y -qq $missing >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq $missing >/dev/null; } \
            || echo "setup: could not install $missing" >&2
    fi
fi
# The desktop app also needs system libraries pip cannot install (those of Qt's X11 plugin): as root with apt-get
# or dnf they are installed here (and said); otherwise the one command that installs them is printed. The command
# line works without them.
if ! .venv/bin/python -m docqa_desktop.ui.system_libraries --install; then
    echo "setup: done; \`docqa gui\` will start once the libraries above are installed" >&2
fi
