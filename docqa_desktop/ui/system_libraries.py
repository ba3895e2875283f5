"""The system libraries Qt's X11 (xcb) platform plugin needs, checked before Qt starts (no Qt import here).

Without one of them Qt aborts with "Could not load the Qt platform plugin "xcb"" and often names the wrong library;
a stock Debian or Ubuntu lacks several (libxcb-cursor0, libxcb-icccm4, libxcb-keysyms1 …). `ldd` on the plugin
lists every library it and the libraries it loads need ("=> not found" for a missing one); libxcb-cursor is
checked by name as well, because Qt versions before 6.5 open it at run time (dlopen), where ldd does not look.
The missing ones are said with the one apt-get (Debian, Ubuntu) or dnf (Fedora, RHEL) command that installs them.

Run as `python -m docqa_desktop.ui.system_libraries`: prints what is missing and exits 1, or exits 0 silently.
With `--install` (packaging/setup.sh), root on a Debian/Ubuntu or Fedora/RHEL system installs the missing packages
itself and says so; anyone else is shown the one command.
"""
from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

DLOPENED = ("libxcb-cursor.so.0",)
# soname -> (Debian/Ubuntu package, Fedora/RHEL package), for every system library the PySide6 xcb plugin loads
PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb-glx.so.0": ("libxcb-glx0", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libXau.so.6": ("libxau6", "libXau"),
    "libXdmcp.so.6": ("libxdmcp6", "libXdmcp"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx"),
    "libGLdispatch.so.0": ("libglvnd0", "libglvnd"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libpng16.so.16": ("libpng16-16", "libpng"),
    "libz.so.1": ("zlib1g", "zlib"),
    "libzstd.so.1": ("libzstd1", "libzstd"),
    "libexpat.so.1": ("libexpat1", "expat"),
}
DEBIAN, FEDORA = 0, 1
NO_DISPLAY = ("the desktop app needs a display, and DISPLAY is not set: start it in your desktop session (or "
              "under Xvfb). The command line works without one.")
_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.M)


def xcb_plugin() -> Path | None:
    """PySide6's xcb platform plugin, None where PySide6 has none (macOS, Windows) or is not installed."""
    try:
        import importlib.util
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    plugin = Path(spec.origin).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return plugin if plugin.exists() else None


def not_found(ldd_output: str) -> list[str]:
    """The sonames ldd could not find ("libxcb-icccm.so.4 => not found"), each once, in its order."""
    return list(dict.fromkeys(_NOT_FOUND.findall(ldd_output)))


