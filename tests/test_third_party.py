"""The licence holds: the LICENSE is the GNU AGPL v3, every distribution the project depends on has a licence line in
docqa_desktop/third_party.py, and `docqa --version` and the About dialog show the components and the models'
licences."""
from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from docqa_desktop import third_party
from docqa_desktop.third_party import NOT_INSTALLED, Component, installed_version, named_distributions, normalized

ROOT = Path(__file__).resolve().parent.parent
# The AGPL v3 text as gnu.org serves it today (https URLs); an older copy differs in three http:// lines
AGPL_MD5 = "eb1e647870add0502f8f010b19de32af"
TOOLS_ONLY = {"test"}  # extras that never ship in the product


def shipped_requirements() -> list[str]:
    """The distributions pyproject.toml installs with the product: its dependencies and every extra but the
    test tools."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra, requirements in project.get("optional-dependencies", {}).items():
        if extra not in TOOLS_ONLY:
            lines += requirements
    return [re.match(r"[A-Za-z0-9._-]+", line).group(0) for line in lines]


def test_the_licence_file_is_the_gnu_agpl_v3():
    text = (ROOT / "LICENSE").read_bytes()
    assert text.startswith(b"                    GNU AFFERO GENERAL PUBLIC LICENSE\n"
                           b"                       Version 3, 19 November 2007\n")
    assert b"How to Apply These Terms to Your New Programs" in text
    assert hashlib.md5(text).hexdigest() == AGPL_MD5


def test_every_distribution_the_product_installs_has_a_licence_line():
    requirements = shipped_requirements()
    assert "pymupdf" in map(normalized, requirements)  # the parse found the dependencies
    missing = sorted(name for name in requirements if normalized(name) not in named_distributions())
    assert not missing, f"add a row to docqa_desktop/third_party.py COMPONENTS for: {', '.join(missing)}"


def test_every_component_has_a_licence_and_the_required_ones_are_there():
    assert all(c.licence.strip() for c in third_party.COMPONENTS)
    names = " ".join(c.name for c in third_party.COMPONENTS)
    for name in ("PyMuPDF", "PySide6", "llama.cpp", "DuckDB", "ONNX Runtime", "RapidOCR", "PP-OCR", "all-MiniLM-L6-v2",
                 "SmolLM2", "PyTorch", "colpali-engine", "Transformers", "OpenCV"):
        assert name in names, name
    assert {c.name for c in third_party.COMPONENTS if c.optional} >= {"PyTorch", "Numba", "scikit-learn", "Matplotlib"}


def test_a_component_that_is_absent_reads_not_installed():
    assert installed_version(Component("absent", ("no-such-distribution-here",), "MIT")) == NOT_INSTALLED
    assert installed_version(Component("ONNX Runtime", ("no-such-gpu-build", "pymupdf"), "MIT")) != NOT_INSTALLED


def test_docqa_version_states_the_licence_the_components_and_the_models(tmp_path):
    run = subprocess.run([sys.executable, "-m", "docqa_desktop", "--home", str(tmp_path / "home"), "--version"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert re.fullmatch(r"DocQA Desktop \S+, licence AGPL-3\.0-or-later", lines[0]), lines[0]
    assert any("GNU Affero General Public License" in line for line in lines)
    pymupdf = next(line for line in lines if line.strip().startswith("PyMuPDF"))
    assert "AGPL-3.0 or Artifex commercial" in pymupdf and installed_version(third_party.COMPONENTS[0]) in pymupdf
    models = lines[lines.index("Models (variant and state, licence):") + 1:]
    assert any(line.split()[0] == "smollm2-135m-instruct" and "(Apache-2.0)" in line for line in models), models


def test_the_about_dialog_shows_the_licence_the_components_and_the_models(qtbot, home):
    pytest.importorskip("pytestqt")
    from docqa_desktop.service import Service
    from docqa_desktop.ui.about_dialog import AboutDialog
    from docqa_desktop.ui.tasks import TaskRunner

    tasks = TaskRunner()
    with Service(third_party_settings(home)) as service:
        dialog = AboutDialog(service, tasks)
        qtbot.addWidget(dialog)
        dialog.show()
        table = dialog.components
        rows = {table.item(i, 0).text(): table.item(i, 2).text() for i in range(table.rowCount())}
        assert len(rows) == len(third_party.COMPONENTS)
        assert rows[next(name for name in rows if name.startswith("PyMuPDF"))].startswith("AGPL-3.0")
        assert "AGPL-3.0-or-later" in dialog.title.text() and "Affero" in dialog.notice.text()
        qtbot.waitUntil(lambda: dialog.models.rowCount() > 0, timeout=30_000)
        models = {dialog.models.item(i, 0).text(): dialog.models.item(i, 2).text()
                  for i in range(dialog.models.rowCount())}
        assert models["smollm2-135m-instruct"] == "free for commercial use (Apache-2.0)"
        tasks.shutdown()


def test_the_help_menu_opens_the_about_dialog(window, qtbot):
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    about = next(a for a in help_menu.actions() if a.text() == "About DocQA Desktop")
    about.trigger()
    from docqa_desktop.ui.about_dialog import AboutDialog
    qtbot.waitUntil(lambda: any(d.isVisible() for d in window.findChildren(AboutDialog)), timeout=10_000)


def third_party_settings(home: Path):
    from conftest import make_settings
    return make_settings(home, layout=False, dense=False)
