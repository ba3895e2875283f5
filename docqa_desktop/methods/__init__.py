"""Answering methods as plug-ins: each is a folder with a MethodSpec (base.py), listed in registry.py."""
from __future__ import annotations

from .base import MethodContext, MethodSpec, PrepareContext
from .registry import (AUTO as AUTO_METHOD, CAPABLE_DEFAULT, CASCADE, METHODS, QUOTED, UnknownMethod, method_settings,
                       method_spec, run_method, setting_defaults, typed_overrides)

__all__ = ["AUTO_METHOD", "CAPABLE_DEFAULT", "CASCADE", "METHODS", "QUOTED", "MethodContext", "MethodSpec", "PrepareContext",
           "UnknownMethod", "method_settings", "method_spec", "run_method", "setting_defaults", "typed_overrides"]
