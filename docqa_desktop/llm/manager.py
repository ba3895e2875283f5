"""The model manager behind `docqa models …` and the GUI's Models dialog: list, pull, import (copied into the model
folder, or linked where it lies), verify, remove, and which installed model serves which role."""
from __future__ import annotations

import contextlib
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from . import download
from .catalog import UNKNOWN_LICENCE, Catalog, CatalogEntry, licence_words, load_catalog
from .gguf_file import ModelSize, check_pair, read_header, size_text
from .model_copy import checksums, copy_in
from .registry import InstalledModel, Registry
from .types import ModelError

ANSWERING_ROLES = ("vision", "text")


@dataclass(frozen=True)
class ModelStatus:
    name: str
    role: str
    title: str
    state: str  # built in | installed | not installed | broken
    variant: str
    size_mb: float
    memory_gb: float
    licence: str
    path: str = ""
    detail: str = ""  # why a model is broken, or catalog notes
    licence_words: str = UNKNOWN_LICENCE  # what the licence allows, in plain words (catalog.LICENCE_WORDS)
    licence_note: str = ""  # its conditions, when it allows commercial use with conditions
    parameters: float = 0.0  # billions (the catalog's, or an import's metadata); 0.0 when unknown
    location: str = ""  # where an imported model's file is when it is not the app's: "linked: /media/usb/x.gguf"

    @property
    def state_text(self) -> str:
        """The state as the lists show it, a linked model's with its file: "linked: /media/usb/x.gguf", "missing:
        /media/usb/x.gguf" while the file is away."""
        return f"{self.state}: {self.path}" if self.location else self.state

    @property
    def parameters_label(self) -> str:
        """ "1.5B", "135M"; "" when unknown."""
        return size_text(self.parameters)

    @property
    def licence_text(self) -> str:
        """What every front end shows: "free for commercial use (Apache-2.0)"."""
        return f"{self.licence_words} ({self.licence})" if self.licence else self.licence_words


@dataclass(frozen=True)
class ResolvedModel:
    name: str
    model_path: Path
    projector_path: Path | None = None
    base_path: Path | None = None  # page embedders published as an adapter over a base model

    @property
    def vision(self) -> bool:
        return self.projector_path is not None


@dataclass(frozen=True)
class VerifyResult:
    name: str
    ok: bool
    detail: str


