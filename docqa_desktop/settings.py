"""Typed settings and on-disk locations, shared by the CLI, the app and the Python API.

Resolution order: defaults < settings.toml in the config dir < DOCQA_* environment variables.
`--home DIR` (or DOCQA_HOME) puts database, caches, logs and config under one folder; `data` in the
settings file's [locations] table (the Settings dialog's data folder) moves the data folder alone, from the next
start (the library is not moved).
"""
from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from pathlib import Path

import platformdirs

from .errors import DocQAError
from .files import write_atomically

APP_NAME = "docqa-desktop"


class SettingsError(DocQAError, ValueError):
    """A settings file or DOCQA_* variable that cannot be read; the message names it."""


class Option(StrEnum):
    """A setting with a fixed set of values. A str: it compares equal to its value and is saved as it; a value
    outside the set fails on loading (SettingsError) or on constructing the settings (ValueError)."""

    @classmethod
    def choices(cls) -> str:
        return ", ".join(member.value for member in cls)


class Device(Option):
    AUTO = "auto"  # the GPU when there is a usable one
    CPU = "cpu"
    CUDA = "cuda"  # asked for; the CPU (with a warning in the log) when it is not available


class VisualIndexing(Option):
    AUTO = "auto"  # on with a GPU only
    ON = "on"
    OFF = "off"


class TablesGate(Option):
    LAYOUT = "layout"  # only the regions the layout stage calls tables
    NONE = "none"  # every born-digital page, whole (slower)


class ChartModel(Option):
    AUTO = "auto"  # on when a vision model is installed and a GPU makes it quick
    ON = "on"  # whenever a vision model is installed, on the CPU too (slowly)
    OFF = "off"


class VisualAttention(Option):
    AUTO = "auto"  # one call per vision layer: torch's varlen kernel on CUDA where it has one, else padded windows
    PADDED = "padded"  # one call per vision layer, windows padded and batched
    PER_WINDOW = "per_window"  # transformers' own: one call per window (thousands per batch)


class VisualGraphs(Option):
    ON = "on"  # on CUDA, the vision tower's blocks replayed from CUDA graphs over bucketed shapes
    OFF = "off"  # eager, as transformers runs it: no faster than graphs on an H200 (vision_graphs.py)


class VisualCompile(Option):
    ON = "on"  # the page embedder's layers compiled by torch.compile (compiled_layers.py): not measured on a GPU yet
    OFF = "off"


class Fusion(Option):
    CONVEX = "convex"  # weighted normalised scores
    RRF = "rrf"  # reciprocal rank


class SearchMode(Option):
    BM25 = "bm25"
    DENSE = "dense"
    FUSED = "fused"  # BM25 + dense
    TEXT = "text"  # the same as fused
    VISUAL = "visual"  # page-image embeddings (ColQwen2.5) only
    HYBRID = "hybrid"  # text and page images, fused
    AUTO = "auto"  # hybrid when page images have been embedded, else text


class LlmBackend(Option):
    LOCAL = "local"  # llama.cpp in this process
    REMOTE = "remote"  # an OpenAI-compatible server


