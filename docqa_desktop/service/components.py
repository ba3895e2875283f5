"""The facade's components part: the optional components' states, install (with progress and cancel) and remove,
in the app's data folder; and which of them a method lacks."""
from __future__ import annotations

import threading

from .. import components
from ..components import ComponentState, InstallProgress
from ..errors import InvalidRequest
from ..methods import MethodSpec
from .resources import Resources


class Components:
    def __init__(self, resources: Resources):
        self._resources = resources

    @property
    def _data_dir(self):
        return self._resources.settings.locations.data_dir

    def states(self) -> list[ComponentState]:
        return components.states(self._data_dir)

    def state(self, name: str) -> ComponentState:
        return components.state(self._data_dir, name)

    def to_install(self, name: str) -> list[ComponentState]:
        """What installing `name` installs: the components it needs that are missing, then itself."""
        return [self.state(c.name) for c in components.to_install(name)]

    def install(self, name: str, progress=lambda p: None, cancel: threading.Event | None = None):
        """Install `name` (and what it needs) into the data folder's components/ and put it on sys.path."""
        made = components.install(self._data_dir, name, progress, cancel)
        components.activate(self._resources.settings.locations)
        return made

    def remove(self, name: str):
        return components.remove(self._data_dir, name)


def missing_for(spec: MethodSpec) -> list[str]:
    """The optional components a method needs (named in spec.needs) that are not installed."""
    return [need for need in spec.needs if need in components.COMPONENTS and not components.is_installed(need)]


def missing_text(spec: MethodSpec) -> str:
    """Why a method cannot run for lack of components, with the command that installs them; "" when none lack."""
    missing = missing_for(spec)
    if not missing:
        return ""
    return "; ".join(f"needs the optional component {name} ({components.COMPONENTS[name].title.lower()}), not "
                     f"installed: {components.install_hint(name)}" for name in missing)


def refuse_without_components(spec: MethodSpec) -> None:
    reason = missing_text(spec)
    if reason:
        raise InvalidRequest(f"{spec.title} {reason}")


__all__ = ["Components", "InstallProgress", "missing_for", "missing_text", "refuse_without_components"]
