"""Models installed on this machine (pulled or imported), kept in one small JSON file.

Pulled files stay in the Hugging Face cache where other tools find them; imported files stay where the
user keeps them. The registry only remembers paths and checksums, so `verify` can tell later whether a
file changed or vanished.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .types import ModelError


@dataclass(frozen=True)
class InstalledModel:
    name: str
    role: str
    source: str  # pull | import
    model_path: str
    projector_path: str = ""
    variant: str = ""
    sha256: dict[str, str] = field(default_factory=dict)  # path -> checksum at install time
    repo: str = ""
    base_path: str = ""  # a page embedder published as an adapter: the base model's folder

    @property
    def paths(self) -> list[str]:
        return [p for p in (self.model_path, self.projector_path, self.base_path) if p]


class Registry:
    def __init__(self, path: Path):
        self.path = path

    def all(self) -> dict[str, InstalledModel]:
        if not self.path.exists():
            return {}
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            return {name: InstalledModel(**values) for name, values in raw.get("models", {}).items()}
        except (OSError, ValueError, TypeError) as exc:
            raise ModelError(f"the installed-models file {self.path} is damaged ({exc}); "
                             "delete it and import or pull your models again") from exc

    def get(self, name: str) -> InstalledModel | None:
        return self.all().get(name)

    def put(self, model: InstalledModel) -> None:
        models = self.all()
        models[model.name] = model
        self._write(models)

    def remove(self, name: str) -> InstalledModel:
        models = self.all()
        if name not in models:
            raise ModelError(f"no installed model called {name!r}")
        removed = models.pop(name)
        self._write(models)
        return removed

    def _write(self, models: dict[str, InstalledModel]) -> None:
        # write-then-rename: a crash or full disk leaves the previous file intact
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"models": {n: asdict(m) for n, m in sorted(models.items())}}, indent=2)
        fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".models-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(payload)
            os.replace(temp, self.path)
        except OSError as exc:
            Path(temp).unlink(missing_ok=True)
            raise ModelError(f"cannot write {self.path}: {exc.strerror or exc}") from exc
