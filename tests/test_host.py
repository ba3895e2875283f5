"""host.py, the one module that asks the operating system: its file lock excludes another process, its memory
limit holds in a process (and in a parser worker), its GPU probe follows the files and programs it looks for,
and it says in words which memory limit applies. Real processes, real files: nothing of host.py is replaced."""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docqa_desktop import host

ROOT = Path(__file__).resolve().parent.parent
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="setrlimit's RLIMIT_AS is Linux's")


def run_python(code: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          check=True)


# -- the file lock -------------------------------------------------------------------------------------------

def test_the_lock_keeps_a_second_process_waiting_until_it_is_released(tmp_path):
    lock = tmp_path / ".lock"
    child = ("import sys, time\nfrom pathlib import Path\nfrom docqa_desktop.host import exclusive_lock\n"
             f"Path({str(tmp_path / 'trying')!r}).touch()\n"
             f"with exclusive_lock(Path({str(lock)!r})):\n    print(time.time())\n")
    with host.exclusive_lock(lock):
        waiting = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True, cwd=ROOT)
        deadline = time.monotonic() + 30
        while not (tmp_path / "trying").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # time enough to take a free lock
        assert waiting.poll() is None, "the second process took the lock while this one held it"
        released = time.time()
    out, _ = waiting.communicate(timeout=30)
    assert waiting.returncode == 0 and float(out) >= released


def test_the_lock_is_free_again_after_the_block_and_keeps_the_file(tmp_path):
    lock = tmp_path / ".lock"
    lock.write_text("kept")
    with host.exclusive_lock(lock):
        pass
    out = run_python("from pathlib import Path\nfrom docqa_desktop.host import exclusive_lock\n"
                     f"with exclusive_lock(Path({str(lock)!r})):\n    print('taken')\n", timeout=30)
    assert out.stdout.strip() == "taken"
    assert lock.read_text() == "kept"  # taking the lock never truncates what another holder may be reading


# -- the memory limit ----------------------------------------------------------------------------------------

@linux_only
def test_the_memory_limit_stops_an_allocation_above_it():
    out = run_python("import resource\nfrom docqa_desktop import host\n"
                     "assert host.limit_memory(1 << 30)\n"
                     "print(resource.getrlimit(resource.RLIMIT_AS)[0])\n"
                     "try:\n    block = bytearray(2 << 30)\n    print('allocated')\n"
                     "except MemoryError:\n    print('refused')\n")
    limit, outcome = out.stdout.split()
    assert (int(limit), outcome) == (1 << 30, "refused")


@linux_only
def test_a_lower_limit_already_set_stays():
    out = run_python("import resource\nfrom docqa_desktop import host\n"
                     "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.RLIM_INFINITY))\n"
                     "host.limit_memory(4 << 30)\nprint(resource.getrlimit(resource.RLIMIT_AS)[0])\n")
    assert int(out.stdout) == 3 << 30


def _address_space_after_limiting() -> int:
    import resource

    from docqa_desktop.index.parse_task import _limit_memory

    _limit_memory()
    return resource.getrlimit(resource.RLIMIT_AS)[0]


@linux_only
def test_a_parser_worker_is_limited_and_the_process_that_parses_itself_is_not():
    import resource

    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(_address_space_after_limiting) == host.PARSER_WORKER_MEMORY
    before = resource.getrlimit(resource.RLIMIT_AS)
    assert _address_space_after_limiting() == before[0]  # the test process keeps its limit


@pytest.mark.parametrize("platform, words", [
    ("linux", "address space limited to 4 GB per parser worker (setrlimit)"),
    ("darwin", "address space limited to 4 GB per parser worker (setrlimit; macOS may not enforce it)"),
    ("win32", "committed memory limited to 4 GB per parser worker (Windows job object)"),
])
def test_the_limit_is_said_in_words_for_each_platform(monkeypatch, platform, words):
    monkeypatch.setattr(host, "PLATFORM", platform)
    assert host.memory_limit_words() == words


def test_the_job_object_limits_have_the_layout_windows_reads():
    """The structure handed to SetInformationJobObject, as Windows x64 lays it out (winnt.h): 144 bytes, the
    process limit at 112. (The Windows calls themselves cannot run here.)"""
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        pytest.skip("the x64 layout")
    assert ctypes.sizeof(host._ExtendedLimits) == 144
    assert host._ExtendedLimits.ProcessMemoryLimit.offset == 112
    assert ctypes.sizeof(host._MemoryStatus) == 64  # MEMORYSTATUSEX


# -- cores, RAM, GPU driver ----------------------------------------------------------------------------------

@linux_only
def test_cores_and_ram_are_the_machines():
    meminfo = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
    total_gb = int(meminfo["MemTotal"].split()[0]) / 2**20
    assert host.ram_gb() == pytest.approx(total_gb, rel=0.02)
    assert host.usable_cores() == len(os.sched_getaffinity(0)) >= 1


def test_on_linux_the_gpu_probe_follows_the_driver_files(tmp_path, monkeypatch):
    monkeypatch.setattr(host, "PLATFORM", "linux")
    version, device = tmp_path / "version", tmp_path / "nvidia0"
    assert host.nvidia_driver_present((version, device)) is False
    device.touch()
    assert host.nvidia_driver_present((version, device)) is True
    device.unlink()
    version.write_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15\n")
    assert host.nvidia_driver_present((version, device)) is True


def test_on_macos_there_is_no_nvidia_driver_whatever_the_files(tmp_path, monkeypatch):
    (tmp_path / "nvidia0").touch()
    monkeypatch.setattr(host, "PLATFORM", "darwin")
    assert host.nvidia_driver_present((tmp_path / "nvidia0",)) is False


@linux_only
def test_on_windows_the_probe_finds_nvidia_smi_on_the_path(tmp_path, monkeypatch):
    """Windows' branch looks for the CUDA driver library (nvcuda.dll, found on PATH) or nvidia-smi on PATH; here
    only nvidia-smi can be put there. The driver files of Linux are not looked at."""
    (tmp_path / "nvidia0").touch()
    monkeypatch.setattr(host, "PLATFORM", "win32")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert host.nvidia_driver_present((tmp_path / "nvidia0",)) is False
    tool = tmp_path / "bin" / "nvidia-smi"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert host.nvidia_driver_present(()) is True


def test_docqa_status_says_which_memory_limit_applies(tmp_path, capsys):
    from docqa_desktop.cli import main

    assert main(["status", "--home", str(tmp_path / "home")]) == 0
    assert f"worker memory: {host.memory_limit_words()}\n" in capsys.readouterr().out
