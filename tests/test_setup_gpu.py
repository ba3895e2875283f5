"""`bash packaging/setup.sh gpu`: checks the machine before installing anything, and compiles llama.cpp for the GPU
it finds. Run on a copy of packaging/ (so no environment of the checkout is touched) with fake nvidia-smi / nvcc."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SMI = """#!/bin/sh
case "$*" in
*query-gpu*) echo "NVIDIA RTX 4090, {cap}, 550.54.14";;
*) echo "| NVIDIA-SMI 550.54.14   Driver Version: 550.54.14   CUDA Version: {cuda} |";;
esac
"""


@pytest.fixture
def checkout(tmp_path):
    shutil.copytree(REPO / "packaging", tmp_path / "repo" / "packaging")
    (tmp_path / "bin").mkdir()
    return tmp_path


def fake(folder: Path, name: str, body: str) -> None:
    (folder / "bin" / name).write_text(body)
    (folder / "bin" / name).chmod(0o755)


def setup_gpu(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {"PATH": f"{folder / 'bin'}:/usr/bin:/bin", "PYTHON": sys.executable, "HOME": str(folder),
               "DOCQA_NVCC_FALLBACK": "", **env}
    return subprocess.run(["bash", str(folder / "repo/packaging/setup.sh"), "gpu", *args], env=environ,
                          capture_output=True, text=True, timeout=60)


def test_no_gpu_names_what_is_missing_and_installs_nothing(checkout):
    result = setup_gpu(checkout, DOCQA_GPU_MIN_FREE_GB="1000000")
    assert result.returncode != 0
    assert "nvidia-smi" in result.stderr and "nvcc" in result.stderr and "disk space" in result.stderr
    assert "Nothing was installed" in result.stderr
    assert not (checkout / "repo" / ".venv").exists()  # setup.sh stopped before creating the environment
    assert "pip" not in result.stdout


def test_old_driver_is_named(checkout):
    fake(checkout, "nvidia-smi", SMI.format(cap="8.6", cuda="11.8"))
    fake(checkout, "nvcc", "#!/bin/sh\n")
    result = setup_gpu(checkout, "--dry-run", DOCQA_GPU_MIN_FREE_GB="0")
    assert result.returncode != 0
    assert "newer NVIDIA driver" in result.stderr and "CUDA 11.8" in result.stderr
    assert not (checkout / "repo" / ".venv").exists()


def test_dry_run_plans_the_cuda_builds_for_the_gpu_found(checkout):
    fake(checkout, "nvidia-smi", SMI.format(cap="8.9", cuda="12.8"))
    fake(checkout, "nvcc", "#!/bin/sh\n")
    result = setup_gpu(checkout, "--dry-run", DOCQA_GPU_MIN_FREE_GB="0")
    assert result.returncode == 0, result.stderr
    plan = result.stdout.splitlines()
    assert "-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=89" in plan[1] and "llama-cpp-python==0.3.36" in plan[1]
    assert f"-DCMAKE_CUDA_COMPILER={checkout / 'bin' / 'nvcc'}" in plan[1]
    assert "torch==2.13.0" in plan[0] and "--index-url https://download.pytorch.org/whl/cu128" in plan[0]
    assert plan[2].endswith("pip uninstall -y onnxruntime") and "onnxruntime-gpu==1.31.1" in plan[3]
    assert "RTX 4090, compute capability 8.9" in result.stderr
    assert not (checkout / "repo" / ".venv").exists()  # a dry run installs nothing


def test_run_demo_passes_gpu_to_setup(checkout):
    """run-demo.sh --gpu sets up with the CUDA builds: with no GPU it stops at the same check."""
    environ = {"PATH": f"{checkout / 'bin'}:/usr/bin:/bin", "PYTHON": sys.executable, "DOCQA_NVCC_FALLBACK": ""}
    result = subprocess.run(["bash", str(checkout / "repo/packaging/run-demo.sh"), "--gpu"], env=environ,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "nvidia-smi" in result.stderr
    assert not (checkout / "repo" / ".venv").exists()