def run_ldd(path: Path) -> str:
    """ldd's report on `path` ("" where there is no ldd to ask)."""
    ldd = shutil.which("ldd")
    if not ldd:
        return ""
    done = subprocess.run([ldd, str(path)], capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


def loadable(soname: str) -> bool:
    """Whether the dynamic loader finds and loads `soname`, as Qt's dlopen would."""
    try:
        ctypes.CDLL(soname)
        return True
    except OSError:
        return False


def missing_libraries(plugin: Path, ldd: Callable[[Path], str] = run_ldd,
                      can_load: Callable[[str], bool] = loadable) -> list[str]:
    """The sonames the plugin needs that this system lacks."""
    missing = not_found(ldd(plugin))
    return missing + [name for name in DLOPENED if name not in missing and not can_load(name)]


def package_family(os_release: str) -> int | None:
    """DEBIAN or FEDORA from /etc/os-release's ID and ID_LIKE; None for another family."""
    ids = " ".join(re.findall(r'^(?:ID|ID_LIKE)="?([^"\n]*)"?', os_release, re.M)).split()
    if any(name in ("debian", "ubuntu") for name in ids):
        return DEBIAN
    if any(name in ("fedora", "rhel", "centos") for name in ids):
        return FEDORA
    return None


def install_command(sonames: list[str], os_release: str) -> str:
    """The one command that installs the libraries in `sonames` whose package is known ("" for another family
    of distributions, or when none is known)."""
    family = package_family(os_release)
    if family is None:
        return ""
    packages = list(dict.fromkeys(PACKAGES[name][family] for name in sonames if name in PACKAGES))
    if not packages:
        return ""
    return f"sudo {'apt-get' if family == DEBIAN else 'dnf'} install {' '.join(packages)}"


def install_as_root(command: str, run: Callable[[list[str]], int] | None = None) -> bool:
    """Runs `command` (install_command's) without its sudo, non-interactively; apt-get's package lists are
    refreshed once when the first try fails (a new machine often has none). True when the packages went in."""
    run = run or (lambda args: subprocess.call(args, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"}))
    argv = command.split()[1:]  # no "sudo": we are root
    argv.insert(2, "-y")
    if run(argv) == 0:
        return True
    return argv[0] == "apt-get" and run(["apt-get", "update"]) == 0 and run(argv) == 0


def platform_needs_xcb(environ: dict[str, str] = os.environ, platform: str = sys.platform,
                       wayland_works: Callable[[], bool] = lambda: False) -> bool:
    """Whether Qt will start on its xcb plugin here: on Linux, when QT_QPA_PLATFORM names it first (or names
    nothing), unless a Wayland session (not GNOME's, where Qt picks xcb) has a working wayland plugin."""
    if not platform.startswith("linux"):
        return False
    requested = [name.split(":")[0].strip() for name in environ.get("QT_QPA_PLATFORM", "").split(";") if name.strip()]
    if requested:
        first = requested[0]
        return first == "xcb" or (first.startswith("wayland") and "xcb" in requested and not wayland_works())
    desktop = (environ.get("XDG_CURRENT_DESKTOP", "") + environ.get("XDG_SESSION_DESKTOP", "")).lower()
    on_wayland = environ.get("XDG_SESSION_TYPE") == "wayland" and "gnome" not in desktop
    return not (on_wayland and wayland_works())


def wayland_plugin_works(ldd: Callable[[Path], str] = run_ldd) -> bool:
    """Whether PySide6's wayland plugin is there with every library it needs."""
    xcb = xcb_plugin()
    wayland = xcb.with_name("libqwayland.so") if xcb else None
    return bool(wayland and wayland.exists() and not not_found(ldd(wayland)))


def start_problem(environ: dict[str, str] = os.environ) -> str:
    """What keeps the app from starting here (`docqa gui` asks before Qt loads): the libraries problem() names,
    else a missing X11 display, for which Qt's own abort blames libxcb-cursor; "" when nothing does."""
    if said := problem(environ=environ):
        return said
    needs_display = xcb_plugin() is not None and platform_needs_xcb(environ, wayland_works=wayland_plugin_works)
    return NO_DISPLAY if needs_display and not environ.get("DISPLAY") else ""


def problem(os_release_path: Path = Path("/etc/os-release"), environ: dict[str, str] = os.environ) -> str:
    """The system libraries the app lacks here, with the command that installs them; "" when none."""
    plugin = xcb_plugin()
    if plugin is None or not platform_needs_xcb(environ, wayland_works=wayland_plugin_works):
        return ""
    missing = missing_libraries(plugin)
    if not missing:
        return ""
    try:
        os_release = os_release_path.read_text()
    except OSError:
        os_release = ""
    return explain(missing, os_release)


def explain(missing: list[str], os_release: str) -> str:
    """The message for the missing sonames: which they are, and the command that installs them."""
    command = install_command(missing, os_release)
    unknown = [name for name in missing if name not in PACKAGES] if command else []
    fix = (f"Install them with:\n  {command}" if command else
           "Install the packages of your distribution that provide them.")
    if unknown:
        fix += f"\n  and the package that provides {', '.join(unknown)}"
    return (f"the desktop app cannot start: Qt's X11 (xcb) platform plugin needs system libraries this machine "
            f"lacks: {', '.join(missing)}.\n{fix}\n(The command line works without them.)")


def install_missing(os_release_path: Path = Path("/etc/os-release")) -> bool:
    """As root on a known family of distributions: installs what problem() finds missing. True when it ran and
    the check then finds nothing missing."""
    plugin = xcb_plugin()
    if plugin is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    missing = missing_libraries(plugin)
    try:
        command = install_command(missing, os_release_path.read_text()) if missing else ""
    except OSError:
        command = ""
    if not command or not shutil.which(command.split()[1]):
        return False
    print(f"docqa: installing the system libraries the desktop app needs: {command.removeprefix('sudo ')}",
          file=sys.stderr)
    return install_as_root(command) and not missing_libraries(plugin)


if __name__ == "__main__":
    if "--install" in sys.argv[1:]:
        install_missing()
    said = problem()
    if said:
        print(f"docqa: {said}", file=sys.stderr)
    sys.exit(1 if said else 0)
