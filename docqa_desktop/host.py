"""The operating system, asked in one place: a file lock, a worker's memory limit, the machine's cores and RAM,
whether an NVIDIA driver is there, and where the open app listens for `docqa` commands.

Everything that differs between Linux, macOS and Windows is decided here, on PLATFORM; the POSIX-only modules
(fcntl, resource) and the Windows-only ones (msvcrt, kernel32 through ctypes) are imported only inside the
branch that uses them, so that every other module imports and runs on each of the three.
"""
from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

# Read by every function below when it is called, never at import: tests/test_windows_imports.py sets it to
# "win32" to take the Windows branches on Linux.
PLATFORM = sys.platform

# Address space a parser worker may use. A lying image header (a 64 px JPEG declaring 65500 x 65500) made
# mupdf fill 21 GB; under a limit its allocations fail, and it draws the page smaller or the page gets
# a "too large to index" error. Normal work peaks at ~1.7 GB (OCR models loaded).
PARSER_WORKER_MEMORY = 4 << 30

# Files the Linux NVIDIA driver creates once it is loaded (the version file) or a card is set up (the device).
NVIDIA_DRIVER_FILES = (Path("/proc/driver/nvidia/version"), Path("/dev/nvidia0"))


# Longest path a Unix socket's address may have (sun_path is 108 bytes on Linux, 104 on macOS), with room to spare.
UNIX_SOCKET_PATH_MAX = 100


def is_windows() -> bool:
    return PLATFORM == "win32"


def is_macos() -> bool:
    return PLATFORM == "darwin"


# -- a file lock shared by processes -------------------------------------------------------------------------

@contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) for the block, waiting while another process
    holds it. Advisory: it excludes only other holders of the same lock."""
    with open(path, "a") as handle:  # "a": never truncates a file another process has locked
        _lock(handle)
        try:
            yield
        finally:
            _unlock(handle)


def _lock(handle: IO) -> None:
    if is_windows():
        import msvcrt

        handle.seek(0)  # msvcrt locks bytes from the file position: always the first byte
        while True:
            try:
                msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
                return
            except OSError as exc:  # LK_LOCK gives up after ~10 s of retries; flock waits for good
                if exc.errno != errno.EDEADLOCK:
                    raise
    else:
        import fcntl

        fcntl.flock(handle, fcntl.LOCK_EX)


def _unlock(handle: IO) -> None:
    if is_windows():
        import msvcrt

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.flock(handle, fcntl.LOCK_UN)


# -- a worker's memory limit ---------------------------------------------------------------------------------

def limit_memory(limit: int = PARSER_WORKER_MEMORY) -> bool:
    """Cap this process's memory at `limit` bytes (a lower limit already set stays); True when a limit holds."""
    if is_windows():
        return _limit_job_memory(limit)
    return _limit_address_space(limit)


def memory_limit_words(limit: int = PARSER_WORKER_MEMORY) -> str:
    """Which limit limit_memory applies here, in words, for `docqa status`."""
    size = f"{limit / 2**30:g} GB per parser worker"
    if is_windows():
        return f"committed memory limited to {size} (Windows job object)"
    if is_macos():
        return f"address space limited to {size} (setrlimit; macOS may not enforce it)"
    return f"address space limited to {size} (setrlimit)"


def _limit_address_space(limit: int) -> bool:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft > limit:
        limit = limit if hard == resource.RLIM_INFINITY else min(hard, limit)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return True


class _BasicLimits(ctypes.Structure):  # JOBOBJECT_BASIC_LIMIT_INFORMATION
    _fields_ = [("PerProcessUserTimeLimit", ctypes.c_int64), ("PerJobUserTimeLimit", ctypes.c_int64),
                ("LimitFlags", ctypes.c_uint32), ("MinimumWorkingSetSize", ctypes.c_size_t),
                ("MaximumWorkingSetSize", ctypes.c_size_t), ("ActiveProcessLimit", ctypes.c_uint32),
                ("Affinity", ctypes.c_size_t), ("PriorityClass", ctypes.c_uint32),
                ("SchedulingClass", ctypes.c_uint32)]


