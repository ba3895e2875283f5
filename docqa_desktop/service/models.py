"""The facade's models part: which model serves each role, choosing one, what this machine should download,
the first run, and pulling, importing, verifying and removing model files."""
from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from ..errors import Remedy
from ..llm.catalog_choice import ANSWERING_ROLES, DEFAULT_METHOD, Choice, recommend
from ..llm.catalog import licence_words
from ..llm.gguf_file import ModelSize, read_header, size_text
from ..llm.hardware import Hardware
from ..llm.manager import ModelStatus, VerifyResult
from ..llm.registry import InstalledModel
from ..llm.runtime import Runtime
from ..vectors.torch_runtime import torch_device
from ..methods import METHODS, MethodSpec, method_spec
from ..settings import Settings
from ..settings import save as save_settings
from .components import missing_text
from .question_time import PerQuestion, QuestionTimes
from .resources import Resources

@dataclasses.dataclass(frozen=True)
class Recommendation:
    """A model as the first-run panel, the Models dialog and `docqa models list` offer it on this machine."""
    model: ModelStatus
    # about how long a question takes here with the default method (Models.overview, from question_time): measured
    # over this machine's answers with the model, else estimated from its size; None: not a language model
    timing: PerQuestion | None
    why: str  # why it is the one recommended here; "" for the others

    @property
    def recommended(self) -> bool:
        return bool(self.why)

    @property
    def seconds_per_question(self) -> int | None:
        return None if self.timing is None or self.timing.seconds is None else round(self.timing.seconds)


@dataclasses.dataclass(frozen=True)
class ModelFile:
    """A model file as the import shows it before it starts."""
    path: Path
    name: str  # general.name, else the file's name
    parameters: str  # "1.5B"; "" when the file does not say
    licence: str  # general.license; "" when the file does not say
    licence_words: str  # what it allows (llm.catalog.licence_words)
    is_projector: bool  # a vision projector (mmproj), not a language model
    size_mb: float
    projector_beside: Path | None  # the one mmproj file in the same folder, the likely projector of a vision model

    @property
    def summary(self) -> str:
        """ "Qwen2.5 1.5B Instruct: 1.5B parameters, 1.0 GB; free for commercial use (apache-2.0)"."""
        size = f"{self.size_mb / 1024:.1f} GB" if self.size_mb >= 1024 else f"{self.size_mb:.0f} MB"
        licence = f"{self.licence_words} ({self.licence})" if self.licence else self.licence_words
        parameters = f"{self.parameters} parameters, " if self.parameters else ""
        return f"{self.name}: {parameters}{size}; {licence}"


