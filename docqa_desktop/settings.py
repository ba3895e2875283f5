"""Typed settings and on-disk locations, shared by the CLI and (later) the GUI.

Resolution order: defaults < settings.toml in the config dir < DOCQA_* environment variables.
`--home DIR` (or DOCQA_HOME) puts database, caches, logs and config under one folder.
"""
from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from .files import write_atomically

APP_NAME = "docqa-desktop"


class SettingsError(ValueError):
    """A settings file or DOCQA_* variable that cannot be read; the message names it."""


@dataclass(frozen=True)
class Locations:
    data_dir: Path
    config_dir: Path
    cache_dir: Path
    log_dir: Path

    @classmethod
    def resolve(cls, home: str | os.PathLike | None = None) -> "Locations":
        home = home or os.environ.get("DOCQA_HOME")
        if home:
            root = Path(home).expanduser().resolve()
            return cls(root / "data", root / "config", root / "cache", root / "logs")
        dirs = platformdirs.PlatformDirs(APP_NAME, appauthor=False)
        return cls(Path(dirs.user_data_dir), Path(dirs.user_config_dir),
                   Path(dirs.user_cache_dir), Path(dirs.user_log_dir))

    @property
    def database(self) -> Path:
        return self.data_dir / "library.duckdb"

    @property
    def thumbnails(self) -> Path:
        return self.cache_dir / "thumbnails"

    @property
    def installed_models(self) -> Path:
        return self.data_dir / "models.json"

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.toml"

    def create(self) -> None:
        for d in (self.data_dir, self.config_dir, self.cache_dir, self.log_dir):
            d.mkdir(parents=True, exist_ok=True)


@dataclass(frozen=True)
class IndexSettings:
    workers: int = max(1, min(4, os.cpu_count() or 1))
    ocr: bool = True
    ocr_dpi: int = 110
    layout: bool = True
    dense: bool = True  # chunk embeddings for dense retrieval: the slowest stage on a CPU
    embed_batch: int = 64  # chunks per embedding task and per commit
    pages_per_task: int = 8  # a large PDF is split into tasks of this many pages: both cores help, memory stays bounded
    task_timeout_seconds: float = 600.0  # a task of pages_per_task pages still unparsed after this fails its file
    chunk_words: int = 80  # ~110 word pieces: inside MiniLM's 256-token window
    chunk_overlap: int = 20
    settle_seconds: float = 1.0  # watcher: a file must stop changing this long before it is indexed
    # page-image embeddings (ColQwen2.5), when a page embedder is installed. auto = on with a GPU only:
    # on a CPU the real model needs minutes per page (benchmarks/results/visual_embed-real.json)
    visual: str = "auto"  # auto | on | off
    visual_tokens: int = 768  # visual tokens per page image: fewer is faster and coarser (256 / 512 / 768 / 1024)
    visual_cpu_int8: bool = False  # on a CPU, int8 linear layers: ~3x faster, scores drift (visual_embed-real-int8.json)
    visual_pool_factor: int = 1  # >1: hierarchical token pooling stores ~this many times fewer vectors
    visual_commit_pages: int = 8  # pages embedded between commits: what a crash can cost


@dataclass(frozen=True)
class SearchSettings:
    k: int = 10
    candidates: int = 100  # per retriever, before fusion
    fusion: str = "convex"  # convex (weighted normalised scores) | rrf (reciprocal rank)
    # Chosen on the dev set (benchmarks/retrieval_eval.py) from the middle of a plateau:
    # 0.7-0.8 and 0.2-0.3 score alike there.
    bm25_weight: float = 0.75
    neighbour_weight: float = 0.25  # share of a page's score its previous and next pages earn
    rrf_k: int = 60  # reciprocal-rank-fusion constant from Cormack et al.
    mode: str = "auto"  # text | visual | hybrid | auto (hybrid where the page embedder has embedded pages)
    visual_weight: float = 0.5  # hybrid, convex fusion: share of the visual score
    visual_stage1: int = 300  # pages the first (pooled Hamming) stage keeps for the second
    visual_stage2: int = 30  # pages the second stage keeps for the int8 rerank, at least (1 per 1,000 pages)


