"""The `docqa` entry point: the parser assembled from the command modules, one command run, errors said once."""
from __future__ import annotations

import argparse
import os
import sys

from .. import components, logs
from ..service import Service, user_error
from ..settings import Settings
from . import app, app_link, asking, evaluation, history, library, models, pages, tables
from . import components as components_cli
from .common import signal_handlers_restored
from .version import VersionAction

COMMAND_GROUPS = (library, pages, tables, asking, history, evaluation, app, models, components_cli)
OUTPUT_CLOSED = 141  # 128 + SIGPIPE: what a shell reports for a Unix tool whose reader went away (`| head`)
EXIT_CODES = f"""exit codes:
  0    done (an answer of any verdict: answered, unverified draft, closest passages, not found)
  1    done in part: some files failed to index (the others are indexed; the report names each and why),
       an answer failed, `remove` found nothing to remove, `models verify` found a broken file, `tables` stopped
       at a damaged page (the tables before it are written)
  2    usage or bad input: a wrong or missing argument, a file or folder that is not there, an empty query or
       question, an unknown document or answer id, a missing system library (`gui`), a database that cannot be
       opened (damaged, in use, read-only)
  130  cancelled (Ctrl-C): what was done is kept
  {OUTPUT_CLOSED}  the output was closed before it was all written (piped into `head`, say): nothing more is
       written, no error is printed, as with other Unix tools"""


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", default=argparse.SUPPRESS,
                        help="keep database, caches, logs and settings under this folder (or set DOCQA_HOME)")
    parser = argparse.ArgumentParser(prog="docqa", parents=[common], epilog=EXIT_CODES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     description="Private question answering over your PDF libraries.")
    parser.add_argument("--version", action=VersionAction)  # prints and exits: no command needed
    sub = parser.add_subparsers(dest="command", required=True)
    for group in COMMAND_GROUPS:
        group.add_parsers(sub, common)  # each command's parser carries its run function (set_defaults(run=…))
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        try:
            return _run(argv)
        finally:
            sys.stdout.flush()  # a reader that went away shows here, not as a traceback at the interpreter's exit
    except BrokenPipeError:
        _discard_stdout()
        return OUTPUT_CLOSED


def _run(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    settings = None
    try:
        settings = Settings.load(getattr(args, "home", None))
        logs.configure(settings.locations)
        served = app_link.forward(argv, settings.locations.data_dir)  # the open app runs it on its library
        if served is not None:
            return served
        components.activate(settings.locations)  # the optional components installed in the data folder, before use
        with Service(settings) as service, signal_handlers_restored():
            return args.run(service, args)
    except KeyboardInterrupt:
        print("docqa: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise  # not the product's error: the reader of the output went away
    except Exception as exc:
        return _said(exc, settings)


def run_served(service: Service, argv: list[str]) -> int:
    """Run `docqa argv` in the open app, on its service, for a `docqa` process (cli/app_link.py): what the
    command prints goes to that process (cli/console.py), the exit code is the one it would have had."""
    try:
        args = build_parser().parse_args(argv)
        return args.run(service, args)
    except SystemExit as exc:  # a usage error (the client parsed the same line first, so rare)
        return exc.code if isinstance(exc.code, int) else 2
    except BrokenPipeError:
        return OUTPUT_CLOSED
    except Exception as exc:
        return _said(exc, service.settings)


def _said(exc: Exception, settings: Settings | None) -> int:
    """The product's errors, said in its words (exit 2); anything else is a fault, raised for its traceback."""
    error = user_error(exc, settings)
    if error is None:
        raise exc
    print(f"docqa: {error}", file=sys.stderr)
    return 2


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that what is still buffered is not written to the closed pipe at exit (the
    recipe of Python's signal documentation)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # a stdout without a file descriptor (a test's capture): nothing to close
        pass
