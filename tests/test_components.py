"""Optional components: the install mechanics for real (pip on a small wheel built here, installed from a local
folder), and the pinned lists' consistency."""
from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from docqa_desktop import components
from docqa_desktop.components import catalog, pinning
from docqa_desktop.components.installer import PipSource, pip_steps
from docqa_desktop.components.torch_build import TORCH, TORCHVISION, TorchBuild

TINY = "docqa-tiny-component"


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> Path:
    """A folder with one small real wheel (docqa-tiny-component 0.1, module docqa_tiny_component), built by pip."""
    root = tmp_path_factory.mktemp("tiny")
    project = root / "project"
    (project / "docqa_tiny_component").mkdir(parents=True)
    (project / "docqa_tiny_component" / "__init__.py").write_text("VALUE = 42\n")
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "{TINY}"\nversion = "0.1"\n')
    out = root / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                    "-w", str(out), str(project)], check=True, capture_output=True, timeout=300)
    assert list(out.glob("docqa_tiny_component-0.1-*.whl"))
    return out


def local(wheels: Path) -> PipSource:
    return PipSource(("--no-index", "--find-links", str(wheels)), pytorch_index=False)


@pytest.mark.slow  # pip runs twice and a new Python process starts: ~2.5 s
def test_install_shows_progress_then_activate_finds_it_in_a_new_process_and_remove_deletes_it(wheels, tmp_path):
    data = tmp_path / "data"
    seen = []
    # the tiny wheel stands in for the charts component's pinned list (the folder is what activate() reads)
    made = components.install(data, "charts", seen.append, source=local(wheels), lines=[f"{TINY}==0.1"])
    target = data / "components" / "charts"
    assert made == [target]
    assert (target / "docqa_tiny_component" / "__init__.py").is_file()
    assert not (data / "components" / "charts.partial").exists()
    steps = [p.step for p in seen]
    assert any(step.startswith(("Processing", "Collecting")) and "docqa_tiny_component" in step for step in steps)
    assert "Installing 1 packages" in steps and steps[-1] == "Installed"
    assert seen[-1].packages_done == 1 and seen[-1].packages_total == 1

    check = ("import sys; from pathlib import Path; from docqa_desktop.components import activate\n"
             "class Locations: data_dir = Path(sys.argv[1])\n"
             "added = activate(Locations())\n"
             "import docqa_tiny_component; print(docqa_tiny_component.VALUE, added == [Path(sys.argv[2])])")
    done = subprocess.run([sys.executable, "-c", check, str(data), str(target)], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split() == ["42", "True"], done.stderr

    assert components.remove(data, "charts") == target
    assert not target.exists()
    with pytest.raises(components.CannotRemove):
        components.remove(data, "charts")


def test_a_cancelled_install_leaves_no_folder(wheels, tmp_path):
    data = tmp_path / "data"
    cancel = threading.Event()
    seen = []

    def progress(p) -> None:  # cancelled as soon as pip says anything: mid-install
        seen.append(p)
        cancel.set()

    with pytest.raises(components.InstallCancelled, match="nothing was installed"):
        components.install(data, "charts", progress, cancel, source=local(wheels), lines=[f"{TINY}==0.1"])
    assert seen
    assert list((data / "components").iterdir()) == []


def test_a_failed_install_leaves_no_folder_and_says_what_pip_said(wheels, tmp_path):
    data = tmp_path / "data"
    with pytest.raises(components.InstallFailed) as failed:
        components.install(data, "charts", source=local(wheels), lines=[f"{TINY}==9.9"])
    assert "No matching distribution" in str(failed.value) or "Could not find" in str(failed.value)
    assert list((data / "components").iterdir()) == []


def test_every_pinned_line_is_an_exact_pin():
    for c in components.COMPONENTS.values():
        lines = c.requirements()
        assert lines, c.name
        for line in lines:
            assert re.fullmatch(r"[a-z0-9][a-z0-9.-]*==[0-9][0-9A-Za-z.]*", line), (c.name, line)
        download, disk = c.size_mb()
        assert 0 < download < disk, c.name


def test_no_distribution_is_pinned_twice_and_none_is_in_the_base():
    owners: dict[str, str] = {}
    for c in components.COMPONENTS.values():
        for line in c.requirements():
            name = line.split("==")[0]
            assert name not in owners, f"{name} is pinned by {owners.get(name)} and {c.name}"
            owners[name] = c.name
    assert not set(owners) & pinning.base()
    for c in components.COMPONENTS.values():  # each component's own roots are in its list or a list it needs
        lists = {c.name, *c.needs}
        assert all(owners.get(pinning.canonical(root)) in lists for root in c.roots), c.name


def test_the_lists_are_what_the_tested_environment_has():
    """Regenerate with `python -m docqa_desktop.components.pinning --wheels DIR` after changing a version."""
    for name, dists in pinning.component_lists().items():
        assert sorted(map(pinning.pin, dists)) == catalog.component(name).requirements(), name


def test_torch_is_pinned_as_setup_sh_gpu_pins_it():
    visual = catalog.component("visual").requirements()
    assert TORCH in visual and TORCHVISION in visual


def test_torch_comes_from_pytorchs_index_in_the_chosen_build(tmp_path):
    lines = [TORCH, TORCHVISION, "sympy==1.14.0"]
    cpu = TorchBuild("cpu", "https://download.pytorch.org/whl/cpu", "no GPU")
    rest, torch = pip_steps(lines, tmp_path / "x.partial", cpu, PipSource(), tmp_path / "pins.txt")
    assert "--no-deps" in rest and rest[-1] == "sympy==1.14.0"
    assert "--no-deps" in torch and torch[-2:] == ["torch==2.13.0+cpu", "torchvision==0.28.0+cpu"]
    assert torch[torch.index("--index-url") + 1] == "https://download.pytorch.org/whl/cpu"
    cuda = TorchBuild("cu128", "https://download.pytorch.org/whl/cu128", "a GPU")
    _, torch = pip_steps(lines, tmp_path / "x.partial", cuda, PipSource(), tmp_path / "pins.txt")
    # the CUDA build keeps the NVIDIA libraries torch pins, and every other dependency to our pins
    assert "--no-deps" not in torch and torch[torch.index("-c") + 1] == str(tmp_path / "pins.txt")
    assert torch[-2:] == ["torch==2.13.0+cu128", "torchvision==0.28.0+cu128"]
    (only,) = pip_steps(lines, tmp_path / "x.partial", cpu, PipSource(pytorch_index=False), tmp_path / "p.txt")
    assert only[-3:] == lines and "--no-deps" in only


def test_installing_visual_installs_clustering_first_when_missing(monkeypatch):
    monkeypatch.setattr("docqa_desktop.components.installer.is_installed", lambda name: False)
    assert [c.name for c in components.to_install("visual")] == ["clustering", "visual"]
    monkeypatch.setattr("docqa_desktop.components.installer.is_installed", lambda name: name == "clustering")
    assert [c.name for c in components.to_install("visual")] == ["visual"]


def test_an_unknown_component_is_named_with_the_known_ones():
    with pytest.raises(components.UnknownComponent, match="there are visual, clustering, charts"):
        components.component("nope")
