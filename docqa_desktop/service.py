"""The one facade the CLI and the GUI talk to: index, watch, remove, status, search, ask, history, models."""
from __future__ import annotations

import dataclasses
import os
import threading
import uuid
from pathlib import Path
from typing import Callable

from .answers import Answer
from .domain import FileEntry, IndexReport, SearchHit
from .index.indexer import Indexer, ProgressCallback
from .index.render import RenderedPage, ThumbnailCache, render
from .index.scan import normalise
from .index.watcher import watch as watch_folders
from .llm.manager import ModelManager
from .llm.runtime import ModelRuntimes
from .methods import run_method
from .methods.base import MethodContext
from .methods.evidence import PageSource
from .methods.summaries import Summarizer
from .retrieval.page_retriever import PageRetriever, SearchMode
from .settings import Settings
from .store import answers as answers_store
from .store import catalog
from .store import summaries as summaries_store
from .store.database import Database
from .store.repair import RepairReport, repair as repair_database
from .visual.provider import VisualModels


class UnknownDocument(ValueError):
    pass


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
            self._db = Database(self.settings.locations.database)
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

    def index(self, paths: list[str], progress: ProgressCallback | None = None,
              cancel: threading.Event | None = None) -> IndexReport:
        report = Indexer(self.db, self.settings.index, self.visual.stage).run(paths, progress, cancel)
        if report.pages_embedded_visually or report.removed or report.updated:
            self.visual.catch_up()
        return report

    def watch(self, paths: list[str], progress: ProgressCallback | None = None,
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
            finally:
                self.close()
            if on_report:
                on_report(report)

        watch_folders(roots, sync, stop, self.settings.index.settle_seconds, on_error=on_error, first=sync)

    def remove(self, path: str) -> int:
        return Indexer(self.db, self.settings.index).remove(path)

    def repair(self, force: bool = False, more_paths: list[str] = (),
               progress: ProgressCallback | None = None) -> RepairReport:
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

    def ask(self, question: str, docs: list[str] | None = None, method: str | None = None,
            k: int | None = None, iterations: int | None = None,
            progress: Callable[[str], None] | None = None, cancel: threading.Event | None = None,
            save: bool = True) -> Answer:
        """Answer a question over the library (or the named documents), with citations; kept as history
        unless save is False (evaluation runs keep their own results)."""
        if not question.strip():
            raise ValueError("the question is empty")
        ask = dataclasses.replace(self.settings.ask, **{key: value for key, value in
                                                        (("k", k), ("iterations", iterations)) if value})
        method = method or ask.method
        doc_ids = self.resolve_documents(docs)
        retriever = self._retriever()
        mode = self.settings.search.mode
        pages = PageSource(self.db)
        text_model, vision_model = self.runtimes.text(), self.runtimes.vision()
        reader = vision_model or text_model
        answer = Answer(id=uuid.uuid4().hex[:12], question=question, method=method, scope=list(docs or []))
        ctx = MethodContext(
            question=question, answer=answer, pages=pages, text_model=text_model, vision_model=vision_model,
            retrieve=lambda query, n: pages.refs(retriever.search(query, doc_ids, n, mode)),
            settings=ask, summaries=Summarizer(self.db, pages, reader, ask.summary_tokens, ask.image_side, ask.page_tokens),
            progress=progress or (lambda message: None), cancel=cancel)
        run_method(method, ctx)
        if save:
            with self.db.transaction() as cur:
                answers_store.save_answer(cur, answer)
        return answer

    def summarize(self, docs: list[str] | None = None, progress: Callable[[int, int], None] | None = None,
                  cancel: threading.Event | None = None) -> int:
        """Write SimpleDoc's page summaries ahead of questions (ask writes missing ones on demand).
        Resumable: pages already summarised by the current model are skipped. Returns pages written."""
        pages = PageSource(self.db)
        model = self.runtimes.vision() or self.runtimes.text()
        ask = self.settings.ask
        summarizer = Summarizer(self.db, pages, model, ask.summary_tokens, ask.image_side, ask.page_tokens)
        todo = summaries_store.pages_without_summary(self.db.cursor(), self.resolve_documents(docs), summarizer.model)
        refs = pages.refs_for(todo)
        trace = Answer(id="", question="", method="summaries")
        ctx = MethodContext(question="", answer=trace, retrieve=lambda query, n: [], pages=pages,
                            text_model=model, vision_model=None, settings=ask, summaries=summarizer, cancel=cancel)
        for done, ref in enumerate(refs, 1):
            if cancel is not None and cancel.is_set():
                return done - 1
            summarizer.ensure([ref], ctx.call)
            if progress:
                progress(done, len(refs))
        return len(refs)

    def history(self, limit: int = 50) -> list[Answer]:
        return answers_store.recent_answers(self.db.cursor(), limit)

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
