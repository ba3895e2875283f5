"""`docqa components [list] | install NAME | remove NAME`: the optional components (visual retrieval, clustering,
charts), installed into the app's data folder."""
from __future__ import annotations

import json
import sys

from ..components import InstallCancelled, InstallFailed
from ..service import Service
from .common import cancel_on_sigint


def add_parsers(sub, common) -> None:
    p = sub.add_parser("components", parents=[common],
                       help="optional components (visual retrieval, clustering, charts): list, install, remove")
    p.set_defaults(run=run)
    verbs = p.add_subparsers(dest="verb")
    v = verbs.add_parser("list", parents=[common], help="each component: what it adds, installed or not, its size")
    v.add_argument("--json", action="store_true")
    v = verbs.add_parser("install", parents=[common], help="download and install a component (its size said first)")
    v.add_argument("name")
    v.add_argument("--yes", "-y", action="store_true", help="do not ask before downloading")
    v = verbs.add_parser("remove", parents=[common], help="delete an installed component's folder")
    v.add_argument("name")


def run(service: Service, args) -> int:
    return {"list": _list, "install": _install, "remove": _remove}[args.verb or "list"](service, args)


def size_text(download_mb: float, disk_mb: float) -> str:
    return f"about {download_mb:,.0f} MB download, {disk_mb:,.0f} MB on disk"


def _list(service: Service, args) -> int:
    states = service.components.states()
    if getattr(args, "json", False):
        print(json.dumps([s.as_json() for s in states], indent=2, ensure_ascii=False))
        return 0
    for s in states:
        mark = f"installed ({s.where.removeprefix('in ')})" if s.installed else "not installed"
        needs = f"; needs {', '.join(s.needs)}" if s.needs else ""
        print(f"{s.name} — {s.title}: {mark}\n  adds {s.adds}\n  {size_text(s.download_mb, s.disk_mb)}{needs}")
    missing = [s.name for s in states if not s.installed]
    if missing:
        print(f"\n`docqa components install {missing[0]}` installs one into {service.settings.locations.data_dir}"
              "/components/")
    return 0


def _install(service: Service, args) -> int:
    plan = service.components.to_install(args.name)
    if not plan:
        print(f"{args.name} is installed already ({service.components.state(args.name).where})")
        return 0
    download, disk = sum(s.download_mb for s in plan), sum(s.disk_mb for s in plan)
    names = " and ".join(s.name for s in plan)
    print(f"Installing {names}: {size_text(download, disk)} (torch's CUDA build, on a machine with an NVIDIA "
          "GPU, downloads several GB more)" if args.name == "visual" else f"Installing {names}: "
          f"{size_text(download, disk)}")
    if not args.yes and not _confirm("Download and install? [y/N] "):
        print("Nothing was installed.")
        return 1
    cancel = cancel_on_sigint()

    def progress(p) -> None:
        print(f"\r{p.text()[:110]:<110}", end="", file=sys.stderr, flush=True)

    try:
        made = service.components.install(args.name, progress, cancel)
    except InstallCancelled as exc:
        print(f"\n{exc}", file=sys.stderr)
        return 130
    except InstallFailed as exc:
        print(f"\ndocqa: {exc}", file=sys.stderr)
        return 1
    print("", file=sys.stderr)
    for path in made:
        print(f"Installed {path.name} in {path}")
    return 0


def _remove(service: Service, args) -> int:
    try:
        path = service.components.remove(args.name)
    except RuntimeError as exc:  # CannotRemove: not ours to remove, or another component needs it
        print(f"docqa: {exc}", file=sys.stderr)
        return 1
    print(f"Removed {args.name} ({path})")
    return 0


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        print(question + "no (not a terminal: pass --yes)")
        return False
    return input(question).strip().lower() in ("y", "yes")