def _options_checked(settings) -> None:
    """Option fields given as plain strings (dataclasses.replace, the Settings dialog) become their enum;
    a value outside the set raises ValueError."""
    for f in dataclasses.fields(settings):
        kind = type(f.default)
        value = getattr(settings, f.name)
        if issubclass(kind, Option) and type(value) is not kind:
            try:
                object.__setattr__(settings, f.name, kind(value))
            except ValueError:
                raise ValueError(f"{f.name}: {value!r} is not one of {kind.choices()}") from None


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
    def first_run_done(self) -> Path:
        """Exists once the first-run panel was finished or skipped."""
        return self.data_dir / "first-run-done"

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
    tables: bool = True  # tables read as tables (cells with header paths) on born-digital pages
    tables_gate: TablesGate = TablesGate.LAYOUT  # where the tables stage looks for grids
    charts: bool = True  # charts read as tables from their vector marks and printed words (index/charts.py)
    chart_model: ChartModel = ChartModel.AUTO  # raster charts read by the vision model (index/chart_model.py)
    device: Device = Device.AUTO  # layout and OCR models: onnxruntime's CUDA provider (pip install ".[gpu]") or CPU
    dense: bool = True  # chunk embeddings for dense retrieval: the slowest stage on a CPU
    embed_batch: int = 64  # chunks per embedding task and per commit
    pages_per_task: int = 8  # a large PDF is split into tasks of this many pages: both cores help, memory stays bounded
    task_timeout_seconds: float = 600.0  # a task of pages_per_task pages still unparsed after this fails its file
    chunk_words: int = 80  # ~110 word pieces: inside MiniLM's 256-token window
    chunk_overlap: int = 20
    store_memory_mb: int = 512  # DuckDB's memory limit: its cache of table blocks (larger work spills to disk)
    settle_seconds: float = 1.0  # watcher: a file must stop changing this long before it is indexed
    # page-image embeddings (ColQwen2.5), when a page embedder is installed. auto = on with a GPU only:
    # on a CPU the real model needs minutes per page (benchmarks/results/visual_embed-real.json)
    visual: VisualIndexing = VisualIndexing.AUTO  # auto | on | off
    visual_tokens: int = 768  # visual tokens per page image: fewer is faster and coarser (256 / 512 / 768 / 1024)
    visual_cpu_int8: bool = False  # on a CPU, int8 linear layers: ~3x faster, scores drift (visual_embed-real-int8.json)
    visual_pool_factor: int = 1  # >1: hierarchical token pooling stores ~this many times fewer vectors; off until its
    # cost to retrieval is measured with the real weights (README, benchmarks/visual_index_size.py)
    visual_attention: VisualAttention = VisualAttention.AUTO  # vision tower: one call per layer (vision_attention.py)
    visual_graphs: VisualGraphs = VisualGraphs.OFF  # on: the vision tower's blocks from CUDA graphs on a GPU
    visual_compile: VisualCompile = VisualCompile.OFF  # on: the embedder's layers compiled (the first batch waits)
    visual_max_batch: int = 16  # pages per forward on a GPU at most (fewer when free memory is short)
    visual_commit_pages: int = 8  # pages embedded between commits: what a crash can cost

    __post_init__ = _options_checked


@dataclass(frozen=True)
class SearchSettings:
    k: int = 10
    candidates: int = 100  # per retriever, before fusion
    fusion: Fusion = Fusion.CONVEX  # convex (weighted normalised scores) | rrf (reciprocal rank)
    # Chosen on the dev set (benchmarks/retrieval_eval.py) from the middle of a plateau:
    # 0.7-0.8 and 0.2-0.3 score alike there.
    bm25_weight: float = 0.75
    neighbour_weight: float = 0.25  # share of a page's score its previous and next pages earn
    rrf_k: int = 60  # reciprocal-rank-fusion constant from Cormack et al.
    mode: SearchMode = SearchMode.AUTO  # text | visual | hybrid | auto (hybrid where page images are embedded)
    visual_weight: float = 0.5  # hybrid, convex fusion: share of the visual score
    visual_stage1: int = 300  # pages the first (pooled Hamming) stage keeps for the second
    visual_stage2: int = 30  # pages the second stage keeps for the int8 rerank, at least (1 per 1,000 pages)

    __post_init__ = _options_checked


@dataclass(frozen=True)
class LlmSettings:
    backend: LlmBackend = LlmBackend.LOCAL  # local (llama.cpp in this process) | remote (an OpenAI-compatible server)
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

    __post_init__ = _options_checked


@dataclass(frozen=True)
class AskSettings:
    """What every answering method shares; each method's own knobs live with the method
    (methods/<name>/settings.py), read from [methods.<name>] or DOCQA_<NAME>_<FIELD>, and from this
    section for the knobs several methods have (e.g. ask.page_tokens)."""
    method: str = "auto"  # one of `docqa methods`, or auto: quoted answers until a capable model is installed
    preset: str = "paper"  # paper: each method's published parameters | cpu: a smaller budget for a CPU
    image_side: int = 1280  # longest side of a page image sent to a vision model
    prepare_after_index: bool = False  # the watcher runs the method's prepare step (e.g. page summaries)
    follow_up_turns: int = 3  # earlier questions and answers of a thread a follow-up is asked with
    # a model method's answer stands only with quotes found on the pages it read and arithmetic the app computes
    # (one repair round, else an unverified draft: methods/proof); off: the method's own verdict, as in its paper
    check_proofs: bool = True


PRESETS = ("paper", "cpu")


