"""The `docqa` entry point: the parser assembled from the command modules, one command run, errors said once."""
from __future__ import annotations

import argparse
import sys

from .. import logs
from ..service import Service, user_error
from ..settings import Settings
from . import app, asking, evaluation, history, library, models, pages
from .common import signal_handlers_restored

COMMAND_GROUPS = (library, pages, asking, history, evaluation, app, models)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", default=argparse.SUPPRESS,
                        help="keep database, caches, logs and settings under this folder (or set DOCQA_HOME)")
    parser = argparse.ArgumentParser(prog="docqa", parents=[common],
                                     description="Private question answering over your PDF libraries.")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in COMMAND_GROUPS:
        group.add_parsers(sub, common)  # each command's parser carries its run function (set_defaults(run=…))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = None
    try:
        settings = Settings.load(getattr(args, "home", None))
        logs.configure(settings.locations)
        with Service(settings) as service, signal_handlers_restored():
            return args.run(service, args)
    except KeyboardInterrupt:
        print("docqa: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the product's errors, said in its words; anything else is a fault: a traceback
        error = user_error(exc, settings)
        if error is None:
            raise
        print(f"docqa: {error}", file=sys.stderr)
        return 2
