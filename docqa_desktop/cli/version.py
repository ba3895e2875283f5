"""`docqa --version`: the product's version and licence, the third-party components it bundles or loads (version and
licence each), and the models this copy has with their licences."""
from __future__ import annotations

import argparse
import textwrap

from .. import components, third_party
from ..service import Service
from ..settings import Settings

HELP = "print the version and licence, the third-party components and the installed models' licences, then exit"


class VersionAction(argparse.Action):
    """Prints and exits as soon as it is parsed, as argparse's own version action does: no command is needed.
    `--home` counts when it comes before `--version` (else DOCQA_HOME, else the default data folder)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=HELP):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        settings = Settings.load(getattr(namespace, "home", None))
        components.activate(settings.locations)  # the optional components installed since: their versions too
        with Service(settings) as service:
            print("\n".join(version_lines(service.models.statuses())))
        parser.exit()


def version_lines(model_statuses) -> list[str]:
    lines = [third_party.product_line(), *textwrap.wrap(third_party.NOTICE, 100), *third_party.source_lines(), "",
             "Third-party components (version installed here, licence):"]
    lines += _table(third_party.component_rows())
    lines += ["", "Models (variant and state, licence):"]
    lines += _table(third_party.model_rows(model_statuses)) or ["  none"]
    return lines


def _table(rows: list[third_party.ComponentRow]) -> list[str]:
    name_width = max((len(r.name) for r in rows), default=0)
    version_width = max((len(r.version) for r in rows), default=0)
    return [f"  {r.name:{name_width}}  {r.version:{version_width}}  {r.licence}" for r in rows]
