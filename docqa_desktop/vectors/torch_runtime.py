"""Importing torch-based vision models on a CPU-only torch.

The package index's torchvision wheel for x86-64 Linux is a CUDA build. Beside the CPU torch wheel its compiled
part cannot load, and `import torchvision` dies with "operator torchvision::nms does not exist" (its fake-kernel
registrations name ops the missing library would have defined). transformers needs torchvision to import the
Qwen2.5-VL model and image processor, which use only its pure-torch transforms, so declaring the two missing op
schemas and importing again is enough. Compiled ops (nms, roi_align, video decoders) stay unavailable; a GPU
install brings a matching CUDA torch + torchvision pair and never takes this path.
"""
from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version

_schemas = None  # keeps the op library alive for the life of the process


def import_torchvision() -> str:
    """Import torchvision, declaring its missing ops if needed; returns how ("native", "shim" or "absent")."""
    global _schemas
    try:
        import torchvision  # noqa: F401
        return "native"
    except ModuleNotFoundError:
        return "absent"
    except RuntimeError as exc:
        if "torchvision::" not in str(exc):
            raise
    import torch

    for name in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[name]  # the failed import left half-initialised modules behind
    if _schemas is None:
        _schemas = torch.library.Library("torchvision", "DEF")
        _schemas.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        _schemas.define("qnms(Tensor qdets, Tensor scores, float iou_threshold) -> Tensor")
    import torchvision  # noqa: F401,F811
    return "shim"


def torch_device(nvidia_gpu: bool) -> str:
    """Where the page embedder will run, told without importing torch (~2 s): 'CUDA (torch X)' or 'CPU (why)'.
    Read from the installed build's version: CUDA builds from PyTorch's index end in +cuXXX, the package index's
    Linux build is a CUDA one, and CPU builds end in +cpu (what `setup.sh` installs; `setup.sh gpu` replaces it)."""
    try:
        installed = version("torch")
    except PackageNotFoundError:
        return "not installed (an optional component: `docqa components install visual`)"
    if installed.endswith("+cpu"):
        return f"CPU (torch {installed} is a CPU build: `bash packaging/setup.sh gpu`)"
    if not nvidia_gpu:
        return "CPU (no NVIDIA GPU)"
    return f"CUDA (torch {installed})"
