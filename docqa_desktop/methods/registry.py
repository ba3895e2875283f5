"""Every answering method, by name: the one list the CLI, the app's picker, settings and eval read.

A new method is a folder methods/<name>/ whose __init__ defines SPEC, plus one line here.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from ..answers import Answer
from ..errors import DocQAError
from ..llm.gguf_file import ModelSize
from ..settings import Settings, SettingsError, merge_section, typed_value
from . import cascade, doclens, docreact, m3docrag, mdocagent, mmrag, quoted, simpledoc
from .base import MethodContext, MethodSpec
from .verdict import finish

METHODS: dict[str, MethodSpec] = {spec.name: spec for spec in (simpledoc.SPEC, m3docrag.SPEC, doclens.SPEC,
                                                                 mdocagent.SPEC, mmrag.SPEC, docreact.SPEC,
                                                                 quoted.SPEC, cascade.SPEC)}
AUTO = "auto"  # ask.method's default: the cascade (quoted, then with a model at or above the floor its reading)
QUOTED, CASCADE, CAPABLE_DEFAULT = quoted.SPEC.name, cascade.SPEC.name, simpledoc.SPEC.name



class UnknownMethod(DocQAError, ValueError):
    pass


def method_spec(name: str) -> MethodSpec:
    if name not in METHODS:
        raise UnknownMethod(f"unknown method {name!r}; choose one of {', '.join(sorted(METHODS))}")
    return METHODS[name]


def method_settings(spec: MethodSpec, settings: Settings, overrides: dict | None = None):
    """The method's settings: paper defaults < the CPU preset (ask.preset = "cpu") < [ask] knobs several
    methods share (DOCQA_ASK_<FIELD>) < [methods.<name>] (DOCQA_<NAME>_<FIELD>) < `overrides` (CLI flags)."""
    resolved = spec.settings()
    if settings.ask.preset == "cpu":
        resolved = dataclasses.replace(resolved, **spec.cpu_preset)
    tables = settings.tables or {}
    resolved = merge_section(resolved, tables.get("ask", {}), "DOCQA_ASK_", settings.source)
    resolved = merge_section(resolved, tables.get("methods", {}).get(spec.name, {}),
                             f"DOCQA_{spec.name.upper()}_", settings.source)
    fields = {f.name for f in dataclasses.fields(resolved)}
    given = {key: value for key, value in (overrides or {}).items() if value is not None}
    unknown = sorted(set(given) - fields)
    if unknown:
        raise SettingsError(f"{spec.name} has no setting {', '.join(unknown)}; it has {', '.join(sorted(fields))}")
    return dataclasses.replace(resolved, **given)


def typed_overrides(spec: MethodSpec, pairs: list[str]) -> dict:
    """FIELD=VALUE pairs (`docqa ask --set`) as overrides of the method's settings, each value of its field's
    type; a pair without "=", a field the method does not have or a value of the wrong type is a SettingsError."""
    defaults = spec.settings()
    fields = {f.name for f in dataclasses.fields(defaults)}
    overrides = {}
    for pair in pairs:
        name, equals, raw = pair.partition("=")
        name = name.strip().replace("-", "_")
        if not equals or name not in fields:
            raise SettingsError(f"--set {pair}: {spec.name} has the settings {', '.join(sorted(fields))} "
                                "(give one as FIELD=VALUE)")
        overrides[name] = typed_value(type(getattr(defaults, name)), raw.strip(), f"--set {pair}")
    return overrides


def setting_defaults(spec: MethodSpec) -> list[str]:
    """The method's settings as "name=the paper's default" (the value shows the type), for help texts."""
    defaults = spec.settings()
    return [f"{f.name}={getattr(defaults, f.name)}" for f in dataclasses.fields(defaults)]


def run_method(spec: MethodSpec, ctx: MethodContext, check_proofs: bool = True,
               writers: Callable[[Answer], list[ModelSize]] | None = None) -> None:
    """Run a method on ctx.answer and set its verdict once (methods/verdict.py: failures and Stop in the answer's
    status, a model method's draft checked with `check_proofs` and weighed against its floor by `writers`)."""
    finish(spec, ctx, check_proofs, writers)