@dataclass(frozen=True)
class Settings:
    locations: Locations
    index: IndexSettings = field(default_factory=IndexSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    llm: LlmSettings = field(default_factory=LlmSettings)
    ask: AskSettings = field(default_factory=AskSettings)
    # raw TOML tables read by the methods' own settings: {"ask": {...}, "methods": {name: {...}}}
    tables: dict = field(default_factory=dict, compare=True)

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
        index = _merge(IndexSettings(), values.get("index", {}), "DOCQA_INDEX_", source, "index")
        search = _merge(SearchSettings(), values.get("search", {}), "DOCQA_SEARCH_", source, "search")
        llm = _merge(LlmSettings(), values.get("llm", {}), "DOCQA_LLM_", source, "llm")
        ask = _merge(AskSettings(), values.get("ask", {}), "DOCQA_ASK_", source)
        if ask.preset not in PRESETS:
            raise SettingsError(f"ask.preset must be one of {', '.join(PRESETS)}, not {ask.preset!r}")
        chosen = dict(values.get("locations", {}))
        if chosen.get("data"):
            if not isinstance(chosen["data"], str):
                raise SettingsError(f"locations.data in {source} must be a folder's path, not {chosen['data']!r}")
            locations = dataclasses.replace(locations, data_dir=Path(chosen["data"]).expanduser().resolve())
        tables = {"ask": dict(values.get("ask", {})), "methods": dict(values.get("methods", {})), "locations": chosen}
        return cls(locations, index, search, llm, ask, tables)

    @property
    def source(self) -> Path:
        return self.locations.settings_file


SECTIONS = ("index", "search", "llm", "ask")


def save(settings: Settings) -> Path:
    """Write the values that differ from the defaults to settings.toml (what the Settings dialog changes)."""
    lines = ["# DocQA Desktop settings; DOCQA_<SECTION>_<FIELD> variables override them", ""]
    for section in SECTIONS:
        current = getattr(settings, section)
        default = type(current)()
        changed = [(f.name, getattr(current, f.name)) for f in dataclasses.fields(current)
                   if getattr(current, f.name) != getattr(default, f.name)]
        own = {f.name for f in dataclasses.fields(current)}  # [ask] also holds knobs several methods share
        changed += sorted((k, v) for k, v in settings.tables.get(section, {}).items() if k not in own)
        if changed:
            lines.append(f"[{section}]")
            lines += [f"{name} = {_toml_value(value)}" for name, value in changed]
            lines.append("")
    chosen = settings.tables.get("locations", {})
    if chosen.get("data"):
        lines += ["[locations]", f"data = {_toml_value(chosen['data'])}", ""]
    for method, values in sorted(settings.tables.get("methods", {}).items()):
        if values:
            lines.append(f"[methods.{method}]")
            lines += [f"{name} = {_toml_value(value)}" for name, value in sorted(values.items())]
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


def check_ranges(owner: str, settings, ranges: dict[str, tuple[float, float | None]]) -> None:
    """A SettingsError naming the first of `settings`' fields outside its (low, high) range (high None: no
    upper bound), e.g. "mmrag: pages must be at least 1, not 0"."""
    for name, (low, high) in ranges.items():
        value = getattr(settings, name)
        if value < low or (high is not None and value > high):
            where = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise SettingsError(f"{owner}: {name} must be {where}, not {value}")


def merge_section(base, values: dict, env_prefix: str, source: Path):
    """A settings dataclass with a TOML table then DOCQA_<PREFIX>_<FIELD> variables applied (for the
    methods' own settings, which this module does not know)."""
    return _merge(base, values, env_prefix, source)


def _merge(base, values: dict, env_prefix: str, source: Path, table: str = ""):
    """Apply a TOML table then DOCQA_<SECTION>_<FIELD> variables, converting to each field's type
    (an Option field to its enum, case and spaces ignored)."""
    changes = {}
    for f in dataclasses.fields(base):
        variable = env_prefix + f.name.upper()
        raw = os.environ.get(variable, values.get(f.name))
        if raw is None:
            continue
        origin = variable if variable in os.environ else f"{table + '.' if table else ''}{f.name} in {source}"
        changes[f.name] = typed_value(type(getattr(base, f.name)), raw, origin)
    return dataclasses.replace(base, **changes)


def typed_value(kind: type, raw, origin: str):
    """`raw` (a TOML value or a string from the environment or the command line) as a field of type `kind`;
    a value that is not one is a SettingsError naming `origin`."""
    try:
        if kind is bool and isinstance(raw, str):
            return raw.strip().lower() in ("1", "true", "yes", "on")
        if issubclass(kind, Enum):
            return kind(raw.strip().lower() if isinstance(raw, str) else raw)
        return kind(raw)
    except (TypeError, ValueError):
        if issubclass(kind, Option):
            raise SettingsError(f"{origin}: {raw!r} is not one of {kind.choices()}") from None
        raise SettingsError(f"{origin}: {raw!r} is not a valid {kind.__name__}") from None
