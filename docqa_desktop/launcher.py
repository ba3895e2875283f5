"""A desktop launcher, so the app opens from the applications menu like any other: a freedesktop
`.desktop` entry (Linux desktops) that starts this installation's Python with `-m docqa_desktop`."""
from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from .files import write_atomically

ICON = Path(__file__).resolve().parent / "ui" / "docqa-desktop.svg"
FILE_NAME = "docqa-desktop.desktop"


class LauncherError(Exception):
    pass


def desktop_entry(python: str, home: str | None = None) -> str:
    command = [python, "-m", "docqa_desktop"] + (["--home", home] if home else []) + ["gui"]
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Name=DocQA Desktop",
        "GenericName=Document question answering",
        "Comment=Ask your PDF libraries questions, offline, with every answer cited to the page",
        f"Exec={' '.join(shlex.quote(part) for part in command)}",
        f"Icon={ICON}",
        "Terminal=false",
        "Categories=Office;Viewer;Science;",
        "MimeType=application/pdf;",
        "StartupWMClass=docqa-desktop",
        "",
    ])


def install_launcher(home: str | None = None, data_home: Path | None = None) -> Path:
    """Write the entry into the user's applications folder ($XDG_DATA_HOME/applications)."""
    if not sys.platform.startswith("linux"):
        raise LauncherError("a launcher can be installed on Linux desktops only (freedesktop .desktop entry); "
                            f"on {sys.platform} start the app with `docqa gui`")
    data_home = data_home or Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    target = data_home / "applications" / FILE_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    return write_atomically(target, desktop_entry(sys.executable, home))
