"""What `bash packaging/setup.sh gpu` checks and installs: the CUDA builds of torch, llama-cpp-python and onnxruntime.

Standard library only (it runs before the virtual environment exists). It checks everything first and either
names every missing piece (exit 2, nothing installed) or prints the install commands, one per line, for setup.sh to
run (or show, with --dry-run):
  - the NVIDIA driver (nvidia-smi): the GPU, its compute capability (llama.cpp is compiled for exactly that one,
    which takes minutes instead of the hour all architectures take) and the newest CUDA version the driver runs;
  - nvcc, the CUDA compiler llama.cpp's CUDA build needs (on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin);
  - free disk space for the CUDA wheels (torch's CUDA libraries alone are several GB) and the build.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the product's torch_build: standard library only
from docqa_desktop.components.torch_build import (TORCH, TORCHVISION, Gpu, find_gpu,  # noqa: E402
                                                  torch_index)

LLAMA = "llama-cpp-python==0.3.36"
ONNXRUNTIME_GPU = "onnxruntime-gpu==1.31.1"  # pyproject's [gpu] extra; CUDA 12 + cuDNN 9 (torch's wheels bring both)
MIN_FREE_GB = float(os.environ.get("DOCQA_GPU_MIN_FREE_GB", "12"))
# llama.cpp's portable CPU flags from setup.sh stay: the CPU part of a CUDA build runs the layers the GPU does not hold
CPU_FLAGS = ("-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON "
             "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DLLAMA_CURL=OFF")


def find_nvcc(missing: list[str]) -> str | None:
    candidates = [shutil.which("nvcc")]
    candidates += [str(Path(os.environ[var]) / "bin" / "nvcc") for var in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(var)]
    candidates.append(os.environ.get("DOCQA_NVCC_FALLBACK", "/usr/local/cuda/bin/nvcc"))  # the toolkit's default home
    for path in candidates:
        if path and os.access(path, os.X_OK):
            return path
    missing.append("nvcc, the CUDA compiler that builds llama.cpp for this GPU: install the CUDA toolkit "
                   "(NVIDIA's cuda-toolkit package, or Debian/Ubuntu's nvidia-cuda-toolkit) and put its bin/ on PATH "
                   "or set CUDA_HOME")
    return None


def check_disk(folder: Path, missing: list[str]) -> None:
    free = shutil.disk_usage(folder).free / 2**30
    if free < MIN_FREE_GB:
        missing.append(f"disk space: {free:.1f} GB free in {folder}, the CUDA wheels and the llama.cpp build need "
                       f"about {MIN_FREE_GB:.0f} GB")


def plan(gpu: Gpu, index: str, nvcc: str, python: str) -> list[str]:
    """The install commands, in order. The first two go before (setup.sh runs them so) the app's own install, so that pip finds
    torch and llama-cpp-python satisfied and fetches no CPU ones: torch and torchvision from PyTorch's index for
    the driver's CUDA, then llama-cpp-python compiled for this GPU's architecture only. After the app,
    onnxruntime-gpu replaces the CPU onnxruntime the OCR package pulled in (both provide the module `onnxruntime`)."""
    pip = f"{shlex.quote(python)} -m pip install --upgrade"
    arch = gpu.compute_cap.replace(".", "")
    cmake = f"-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES={arch} -DCMAKE_CUDA_COMPILER={nvcc} {CPU_FLAGS}"
    return [
        f"{pip} --force-reinstall {TORCH} {TORCHVISION} --index-url https://download.pytorch.org/whl/{index}",
        f"CMAKE_ARGS={shlex.quote(cmake)} CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "
        f"{pip} --force-reinstall --no-cache-dir --no-deps {LLAMA}",
        f"{shlex.quote(python)} -m pip uninstall -y onnxruntime",
        f"{pip} --force-reinstall --no-deps {ONNXRUNTIME_GPU}",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=".venv/bin/python", help="the environment's python the commands install into")
    ap.add_argument("--folder", type=Path, default=Path("."), help="where the environment lives (disk space check)")
    args = ap.parse_args(argv)
    missing: list[str] = []
    gpu = find_gpu(missing)
    index = torch_index(gpu, missing) if gpu else None
    nvcc = find_nvcc(missing)
    check_disk(args.folder, missing)
    if missing:
        print("setup gpu: cannot install the CUDA builds; this machine lacks:", file=sys.stderr)
        for what in missing:
            print(f"  - {what}", file=sys.stderr)
        print("Nothing was installed. `bash packaging/setup.sh` installs the CPU builds.", file=sys.stderr)
        return 2
    print(f"setup gpu: {gpu.name}, compute capability {gpu.compute_cap}, driver {gpu.driver} (CUDA "
          f"{gpu.cuda[0]}.{gpu.cuda[1]}), nvcc {nvcc}: torch from {index}, llama.cpp for sm_"
          f"{gpu.compute_cap.replace('.', '')}", file=sys.stderr)
    print("\n".join(plan(gpu, index, nvcc, args.python)))
    return 0


def _run(command: list[str]) -> str:
    return subprocess.run(command, capture_output=True, text=True, timeout=30, check=True).stdout


if __name__ == "__main__":
    sys.exit(main())
