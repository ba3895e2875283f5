"""The optional components: what each adds, the modules that tell it is there, the distributions it installs.

The base app indexes, searches, quotes and asks llama.cpp without any of them. Each component's pinned list
(requirements/<name>.txt, written by `python -m docqa_desktop.components.pinning` from the tested environment)
is the whole closure of what it needs beyond the base and the components it builds on, installed with
`pip install --no-deps`: nothing unpinned comes in, above all not a multi-GB CUDA torch by accident.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

REQUIREMENTS = "requirements"  # the package-data folder of the pinned lists
_SIZE = re.compile(r"#\s*(download|disk)-mb:\s*([\d.]+)")


@dataclass(frozen=True)
class Component:
    name: str
    title: str
    adds: str  # what the user gets, one sentence
    modules: tuple[str, ...]  # import names that must all be found for it to count as installed
    roots: tuple[str, ...]  # the distributions it is installed for; the base never pulls these in
    needs: tuple[str, ...] = ()  # components installed first (a distribution is pinned in one list only)

    def requirements(self) -> list[str]:
        """The pinned lines, 'name==version' each."""
        return [line for line in _lines(self.name) if not line.startswith("#")]

    def size_mb(self) -> tuple[float, float]:
        """(download, on disk) in MB, measured when the list was written (the CPU build of torch)."""
        found = dict(m.groups() for m in map(_SIZE.match, _lines(self.name)) if m)
        return float(found.get("download", 0)), float(found.get("disk", 0))


COMPONENTS: dict[str, Component] = {c.name: c for c in (
    Component("visual", "Visual retrieval",
              "finds pages by how they look (ColQwen2.5 page-image embeddings fused with text search), on an "
              "NVIDIA GPU when there is one",
              modules=("torch", "torchvision", "colpali_engine", "transformers", "numba"),
              roots=("torch", "torchvision", "colpali-engine", "transformers", "numba", "llvmlite"),
              needs=("clustering",)),  # scipy: colpali-engine's token pooling
    Component("clustering", "Summary-tree clustering",
              "MMRAG-DocQA's summary tree (scikit-learn's PCA and Gaussian mixtures)",
              modules=("sklearn", "scipy"), roots=("scikit-learn", "scipy")),
    Component("charts", "Evaluation charts",
              "the PNG charts of the `docqa eval` report (matplotlib)",
              modules=("matplotlib",), roots=("matplotlib",)),
)}


class UnknownComponent(ValueError):
    pass


def component(name: str) -> Component:
    if name not in COMPONENTS:
        raise UnknownComponent(f"no optional component {name!r}; there are {', '.join(COMPONENTS)}")
    return COMPONENTS[name]


def install_hint(name: str) -> str:
    """The command that installs a component, for every message that names a missing one."""
    return f"docqa components install {name}"


def missing_message(name: str) -> str:
    """'Visual retrieval is an optional component: docqa components install visual'"""
    return f"{component(name).title} is an optional component: {install_hint(name)}"


def _lines(name: str) -> list[str]:
    text = resources.files(__package__).joinpath(REQUIREMENTS, f"{name}.txt").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip()]
