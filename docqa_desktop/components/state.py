"""Where components live and whether they are there: <data>/components/<name>/, a pip --target folder each,
put on sys.path by activate() early in every process (the CLI's main, the app's start; spawned workers inherit
the parent's sys.path)."""
from __future__ import annotations

import importlib
import importlib.util
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from .catalog import COMPONENTS, component

PARTIAL = ".partial"  # an install in progress (or one a crash cut short): never on sys.path


def components_dir(data_dir: Path) -> Path:
    return Path(data_dir) / "components"


def folder(data_dir: Path, name: str) -> Path:
    return components_dir(data_dir) / name


def activate(locations) -> list[Path]:
    """Append every installed component's folder to sys.path (after the base's own packages: a component never
    shadows them); returns the folders added. `locations`: settings.Locations, or anything with a data_dir."""
    added = []
    for name in COMPONENTS:
        path = folder(locations.data_dir, name)
        if path.is_dir() and str(path) not in sys.path:
            sys.path.append(str(path))
            added.append(path)
    if added:
        importlib.invalidate_caches()
    return added


def is_installed(name: str) -> bool:
    """Whether every module the component provides can be imported (found, not imported: torch takes seconds)."""
    try:
        return all(importlib.util.find_spec(module) is not None for module in component(name).modules)
    except (ImportError, ValueError):  # a module set to None in sys.modules (tests block them so) is missing
        return False


@dataclass(frozen=True)
class ComponentState:
    name: str
    title: str
    adds: str
    installed: bool
    where: str  # "in <folder>", "in this Python environment", or "" when not installed
    download_mb: float
    disk_mb: float
    needs: tuple[str, ...]

    def as_json(self) -> dict:
        return {"name": self.name, "title": self.title, "adds": self.adds, "installed": self.installed,
                "where": self.where, "download_mb": self.download_mb, "disk_mb": self.disk_mb,
                "needs": list(self.needs)}


def state(data_dir: Path, name: str) -> ComponentState:
    c = component(name)
    installed = is_installed(name)
    own = folder(data_dir, name)
    where = "" if not installed else f"in {own}" if own.is_dir() else "in this Python environment"
    download, disk = c.size_mb()
    return ComponentState(c.name, c.title, c.adds, installed, where, download, disk, c.needs)


def states(data_dir: Path) -> list[ComponentState]:
    return [state(data_dir, name) for name in COMPONENTS]


class CannotRemove(RuntimeError):
    pass


def remove(data_dir: Path, name: str) -> Path:
    """Delete a component's folder (its modules stay importable in this process until it exits)."""
    component(name)
    path = folder(data_dir, name)
    if not path.is_dir():
        where = " (it came with this Python environment: remove it with pip)" if is_installed(name) else ""
        raise CannotRemove(f"{name} is not installed in {components_dir(data_dir)}{where}")
    users = [other for other in COMPONENTS.values() if name in other.needs and folder(data_dir, other.name).is_dir()]
    if users:
        raise CannotRemove(f"{', '.join(u.name for u in users)} needs {name}: remove "
                           f"{'it' if len(users) == 1 else 'them'} first")
    shutil.rmtree(path)
    if str(path) in sys.path:
        sys.path.remove(str(path))
    return path