class Models:
    def __init__(self, resources: Resources, apply_settings: Callable[[Settings], None]):
        self._resources = resources
        self._apply_settings = apply_settings  # the Service's: a new default model is a settings change

    @property
    def _settings(self) -> Settings:
        return self._resources.settings

    # -- roles -------------------------------------------------------------------------------

    def roles(self) -> dict[str, str | None]:
        """Which model serves text tasks and which reads page images (None: nothing installed)."""
        llm = self._settings.llm
        if llm.backend == "remote":
            name = f"{llm.remote_model or 'remote'} at {llm.remote_url}"
            return {"text": name, "vision": name if llm.remote_vision else None}
        roles = {}
        for role, preferred in (("text", llm.text_model), ("vision", llm.vision_model)):
            resolved = self._resources.models.resolve(role, preferred)
            roles[role] = resolved.name if resolved else None
        return roles

    def set_default(self, role: str, name: str) -> str | None:
        """Make `name` serve `role` (text | vision) from now on, saved in the settings file ("auto": the most
        capable installed one again); returns the model that serves the role now. A model that is not
        installed, or not a vision model for the vision role, is a ModelError and changes nothing."""
        name = "" if name == "auto" else name
        if name:
            self._resources.models.resolve(role, name)  # raises when it cannot serve the role
        field = {"text": "text_model", "vision": "vision_model"}[role]
        settings = self._settings
        settings = dataclasses.replace(settings, llm=dataclasses.replace(settings.llm, **{field: name}))
        save_settings(settings)
        self._apply_settings(settings)
        return self.roles()[role]

    # -- sizes against the methods' floors ---------------------------------------------------------

    def text_model_size(self) -> ModelSize | None:
        """How big the model serving text tasks is (GGUF metadata); None for a server's model (its size is the
        user's choice, unknown here) and when no language model is installed."""
        if self._settings.llm.backend == "remote":
            return None
        name = self.roles()["text"]
        return self._resources.models.size(name) if name else None

    def shortfall(self, method: MethodSpec | str) -> str:
        """Why the current text model is too small for `method`, as one plain sentence; "" when it is large
        enough, of unknown size (a server's, one without size metadata) or the method needs no model."""
        spec = method_spec(method) if isinstance(method, str) else method
        return self.shortfalls([spec])[spec.name]

    def shortfalls(self, specs: list[MethodSpec] | None = None,
                   remedies: Mapping[Remedy, str] | None = None) -> dict[str, str]:
        """shortfall of each method (every one when none are given), by name, the fixes named in `remedies` (a front
        end's words; the command line's by default); the model is weighed once."""
        specs = list(METHODS.values()) if specs is None else specs
        size = self.text_model_size() if any(spec.min_model_params for spec in specs) else None
        short = {spec.name for spec in specs if size is not None and size.below(spec.min_model_params)}
        situation = self._small_model(size, remedies or {}) if short else ""
        model = {spec.name: f"needs a language model of about {size_text(spec.min_model_params)} parameters or more; "
                            f"{situation}" if spec.name in short else "" for spec in specs}
        return {spec.name: "; ".join(filter(None, (missing_text(spec), model[spec.name]))) for spec in specs}

    def _small_model(self, size: ModelSize, remedies: Mapping[Remedy, str]) -> str:
        """Which small model there is, and how to get a larger one."""
        label = f"{size.label} " if size.label else ""
        manager = self._resources.models
        others = any(m.role in ("text", "vision") and m.state in ("installed", "linked") for m in manager.statuses())
        has = (f"only the built-in {label}model is installed" if size.builtin and not others
               else f"the text model {self.roles()['text']} is a {label}model")
        recommended = self.recommendation().name
        add = (f"{Remedy.LIST_MODELS.worded(remedies)} shows larger ones" if manager.is_builtin(recommended)
               else f"{Remedy.PULL_MODEL.worded(remedies, model=recommended)} adds one")
        return f"{has} — {add}"

    def writers(self, models_used: list[str], *runtimes: Runtime | None) -> list[ModelSize]:
        """The sizes of the local models among `runtimes` that wrote part of an answer (`models_used`: its
        models); a server's model is the user's choice: not weighed."""
        return [self._resources.models.size(r.info.name, r.info.path or None) for r in runtimes
                if r is not None and r.info.backend == "local" and r.info.name in models_used]

    # -- first run and recommendations -----------------------------------------------------------

    def only_builtin(self) -> bool:
        """True while nothing but the model shipped with the app would answer (no pull, import or server)."""
        if self._settings.llm.backend == "remote":
            return False
        roles = self.roles()
        return roles["vision"] is None and self._resources.models.is_builtin(roles["text"])

    def upgrade_hint(self) -> str:
        """What installing the model recommended for this machine adds, for the status line under a quoted answer;
        "" once a model other than the built-in one answers (the reader quoted because quoting was enough)."""
        if not self.only_builtin():
            return ""
        choice = self.recommendation()
        if self._resources.models.is_builtin(choice.name):
            return f"Quoted from the pages: no language model wrote this ({choice.why})."
        reads = "read tables, charts and scans" if self._resources.models.catalog.get(choice.name).role == "vision" \
            else "read tables"
        return (f"Quoted from the pages: no language model wrote this. {choice.name} ({choice.variant}; Tools → "
                f"Models…, or `docqa models pull {choice.name}`) adds written answers that combine pages and {reads}.")

    def first_run_needed(self) -> bool:
        """True until the first-run panel is finished or skipped, while only the built-in models are installed."""
        return not self._settings.locations.first_run_done.exists() and self.only_builtin()

    def finish_first_run(self) -> None:
        self._settings.locations.first_run_done.touch()

    @property
    def hardware(self) -> Hardware:
        """This machine as the models see it: cores, memory, GPUs, what llama.cpp offloads."""
        return self._resources.runtimes.hardware

    def recommendation(self, times: QuestionTimes | None = None) -> Choice:
        """The model to download on this machine: the most capable one whose licence allows commercial use and
        that answers in a few minutes here (llm/catalog_choice.py), or the built-in one; its times estimated at
        this machine's measured speed (question_time). The one choice every front end shows."""
        times = times or self.question_times()
        return recommend(self._resources.models.catalog, times.hardware)

    def overview(self, method: str = DEFAULT_METHOD) -> list[Recommendation]:
        """Every model (statuses()) as offered here: the language models with about how long a question takes on
        this machine with `method` (the default one, the cascade, unless given) while that model serves text tasks
        (question_time: measured, else estimated from its size), the recommended one marked with why."""
        times = self.question_times()
        choice = self.recommendation(times)
        return [Recommendation(status, times.per_question(method, status.name)
                               if status.role in ANSWERING_ROLES else None,
                               choice.why if status.name == choice.name else "") for status in times.models]

    def per_question(self, methods: list[str] | None = None, model: str | None = None) -> dict[str, PerQuestion]:
        """About how long a question takes here with each method (every one when none are named) while `model`
        (the one serving text tasks unless given) serves, by method name (question_time)."""
        methods = list(METHODS) if methods is None else methods
        model = self._text_model_name() if model is None else model
        times = self.question_times()
        return {method: times.per_question(method, model) for method in methods}

    def question_times(self) -> QuestionTimes:
        """This machine's times per question as they stand now (measured, and its speed for the estimates)."""
        return QuestionTimes(self._resources.db.cursor(), self.hardware, self._resources.models.catalog,
                             self.statuses())

    def _text_model_name(self) -> str:
        """The name the answers record for the model serving text tasks ("" when there is none)."""
        llm = self._settings.llm
        if llm.backend == "remote":
            return llm.remote_model or "remote"
        return self.roles()["text"] or ""

    def runs_on(self, onnx_device: str) -> dict[str, str]:
        """Where each model family runs here: llama.cpp, the page embedder (torch), layout and OCR (onnxruntime,
        `onnx_device` from the library), the chunk embeddings (torch's CPU kernels in the index workers)."""
        hw = self.hardware
        llama = ("GPU offload" if hw.uses_gpu else "CPU (no GPU)" if hw.llama_gpu_offload
                 else "CPU (CPU-only build: `bash packaging/setup.sh gpu`)")
        return {"llama.cpp": llama,
                "page embedder": torch_device(any(g.vendor == "nvidia" for g in hw.gpus)),
                "layout and OCR": onnx_device, "chunk embeddings": "CPU"}

    def recommended(self) -> list[Recommendation]:
        """The language models this machine can download, the one recommended for it first, each with what it
        costs here (size, memory, licence, about how long a question takes)."""
        ram = self.hardware.ram_gb
        rows = [r for r in self.overview() if r.model.role in ANSWERING_ROLES and r.model.state != "built in"]
        return sorted(rows, key=lambda r: (not r.recommended, r.model.memory_gb > ram,
                                           r.seconds_per_question is None, r.seconds_per_question or 0))

    # -- model files --------------------------------------------------------------------------

    def statuses(self) -> list[ModelStatus]:
        """Every catalog, built-in and installed model with its state, size, memory and licence."""
        return self._resources.models.statuses()

    def pull(self, name: str, variant: str | None = None, progress: Callable[[int, int], None] | None = None,
             cancel: threading.Event | None = None) -> InstalledModel:
        """Download a catalog model (resumable, checksum-verified) and install it."""
        return self._resources.models.pull(name, variant, progress, cancel)

    def import_file(self, path: str | Path, projector: str | Path | None = None, name: str | None = None,
                    link: bool = False, progress: Callable[[int, int], None] | None = None,
                    cancel: threading.Event | None = None) -> InstalledModel:
        """Install a GGUF file (with its vision projector) already on disk: copied into the model folder (free
        space checked, progress in bytes, cancellable), or with `link` used where it lies; a ColQwen2.5 folder is
        registered where it is."""
        return self._resources.models.import_file(path, projector, name, link, progress, cancel)

    def read_file(self, path: str | Path) -> ModelFile:
        """What a model file says of itself, read from its header without loading it (milliseconds, but from a slow
        drive: off the GUI thread); a file that is no GGUF is a ModelError naming it."""
        path = Path(path).expanduser()
        header = read_header(path)
        beside = sorted(p for p in path.parent.glob("*.gguf") if p != path and "mmproj" in p.name.lower())
        return ModelFile(path, header.name, size_text(header.size.billions), header.licence,
                         licence_words(header.licence), header.is_projector, path.stat().st_size / 2**20,
                         beside[0] if len(beside) == 1 else None)

    @property
    def folder(self) -> Path:
        """Where imported model files are copied."""
        return self._resources.models.folder

    def verify(self, name: str | None = None) -> list[VerifyResult]:
        return self._resources.models.verify(name)

    def remove(self, name: str, keep_files: bool = False) -> list[str]:
        """Forget a model; returns the files deleted: a pull's from the cache, a copied import's from the model
        folder (none with keep_files, nor for a linked one)."""
        return self._resources.models.remove(name, keep_files)

