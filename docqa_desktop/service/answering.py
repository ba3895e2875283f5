"""The facade's answers part: the methods, asking (with threads of follow-ups), a method's preparation, the
history, and exporting answers."""
from __future__ import annotations

import dataclasses
import os
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

from ..answers import Answer, AnswerStatus
from ..domain import IndexReport
from ..errors import InvalidRequest, UnknownDocument
from ..evaluation import EvalOutcome, EvalPorts, EvalQuestion, EvalRunner, saved_records, write_report
from ..export import export as export_answer
from ..methods import (AUTO_METHOD, CAPABLE_DEFAULT, CASCADE, METHODS, MethodContext, MethodSpec, PrepareContext,
                       method_settings, method_spec, run_method, typed_overrides)
from ..methods.base import LANGUAGE_MODEL_FLOOR, Turn
from ..methods.conversation import question_in_context, standalone_question
from ..methods.verdict import below_floor as mark_below_floor  # noqa: F401 (the service names it)
from ..progress import Cancelled, Progress, ProgressFn, StreamFn
from ..retrieval.page_source import PageSource
from ..retrieval.scoped_search import ScopedSearch
from ..store import answers as answers_store
from ..store.artifacts import ArtifactStore
from ..store.summary_trees import SummaryTrees
from .components import refuse_without_components
from .models import Models
from .pages import Pages
from .resources import Resources

# what a running method's work is for, in the words of the library's stage lines ("SimpleDoc is writing them …")
FOR_QUESTION, AHEAD = "for this question", "ahead of questions"


@dataclasses.dataclass(frozen=True)
class PrepareReport:
    method: str
    done: int  # items prepared now (pages summarised, …)
    cancelled: bool
    what: str  # "page summaries"; "" for a method with nothing to prepare


@dataclasses.dataclass(frozen=True)
class LibraryPorts:
    """The library as a method sees it (methods/ports.py), built once for a question or a preparation."""
    pages: PageSource
    artifacts: ArtifactStore
    trees: SummaryTrees
    search: ScopedSearch


