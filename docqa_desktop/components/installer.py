"""Installing a component: `python -m pip install --no-deps --target <folder>.partial <its pinned list>`, then the
folder renamed into place, so that a cancelled or failed install leaves nothing half-installed. pip's output lines
are read as they come (Collecting / Downloading / Progress / Installing) and told as InstallProgress.

torch and torchvision come from PyTorch's index in the build torch_build() chose (CPU, or CUDA for the driver).
The CUDA build needs NVIDIA's runtime libraries, which torch's own metadata pins exactly and which exist only as
its dependencies: that one step keeps dependencies, constrained (-c) to our pins for everything else.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from .catalog import Component, component
from .state import PARTIAL, folder, is_installed
from .torch_build import TORCH_DISTRIBUTIONS, TorchBuild, torch_build

PIP = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--only-binary=:all:",
       "--progress-bar", "raw"]


class InstallFailed(RuntimeError):
    pass


class InstallCancelled(InstallFailed):
    pass


@dataclass
class InstallProgress:
    component: str
    step: str  # what pip is doing, in words: "Downloading torch-2.13.0+cpu (184 MB)"
    packages_done: int = 0  # packages collected so far, of packages_total
    packages_total: int = 0
    bytes_done: int = 0  # of the file being downloaded
    bytes_total: int = 0

    def text(self) -> str:
        share = f" {self.bytes_done / 2**20:,.0f} of {self.bytes_total / 2**20:,.0f} MB" if self.bytes_total else ""
        count = f" · package {self.packages_done} of {self.packages_total}" if self.packages_total else ""
        return f"{self.component}: {self.step}{share}{count}"


ProgressFn = Callable[[InstallProgress], None]


@dataclass(frozen=True)
class PipSource:
    """Where pip finds the wheels: the package index pip is configured with (and PyTorch's for torch) by default;
    tests pass ["--no-index", "--find-links", folder]."""
    args: tuple[str, ...] = ()
    pytorch_index: bool = True  # False: torch comes from `args` like everything else


@dataclass
class _PipOutput:
    """Reads pip's lines into InstallProgress."""
    progress: InstallProgress
    emit: ProgressFn
    lines: list[str] = field(default_factory=list)  # the tail, for a failure's message

    COLLECTING = re.compile(r"^(Collecting|Processing) (\S+)")
    DOWNLOADING = re.compile(r"^\s*Downloading (\S+) \(([\d.]+) (kB|MB|GB)\)")
    BYTES = re.compile(r"^Progress (\d+) of (\d+)")
    INSTALLING = re.compile(r"^Installing collected packages: (.*)")

    def read(self, line: str) -> None:
        line = line.rstrip()
        self.lines = (self.lines + [line])[-20:]
        p = self.progress
        if m := self.COLLECTING.match(line):
            p.packages_done += 1
            p.step, p.bytes_done, p.bytes_total = f"{m.group(1)} {Path(m.group(2)).name}", 0, 0
        elif m := self.DOWNLOADING.match(line):
            unit = {"kB": 1e3, "MB": 1e6, "GB": 1e9}[m.group(3)]
            p.step, p.bytes_done, p.bytes_total = f"Downloading {m.group(1)}", 0, int(float(m.group(2)) * unit)
        elif m := self.BYTES.match(line):
            p.bytes_done, p.bytes_total = int(m.group(1)), int(m.group(2))
        elif m := self.INSTALLING.match(line):
            p.step, p.bytes_done, p.bytes_total = f"Installing {len(m.group(1).split(','))} packages", 0, 0
        else:
            return
        self.emit(replace(p))  # a snapshot: the GUI thread reads it while pip goes on


def to_install(name: str) -> list[Component]:
    """The component and the components it needs that are not installed yet, in install order."""
    order: list[Component] = []

    def visit(c: Component) -> None:
        for need in c.needs:
            visit(component(need))
        if c not in order and not is_installed(c.name):
            order.append(c)

    visit(component(name))
    return order


def pip_steps(lines: list[str], partial: Path, build: TorchBuild | None, source: PipSource,
              constraints: Path) -> list[list[str]]:
    """The pip commands that install `lines` into `partial`: everything with --no-deps, then torch and torchvision
    (when listed) in `build` from PyTorch's index. `constraints`: a file the caller writes `lines` to."""
    torch = [line for line in lines if line.split("==")[0] in TORCH_DISTRIBUTIONS]
    rest = [line for line in lines if line not in torch]
    if not (torch and build is not None and source.pytorch_index):
        torch, rest = [], lines
    target = ["--target", str(partial)]
    steps = [PIP + target + ["--no-deps", *source.args] + rest]
    if torch:  # second: a CUDA build's dependencies already in the folder are skipped (pip --target keeps them)
        where = ["--index-url", build.index, "--extra-index-url", "https://pypi.org/simple"] if build.index else []
        keep_deps = ["-c", str(constraints)] if build.cuda else ["--no-deps"]
        steps.append(PIP + target + keep_deps + where + [build.pin(line) for line in torch])
    return steps


def install(data_dir: Path, name: str, progress: ProgressFn = lambda p: None,
            cancel: threading.Event | None = None, source: PipSource = PipSource(),
            build: TorchBuild | None = None, lines: list[str] | None = None) -> list[Path]:
    """Install the component `name` (and the components it needs) into <data>/components/; returns the folders
    made. `lines` replaces the pinned list (tests); `build` the machine's choice of torch build."""
    cancel = cancel or threading.Event()
    made = []
    for c in to_install(name) if lines is None else [component(name)]:
        wanted = lines if lines is not None else c.requirements()
        chosen = build or (torch_build() if any(l.split("==")[0] in TORCH_DISTRIBUTIONS for l in wanted) else None)
        made.append(_install_one(data_dir, c.name, wanted, chosen, source, progress, cancel))
    return made


def _install_one(data_dir: Path, name: str, lines: list[str], build: TorchBuild | None, source: PipSource,
                 progress: ProgressFn, cancel: threading.Event) -> Path:
    final = folder(data_dir, name)
    partial = final.with_name(final.name + PARTIAL)
    shutil.rmtree(partial, ignore_errors=True)  # what an earlier crash left
    partial.parent.mkdir(parents=True, exist_ok=True)
    reader = _PipOutput(InstallProgress(name, "Starting pip", packages_total=len(lines)), progress)
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
            fh.write("\n".join(lines) + "\n")
        for command in pip_steps(lines, partial, build, source, Path(fh.name)):
            _run_pip(command, reader, cancel)
        if final.exists():
            shutil.rmtree(final)
        partial.rename(final)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    finally:
        os.unlink(fh.name)
    reader.progress.step = "Installed"
    progress(replace(reader.progress))
    return final


def _run_pip(command: list[str], reader: _PipOutput, cancel: threading.Event) -> None:
    """Run one pip command, its lines to `reader`; a cancel ends pip (its whole process group) at once."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                               start_new_session=True)  # Ctrl-C reaches us, and we end pip
    watcher = threading.Thread(target=_stop_on_cancel, args=(process, cancel), daemon=True)
    watcher.start()
    for line in process.stdout:
        reader.read(line)
    code = process.wait()
    if cancel.is_set():
        raise InstallCancelled(f"{reader.progress.component}: cancelled; nothing was installed")
    if code != 0:
        raise InstallFailed(f"{reader.progress.component}: pip failed (exit {code}); nothing was installed:\n"
                            + "\n".join(reader.lines[-8:]))


def _stop_on_cancel(process: subprocess.Popen, cancel: threading.Event) -> None:
    while process.poll() is None:
        if cancel.wait(0.2):
            try:
                if hasattr(os, "killpg"):
                    os.killpg(process.pid, signal.SIGTERM)  # pip and anything it started
                else:
                    process.terminate()
            except (ProcessLookupError, PermissionError):
                pass
            return
