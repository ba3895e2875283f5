"""Models installed on this machine (pulled or imported), kept in one small JSON file.

Pulled files stay in the Hugging Face cache where other tools find them; imported files are copied into the
app's model folder, or, linked at the user's choice, stay where the user keeps them. The registry remembers paths
and checksums, so `verify` can tell later whether a file changed or vanished, and what the file's own metadata
says (licence, size), so a linked model whose drive is away is still listed.
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
    copied: bool = False  # an import copied into the model folder; False for an import: linked where it lies
    title: str = ""  # an import's general.name
    licence: str = ""  # an import's general.license ("apache-2.0"); "" when the file states none
    parameters: float = 0.0  # an import's billions of parameters, from its metadata
    size_mb: float = 0.0  # an import's files when imported (a linked file may be away)

    @property
    def linked(self) -> bool:
        """An imported model used where it lies (a file on a USB stick): missing while the stick is away."""
        return self.source == "import" and not self.copied

    @property
    def where_kept(self) -> str:
        """An import's file as the lists and messages say it: "linked: /media/usb/x.gguf", "copied to …"."""
        return f"linked: {self.model_path}" if self.linked else f"copied to {self.model_path}"

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
