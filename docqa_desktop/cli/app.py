"""`docqa gui`: the desktop app, or its entry in the applications menu."""
from __future__ import annotations

import os
import sys

from ..service import Service


def add_parsers(sub, common) -> None:
    p = sub.add_parser("gui", parents=[common], help="open the desktop app")
    p.add_argument("folders", nargs="*", help="folders or PDFs to add to the library on start")
    p.add_argument("--install-launcher", action="store_true",
                   help="add DocQA Desktop to the applications menu (Linux), then exit")
    p.set_defaults(run=gui)


def gui(service: Service, args) -> int:
    if args.install_launcher:
        from ..launcher import LauncherError, install_launcher
        try:
            home = getattr(args, "home", None) or os.environ.get("DOCQA_HOME")
            path = install_launcher(os.path.abspath(home) if home else None)
        except LauncherError as exc:
            print(f"docqa: {exc}", file=sys.stderr)
            return 2
        print(f"launcher written to {path}: DocQA Desktop is in the applications menu")
        return 0
    from ..ui.system_libraries import start_problem
    if said := start_problem():  # checked before Qt loads: its own abort names the wrong library
        print(f"docqa: {said}", file=sys.stderr)
        return 2
    from ..ui.app import run  # Qt is loaded only for the app

    service.close()  # the app opens its own
    return run(service.settings, [os.path.abspath(f) for f in args.folders])
