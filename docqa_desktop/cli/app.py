"""`docqa gui`: the desktop app, or its entry in the applications menu."""
from __future__ import annotations

import functools
import os
import sys

from ..service import Service
from .app_link import AppEvents, CommandServer
from .common import local_path
from .console import served_console


def add_parsers(sub, common) -> None:
    p = sub.add_parser("gui", parents=[common], help="open the desktop app")
    p.add_argument("folders", nargs="*", type=local_path, help="folders or PDFs to add to the library on start")
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
    if (console := served_console()) is not None:  # the app is open: its window comes forward, with the folders
        console.bring_forward(args.folders)
        print("DocQA Desktop is open: its window is brought forward" + (
            f" and adds {len(args.folders)} folder(s) or file(s)" if args.folders else ""))
        return 0
    from ..ui.system_libraries import start_problem
    if said := start_problem():  # checked before Qt loads: its own abort names the wrong library
        print(f"docqa: {said}", file=sys.stderr)
        return 2
    from ..ui.app import run  # Qt is loaded only for the app

    service.close()  # the app opens its own
    return run(service.settings, args.folders, serve_commands=_command_server)


def _command_server(service: Service, events: AppEvents) -> CommandServer:
    """The open app's listener for `docqa` commands, which it runs on `service`."""
    from .main import run_served  # main assembles every command, this one included

    return CommandServer(service.settings.locations.data_dir, functools.partial(run_served, service), events)
