#!/bin/bash
# The GPU check, on a GPU machine without network, in one call of at most 8 minutes:
#     bash benchmarks/gpu_check/run.sh PACK          (PACK from prepare.py; writes $OUT/gpu_check.json)
# Each part is measured while nothing else runs on the machine (issue 47: a llama.cpp compile beside the page
# embedder cut it by a third), each with its own time limit inside the whole (TOTAL_S), each writing what it finished:
#   0  the carried wheels into a private folder; the machine (nvidia-smi, versions, the CPU model)
#   1  the page embedder and the visual stage, alone (embed_check.py; its budgets 768, 256, then 1024: the last is
#      dropped first when time runs short)
#   2  MiniLM chunk embeddings on CUDA, alone (text_check.py)
#   3  llama-cpp-python built from the stripped sdist with CUDA for this GPU's compute capability (every core), with
#      the random Qwen2.5-7B-architecture F16 GGUF written beside it (llama_check.py gguf): neither is measured
#   4  once the build is done: Q4_K_M, prompt / generation tokens/s, seconds per question per method (llama_check.py)
#   5  merge.py: one JSON, which says per part what ran beside it
# SMALL=1 runs the same on a CPU with tiny sizes and the installed llama_cpp (no build): tests/test_gpu_check.py.
set -u
export PYTHONUNBUFFERED=1
PACK=$(cd "${1:?usage: run.sh PACK}" && pwd)
G=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${OUT:-/tmp/gpu_check_out}
WORK=${WORK:-/tmp/gpu_check_work}
PY=${PYTHON:-python3}
SITE=$WORK/site
LLAMA_TARGET=$WORK/llama
TOTAL_S=${TOTAL_S:-465}           # the call's 8 minutes, less the merge and a margin
EMBED_S=${EMBED_S:-190}
export EMBED_SOFT_LIMIT_S=${EMBED_SOFT_LIMIT_S:-130}  # no new token budget starts after this
TEXT_S=${TEXT_S:-40}
BENCH_S=${BENCH_S:-110}           # kept for part 4: the build stops in time to leave it this much
JOBS=${JOBS:-$(nproc)}
SMALL=${SMALL:-0}
export SMALL
# "embed text" in one call and "llama" in a second where one call cannot hold all: each call's $OUT/work.tgz holds
# its parts' files, and merge.py takes both folders (a second call starts on a fresh copy of the checkout)
PARTS=${PARTS:-"embed text llama"}
wants() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }
mkdir -p "$OUT" "$WORK"
if wants embed; then  # a first (or only) call starts afresh; a second call ("llama") adds to the first's files
    rm -rf "$WORK"/*.json "$WORK"/*.rc "$WORK"/*.txt "$WORK"/*.gguf "$WORK"/build.status "$WORK"/beside.tsv
fi
T0=$(date +%s)
stamp() { echo "[run $(( $(date +%s) - T0 ))s] $*"; }
left() { echo $(( TOTAL_S - ($(date +%s) - T0) )); }
limit() { local l; l=$(left); [ "$l" -lt "$1" ] && echo $(( l > 5 ? l : 5 )) || echo "$1"; }  # min(part's, what is left)
build_budget() { local b=$(( $(left) - BENCH_S )); echo $(( b > 30 ? b : 30 )); }  # what the build may take
beside() { printf '%s\t%s\n' "$1" "$2" >> "$WORK/beside.tsv"; }  # part, what ran beside it (merge.py reads it)

build_llama() {
    local start rc extra="" cap
    start=$(date +%s)
    cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
    # (a build without the FlashAttention kernels, GGML_CUDA_FA=OFF, took 254 s alone on an H200 instead of ~280
    # and its models crashed at load: issue 47's note)
    args="-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=${cap:-90} -DLLAMA_BUILD_EXAMPLES=off -DLLAMA_BUILD_TESTS=off"
    extra=$(HINTS_ENV=$WORK/cuda_hints.env PYTHON=$PY bash "$G/cuda_hints.sh" 2> "$WORK/cuda_hints.txt")
    echo "$args $extra" > "$WORK/cmake_args.txt"
    CMAKE_ARGS="$args $extra" CMAKE_BUILD_PARALLEL_LEVEL=$JOBS MAKEFLAGS="-j$JOBS" \
        timeout -k 10 "$(limit "$(build_budget)")" "$PY" -m pip install -v --no-index --no-build-isolation --no-deps \
        --no-cache-dir --target "$LLAMA_TARGET" "$PACK/llama_cpp_python-0.3.36.tar.gz" > "$WORK/llama_build.log" 2>&1
    rc=$?
    echo "$rc $(( $(date +%s) - start ))" > "$WORK/build.status"
}

main() {
    stamp "== part 0: wheels, machine"
    if ls "$PACK"/whl/*.whl > /dev/null 2>&1; then
        "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" \
            "$PACK"/whl/*.whl > "$WORK/wheels.txt" 2>&1; echo "wheels rc=$?" >> "$WORK/wheels.txt"
        export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
    fi
    { nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader; nvcc --version | tail -1; } \
        > "$WORK/smi.txt" 2>&1
    cat "$WORK/smi.txt"
    { grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'; nproc; } > "$WORK/cpu.txt" 2>/dev/null

    if wants embed; then
        stamp "== part 1: page embedder and visual stage (alone)"
        beside embed "nothing"
        timeout -k 10 "$(limit "$EMBED_S")" "$PY" "$G/embed_check.py" "$PACK" "$WORK/embed.json"
        echo "embed rc=$?" >> "$WORK/rc.txt"
    fi
    if wants text; then
        stamp "== part 2: MiniLM chunk embeddings (alone)"
        beside text "nothing"
        timeout -k 5 "$(limit "$TEXT_S")" "$PY" "$G/text_check.py" "$PACK" "$WORK/text.json"
        echo "text rc=$?" >> "$WORK/rc.txt"
    fi
    wants llama && llama_parts
    echo "$(( $(date +%s) - T0 ))" >> "$WORK/wall.txt"
    stamp "== part 5: $OUT/gpu_check.json"
    "$PY" "$G/merge.py" "$WORK" "$OUT/gpu_check.json"
    tail -c 2000000 "$WORK/llama_build.log" > "$OUT/llama_build.log" 2>/dev/null
    cp "$WORK/llama_run.log" "$OUT/" 2>/dev/null
    tar czf "$OUT/work.tgz" -C "$WORK" --exclude='*.gguf' --exclude=llama_build.log --exclude=site --exclude=llama \
        . 2>/dev/null
}

llama_parts() {  # parts 3 and 4
    if [ "$SMALL" = 1 ]; then
        echo "0 0 skipped: SMALL=1 uses the installed llama_cpp" > "$WORK/build.status"; BUILD_PID=""
    else
        stamp "== part 3: llama.cpp CUDA build ($JOBS jobs), the GGUF written beside it"
        beside build "the GGUF being written"
        build_llama & BUILD_PID=$!
    fi
    "$PY" "$G/llama_check.py" gguf "$WORK/model-F16.gguf" > "$WORK/gguf.txt" 2>&1
    echo "gguf rc=$?" >> "$WORK/rc.txt"
    if [ -n "$BUILD_PID" ]; then
        stamp "== waiting for the build"
        while kill -0 "$BUILD_PID" 2>/dev/null; do
            sleep 10; stamp "build: $(grep -o '\[[0-9]*/[0-9]*\]' "$WORK/llama_build.log" | tail -1)"
        done
        wait "$BUILD_PID"
    fi
    stamp "build (rc seconds): $(cat "$WORK/build.status")"
    stamp "== part 4: llama.cpp speed (alone)"
    beside llama "nothing"
    libdirs=$(sed -n 's/^CUDA_RUNTIME_LIBDIRS=//p' "$WORK/cuda_hints.env" 2>/dev/null)
    llama_path=""
    [ -d "$LLAMA_TARGET/llama_cpp" ] && llama_path=$LLAMA_TARGET
    QUANTIZE_TIMEOUT_S=$(( $(left) - 60 > 150 ? 150 : $(left) - 60 )) \
        LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONPATH="$llama_path${PYTHONPATH:+:$PYTHONPATH}" \
        timeout -k 5 "$(limit 400)" "$PY" "$G/llama_check.py" bench "$PACK" "$WORK/model-F16.gguf" "$WORK/llama.json" \
        > "$WORK/llama_run.log" 2>&1
    echo "llama rc=$?" >> "$WORK/rc.txt"
    grep -E "offloaded|CUDA0|ggml_cuda_init" "$WORK/llama_run.log" | head -5
    rm -f "$WORK"/*.gguf
}

main 2>&1 | tee "$OUT/log.txt"
