"""Writes the components' pinned lists (requirements/<name>.txt) from the environment the app was tested in:
`python -m docqa_desktop.components.pinning [--wheels DIR]...` in the development .venv.

The base is what the installed app requires, never entering a component's root distributions; a component's
list is the closure of its roots minus the base and minus the components it needs (so that no distribution is
pinned twice). Sizes: the download is the wheel's size where a wheel of that exact version is in one of the
--wheels folders, else its files compressed as a wheel compresses them (deflate); on disk, the files RECORD lists.
Development only: it reads packaging's marker evaluation, which the installer itself never needs.
"""
from __future__ import annotations

import argparse
import re
import zlib
from importlib import metadata
from pathlib import Path

from .catalog import COMPONENTS, REQUIREMENTS, Component

APP = "docqa-desktop"
INSTALLER_TOOLS = {"pip", "setuptools", "wheel"}  # torch names setuptools for building C++ extensions only
HERE = Path(__file__).resolve().parent / REQUIREMENTS


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def dependencies(dist: str) -> list[str]:
    """The distributions `dist` requires here (markers evaluated, extras left out)."""
    from packaging.requirements import Requirement

    found = []
    for line in metadata.requires(dist) or []:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            found.append(canonical(req.name))
    return found


def closure(roots: list[str], outside: set[str]) -> set[str]:
    """Every installed distribution reachable from `roots` without entering `outside`."""
    seen: set[str] = set()
    todo = [canonical(r) for r in roots]
    while todo:
        dist = todo.pop()
        if dist in seen or dist in outside or dist in INSTALLER_TOOLS:
            continue
        seen.add(dist)
        todo += dependencies(dist)
    return seen


def base() -> set[str]:
    optional = {canonical(r) for c in COMPONENTS.values() for r in c.roots}
    return closure(dependencies(APP), optional)


def component_lists() -> dict[str, set[str]]:
    """Each component's distributions, the components it needs resolved first."""
    lists: dict[str, set[str]] = {}
    below = base()

    def resolve(c: Component) -> set[str]:
        if c.name not in lists:
            taken = set(below)
            for need in c.needs:
                taken |= resolve(COMPONENTS[need]) | _taken_by_needs(COMPONENTS[need], lists)
            lists[c.name] = closure(list(c.roots), taken)
        return lists[c.name]

    for c in COMPONENTS.values():
        resolve(c)
    return lists


def _taken_by_needs(c: Component, lists: dict[str, set[str]]) -> set[str]:
    return set().union(*(lists[n] for n in c.needs)) if c.needs else set()


def pin(dist: str) -> str:
    version = metadata.version(dist).split("+")[0]  # the local label (+cpu) is the build, chosen at install
    return f"{canonical(dist)}=={version}"


def sizes(dists: set[str], wheels: list[Path]) -> tuple[float, float]:
    download = disk = 0
    for dist in dists:
        d = metadata.distribution(dist)
        files = [f for f in (d.files or []) if Path(d.locate_file(f)).is_file()]
        disk += sum(Path(d.locate_file(f)).stat().st_size for f in files)
        wheel = _wheel(dist, d.version, wheels)
        download += wheel.stat().st_size if wheel else sum(
            len(zlib.compress(Path(d.locate_file(f)).read_bytes(), 6)) for f in files)
    return download / 2**20, disk / 2**20


def _wheel(dist: str, version: str, folders: list[Path]) -> Path | None:
    stem = canonical(dist).replace("-", "_")
    for folder in folders:
        for path in folder.glob("*.whl"):
            name, _, rest = path.name.partition("-")
            if canonical(name) == canonical(stem) and rest.startswith(f"{version}-"):
                return path
    return None


def write(wheels: list[Path]) -> None:
    for name, dists in component_lists().items():
        download, disk = sizes(dists, wheels)
        lines = [f"# The {name!r} component: every distribution it needs beyond the base"
                 + (f" and {', '.join(COMPONENTS[name].needs)}" if COMPONENTS[name].needs else "")
                 + ", pinned to the tested versions.",
                 "# Installed with pip install --no-deps; written by python -m docqa_desktop.components.pinning.",
                 f"# download-mb: {download:.0f}", f"# disk-mb: {disk:.0f}"]
        (HERE / f"{name}.txt").write_text("\n".join(lines + sorted(map(pin, dists))) + "\n", encoding="utf-8")
        print(f"{name}: {len(dists)} distributions, about {download:.0f} MB download, {disk:.0f} MB on disk")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheels", type=Path, action="append", default=[],
                    help="a folder of wheels whose sizes are the download sizes")
    write(ap.parse_args(argv).wheels)


if __name__ == "__main__":
    main()
