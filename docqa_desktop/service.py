"""The one facade the CLI and the GUI talk to: index, watch, remove, status, search, ask, history, models."""
from __future__ import annotations

import dataclasses
import os
import threading
import uuid
from pathlib import Path

from .answers import Answer, AnswerStatus
from .domain import FileEntry, IndexReport, SearchHit, StageStatus
from .export import FORMATS as EXPORT_FORMATS
from .export import WARNING_COLOUR, cited_line, proof_html, shown_text
from .export import export as export_answer
from .index import onnx_device
from .index.indexer import Indexer
from .pdf.render import RenderedPage, ThumbnailCache, render
from .index.scan import normalise
from .index.watcher import watch as watch_folders
from .llm import hardware
from .llm.gguf_file import ModelSize, size_text
from .llm.manager import ModelManager, ModelStatus
from .llm.runtime import ModelRuntimes, Runtime
from .methods import (AUTO_METHOD, CAPABLE_DEFAULT, METHODS, QUOTED, MethodContext, MethodSpec, PrepareContext,
                      method_settings, method_spec, run_method)
from .methods.base import Turn
from .methods.conversation import question_in_context
from .methods.toolkit.page_summaries import PAGE_SUMMARY
from .progress import Cancelled, Progress, ProgressFn, StreamFn
from .retrieval.page_retriever import PageRetriever, SearchMode
from .retrieval.page_source import PageSource
from .retrieval.scoped_search import ScopedSearch
from .settings import Settings
from .settings import save as save_settings
from .store import answers as answers_store
from .store import StoreError, catalog, enrichment
from .store.artifacts import ArtifactStore
from .store.database import Database
from .store.repair import RepairReport, repair as repair_database
from .store.summary_trees import SummaryTrees
from .visual.provider import VisualModels

__all__ = ["Service", "UnknownDocument", "PrepareReport", "Recommendation",
           # what the app (ui/) uses from below this facade, which it may not import itself (tests/test_layers.py)
           "AUTO_METHOD", "EXPORT_FORMATS", "MethodSpec", "QUOTED", "RenderedPage", "StoreError", "WARNING_COLOUR",
           "cited_line", "proof_html", "shown_text"]


class UnknownDocument(ValueError):
    pass


@dataclasses.dataclass(frozen=True)
class Recommendation:
    model: ModelStatus
    seconds_per_question: int  # a rough expectation on this machine (Hardware.seconds_per_question)
    why: str  # why it is the one recommended here; "" for the others


@dataclasses.dataclass(frozen=True)
class PrepareReport:
    method: str
    done: int  # items prepared now (pages summarised, …)
    cancelled: bool
    what: str  # "page summaries"; "" for a method with nothing to prepare


