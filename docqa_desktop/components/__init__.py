"""Optional components: visual retrieval (torch, ColQwen2.5, the GPU path), MMRAG-DocQA's clustering and the
evaluation report's charts, each installed when the user asks into a folder of the app's own
(<data>/components/<name>/) and put on sys.path by activate() at start. The base app never needs them.

Standard library only, from the table to the installer: packaging/gpu_setup.py imports torch_build before any
environment exists, and every front end calls activate() before it imports anything else.
"""
from .catalog import COMPONENTS, Component, UnknownComponent, component, install_hint, missing_message
from .installer import (InstallCancelled, InstallFailed, InstallProgress, PipSource, install, to_install)
from .state import (CannotRemove, ComponentState, activate, components_dir, folder, is_installed, remove, state,
                    states)

__all__ = ["COMPONENTS", "CannotRemove", "Component", "ComponentState", "InstallCancelled", "InstallFailed",
           "InstallProgress", "PipSource", "UnknownComponent", "activate", "component", "components_dir", "folder",
           "install", "install_hint", "is_installed", "missing_message", "remove", "state", "states", "to_install"]
