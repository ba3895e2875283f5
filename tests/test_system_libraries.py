"""The check of the system libraries Qt's xcb plugin needs (ui/system_libraries.py): ldd's "not found" lines, the
dlopened libxcb-cursor, the one apt-get / dnf line that installs them, when the check applies, `docqa gui` exiting
2 with it before Qt starts, and the real check on this machine."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from docqa_desktop.ui.system_libraries import (DLOPENED, explain, install_as_root, install_command,
                                               missing_libraries, not_found, platform_needs_xcb, run_ldd, xcb_plugin)

PLUGIN = Path("/venv/PySide6/Qt/plugins/platforms/libqxcb.so")
# ldd on a stock Ubuntu 24.04 with libxcb-cursor0 alone installed (as the README used to say), shortened
STOCK_UBUNTU_LDD = """\
\tlinux-vdso.so.1 (0x00007ffd8a5f2000)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/plugins/platforms/../../lib/libQt6XcbQpa.so.6 (0x00007f3c1c200000)
\tlibGL.so.1 => /lib/x86_64-linux-gnu/libGL.so.1 (0x00007f3c1c179000)
\tlibxkbcommon-x11.so.0 => /lib/x86_64-linux-gnu/libxkbcommon-x11.so.0 (0x00007f3c1c170000)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f3c1c168000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-util.so.1 => /lib/x86_64-linux-gnu/libxcb-util.so.1 (0x00007f3c1c160000)
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-render-util.so.0 => not found
\tlibxcb-icccm.so.4 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f3c1be00000)
"""
UBUNTU = 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nNAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n'
FEDORA = 'NAME="Fedora Linux"\nVERSION="41 (Workstation Edition)"\nID=fedora\nVERSION_ID=41\n'
ROCKY = 'NAME="Rocky Linux"\nID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.4"\n'
ARCH = 'NAME="Arch Linux"\nID=arch\n'


def test_the_libraries_ldd_does_not_find_are_listed_once_in_order():
    assert not_found(STOCK_UBUNTU_LDD) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-render-util.so.0"]
    assert not_found(STOCK_UBUNTU_LDD.replace("not found", "/lib/x86_64-linux-gnu/found.so (0x1)")) == []


def test_the_dlopened_cursor_library_is_checked_by_name():
    """Qt before 6.5 opens libxcb-cursor at run time: ldd does not list it, so it is looked for by name."""
    without_cursor = "\n".join(line for line in STOCK_UBUNTU_LDD.splitlines() if "cursor" not in line)
    asked = []

    def absent(name):
        asked.append(name)
        return False

    assert missing_libraries(PLUGIN, lambda plugin: without_cursor, absent) == [
        "libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-render-util.so.0", "libxcb-cursor.so.0"]
    assert asked == ["libxcb-cursor.so.0"]
    assert "libxcb-cursor.so.0" not in missing_libraries(PLUGIN, lambda plugin: without_cursor, lambda name: True)
    # ldd said it already: named once, not looked up again
    said = STOCK_UBUNTU_LDD.replace("/lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f3c1c168000)", "not found")
    assert missing_libraries(PLUGIN, lambda plugin: said, absent).count("libxcb-cursor.so.0") == 1


def test_sonames_map_to_one_install_line_per_distribution_family():
    missing = ["libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-randr.so.0",
               "libxcb-shape.so.0", "libEGL.so.1"]
    assert install_command(missing, UBUNTU) == (
        "sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-randr0 libxcb-shape0 libegl1")
    fedora = "sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms libxcb libglvnd-egl"  # libxcb once
    assert install_command(missing, FEDORA) == fedora
    assert install_command(missing, ROCKY) == fedora  # ID_LIKE counts
    assert install_command(missing, ARCH) == ""


def test_the_message_names_every_missing_library_and_the_command():
    message = explain(["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libwhatever.so.7"], UBUNTU)
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1, libwhatever.so.7" in message
    assert "\n  sudo apt-get install libxcb-icccm4 libxcb-keysyms1\n" in message
    assert "the package that provides libwhatever.so.7" in message
    assert "sudo" not in explain(["libxcb-icccm.so.4"], ARCH) and "packages of your distribution" in explain(
        ["libxcb-icccm.so.4"], ARCH)


@pytest.mark.parametrize("environ, platform, wayland_works, checked", [
    ({}, "linux", False, True),  # an X11 desktop: Qt's default
    ({"QT_QPA_PLATFORM": "xcb"}, "linux", True, True),
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux", False, False),
    ({"QT_QPA_PLATFORM": "wayland"}, "linux", False, False),  # no fallback to xcb: nothing of it is loaded
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux", True, False),
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux", False, True),  # wayland fails, xcb is next
    ({"XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "KDE"}, "linux", True, False),
    ({"XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "KDE"}, "linux", False, True),
    ({"XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "ubuntu:GNOME"}, "linux", True, True),  # Qt picks xcb
    ({}, "darwin", False, False),
    ({}, "win32", False, False),
])
def test_the_check_applies_only_where_qt_will_use_xcb(environ, platform, wayland_works, checked):
    assert platform_needs_xcb(environ, platform, lambda: wayland_works) is checked


def test_the_real_check_agrees_with_the_loader_on_this_machine():
    """The check reports nothing missing exactly when the dynamic loader loads Qt's real xcb plugin and the
    dlopened cursor library, whatever this machine happens to have installed."""
    plugin = xcb_plugin()
    assert plugin is not None and plugin.name == "libqxcb.so"
    assert "libxcb.so.1 => /" in run_ldd(plugin)  # ldd ran on the real plugin and resolved its libraries
    load = ("import ctypes, sys\n"
            "try:\n    [ctypes.CDLL(name) for name in sys.argv[1:]]\nexcept OSError as e:\n    sys.exit(str(e))\n")
    loaded = subprocess.run([sys.executable, "-c", load, str(plugin), *DLOPENED], capture_output=True, text=True,
                            timeout=120)
    missing = missing_libraries(plugin)
    assert (missing == []) is (loaded.returncode == 0), (missing, loaded.stderr)
    done = subprocess.run([sys.executable, "-m", "docqa_desktop.ui.system_libraries"], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, "QT_QPA_PLATFORM": "xcb"}, timeout=120)
    assert done.returncode == (1 if missing else 0)
    assert all(name in done.stderr for name in missing)


def test_root_installs_without_sudo_refreshing_apt_lists_once_when_the_first_try_fails():
    ran = []

    def apt(argv):
        ran.append(argv)
        return 100 if len(ran) == 1 else 0  # the first install fails: no package lists yet

    assert install_as_root("sudo apt-get install libxcb-icccm4 libxcb-keysyms1", apt)
    assert ran == [["apt-get", "install", "-y", "libxcb-icccm4", "libxcb-keysyms1"], ["apt-get", "update"],
                   ["apt-get", "install", "-y", "libxcb-icccm4", "libxcb-keysyms1"]]
    ran.clear()
    assert not install_as_root("sudo dnf install xcb-util-wm", lambda argv: ran.append(argv) or 1)
    assert ran == [["dnf", "install", "-y", "xcb-util-wm"]]  # dnf refreshes its own metadata: no second try


@pytest.mark.slow  # a docqa process: ~4 s of imports
def test_docqa_gui_says_what_to_install_and_exits_2_before_qt_starts(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "ldd").write_text("#!/bin/sh\necho '\tlibxcb-icccm.so.4 => not found'\n"
                              "echo '\tlibxcb-keysyms.so.1 => not found'\n")
    (fake / "ldd").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}", "QT_QPA_PLATFORM": "xcb"}
    done = subprocess.run([sys.executable, "-m", "docqa_desktop", "gui", "--home", str(tmp_path / "home")],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "needs system libraries this machine lacks: libxcb-icccm.so.4, libxcb-keysyms.so.1" in done.stderr
    release = Path("/etc/os-release").read_text() if Path("/etc/os-release").exists() else ""
    command = install_command(["libxcb-icccm.so.4", "libxcb-keysyms.so.1"], release)
    assert (command or "packages of your distribution") in done.stderr
    assert "qt.qpa" not in done.stderr and "Could not load the Qt platform plugin" not in done.stderr


def test_no_display_is_said_before_qt_blames_the_cursor_library():
    """With the libraries there and no X11 display, Qt aborts saying libxcb-cursor is needed: the app says what
    is missing instead. Only where Qt would use xcb."""
    from docqa_desktop.ui.system_libraries import NO_DISPLAY, problem, start_problem

    xcb = {"QT_QPA_PLATFORM": "xcb"}
    libraries = problem(environ=xcb)  # missing libraries come first: whatever this machine has, both stay consistent
    assert start_problem(xcb) == (libraries or NO_DISPLAY)
    assert start_problem({**xcb, "DISPLAY": ":99"}) == libraries
    assert start_problem({"QT_QPA_PLATFORM": "offscreen"}) == ""


@pytest.mark.slow  # a docqa process: ~4 s of imports
def test_docqa_gui_without_a_display_exits_2_saying_so(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run([sys.executable, "-m", "docqa_desktop", "gui", "--home", str(tmp_path / "home")],
                          capture_output=True, text=True, cwd=ROOT, env={**env, "QT_QPA_PLATFORM": "xcb"}, timeout=300)
    from docqa_desktop.ui.system_libraries import problem

    said = "needs system libraries" if problem(environ={"QT_QPA_PLATFORM": "xcb"}) else "needs a display, and DISPLAY"
    assert done.returncode == 2 and said in done.stderr, done.stderr