class Service:
    def __init__(self, settings: Settings):
        self.settings = settings
        settings.locations.create()
        self._db: Database | None = None
        self._models: ModelManager | None = None
        self._runtimes: ModelRuntimes | None = None
        self.visual = VisualModels(settings, lambda: self.models, lambda: self.db)

    @property
    def db(self) -> Database:
        if self._db is None:
            self._db = Database(self.settings.locations.database, memory_mb=self.settings.index.store_memory_mb)
        return self._db

    @property
    def database_path(self) -> Path:
        return self.settings.locations.database

    @property
    def models(self) -> ModelManager:
        if self._models is None:
            self._models = ModelManager(self.settings.locations.installed_models)
        return self._models

    @property
    def runtimes(self) -> ModelRuntimes:
        """Language models by role, loaded on first use."""
        if self._runtimes is None:
            self._runtimes = ModelRuntimes(self.settings.llm, self.models)
        return self._runtimes

    def model_roles(self) -> dict[str, str | None]:
        """Which model serves text tasks and which reads page images (None: nothing installed)."""
        llm = self.settings.llm
        if llm.backend == "remote":
            name = f"{llm.remote_model or 'remote'} at {llm.remote_url}"
            return {"text": name, "vision": name if llm.remote_vision else None}
        roles = {}
        for role, preferred in (("text", llm.text_model), ("vision", llm.vision_model)):
            resolved = self.models.resolve(role, preferred)
            roles[role] = resolved.name if resolved else None
        return roles

    def set_default_model(self, role: str, name: str) -> str | None:
        """Make `name` serve `role` (text | vision) from now on, saved in the settings file ("auto": the most
        capable installed one again); returns the model that serves the role now. A model that is not
        installed, or not a vision model for the vision role, is a ModelError and changes nothing."""
        name = "" if name == "auto" else name
        if name:
            self.models.resolve(role, name)  # raises when it cannot serve the role
        field = {"text": "text_model", "vision": "vision_model"}[role]
        settings = dataclasses.replace(self.settings, llm=dataclasses.replace(self.settings.llm, **{field: name}))
        save_settings(settings)
        self.apply_settings(settings)
        return self.model_roles()[role]

    def apply_settings(self, settings: Settings) -> None:
        """New settings from the app; a changed model setting reloads the model on its next use."""
        if settings.llm != self.settings.llm and self._runtimes is not None:
            self._runtimes.close()
            self._runtimes = None
        if settings.index != self.settings.index:  # another visual-token budget or pooling: load again
            self.visual = VisualModels(settings, lambda: self.models, lambda: self.db)
        self.visual.settings = settings
        self.settings = settings

    def warm_up(self) -> None:
        """Load now what the first search or indexing run would load mid-session, holding the interpreter
        lock (a hitch in the app's window)."""
        self.db.warm_up()

    def close(self) -> None:
        if self._runtimes is not None:
            self._runtimes.close()
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- indexing ----------------------------------------------------------------------------

    def index(self, paths: list[str], progress: ProgressFn | None = None,
              cancel: threading.Event | None = None, enrich: bool = True) -> IndexReport:
        """Bring the library in line with `paths`; then, with `enrich`, run the background passes that are due."""
        report = Indexer(self.db, self.settings.index, self.visual.stage).run(paths, progress, cancel, enrich)
        if report.pages_embedded_visually or report.removed or report.updated:
            self.visual.catch_up()
        return report

    def watch(self, paths: list[str], progress: ProgressFn | None = None,
              stop: threading.Event | None = None, on_report=None, on_error=None) -> None:
        """Index now, then keep the index in step with the folders until `stop` is set.

        The database is closed between bursts so that other docqa processes can read it.
        """
        stop = stop or threading.Event()
        roots = [normalise(p) for p in paths]
        missing = [r for r in roots if not os.path.exists(r)]
        if missing:
            raise FileNotFoundError(f"cannot watch {', '.join(missing)}: no such file or folder")

        def sync(_changed=None):
            try:
                report = self.index(roots, progress, stop)
                if self.settings.ask.prepare_after_index and (report.added or report.updated) and not stop.is_set():
                    self.prepare(progress=progress, cancel=stop)  # resumable: only new pages are prepared
            finally:
                self.close()
            if on_report:
                on_report(report)

        watch_folders(roots, sync, stop, self.settings.index.settle_seconds, on_error=on_error, first=sync)

    def remove(self, path: str) -> int:
        return Indexer(self.db, self.settings.index).remove(path)

    def repair(self, force: bool = False, more_paths: list[str] = (),
               progress: ProgressFn | None = None) -> RepairReport:
        """Set a damaged database aside and rebuild it: history and summaries copied where readable, the
        rest indexed again from the library folders (and `more_paths`)."""
        self.close()
        return repair_database(self.database_path, lambda: self.db, lambda paths: self.index(paths, progress),
                               force, more_paths)

    # -- reading -----------------------------------------------------------------------------

    def status(self) -> list[FileEntry]:
        return catalog.file_entries(self.db.cursor())

    def totals(self) -> dict[str, int]:
        return catalog.totals(self.db.cursor())

    def onnx_providers(self) -> list[str]:
        """The onnxruntime execution providers layout and OCR use here, preferred first."""
        return onnx_device.execution_providers(self.settings.index.device)

    def onnx_device(self) -> str:
        return onnx_device.describe(self.settings.index.device)

    def enrichment(self) -> list[StageStatus]:
        """Each stage's done and pending work: keyword search comes with indexing, the rest are background
        passes (layout, embeddings and page images run after each indexing; summaries when a method prepares)."""
        s = self.settings.index
        embedder = self.visual.resolved()
        counts = enrichment.stage_counts(self.db.cursor(), embedder.name if embedder else None, PAGE_SUMMARY)
        notes = {"layout": "" if s.layout else "switched off (index.layout)",
                 "embeddings": "" if s.dense else "switched off (index.dense)",
                 "page images": "" if embedder else "no page embedder installed (docqa models)",
                 "summaries": "written by `docqa prepare` or the first SimpleDoc question"}
        return [StageStatus(stage, done, pending, "chunks" if stage == "embeddings" else "pages", notes.get(stage, ""))
                for stage, (done, pending) in counts.items()]

    def libraries(self) -> list[str]:
        return catalog.libraries(self.db.cursor())

    def resolve_documents(self, names: list[str] | None) -> list[int] | None:
        """Document ids for --doc arguments; None (whole library) when no names are given."""
        if not names:
            return None
        resolved = catalog.resolve_documents(self.db.cursor(), names)
        missing = [name for name, ids in resolved.items() if not ids]
        if missing:
            raise UnknownDocument(f"no indexed document matches {', '.join(map(repr, missing))}")
        return sorted({i for ids in resolved.values() for i in ids})

    def page_image(self, doc: str, page: int, max_side: int = 1600) -> bytes:
        """PNG of a page of an indexed document, rendered from whichever of its paths still exists."""
        return self.rendered_page(doc, page, max_side).png

    def rendered_page(self, doc: str, page: int, max_width: int = 1600, max_height: int | None = None) -> RenderedPage:
        """The page image, fitted to the given pixels, with the page's size in points and the document's
        page count (for viewers)."""
        _, path = self._document_on_disk(doc)
        return render(path, page, max_width, max_height)

    def thumbnail(self, doc: str, page: int) -> Path:
        sha, path = self._document_on_disk(doc)
        return ThumbnailCache(self.settings.locations.thumbnails).get(sha, path, page)

    def _document_on_disk(self, doc: str) -> tuple[str, str]:
        ids = self.resolve_documents([doc])
        if len(ids) > 1:
            raise UnknownDocument(f"{doc!r} matches {len(ids)} documents; give the full file name or path")
        sha, paths = catalog.document_sources(self.db.cursor(), ids[0])
        existing = [p for p in paths if os.path.exists(p)]
        if not existing:
            raise UnknownDocument(f"{doc!r} is indexed but no longer on disk ({', '.join(paths)})")
        return sha, existing[0]

    # -- asking ------------------------------------------------------------------------------

    @property
    def default_method(self) -> str:
        """The method a question goes to: ask.method, or with "auto" (the default) SimpleDoc when the text model
        is as large as it needs (MethodSpec.min_model_params), else quoted answers (the built-in model alone)."""
        chosen = self.settings.ask.method
        if chosen != AUTO_METHOD:
            return chosen
        return QUOTED if self.model_shortfall(CAPABLE_DEFAULT) else CAPABLE_DEFAULT

    def text_model_size(self) -> ModelSize | None:
        """How big the model serving text tasks is (GGUF metadata); None for a server's model (its size is the
        user's choice, unknown here) and when no language model is installed."""
        if self.settings.llm.backend == "remote":
            return None
        name = self.model_roles()["text"]
        return self.models.size(name) if name else None

    def model_shortfall(self, method: MethodSpec | str) -> str:
        """Why the current text model is too small for `method`, as one plain sentence; "" when it is large
        enough, of unknown size (a server's, one without size metadata) or the method needs no model."""
        spec = method_spec(method) if isinstance(method, str) else method
        return self.model_shortfalls([spec])[spec.name]

    def model_shortfalls(self, specs: list[MethodSpec] | None = None) -> dict[str, str]:
        """model_shortfall of each method (every one when none are given), by name; the model is weighed once."""
        specs = list(METHODS.values()) if specs is None else specs
        size = self.text_model_size() if any(spec.min_model_params for spec in specs) else None
        short = {spec.name for spec in specs if size is not None and size.below(spec.min_model_params)}
        situation = self._small_model(size) if short else ""
        return {spec.name: f"needs a language model of about {size_text(spec.min_model_params)} parameters or more; "
                           f"{situation}" if spec.name in short else "" for spec in specs}

    def _small_model(self, size: ModelSize) -> str:
        """Which small model there is, and how to get a larger one."""
        label = f"{size.label} " if size.label else ""
        others = any(m.role in ("text", "vision") and m.state == "installed" for m in self.models.statuses())
        has = (f"only the built-in {label}model is installed" if size.builtin and not others
               else f"the text model {self.model_roles()['text']} is a {label}model")
        recommended = hardware.detect().recommendation()[0]
        add = ("`docqa models list` shows larger ones" if self.models.is_builtin(recommended)
               else f"`docqa models pull {recommended}` adds one")
        return f"{has} — {add}"

    def only_builtin_models(self) -> bool:
        """True while nothing but the model shipped with the app would answer (no pull, import or server)."""
        if self.settings.llm.backend == "remote":
            return False
        roles = self.model_roles()
        return roles["vision"] is None and self.models.is_builtin(roles["text"])

    def upgrade_hint(self) -> str:
        """What installing the model recommended for this machine adds, for the status line under a quoted answer."""
        name, variant, why = hardware.detect().recommendation()
        if self.models.is_builtin(name):
            return f"Quoted from the pages: no language model wrote this ({why})."
        return (f"Quoted from the pages: no language model wrote this. `docqa models pull {name}` ({variant}) "
                f"adds written answers that combine pages and read tables, charts and scans.")

    def first_run_needed(self) -> bool:
        """True until the first-run panel is finished or skipped, while only the built-in models are installed."""
        return not self.settings.locations.first_run_done.exists() and self.only_builtin_models()

    def finish_first_run(self) -> None:
        self.settings.locations.first_run_done.touch()

    def recommended_models(self) -> list[Recommendation]:
        """The language models this machine can download, the one recommended for it first, each with what it
        costs here (size, memory, licence, about how long a question takes)."""
        hw = self.runtimes.hardware
        recommended, _, why = hw.recommendation()
        rows = [r for r in self.models.statuses() if r.role in ("vision", "text") and r.state != "built in"]
        rows.sort(key=lambda r: (r.name != recommended, r.memory_gb > hw.ram_gb, r.size_mb))
        return [Recommendation(r, round(hw.seconds_per_question(r.size_mb, r.memory_gb)),
                               why if r.name == recommended else "") for r in rows]

    def methods(self) -> list[MethodSpec]:
        """Every answering method, the default first."""
        default = self.default_method
        return sorted(METHODS.values(), key=lambda spec: (spec.name != default, spec.name))

    def method_settings(self, name: str) -> dict:
        """A method's settings as they resolve now (defaults, preset, settings file, environment)."""
        return dataclasses.asdict(method_settings(method_spec(name), self.settings))

    def ask(self, question: str, docs: list[str] | None = None, method: str | None = None,
            overrides: dict | None = None, progress: ProgressFn | None = None,
            cancel: threading.Event | None = None, save: bool = True, stream: StreamFn | None = None,
            follow_up: str | None = None) -> Answer:
        """Answer a question over the library (or the named documents), with citations; kept as history
        unless save is False (evaluation runs keep their own results). `overrides`: method settings for this
        question only (e.g. {"k": 20}). `stream` gets the answer's text as the model writes it. `follow_up`:
        the id of an answer whose thread this question continues (its earlier turns go with the question)."""
        if not question.strip():
            raise ValueError("the question is empty")
        spec = method_spec(method or self.default_method)
        settings = method_settings(spec, self.settings, overrides)
        doc_ids = self.resolve_documents(docs)
        thread, turns = self._thread(follow_up)
        pages = PageSource(self.db)
        answer = Answer(id=uuid.uuid4().hex[:12], question=question, method=spec.name, scope=list(docs or []),
                        thread=thread)
        ctx = MethodContext(
            question=question if spec.follow_ups == "conversation" else question_in_context(question, turns),
            answer=answer, pages=pages, artifacts=ArtifactStore(self.db), trees=SummaryTrees(self.db),
            search=ScopedSearch(self._retriever(), pages, doc_ids, self.settings.search.mode),
            text_model=self.runtimes.text(), vision_model=self.runtimes.vision(), settings=settings,
            image_side=self.settings.ask.image_side, progress=progress or (lambda p: None), cancel=cancel,
            stream=stream, conversation=turns)
        run_method(spec, ctx, self.settings.ask.check_proofs)
        mark_below_floor(answer, spec, self._writers(answer, ctx.text_model, ctx.vision_model))
        if save:
            with self.db.transaction() as cur:
                answers_store.save_answer(cur, answer)
        return answer

    def _writers(self, answer: Answer, *runtimes: Runtime | None) -> list[ModelSize]:
        """The sizes of the local models among `runtimes` that wrote part of `answer` (a server's model is
        the user's choice: not weighed)."""
        return [self.models.size(r.info.name, r.info.path or None) for r in runtimes
                if r is not None and r.info.backend == "local" and r.info.name in answer.models]

    def prepare(self, method: str | None = None, docs: list[str] | None = None,
                progress: ProgressFn | None = None, cancel: threading.Event | None = None) -> PrepareReport:
        """Run a method's work ahead of questions (SimpleDoc: page summaries) for the library or the named
        documents. Resumable: what is already prepared by the current model is skipped."""
        spec = method_spec(method or self.default_method)
        if spec.prepare is None:
            return PrepareReport(spec.name, 0, False, "")
        last: list[Progress] = []

        def track(p: Progress) -> None:
            last[:] = [p]
            if progress:
                progress(p)

        pages, doc_ids = PageSource(self.db), self.resolve_documents(docs)
        ctx = PrepareContext(ArtifactStore(self.db), SummaryTrees(self.db), pages,
                             ScopedSearch(self._retriever(), pages, doc_ids, self.settings.search.mode), doc_ids,
                             self.runtimes.text(), self.runtimes.vision(), method_settings(spec, self.settings),
                             self.settings.ask.image_side, track, cancel)
        try:
            done = spec.prepare(ctx)
        except Cancelled:
            return PrepareReport(spec.name, last[0].done if last else 0, True, spec.prepare_label)
        return PrepareReport(spec.name, done, False, spec.prepare_label)

    def export(self, answer: Answer, fmt: str, out: str | os.PathLike) -> Path:
        """Write an answer with its citations to a file, as one of EXPORT_FORMATS; returns the file."""
        return export_answer(answer, fmt, Path(out))

    def history(self, limit: int = 50) -> list[Answer]:
        return answers_store.recent_answers(self.db.cursor(), limit)

    def thread(self, answer_id: str) -> list[Answer]:
        """The thread an answer belongs to: the question that started it and every follow-up, oldest first."""
        return answers_store.thread_answers(self.db.cursor(), self.answer(answer_id).thread_id)

    def _thread(self, follow_up: str | None) -> tuple[str, list[Turn]]:
        """(the thread id a new answer joins, "" for a new thread; the turns it is asked with)."""
        if not follow_up:
            return "", []
        answers = self.thread(follow_up)  # every answer of a thread carries the thread's id
        # stopped and failed answers are not what the thread knows
        earlier = [a for a in answers if a.status in (AnswerStatus.ANSWERED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND)]
        keep = self.settings.ask.follow_up_turns
        return answers[0].thread_id, [Turn(a.question, a.text) for a in earlier[-keep:]] if keep > 0 else []

    def export_thread(self, answer_id: str, fmt: str, out: str | os.PathLike) -> Path:
        """Write every answer of an answer's thread, in order, with their citations, to one file."""
        return export_answer(self.thread(answer_id), fmt, Path(out))

    def answer(self, answer_id: str) -> Answer:
        found = answers_store.load_answer(self.db.cursor(), answer_id)
        if found is None:
            raise UnknownDocument(f"no answer with id {answer_id!r}; `docqa history` lists them")
        return found

    def search(self, query: str, docs: list[str] | None = None, k: int | None = None,
               mode: SearchMode | str | None = None) -> list[SearchHit]:
        """Pages for a query; `mode` defaults to the search.mode setting (auto: hybrid once pages have
        visual embeddings, else text)."""
        return self._retriever().search(query, self.resolve_documents(docs), k, mode or self.settings.search.mode)

    def _retriever(self) -> PageRetriever:
        return PageRetriever(self.db, self.settings.search, self.visual)  # cheap: models load once per process


def mark_below_floor(answer: Answer, spec: MethodSpec, writers: list[ModelSize]) -> None:
    """An answer that a model below the method's floor (MethodSpec.min_model_params) helped write is no answer
    to stand behind: "answered" becomes an unverified draft, saying which model wrote it (a draft already
    unverified, its proof not checking out, says so too)."""
    below = [size for size in writers if size.below(spec.min_model_params)]
    if not below or answer.status not in (AnswerStatus.ANSWERED, AnswerStatus.UNVERIFIED):
        return
    size = min(below, key=lambda s: s.billions)
    writer = f"a {size.label} model" if size.label else "the built-in model"
    note = (f"unverified — written by {writer} (this method needs about {size_text(spec.min_model_params)} "
            "parameters or more)")
    answer.status = AnswerStatus.UNVERIFIED
    answer.check = f"{note}; {answer.check}" if answer.check else note
