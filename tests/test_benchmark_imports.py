"""The benchmarks reach into the package (internals included) and no other test runs them: every name they import
from docqa_desktop must exist, so that a move or a rename inside the package cannot break them unseen."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def package_imports(path: Path) -> list[tuple[int, str, str | None]]:
    """(line, module, name or None for a whole-module import) of every docqa_desktop import in a script."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("docqa_desktop"):
            found += [(node.lineno, node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, None) for alias in node.names if alias.name.startswith("docqa_desktop")]
    return found


def test_the_benchmarks_import_docqa_desktop():
    assert sum(bool(package_imports(p)) for p in BENCHMARKS.glob("*.py")) >= 10  # the folder was found


@pytest.mark.parametrize("script", sorted(str(p.relative_to(BENCHMARKS))
                                           for p in [*BENCHMARKS.glob("*.py"), *BENCHMARKS.glob("gpu_check/*.py")]))
def test_every_name_a_benchmark_imports_from_the_package_exists(script):
    for line, module, name in package_imports(BENCHMARKS / script):
        imported = importlib.import_module(module)
        if name is not None and not hasattr(imported, name):
            importlib.import_module(f"{module}.{name}")  # a submodule: `from docqa_desktop.store import catalog`