class _ExtendedLimits(ctypes.Structure):  # JOBOBJECT_EXTENDED_LIMIT_INFORMATION
    _fields_ = [("BasicLimitInformation", _BasicLimits), ("IoInfo", ctypes.c_uint64 * 6),
                ("ProcessMemoryLimit", ctypes.c_size_t), ("JobMemoryLimit", ctypes.c_size_t),
                ("PeakProcessMemoryUsed", ctypes.c_size_t), ("PeakJobMemoryUsed", ctypes.c_size_t)]


JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9  # the JOBOBJECTINFOCLASS value
JOB_OBJECT_LIMIT_PROCESS_MEMORY = 0x100


def _limit_job_memory(limit: int) -> bool:
    """Put this process in a new job object whose processes may commit at most `limit` bytes (Windows 8 and
    later nest jobs, so a process already in one, a terminal's say, can join). False when Windows refuses."""
    kernel32 = _kernel32()
    kernel32.CreateJobObjectW.restype = ctypes.c_void_p
    kernel32.GetCurrentProcess.restype = ctypes.c_void_p
    kernel32.SetInformationJobObject.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_uint32)
    kernel32.AssignProcessToJobObject.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
    limits = _ExtendedLimits()
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_PROCESS_MEMORY
    limits.ProcessMemoryLimit = limit
    job = kernel32.CreateJobObjectW(None, None)  # never closed: the job lasts as long as the worker
    return bool(job and kernel32.SetInformationJobObject(job, JOB_OBJECT_EXTENDED_LIMIT_INFORMATION,
                                                         ctypes.byref(limits), ctypes.sizeof(limits))
                and kernel32.AssignProcessToJobObject(job, kernel32.GetCurrentProcess()))


def _kernel32():
    return ctypes.WinDLL("kernel32", use_last_error=True)


# -- cores, RAM and GPUs -------------------------------------------------------------------------------------

def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one, else all of them)."""
    if hasattr(os, "sched_getaffinity"):  # Linux
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class _MemoryStatus(ctypes.Structure):  # MEMORYSTATUSEX
    _fields_ = [("dwLength", ctypes.c_uint32), ("dwMemoryLoad", ctypes.c_uint32)] + [
        (name, ctypes.c_uint64) for name in ("ullTotalPhys", "ullAvailPhys", "ullTotalPageFile", "ullAvailPageFile",
                                             "ullTotalVirtual", "ullAvailVirtual", "ullAvailExtendedVirtual")]


def ram_gb() -> float:
    """Physical memory in GB; 0.0 when the system does not say."""
    if is_windows():
        status = _MemoryStatus(dwLength=ctypes.sizeof(_MemoryStatus))
        return status.ullTotalPhys / 2**30 if _kernel32().GlobalMemoryStatusEx(ctypes.byref(status)) else 0.0
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        return 0.0


def apple_silicon() -> bool:
    """A Mac with an Apple GPU (its memory shared with the CPU)."""
    return is_macos() and platform.machine() == "arm64"


def nvidia_driver_present(driver_files: Sequence[Path] = NVIDIA_DRIVER_FILES) -> bool:
    """Whether an NVIDIA driver is installed, asked cheaply (no CUDA library loaded): its files on Linux, its
    CUDA driver library or nvidia-smi on Windows; never on macOS (no NVIDIA driver since 10.13)."""
    if is_macos():
        return False
    if is_windows():
        import ctypes.util

        return ctypes.util.find_library("nvcuda") is not None or shutil.which("nvidia-smi") is not None
    return any(path.exists() for path in driver_files)


# -- where the open app listens ------------------------------------------------------------------------------

def command_address(data_dir: Path) -> tuple[str, str]:
    """(address, family) of the open app's command listener for the library in `data_dir`, in the
    multiprocessing.connection terms: a named pipe on Windows, a Unix socket elsewhere — in the data folder
    (private to its user), or, where that path is too long for a socket, in a private folder under the temp
    folder named after it."""
    tag = hashlib.sha256(str(Path(data_dir).resolve()).encode()).hexdigest()[:16]
    if is_windows():
        return rf"\\.\pipe\docqa-{tag}", "AF_PIPE"
    path = Path(data_dir) / "app.sock"
    if len(str(path)) > UNIX_SOCKET_PATH_MAX:
        private = Path(tempfile.gettempdir()) / f"docqa-{os.getuid()}"
        private.mkdir(mode=0o700, exist_ok=True)
        path = private / f"{tag}.sock"
    return str(path), "AF_UNIX"