class ModelManager:
    def __init__(self, registry_file: Path, catalog: Catalog | None = None, hub_cache: Path | None = None,
                 endpoint: str | None = None, folder: Path | None = None):
        self.registry = Registry(registry_file)
        self.folder = folder or registry_file.parent / "models"  # imported files, copied: one folder per model
        self.catalog = catalog or load_catalog()
        self.hub_cache = hub_cache  # None = the standard Hugging Face cache
        self.endpoint = endpoint  # None = huggingface.co (or HF_ENDPOINT)

    # -- what there is -----------------------------------------------------------------------------

    def statuses(self) -> list[ModelStatus]:
        installed = self.registry.all()
        rows = [self._status(entry, installed.get(entry.name)) for entry in self.catalog.entries]
        for name, model in installed.items():
            if self.catalog.find(name) is None:
                rows.append(ModelStatus(name, model.role, model.title or name, _installed_state(model), model.variant,
                                        model.size_mb or _size_mb(model.model_path), 0.0, model.licence,
                                        model.model_path, licence_words=licence_words(model.licence),
                                        parameters=model.parameters, location=_location(model)))
        return rows

    def _status(self, entry: CatalogEntry, model: InstalledModel | None) -> ModelStatus:
        variant = entry.variant(model.variant if model and model.variant in entry.variants else None)
        size = variant.size_mb + (entry.projector.size_mb if entry.projector else 0)
        common = dict(name=entry.name, role=entry.role, title=entry.title, variant=variant.name, size_mb=size,
                      memory_gb=variant.memory_gb, licence=entry.licence, detail=entry.notes,
                      licence_words=entry.licence_words, licence_note=entry.licence_note, parameters=entry.parameters)
        builtin = entry.builtin_path()
        if builtin is not None:
            return ModelStatus(state="built in", path=str(builtin), **common)
        if model is not None:
            return ModelStatus(state=_installed_state(model), path=model.model_path, location=_location(model),
                               **common)
        return ModelStatus(state="not installed", **common)

    def is_builtin(self, name: str | None) -> bool:
        """Whether `name` is a model that ships inside the app (not one the user pulled or imported)."""
        entry = self.catalog.find(name) if name else None
        return entry is not None and entry.builtin_path() is not None and name not in self.registry.all()

    def size(self, name: str, path: str | Path | None = None) -> ModelSize:
        """How big the language model `name` is (its file `path`, else the file it is installed as), from the
        GGUF's own metadata; a file that cannot be read is of unknown size (billions 0.0) — then only the
        built-in flag tells (the built-in model is below any method's floor). Never raises."""
        builtin = self.is_builtin(name)
        try:
            file = Path(path) if path else self._resolve_named(name).model_path
            size = read_header(file).size
        except (ModelError, OSError):
            return ModelSize(builtin=builtin)
        return ModelSize(size.billions, size.label, builtin)

    def resolve(self, role: str, preferred: str = "") -> ResolvedModel | None:
        """The model that serves `role` (vision | text): the preferred one (a settings choice always wins), else
        the most capable installed one — the most weights, so a model the user pulled or imported serves before
        the small built-in one.

        A vision model also serves text tasks, so one loaded model does everything when it exists.
        """
        if role not in ANSWERING_ROLES:
            raise ValueError(f"unknown role {role!r}")
        if preferred:
            resolved = self._resolve_named(preferred)
            if role == "vision" and not resolved.vision:
                raise ModelError(f"{preferred} is not a vision model (it has no projector)")
            return resolved
        for wanted in (("vision",) if role == "vision" else ("vision", "text")):
            candidates = list(self._installed_for(wanted))
            if candidates:
                return max(candidates, key=_weights)  # on a tie, the first in catalog order
        return None

    def page_embedder(self, preferred: str = "") -> ResolvedModel | None:
        """The installed page-image embedder (ColQwen2.5), if any."""
        if preferred:
            return self._resolve_named(preferred)
        return next(self._installed_for("page-embedder"), None)

    def _resolve_named(self, name: str) -> ResolvedModel:
        model = self.registry.get(name)
        if model is not None:
            missing = [p for p in model.paths if not Path(p).exists()]
            if missing and model.linked:
                raise ModelError(f"model {name} is linked to {missing[0]}, which is missing: reconnect the drive "
                                 "it is on, or import it again")
            if missing:
                raise ModelError(f"model {name}: file {missing[0]} is missing; pull or import it again")
            return ResolvedModel(name, Path(model.model_path),
                                 Path(model.projector_path) if model.projector_path else None,
                                 Path(model.base_path) if model.base_path else None)
        entry = self.catalog.find(name)
        if entry is not None and entry.builtin_path() is not None:
            return ResolvedModel(name, entry.builtin_path())
        raise ModelError(f"model {name!r} is not installed; `docqa models list` shows what is")

    def _installed_for(self, role: str):
        installed = self.registry.all()
        ordered = [e.name for e in self.catalog.for_role(role)] + sorted(installed)
        seen = set()
        for name in ordered:
            if name in seen:
                continue
            seen.add(name)
            model = installed.get(name)
            if model is not None and model.role == role and all(Path(p).exists() for p in model.paths):
                yield self._resolve_named(name)
            elif model is None:
                entry = self.catalog.find(name)
                if entry is not None and entry.role == role and entry.builtin_path() is not None:
                    yield ResolvedModel(name, entry.builtin_path())

    # -- changing what there is --------------------------------------------------------------------

    def pull(self, name: str, variant: str | None = None,
             progress: Callable[[int, int], None] | None = None,
             cancel: threading.Event | None = None) -> InstalledModel:
        """Download a catalog model into the Hugging Face cache (resumable, checksum-verified)."""
        entry = self.catalog.get(name)
        if entry.builtin:
            raise ModelError(f"{name} is built in: nothing to download")
        if entry.snapshot:
            folder, base = (download.fetch_snapshot(repo, entry.patterns, cache_dir=self.hub_cache,
                                                    endpoint=self.endpoint, cancel=cancel) if repo else None
                            for repo in (entry.repo, entry.base_repo))
            model = InstalledModel(name, entry.role, "pull", str(folder), variant=entry.default_variant,
                                   repo=entry.repo, base_path=str(base or ""))
            self.registry.put(model)
            return model
        chosen = entry.variant(variant)
        wanted = [(chosen.file, chosen.sha256)] + ([(entry.projector.file, entry.projector.sha256)]
                                                     if entry.projector else [])
        fetched = [download.fetch(entry.repo, file, sha256, cache_dir=self.hub_cache, endpoint=self.endpoint,
                                  progress=progress, cancel=cancel) for file, sha256 in wanted]
        model = InstalledModel(name, entry.role, "pull", str(fetched[0].path),
                               str(fetched[1].path) if len(fetched) > 1 else "", chosen.name,
                               {str(f.path): f.sha256 for f in fetched}, entry.repo)
        self.registry.put(model)
        return model

    def import_file(self, path: str | Path, projector: str | Path | None = None, name: str | None = None,
                    link: bool = False, progress: Callable[[int, int], None] | None = None,
                    cancel: threading.Event | None = None) -> InstalledModel:
        """Install a GGUF already on disk (and its vision projector): copied into the model folder, so that it stays
        when the drive it came from goes (the free space checked first; `progress(bytes done, total)`, stopped by
        `cancel` with nothing kept), or with `link` used where it lies (its checksums read through). Its licence and
        size are read from its metadata. A page-embedder folder (and, for an adapter, its base model folder,
        passed as `projector`) is registered where it is."""
        path = Path(path).expanduser().resolve()
        if path.is_dir():
            return self._import_folder(path, projector, name)
        header = read_header(path)
        if header.is_projector:
            raise ModelError(f"{path} is a vision projector; import the language model and pass this file "
                             "as its --projector")
        projector_path = Path(projector).expanduser().resolve() if projector else None
        if projector_path is not None:
            check_pair(header, read_header(projector_path))
        name = name or _slug(path.stem)
        if self.catalog.find(name) is not None and self.catalog.get(name).builtin:
            raise ModelError(f"{name} is the name of a built-in model; choose another with --name")
        files = [path] + ([projector_path] if projector_path else [])
        if link or all(f.is_relative_to(self.folder.resolve()) for f in files):  # in the model folder: its own copy
            kept = {f: (f, sha256) for f, sha256 in checksums(files, progress, cancel).items()}
        else:
            kept = copy_in(files, self.folder / name, progress, cancel)
        model_file, projector_file = (kept[f][0] if f else None for f in (path, projector_path))
        model = InstalledModel(name, "vision" if projector_path else "text", "import", str(model_file),
                               str(projector_file or ""), "", {str(copy): sha256 for copy, sha256 in kept.values()},
                               copied=not link, title=header.name, licence=header.licence,
                               parameters=header.size.billions, size_mb=sum(f.stat().st_size for f in files) / 2**20)
        self.registry.put(model)
        return model

    def _import_folder(self, path: Path, base: str | Path | None, name: str | None) -> InstalledModel:
        """A transformers-format page embedder (ColQwen2.5), or its adapter with `base` the base model folder."""
        adapter = (path / "adapter_config.json").exists()
        if not adapter and not (path / "config.json").exists():
            raise ModelError(f"{path} holds neither a model (config.json) nor an adapter (adapter_config.json)")
        base_path = Path(base).expanduser().resolve() if base else None
        if adapter and (base_path is None or not (base_path / "config.json").exists()):
            raise ModelError(f"{path} is an adapter: pass its base model folder (with config.json) as --base")
        model = InstalledModel(name or _slug(path.name), "page-embedder", "import", str(path),
                               base_path=str(base_path or ""))
        self.registry.put(model)
        return model

    def remove(self, name: str, keep_files: bool = False) -> list[str]:
        """Forget a model; pulled files are deleted from the cache and copied imports from the model folder unless
        kept, linked files never are (they are the user's)."""
        model = self.registry.remove(name)
        if keep_files or model.linked:
            return []
        if model.source == "import":
            return _delete_copies(model.paths)
        return download.delete_cached(model.paths)

    def verify(self, name: str | None = None) -> list[VerifyResult]:
        """Re-check each installed model's files: present, readable GGUF, and the checksum recorded."""
        results = []
        for model in self.registry.all().values():
            if name in (None, model.name):
                results.append(_verify_installed(model))
        for entry in self.catalog.entries:
            if name in (None, entry.name) and entry.builtin_path() is not None:
                results.append(_verify_builtin(entry))
        if name is not None and not results:
            raise ModelError(f"model {name!r} is not installed")
        return results


