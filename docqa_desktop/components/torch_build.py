"""Which build of torch this machine gets: the CUDA build from PyTorch's index for the NVIDIA driver's CUDA
version, else the CPU build. Shared by `bash packaging/setup.sh gpu` (packaging/gpu_setup.py) and the optional
"visual" component's installer, so that both decide alike.

Standard library only: gpu_setup.py imports it before any virtual environment exists.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass

from .. import host

TORCH = "torch==2.13.0"
TORCHVISION = "torchvision==0.28.0"  # the release built with torch 2.13; colpali-engine's transformers needs it
TORCH_DISTRIBUTIONS = ("torch", "torchvision")  # the pair whose build (CPU, CUDA x.y) comes from PyTorch's index
PYTORCH_INDEX = "https://download.pytorch.org/whl/"
# CUDA builds of torch on download.pytorch.org, newest first: (CUDA version it needs from the driver, index)
TORCH_CUDA_INDEXES = [((13, 0), "cu130"), ((12, 8), "cu128"), ((12, 6), "cu126")]


@dataclass
class Gpu:
    name: str
    compute_cap: str  # "9.0"
    driver: str
    cuda: tuple[int, int] | None  # the newest CUDA the driver runs


def find_gpu(missing: list[str]) -> Gpu | None:
    """The first GPU nvidia-smi reports; None, with why appended to `missing`, when there is none."""
    tool = shutil.which("nvidia-smi")
    if not tool:
        missing.append("an NVIDIA GPU driver: `nvidia-smi` is not on PATH (install NVIDIA's driver for your GPU; "
                       "without one there is nothing for the CUDA builds to use)")
        return None
    try:
        rows = _run([tool, "--query-gpu=name,compute_cap,driver_version", "--format=csv,noheader"])
        header = _run([tool])
    except (OSError, subprocess.SubprocessError) as exc:
        missing.append(f"a working NVIDIA driver: `nvidia-smi` failed ({exc})")
        return None
    first = next((line for line in rows.splitlines() if line.strip()), "")
    parts = [p.strip() for p in first.split(",")]
    if len(parts) < 3 or not re.fullmatch(r"\d+\.\d+", parts[1]):
        missing.append(f"a GPU that nvidia-smi reports with a compute capability (it said {first!r})")
        return None
    cuda = re.search(r"CUDA Version:\s*(\d+)\.(\d+)", header)
    return Gpu(parts[0], parts[1], parts[2], (int(cuda.group(1)), int(cuda.group(2))) if cuda else None)


def torch_index(gpu: Gpu, missing: list[str]) -> str | None:
    """The newest CUDA build of torch the driver runs ("cu128"); None, with why appended to `missing`."""
    if gpu.cuda is None:
        missing.append("the driver's CUDA version (`nvidia-smi` printed no 'CUDA Version:')")
        return None
    for needs, index in TORCH_CUDA_INDEXES:
        if gpu.cuda >= needs:
            return index
    oldest = ".".join(map(str, TORCH_CUDA_INDEXES[-1][0]))
    missing.append(f"a newer NVIDIA driver: {gpu.driver} runs CUDA {gpu.cuda[0]}.{gpu.cuda[1]}, and {TORCH}'s "
                   f"oldest CUDA build needs CUDA {oldest}")
    return None


@dataclass(frozen=True)
class TorchBuild:
    """The build of torch and torchvision to install: `local` is the version's local label ("cpu", "cu128"; ""
    for the package index's own build), `index` the PyTorch index that has it (None: the package index)."""
    local: str
    index: str | None
    why: str

    @property
    def cuda(self) -> bool:
        return self.local.startswith("cu")

    def pin(self, line: str) -> str:
        """'torch==2.13.0' -> 'torch==2.13.0+cu128' (unchanged for the package index's build)."""
        return f"{line}+{self.local}" if self.local else line


def torch_build(platform: str | None = None) -> TorchBuild:
    """The build for this machine: CUDA from PyTorch's index when an NVIDIA driver runs one of its CUDA builds;
    else the CPU build — from PyTorch's CPU index on Linux and Windows (the package index's Linux wheel is the
    multi-GB CUDA one), from the package index on macOS (its only build there)."""
    platform = platform or host.PLATFORM
    missing: list[str] = []
    gpu = find_gpu(missing) if platform != "darwin" else None
    index = torch_index(gpu, missing) if gpu else None
    if gpu and index:
        return TorchBuild(index, PYTORCH_INDEX + index, f"{gpu.name}, driver {gpu.driver}: the CUDA build ({index})")
    why = f"the CPU build (this machine lacks {missing[0].split(':')[0] if missing else 'an NVIDIA GPU'})"
    if platform == "darwin":
        return TorchBuild("", None, "CPU build (macOS)")
    return TorchBuild("cpu", PYTORCH_INDEX + "cpu", why)


def _run(command: list[str]) -> str:
    return subprocess.run(command, capture_output=True, text=True, timeout=30, check=True).stdout
