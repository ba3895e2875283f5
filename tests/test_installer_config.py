"""The installers' configuration agrees with itself: Briefcase's pinned `requires` (Windows, macOS) is the Linux
package's base (packaging/installer/base.txt's closure over the installed packages), and the icons each platform asks
for exist."""
from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT

sys.path.insert(0, str(ROOT / "packaging" / "installer"))
import bundle  # noqa: E402

BRIEFCASE = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["briefcase"]
# Briefcase's installers take OpenCV's headless build (no Qt 5, no FFmpeg) in opencv-python's place; the Linux package
# ships packaging/installer/cv2_lite.py instead (bundle.SUBSTITUTES)
BRIEFCASE_ONLY = ["opencv-python-headless==5.0.0.93"]
APP = BRIEFCASE["app"]["docqa_desktop"]


def base_closure() -> dict[str, str]:
    names = [line.strip() for line in (ROOT / "packaging" / "installer" / "base.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    return {name: dist.version for name, dist in bundle.closure(names).items()}


def test_briefcase_installs_exactly_the_linux_package_base_without_resolving():
    pinned = {canonicalize_name(Requirement(line).name): str(Requirement(line).specifier)
              for line in APP["requires"] if Requirement(line).marker is None}
    base = base_closure()
    base.pop("pip")  # the Linux package's own installer of components
    for replaced in bundle.LEFT_OUT:
        assert replaced not in pinned, replaced
    expected = {**{name: f"=={version}" for name, version in base.items()},
                **{canonicalize_name(Requirement(r).name): str(Requirement(r).specifier) for r in BRIEFCASE_ONLY}}
    assert pinned == expected
    assert APP["requirement_installer_args"] == ["--no-deps"]  # nothing resolved: no torch comes in


def test_the_base_holds_no_optional_component():
    base = base_closure()
    for name in ("torch", "torchvision", "colpali-engine", "transformers", "numba", "scikit-learn", "scipy",
                 "matplotlib", "sentence-transformers", "opencv-python"):
        assert name not in base, name


def test_each_platform_finds_its_icon():
    icon = ROOT / APP["icon"]
    for suffix in (".ico", ".icns", "-256.png", "-512.png"):
        assert (icon.parent / (icon.name + suffix)).stat().st_size > 0, suffix
    assert "GNU AFFERO GENERAL PUBLIC LICENSE" in (ROOT / BRIEFCASE["license"]["file"]).read_text()[:300]