def _verify_installed(model: InstalledModel) -> VerifyResult:
    if Path(model.model_path).is_dir():  # a snapshot (page embedder)
        ok = any(Path(model.model_path).iterdir())
        return VerifyResult(model.name, ok, "files present" if ok else "folder is empty")
    for path in model.paths:
        try:
            read_header(path)
        except ModelError as exc:
            return VerifyResult(model.name, False, str(exc))
        expected = model.sha256.get(path)
        if expected and download.sha256_of(Path(path)) != expected:
            return VerifyResult(model.name, False, f"{path} changed since it was installed (checksum differs)")
    return VerifyResult(model.name, True, f"{len(model.paths)} file(s) intact")


def _verify_builtin(entry: CatalogEntry) -> VerifyResult:
    path = entry.builtin_path()
    expected = entry.variant().sha256
    if path.is_dir() or not expected:
        return VerifyResult(entry.name, True, "built in")
    ok = download.sha256_of(path) == expected
    return VerifyResult(entry.name, ok, "built in, checksum matches" if ok else
                        f"built-in file {path} is damaged (checksum differs); reinstall its package")


def _installed_state(model: InstalledModel) -> str:
    """installed | linked (used where it lies) | missing (a linked file that is away) | broken (a file of the app's
    gone)."""
    present = all(Path(p).exists() for p in model.paths)
    if model.linked:
        return "linked" if present else "missing"
    return "installed" if present else "broken"


def _location(model: InstalledModel) -> str:
    """ "linked: /media/usb/x.gguf" for a model used where it lies; "" for the app's own files."""
    return model.where_kept if model.linked else ""


def _delete_copies(paths: list[str]) -> list[str]:
    """Delete a copied import's files and their folder once empty; the paths deleted."""
    deleted = []
    for path in map(Path, paths):
        try:
            path.unlink()
        except OSError:
            continue
        deleted.append(str(path))
    folders = {Path(p).parent for p in deleted}
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()
    return deleted


def _size_mb(path: str) -> float:
    try:
        return Path(path).stat().st_size / 2**20
    except OSError:
        return 0.0


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-") or "model"


def _weights(model: ResolvedModel) -> int:
    try:
        stat = Path(model.model_path).stat()
    except OSError:
        return 0
    return _parameters(str(model.model_path), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=64)
def _parameters(path: str, _size: int, _mtime_ns: int) -> int:
    """The parameter count in a GGUF's header, read once per version of the file (every question resolves the
    model: scanning a header takes ~60 ms)."""
    try:
        return read_header(path).parameters
    except ModelError:
        return 0
