#!/bin/bash
# (from ../shared/recipes/gpu-check, where it made the first CUDA build work) Where are cuBLAS and the driver library for a CMake CUDA build? Prints extra CMake -D arguments on stdout (nothing
# when CMake will find them itself), notes on stderr, and writes the library folders the built .so files need at run
# time to $HINTS_ENV (default /tmp/cuda_hints.env) as CUDA_RUNTIME_LIBDIRS=....
#
# Why: an image whose CUDA toolkit was assembled from NVIDIA's pip wheels (as on this workplace's CPU machines:
# /usr/local/cuda-13.0 holds nvcc, cudart, cccl... and no cuBLAS) has cuBLAS only inside the Python packages
# (site-packages/nvidia/cu13/{include,lib}, libcublas.so.13 without the libcublas.so link find_library wants),
# and the driver's libcuda.so.1 outside the toolkit. FindCUDAToolkit then fails with "CUDA::cublas not found".
set -u
HINTS_ENV=${HINTS_ENV:-/tmp/cuda_hints.env}
SHIM=${CUDA_SHIM_DIR:-/tmp/cuda_shim}
PY=${PYTHON:-python3}
note() { echo "[cuda_hints] $*" >&2; }

dry=$(nvcc --dryrun -v -x cu -c /dev/null -o /dev/null 2>&1)
top=$(echo "$dry" | sed -n 's/^#\$ TOP=//p' | head -1)
top=$(cd "$top" 2>/dev/null && pwd -P)
tk_inc=$(echo "$dry" | sed -n 's/^#\$ INCLUDES=//p' | grep -o -- '-I[^" ]*' | sed 's/^-I//' | head -1)
tk_libs=$(echo "$dry" | sed -n 's/^#\$ LIBRARIES=//p' | grep -o -- '-L[^" ]*' | sed 's/^-L//')
note "nvcc toolkit root: ${top:-?}; include: ${tk_inc:-?}; lib dirs: $(echo $tk_libs)"

# candidate folders: the toolkit's, then every nvidia/* package folder of the Python that holds torch
cands="$top $top/targets/x86_64-linux"
pydirs=$($PY - <<'EOF' 2>/dev/null
import os
try:
    import nvidia
    for p in nvidia.__path__:
        for d in sorted(os.listdir(p)):
            if os.path.isdir(os.path.join(p, d)):
                print(os.path.join(p, d))
except Exception:
    pass
try:
    import torch
    print(os.path.dirname(torch.__file__))
except Exception:
    pass
EOF
)
cands="$cands $pydirs ${CUDA_HINT_EXTRA_DIRS:-}"

first() { for f in "$@"; do [ -e "$f" ] && { echo "$f"; return 0; }; done; return 1; }
find_in() {  # find_in SUBPATH_GLOB...: first existing file under the candidate folders, else anywhere likely
    local c g f
    for c in $cands; do for g in "$@"; do for f in $c/$g; do [ -e "$f" ] && { echo "$f"; return 0; }; done; done; done
    for g in "$@"; do
        f=$(find /usr/local /opt /usr/lib /usr/lib64 /root -xdev -path "*/${g}" 2>/dev/null | head -1)
        [ -n "$f" ] && { note "found by search: $f"; echo "$f"; return 0; }
    done
    return 1
}

args=""
libdirs=""
mkdir -p "$SHIM/include" "$SHIM/lib"

# 1. headers
if [ -n "$tk_inc" ] && [ -e "$tk_inc/cublas_v2.h" ]; then
    note "cublas_v2.h is in the toolkit: CMake finds it"
else
    h=$(find_in include/cublas_v2.h)
    if [ -n "$h" ]; then
        for f in "$(dirname "$h")"/cublas*.h "$(dirname "$h")"/nvblas.h; do [ -e "$f" ] && ln -sf "$f" "$SHIM/include/"; done
        note "cublas headers from $(dirname "$h") -> $SHIM/include"
        args="$args -DCMAKE_CUDA_FLAGS=-I$SHIM/include -DCMAKE_CXX_FLAGS=-I$SHIM/include -DCMAKE_C_FLAGS=-I$SHIM/include"
    else
        note "NO cublas_v2.h found anywhere: the CUDA build will fail"
    fi
fi

# 2. cuBLAS / cuBLASLt libraries
for name in cublas cublasLt; do
    tk=""
    for d in $tk_libs $top/lib64 $top/lib; do [ -e "$d/lib$name.so" ] && { tk="$d/lib$name.so"; break; }; done
    if [ -n "$tk" ]; then
        note "lib$name.so in the toolkit: $tk"
        libdirs="$libdirs:$(dirname "$(readlink -f "$tk")")"
        continue
    fi
    so=$(find_in "lib/lib$name.so" "lib/lib$name.so.[0-9]*" "lib64/lib$name.so.[0-9]*")
    if [ -n "$so" ]; then
        ln -sf "$so" "$SHIM/lib/lib$name.so"
        args="$args -DCUDA_${name}_LIBRARY=$SHIM/lib/lib$name.so"
        libdirs="$libdirs:$(dirname "$so")"
        note "lib$name from $so"
    else
        note "NO lib$name.so* found: the CUDA build will fail"
    fi
done

# 3. the driver library (ggml-cuda links CUDA::cuda_driver for its virtual-memory pool)
drv=""
for d in $tk_libs $top/lib64/stubs $top/lib/stubs $top/targets/x86_64-linux/lib/stubs /usr/lib/x86_64-linux-gnu /usr/lib64; do
    [ -e "$d/libcuda.so" ] && { drv="$d/libcuda.so"; break; }
done
if [ -n "$drv" ]; then
    note "libcuda.so for linking: $drv (CMake finds it)"
else
    so=$(first ${CUDA_DRIVER_SEARCH:-} /usr/local/nvidia/lib64/libcuda.so.1 /usr/local/nvidia/lib/libcuda.so.1 \
         /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 \
         $(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64/ {print $NF}'))
    if [ -n "$so" ]; then
        ln -sf "$so" "$SHIM/lib/libcuda.so"
        args="$args -DCUDA_cuda_driver_LIBRARY=$SHIM/lib/libcuda.so"
        note "libcuda from $so"
    else
        note "NO libcuda.so* found: the build needs -DGGML_CUDA_NO_VMM=ON"
        args="$args -DGGML_CUDA_NO_VMM=ON"
    fi
fi

for d in $tk_libs $top/lib64 $top/lib; do [ -e "$d/libcudart.so.13" ] || [ -e "$d/libcudart.so" ] && libdirs="$libdirs:$d"; done
echo "CUDA_RUNTIME_LIBDIRS=${libdirs#:}" > "$HINTS_ENV"
note "extra CMake args:${args:- (none)}"
echo "$args"
