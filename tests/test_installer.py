"""The Linux package (packaging/build-installer.sh → packaging/installer/bundle.py), built for real into a temporary
folder and used as a new user would: its own Python and nothing of .venv, no torch, the self-test in a clean
environment (env -i, a new HOME, PATH without .venv) under Xvfb indexing the bundled samples and answering the ferry
question with its citation."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.gui]
sys.path.insert(0, str(ROOT / "packaging" / "installer"))
import bundle  # noqa: E402


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, str(ROOT / "packaging" / "installer" / "bundle.py"), "--out", str(out),
                           "--no-archive"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    launcher = done.stdout.strip().splitlines()[-1]  # the last line names the packaged launcher
    assert os.access(launcher, os.X_OK), done.stdout
    return launcher


def clean_env(home) -> dict[str, str]:
    """What a new user's session has: a HOME and the system's PATH, nothing of this test's environment."""
    return {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def test_the_package_has_its_own_python_and_no_optional_component(package):
    folder = os.path.dirname(package)
    python = os.path.join(folder, "python", "bin", bundle.PY)
    assert os.path.isfile(python) and not os.path.islink(python)
    sizes = json.load(open(os.path.join(folder, "SIZES.json")))
    assert sizes["total_mb"] > 0 and sizes["packages_mb"]["docqa_desktop"] > 0
    floor = tuple(map(int, sizes["glibc_floor"].split(".")))
    assert (2, 17) <= floor <= tuple(map(int, os.confstr("CS_GNU_LIBC_VERSION").split()[1].split(".")))
    for component in ("torch", "colpali_engine", "transformers", "numba", "sklearn", "scipy", "matplotlib", "cv2.data"):
        assert component not in sizes["packages_mb"], component
    # OpenCV is left out: RapidOCR's image operations are packaging/installer/cv2_lite.py, as cv2.py
    assert "cv2.py" in sizes["packages_mb"] and not any("opencv" in part for part in sizes["packages_mb"])
    probe = ("import sys, importlib.util as u; print(sys.prefix); "
             "print([m for m in ('torch', 'numba', 'sklearn', 'matplotlib') if u.find_spec(m)])")
    done = subprocess.run([python, "-I", "-c", probe], capture_output=True, text=True, env=clean_env(folder),
                          timeout=60)
    prefix, found = done.stdout.splitlines()
    assert prefix == os.path.join(folder, "python") and found == "[]", done.stderr


def test_the_command_line_runs_from_the_package_without_torch(package, tmp_path):
    docqa = os.path.join(os.path.dirname(package), "bin", "docqa")
    done = subprocess.run([docqa, "--help"], capture_output=True, text=True, env=clean_env(tmp_path), timeout=120)
    assert done.returncode == 0 and "usage: docqa" in done.stdout, done.stderr
    listed = subprocess.run([docqa, "--home", str(tmp_path / "home"), "components"], capture_output=True, text=True,
                            env=clean_env(tmp_path), timeout=120)
    assert listed.returncode == 0 and "visual" in listed.stdout and "not installed" in listed.stdout, listed.stderr


def test_the_self_test_passes_in_a_clean_environment_under_xvfb(package, tmp_path):
    assert shutil.which("xvfb-run"), "no xvfb-run: packaging/setup.sh test installs it as root (apt-get install xvfb)"
    shot = tmp_path / "selftest.png"
    command = (f'exec env -i HOME="{tmp_path}" PATH=/usr/bin:/bin LANG=C.UTF-8 DISPLAY="$DISPLAY" '
               f'XAUTHORITY="$XAUTHORITY" "{package}" --selftest --screenshot "{shot}"')
    done = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1366x768x24", "sh", "-c", command],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "18:40" in done.stdout and "cited ferry-memo-scanned.pdf, page 1" in done.stdout, done.stdout
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_menu_entry_starts_the_packaged_app(package, tmp_path):
    folder = os.path.dirname(package)
    done = subprocess.run([os.path.join(folder, "install-desktop-entry.sh")], capture_output=True, text=True,
                          env={**clean_env(tmp_path), "XDG_DATA_HOME": str(tmp_path / "share")}, timeout=120)
    assert done.returncode == 0, done.stderr
    entry = (tmp_path / "share" / "applications" / "docqa-desktop.desktop").read_text()
    assert f"Exec={folder}/python/bin/{bundle.PY} -m docqa_desktop gui" in entry
    icon = entry.split("Icon=")[1].splitlines()[0]
    assert icon.startswith(folder) and os.path.isfile(icon)


def test_an_older_glibc_is_told_plainly(package, tmp_path):
    """The launchers compare the system's glibc with the newest one the package's binaries ask for, before the
    loader stops with "version `GLIBC_x' not found"; here a copy asks for a glibc no system has."""
    folder = os.path.dirname(package)
    floor = json.load(open(os.path.join(folder, "SIZES.json")))["glibc_floor"]
    launcher = open(os.path.join(folder, "bin", "docqa")).read()
    assert f"needs glibc {floor} or newer" in launcher
    future = os.path.join(folder, "bin", "docqa-future-glibc")
    with open(future, "w") as out:
        out.write(launcher.replace(floor, "99.0"))
    os.chmod(future, 0o755)
    try:
        done = subprocess.run([future, "--help"], capture_output=True, text=True, env=clean_env(tmp_path), timeout=60)
    finally:
        os.unlink(future)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("DocQA Desktop needs glibc 99.0 or newer; this system has glibc 2.")