@dataclass(frozen=True)
class LlmSettings:
    backend: str = "local"  # local (llama.cpp in this process) | remote (an OpenAI-compatible server)
    text_model: str = ""  # catalog or imported model name; empty = the best installed one
    vision_model: str = ""
    threads: int = 0  # 0 = cores - 1: a busy 2-core machine generates 4x faster on one thread than two
    gpu_layers: int = -1  # -1 = all when llama.cpp was built with GPU support, else 0
    context: int = 8192  # tokens; capped at the model's trained context
    image_max_pixels: int = 1280 * 28 * 28  # per page image: ~1280 Qwen2.5-VL tokens
    remote_url: str = ""  # e.g. http://gpu-box.lan:8080/v1
    remote_model: str = ""
    remote_api_key: str = ""
    remote_vision: bool = False  # the server's model reads images
    remote_timeout: float = 300.0  # seconds per call


@dataclass(frozen=True)
class AskSettings:
    method: str = "simpledoc"  # simpledoc | m3docrag
    k: int = 10  # pages from the first-stage retriever (SimpleDoc uses 10, or 30)
    iterations: int = 3  # SimpleDoc's L: reasoning rounds before "not answerable"
    max_pages: int = 5  # pages handed to the answering model per round
    summary_tokens: int = 160  # per page summary
    page_tokens: int = 1200  # most text tokens of one page shown to a model (speed and focus on a CPU)
    image_side: int = 1280  # longest side of a page image sent to a vision model


@dataclass(frozen=True)
class Settings:
    locations: Locations
    index: IndexSettings = field(default_factory=IndexSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    llm: LlmSettings = field(default_factory=LlmSettings)
    ask: AskSettings = field(default_factory=AskSettings)

    @classmethod
    def load(cls, home: str | os.PathLike | None = None) -> "Settings":
        locations = Locations.resolve(home)
        values: dict = {}
        source = locations.settings_file
        if source.exists():
            try:
                values = tomllib.loads(source.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
                raise SettingsError(f"cannot read settings file {source}: {exc}") from exc
        index = _merge(IndexSettings(), values.get("index", {}), "DOCQA_INDEX_", source)
        search = _merge(SearchSettings(), values.get("search", {}), "DOCQA_SEARCH_", source)
        llm = _merge(LlmSettings(), values.get("llm", {}), "DOCQA_LLM_", source)
        if llm.backend not in ("local", "remote"):
            raise SettingsError(f"llm.backend must be 'local' or 'remote', not {llm.backend!r}")
        ask = _merge(AskSettings(), values.get("ask", {}), "DOCQA_ASK_", source)
        return cls(locations, index, search, llm, ask)


SECTIONS = ("index", "search", "llm", "ask")


def save(settings: Settings) -> Path:
    """Write the values that differ from the defaults to settings.toml (what the Settings dialog changes)."""
    lines = ["# DocQA Desktop settings; DOCQA_<SECTION>_<FIELD> variables override them", ""]
    for section in SECTIONS:
        current = getattr(settings, section)
        default = type(current)()
        changed = [(f.name, getattr(current, f.name)) for f in dataclasses.fields(current)
                   if getattr(current, f.name) != getattr(default, f.name)]
        if changed:
            lines.append(f"[{section}]")
            lines += [f"{name} = {_toml_value(value)}" for name, value in changed]
            lines.append("")
    path = settings.locations.settings_file
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomically(path, "\n".join(lines))


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _merge(base, values: dict, env_prefix: str, source: Path):
    """Apply a TOML table then DOCQA_<SECTION>_<FIELD> variables, converting to each field's type."""
    changes = {}
    for f in dataclasses.fields(base):
        variable = env_prefix + f.name.upper()
        raw = os.environ.get(variable, values.get(f.name))
        if raw is None:
            continue
        kind = type(getattr(base, f.name))
        try:
            if kind is bool and isinstance(raw, str):
                changes[f.name] = raw.strip().lower() in ("1", "true", "yes", "on")
            else:
                changes[f.name] = kind(raw)
        except (TypeError, ValueError):
            origin = variable if variable in os.environ else f"{f.name} in {source}"
            raise SettingsError(f"{origin}: {raw!r} is not a valid {kind.__name__}") from None
    return dataclasses.replace(base, **changes)
