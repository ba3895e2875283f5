"""The catalog of recommended models (models/catalog.toml), as typed entries."""
from __future__ import annotations

import importlib.util
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .types import ModelError

CATALOG_FILE = Path(__file__).resolve().parents[2] / "models" / "catalog.toml"
ROLES = ("vision", "text", "page-embedder", "text-embedder")

# What a model's licence lets a firm do, in the words every front end shows (the catalog's `commercial_use`)
LICENCE_WORDS = {
    "free": "free for commercial use",
    "conditions": "commercial use with conditions",
    "research": "research only",
}
UNKNOWN_LICENCE = "licence unknown: check the model's card"
COMMERCIAL = ("free", "conditions")  # the uses a firm can accept
# A GGUF's general.license (SPDX ids as Hugging Face writes them) whose terms are known to allow commercial use;
# any other is shown by its name, its terms the user's to read (a "non-commercial" or a model family's own licence
# says more than a word here could).
FREE_LICENCES = ("apache-2.0", "mit", "bsd-2-clause", "bsd-3-clause", "cc-by-4.0", "cc0-1.0", "unlicense")
NAMED_LICENCE = "check its terms"


def licence_words(licence: str) -> str:
    """What a licence named in a model file (GGUF general.license) allows, in the catalog's words."""
    name = licence.strip().lower()
    if not name:
        return UNKNOWN_LICENCE
    return LICENCE_WORDS["free"] if name in FREE_LICENCES else NAMED_LICENCE


@dataclass(frozen=True)
class RemoteFile:
    file: str
    size_mb: float = 0.0
    sha256: str = ""


@dataclass(frozen=True)
class Variant:
    name: str  # quantization, e.g. Q4_K_M
    file: str = ""
    size_mb: float = 0.0
    memory_gb: float = 0.0
    sha256: str = ""


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    role: str
    title: str
    licence: str
    default_variant: str
    variants: dict[str, Variant]
    repo: str = ""
    base_repo: str = ""
    projector: RemoteFile | None = None
    builtin: str = ""  # "package/relative/path" inside an installed distribution
    snapshot: bool = False
    patterns: tuple[str, ...] = ()
    notes: str = ""
    commercial_use: str = ""  # a key of LICENCE_WORDS; "" when not known
    licence_note: str = ""  # the conditions, for commercial_use = "conditions"
    parameters: float = 0.0  # billions: how capable it is
    architecture: str = ""  # llama.cpp's name (GGUF general.architecture); "" for models llama.cpp does not run
    projector_type: str = ""  # a vision model's encoder, as llama.cpp's mtmd names it (clip.projector_type)

    @property
    def licence_words(self) -> str:
        """What the licence allows, in plain words ("free for commercial use", "research only", …)."""
        return LICENCE_WORDS.get(self.commercial_use, UNKNOWN_LICENCE)

    @property
    def commercial(self) -> bool:
        """Whether a firm may use it commercially (with or without conditions)."""
        return self.commercial_use in COMMERCIAL

    def variant(self, name: str | None = None) -> Variant:
        name = name or self.default_variant
        if name not in self.variants:
            raise ModelError(f"{self.name} has no variant {name!r}; choose one of {', '.join(self.variants)}")
        return self.variants[name]

    def builtin_path(self) -> Path | None:
        """Where the built-in file is, if its package is installed."""
        if not self.builtin:
            return None
        package, _, relative = self.builtin.partition("/")
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            return None
        path = Path(next(iter(spec.submodule_search_locations))) / relative
        return path if path.exists() else None


@dataclass(frozen=True)
class Catalog:
    entries: tuple[CatalogEntry, ...] = field(default_factory=tuple)

    def get(self, name: str) -> CatalogEntry:
        for entry in self.entries:
            if entry.name == name:
                return entry
        raise ModelError(f"no model called {name!r} in the catalog; `docqa models list` shows the choices")

    def find(self, name: str) -> CatalogEntry | None:
        return next((e for e in self.entries if e.name == name), None)

    def for_role(self, role: str) -> list[CatalogEntry]:
        return [e for e in self.entries if e.role == role]


def load_catalog(path: Path = CATALOG_FILE) -> Catalog:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ModelError(f"cannot read the model catalog {path}: {exc}") from exc
    entries = []
    for raw in data.get("model", []):
        try:
            entries.append(_entry(raw))
        except (KeyError, TypeError) as exc:
            raise ModelError(f"model catalog {path}: entry {raw.get('name', '?')!r} lacks {exc}") from exc
    return Catalog(tuple(entries))


def _entry(raw: dict) -> CatalogEntry:
    if raw["role"] not in ROLES:
        raise KeyError(f"a known role (one of {', '.join(ROLES)})")
    variants = {name: Variant(name, **values) for name, values in raw["variants"].items()}
    projector = RemoteFile(**raw["projector"]) if "projector" in raw else None
    if raw.get("commercial_use", "") not in ("", *LICENCE_WORDS):
        raise KeyError(f"a known commercial_use (one of {', '.join(LICENCE_WORDS)})")
    simple = {key: raw[key] for key in ("repo", "base_repo", "builtin", "snapshot", "notes", "commercial_use",
                                        "licence_note", "parameters", "architecture", "projector_type") if key in raw}
    return CatalogEntry(name=raw["name"], role=raw["role"], title=raw["title"], licence=raw["licence"],
                        default_variant=raw["default_variant"], variants=variants, projector=projector,
                        patterns=tuple(raw.get("patterns", ())), **simple)