class Answers:
    def __init__(self, resources: Resources, pages: Pages, models: Models,
                 index: Callable[[list[str], ProgressFn | None, threading.Event], IndexReport]):
        self._resources, self._pages, self._models = resources, pages, models
        self._index = index  # the library's: an evaluation indexes its corpus first
        # a question's answer id, or a preparation's key -> (its method, its latest step, what the work is for)
        self._running: dict[str, tuple[str, Progress | None, str]] = {}

    # -- methods --------------------------------------------------------------------------------

    @property
    def default_method(self) -> str:
        """The method a question goes to: ask.method, or with "auto" (the default) the cascade: quoted answers,
        then the text model reads the passages when it is large enough (chooser())."""
        chosen = self._resources.settings.ask.method
        return CASCADE if chosen == AUTO_METHOD else chosen

    def chooser(self):
        """The text model when it may read the cascade's passages: at or above the model methods' floor, or a
        server's (its size is the user's choice); None with the built-in model alone."""
        size = self._models.text_model_size()
        return None if size is not None and size.below(LANGUAGE_MODEL_FLOOR) else self._resources.runtimes.text()

    def chooser_said(self) -> str:
        """Which model reads the cascade's passages, or why none does, in a sentence."""
        shortfall = self._models.shortfall(CAPABLE_DEFAULT)
        if shortfall:
            return f"the cascade quotes only: a model reading the passages {shortfall}"
        return f"the cascade's passages are read by {self._models.roles()['text'] or 'the server’s model'}"

    def methods(self) -> list[MethodSpec]:
        """Every answering method, the default first."""
        default = self.default_method
        return sorted(METHODS.values(), key=lambda spec: (spec.name != default, spec.name))

    def method_settings(self, name: str) -> dict:
        """A method's settings as they resolve now (defaults, preset, settings file, environment)."""
        return dataclasses.asdict(method_settings(method_spec(name), self._resources.settings))

    def method_overrides(self, name: str, pairs: list[str]) -> dict:
        """FIELD=VALUE pairs as settings of the method for one question (`ask(overrides=…)`), each value
        of its field's type; an unknown field or a value of the wrong type is a SettingsError."""
        return typed_overrides(method_spec(name), pairs)

    # -- asking -----------------------------------------------------------------------------------

    def ask(self, question: str, docs: list[str] | None = None, method: str | None = None,
            overrides: dict | None = None, progress: ProgressFn | None = None,
            cancel: threading.Event | None = None, save: bool = True, stream: StreamFn | None = None,
            follow_up: str | None = None) -> Answer:
        """Answer a question over the library (or the named documents), with citations; kept as history
        unless save is False (evaluation runs keep their own results). `overrides`: method settings for this
        question only (e.g. {"k": 20}). `stream` gets the answer's text as the model writes it. `follow_up`:
        the id of an answer whose thread this question continues (its earlier turns go with the question)."""
        if not question.strip():
            raise InvalidRequest("the question is empty")
        resources, settings = self._resources, self._resources.settings
        spec = method_spec(method or self.default_method)
        refuse_without_components(spec)
        doc_ids = self._pages.resolve_documents(docs)
        thread, turns = self._thread(follow_up)
        ports = self._ports_for(doc_ids)
        asked = standalone_question(question, turns)  # a follow-up's "it", "and in 2012?" written out from the thread
        text_model = resources.runtimes.text()
        # the serving model is recorded whether it is called or not: the answer's time is this model's with the method
        answer = Answer(id=uuid.uuid4().hex[:12], question=question, method=spec.name, scope=list(docs or []),
                        thread=thread, standalone_question=asked if asked != question else "",
                        text_model=text_model.info.name)

        step = self._recording(answer.id, spec.name, FOR_QUESTION, progress)
        ctx = MethodContext(
            question=asked if spec.follow_ups == "conversation" else question_in_context(asked, turns),
            answer=answer, pages=ports.pages, artifacts=ports.artifacts, trees=ports.trees, search=ports.search,
            text_model=text_model, vision_model=resources.runtimes.vision(),
            settings=method_settings(spec, settings, overrides), image_side=settings.ask.image_side,
            progress=step, cancel=cancel, stream=stream, conversation=turns, chooser=self.chooser())
        self._running[answer.id] = (spec.name, None, FOR_QUESTION)
        try:
            run_method(spec, ctx, settings.ask.check_proofs,  # the verdict, once (methods/verdict.py), the floor too
                       lambda done: self._models.writers(done.models, ctx.text_model, ctx.vision_model))
        finally:
            del self._running[answer.id]
        if save:
            with resources.db.transaction() as cur:
                answers_store.save_answer(cur, answer)
        return answer

    def _ports_for(self, doc_ids: list[int] | None) -> LibraryPorts:
        """What a method reaches the library through (methods/ports.py), over `doc_ids` (None: the library)."""
        db = self._resources.db
        pages = PageSource(db)
        search = ScopedSearch(self._pages.retriever(), pages, doc_ids, self._resources.settings.search.mode)
        return LibraryPorts(pages, ArtifactStore(db), SummaryTrees(db), search)

    def running(self) -> list[tuple[str, Progress | None, str]]:
        """(method, its latest step or None before the first, what it is for: FOR_QUESTION or AHEAD) of each
        question being answered and each preparation running now, from any thread: the library's stage rows say
        what a running method does for them."""
        return list(self._running.values())

    def _recording(self, key: str, method: str, purpose: str, progress: ProgressFn | None) -> ProgressFn:
        """A progress callback that keeps each step as `key`'s latest (running()) and passes it on."""
        def step(p: Progress) -> None:
            self._running[key] = (method, p, purpose)
            if progress:
                progress(p)
        return step

    def prepare(self, method: str | None = None, docs: list[str] | None = None,
                progress: ProgressFn | None = None, cancel: threading.Event | None = None) -> PrepareReport:
        """Run a method's work ahead of questions (SimpleDoc: page summaries) for the library or the named
        documents. Resumable: what is already prepared by the current model is skipped."""
        spec = method_spec(method or self.default_method)
        if spec.prepare is None:
            return PrepareReport(spec.name, 0, False, "")
        refuse_without_components(spec)
        key = "prepare-" + uuid.uuid4().hex[:12]
        track = self._recording(key, spec.name, AHEAD, progress)
        resources, settings = self._resources, self._resources.settings
        doc_ids = self._pages.resolve_documents(docs)
        ports = self._ports_for(doc_ids)
        ctx = PrepareContext(ports.artifacts, ports.trees, ports.pages, ports.search, doc_ids,
                             resources.runtimes.text(), resources.runtimes.vision(), method_settings(spec, settings),
                             settings.ask.image_side, track, cancel)
        self._running[key] = (spec.name, None, AHEAD)
        try:
            done = spec.prepare(ctx)
        except Cancelled:
            _, last, _ = self._running[key]  # read before `finally` removes it
            return PrepareReport(spec.name, last.done if last else 0, True, spec.prepare_label)
        finally:
            del self._running[key]
        return PrepareReport(spec.name, done, False, spec.prepare_label)

    # -- history and threads ------------------------------------------------------------------------

    def history(self, limit: int | None = 50) -> list[Answer]:
        """The newest `limit` answers, newest first (None: every one)."""
        return answers_store.recent_answers(self._resources.db.cursor(), limit)

    def history_size(self) -> int:
        """How many answers the history holds."""
        return answers_store.count_answers(self._resources.db.cursor())

    def answer(self, answer_id: str) -> Answer:
        found = answers_store.load_answer(self._resources.db.cursor(), answer_id)
        if found is None:
            raise UnknownDocument(f"no answer with id {answer_id!r}; `docqa history` lists them")
        return found

    def thread(self, answer_id: str) -> list[Answer]:
        """The thread an answer belongs to: the question that started it and every follow-up, oldest first."""
        return answers_store.thread_answers(self._resources.db.cursor(), self.answer(answer_id).thread_id)

    def _thread(self, follow_up: str | None) -> tuple[str, list[Turn]]:
        """(the thread id a new answer joins, "" for a new thread; the turns it is asked with)."""
        if not follow_up:
            return "", []
        answers = self.thread(follow_up)  # every answer of a thread carries the thread's id
        # stopped and failed answers are not what the thread knows
        earlier = [a for a in answers if a.status in (AnswerStatus.ANSWERED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND)]
        keep = self._resources.settings.ask.follow_up_turns
        # each turn's question as it was read, so that a chain of follow-ups keeps its subject
        return answers[0].thread_id, ([Turn(a.standalone_question or a.question, a.text) for a in earlier[-keep:]]
                                      if keep > 0 else [])

    # -- export -------------------------------------------------------------------------------------

    def export(self, answer: Answer, fmt: str, out: str | os.PathLike) -> Path:
        """Write an answer with its citations to a file, as one of EXPORT_FORMATS; returns the file. A follow-up
        ("And in 2012?") is written with the questions it follows, up to itself: alone it would not say what it
        asks."""
        if answer.thread and answer.thread != answer.id:
            thread = self.thread(answer.id)
            upto = next((i for i, a in enumerate(thread) if a.id == answer.id), None)
            if upto:
                return export_answer(thread[:upto + 1], fmt, Path(out))
        return export_answer(answer, fmt, Path(out))

    def export_thread(self, answer_id: str, fmt: str, out: str | os.PathLike) -> Path:
        """Write every answer of an answer's thread, in order, with their citations, to one file."""
        return export_answer(self.thread(answer_id), fmt, Path(out))


    # -- evaluation ---------------------------------------------------------------------------------

    def evaluate(self, questions: list[EvalQuestion], corpus: str | os.PathLike, methods: list[str],
                 out: str | os.PathLike, use_judge: bool = False, say: Callable[[str], None] = lambda message: None,
                 cancel: threading.Event | None = None, index_progress: ProgressFn | None = None) -> EvalOutcome:
        """Score methods on labelled questions (MMLongBench-Doc format): the corpus indexed as needed, each
        answer recorded in `out` as it comes (a rerun resumes), then the report written there (outcome.report)."""
        ports = EvalPorts(self._index, self.ask, self._resources.runtimes.text, self._run_info)
        outcome = EvalRunner(ports, out, say, cancel, index_progress).run(questions, corpus, methods, use_judge)
        outcome.report = write_report(out, outcome.records)
        return outcome

    def evaluation_report(self, questions: list[EvalQuestion], methods: list[str] | None,
                          out: str | os.PathLike) -> Path:
        """Write the report again from the results already in `out` (asks nothing)."""
        return write_report(out, saved_records(out, questions, methods))

    def _run_info(self, methods: list[str]) -> dict:
        """What produces an evaluation's answers, for its report's header."""
        settings = self._resources.settings
        return {"models": self._models.roles(),
                "settings": {"preset": settings.ask.preset, "llm_threads": settings.llm.threads or "auto (cores - 1)",
                             "context": settings.llm.context},
                "method_settings": {m: self.method_settings(m) for m in methods}}
