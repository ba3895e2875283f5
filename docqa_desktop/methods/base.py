"""What every answering method gets (one context object), declares (a MethodSpec) and gives back (an Answer).

A method lives in its own folder (methods/<name>/) and registers a MethodSpec: name, title, paper, what it
needs, its typed settings with the paper's defaults and a CPU preset, `run(ctx)` and an optional `prepare`
step for work done ahead of questions. Everything a run needs — retrieval in any mode, page text, elements,
crops and images, the models, settings, progress, cancellation — comes through the context, and every model
call goes through `ctx.call` / `ctx.sample` so the trace records it. What a method keeps between questions
goes through the context too: `ctx.artifacts` (texts a model wrote about a page or an element, by a kind the
owner names) and `ctx.trees` (trees of summaries over a document's chunks); a method never sees the database.
The four ports (`search`, `pages`, `artifacts`, `trees`) are Protocols (methods/ports.py, named here too): the
service hands in the concrete ones, and a helper here adds behaviour to a port (a cancel check, a trace entry,
gone pages noted), never a bare forward: a method calls the port itself (`ctx.search.documents()`).
"""
from __future__ import annotations

import dataclasses
import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..answers import Answer, AnswerStatus, Citation, LlmCall, PageRef
from ..domain import CatalogueEntry, ChunkHit, StageStatus, TreeNode
from ..errors import PageGone, VisualUnavailable
from ..llm import Completion, Message, Options
from ..llm.jsonout import output_token_bound
from ..llm.partial_json import partial_field
from ..llm.runtime import Runtime
from ..progress import Cancelled, Eta, Progress, ProgressFn, check_cancel, counted, describe
from .ports import Artifacts, Pages, Search, Trees
from .toolkit import page_content
from .toolkit.final_answer import NOT_ANSWERABLE, FinalAnswer
from .toolkit.descriptions import Description, Descriptions
from .toolkit.page_content import PageElement
from .toolkit.batches import multi_document
from .toolkit.passages import fit_all_to_question

log = logging.getLogger(__name__)

# The smallest language model (billions of parameters) whose answers to a model method are worth reading. Measured
# (issue 33): the built-in 135M SmolLM2 writes the reply schema back — SimpleDoc answered the literal text
# "answer_format", M3DocRAG streamed "2022.2024. 2021.2024…", both marked answered — while a 1.5B model gets
# about 10-17 % of the dev questions right. Below it, auto picks no model method, and an answer one writes anyway
# is labelled unverified (methods/verdict.py: below_floor).
LANGUAGE_MODEL_FLOOR = 1.0

PROMPT_RESERVE_TOKENS = 1200  # instructions, question and memory around the page texts
IMAGE_TOKENS = 1300  # a page image at the default pixel budget

# The ports (Search, Pages, Artifacts, Trees), what they raise (PageGone, VisualUnavailable) and hand out
# (TreeNode, CatalogueEntry), named here for the methods
__all__ = ["LANGUAGE_MODEL_FLOOR", "Artifacts", "Cancelled", "CatalogueEntry", "MethodContext", "MethodSpec",
           "PageGone", "Pages", "PrepareContext", "Search", "TreeNode", "Trees", "Turn", "VisualUnavailable",
           "page_label", "pages_named"]


@dataclass(frozen=True)
class Turn:
    """An earlier question of the same thread and the answer it got."""
    question: str
    answer: str


@dataclass(frozen=True)
class ModelReply:
    """A model call whose parsed reply a method may conclude with: what the proof's repair round re-asks."""
    reply: Any
    runtime: Runtime
    messages: list[Message]
    options: Options
    pages: list[PageRef]


@dataclass(frozen=True)
class Concluded:
    """The method's draft: its final answer with the pages its proof's page numbers refer to (numbered[n - 1] is
    page n), the quotes it is cited to (None: its reply's "evidence") among the pages `seen` (None: numbered),
    and, for a method that read no page, why (what "not found" says). methods/verdict.py judges it."""
    final: FinalAnswer
    numbered: list[PageRef]
    quotes: list[tuple[PageRef, str]] | None = None
    seen: list[PageRef] | None = None
    unread: str = ""


@dataclass(frozen=True)
class Decided:
    """A verdict a method reached by reading the pages itself, with nothing left to check: a value quoted from
    its page (or computed by the app from quoted cells), the closest passages, or not found. The method only
    records it (ctx.decide); methods/verdict.py renders it onto the answer, the one place a status is set."""
    status: AnswerStatus
    text: str
    short_answer: str = ""
    answer_format: str = "None"
    citations: tuple[Citation, ...] = ()
    computation: str = ""
    confidence: float | None = None
    likeliest: str = ""  # the value the passages hold most likely, said as such above them
    check: str = ""

    @classmethod
    def answered(cls, value: str, text: str, citations, answer_format: str = "Str", computation: str = "",
                 confidence: float | None = None) -> "Decided":
        return cls(AnswerStatus.ANSWERED, text, value, answer_format, tuple(citations), computation, confidence)

    @classmethod
    def passages(cls, text: str, citations) -> "Decided":
        return cls(AnswerStatus.PASSAGES, text, citations=tuple(citations))

    @classmethod
    def not_found(cls, text: str) -> "Decided":
        return cls(AnswerStatus.NOT_FOUND, text, NOT_ANSWERABLE)

    @property
    def answers(self) -> bool:
        return self.status is AnswerStatus.ANSWERED


@dataclass
class MethodContext:
    question: str
    answer: Answer
    search: Search
    pages: Pages
    artifacts: Artifacts  # what methods keep between questions: page summaries, picture descriptions
    trees: Trees  # summary trees over documents (MMRAG's, built by its prepare step)
    text_model: Runtime
    vision_model: Runtime | None
    settings: Any  # the method's own settings dataclass (MethodSpec.settings), resolved
    image_side: int = 1280
    progress: ProgressFn = lambda progress: None
    cancel: threading.Event | None = None
    gone: list[PageRef] = field(default_factory=list)  # pages dropped because their document vanished
    stream: Callable[[str], None] | None = None  # gets the answer's text as the answering call writes it
    streamed: str = ""  # the answer text shown so far (Stop keeps it)
    conversation: list[Turn] = field(default_factory=list)  # the thread's earlier questions and answers
    replies: list[ModelReply] = field(default_factory=list)  # every parsed reply, for the proof's repair round
    concluded: Concluded | None = None  # the model's final answer, checked after the method (methods/proof)
    decided: Decided | None = None  # a verdict the method reached itself (the quoted answers), rendered as it is
    shown: Progress | None = None  # the last progress the user was shown (a call of several samples adds to it)
    # the text model when it is large enough to choose among checked candidates (LANGUAGE_MODEL_FLOOR or more, or
    # of a size the user chose: a server's); None with the built-in model alone (the cascade then only quotes)
    chooser: Runtime | None = None

    def __post_init__(self) -> None:
        self._report = self.progress  # the counts of samples go straight here: they add to what `shown` says

        def show(progress: Progress) -> None:
            self.shown = progress
            self._report(progress)
        self.progress = show

    @property
    def reader(self) -> Runtime:
        """The model that answers: the vision model when there is one."""
        return self.vision_model or self.text_model

    def check_cancel(self) -> None:
        check_cancel(self.cancel)

    def step(self, phase: str) -> None:
        """Tell the user what the method is doing now: a step of one model call or none (a call of several
        samples adds their count: sample())."""
        self.progress(Progress("ask", phase, item=self.question))

    def counted(self, phase: str | Callable[[Any], str], items: list, unit: str):
        """Each of `items`, telling the user before each one what is being done, which of how many and, once a
        few are timed, the time left (progress.counted): a step of several model calls loops over this."""
        return counted(items, self.progress, "ask", phase, unit, self.question)

    # -- models ------------------------------------------------------------------------------------

    def call(self, step: str, runtime: Runtime, messages: list[Message], options: Options,
             pages: list[PageRef] = (), shows: str | None = None,
             shows_when: tuple[str, str] | None = None) -> Completion:
        """A model call, recorded in the trace with its tokens and time. `shows`: this call writes the answer
        people read — the name of its reply's JSON field that holds it ("" for a free-text reply) — so its
        text is streamed to `stream` as it grows; `shows_when` = (field, value): only once the reply's
        `field` (written before it) says `value` (SimpleDoc's round that answers, not one that searches on)."""
        if shows is not None and self.stream is not None:
            self.streamed = ""  # an earlier call's text is not this answer
            options = dataclasses.replace(options, on_text=self._streamer(shows, shows_when))
        return self.sample(step, runtime, messages, options, 1, pages)[0]

    def _streamer(self, field_name: str, when: tuple[str, str] | None) -> Callable[[str], None]:
        def grown(text: str) -> None:
            if when is not None and partial_field(text, when[0]) != when[1]:
                return
            visible = partial_field(text, field_name) if field_name else text
            if visible and visible != self.streamed and self.stream is not None:
                self.streamed = visible
                try:
                    self.stream(visible)
                except Exception as exc:  # a display that fails (a closed pipe) must not fail the answer
                    log.warning("streaming stopped: %s", exc)
                    self.stream = None
        return grown

    def sample(self, step: str, runtime: Runtime, messages: list[Message], options: Options, n: int,
               pages: list[PageRef] = ()) -> list[Completion]:
        """n completions of one prompt (its KV cache reused by every sample); each is its own trace entry. The
        current step's line counts the samples as the backend finishes them, with the time left."""
        self.check_cancel()
        if n == 1:
            completions = [runtime.chat(messages, options, cancel=self.cancel)]
        else:  # counted on the step's line; a reply keeps the options it was asked with (a repair asks again)
            counting = dataclasses.replace(options, on_sample=self._sample_counter(n))
            completions = runtime.sample(messages, counting, n, cancel=self.cancel)
        for i, completion in enumerate(completions, 1):
            traced(self.answer, step if n == 1 else f"{step} [sample {i}/{n}]", runtime, completion, pages)
            if isinstance(completion.parsed, dict) and "short_answer" in completion.parsed:  # could conclude
                self.replies.append(ModelReply(completion.parsed, runtime, messages, options, list(pages)))
        if len(completions) < n or any(c.finish_reason == "cancelled" for c in completions):
            raise Cancelled()
        return completions

    def _sample_counter(self, n: int) -> Callable[[int], None]:
        """Tells the user, as each of n samples is finished, which one is being written and the time left, after
        what the step said ("answering from 4 pages (5 samples): sample 2/5 · ~3 min left")."""
        eta = Eta()
        step = dataclasses.replace(self.shown, eta_seconds=None) if self.shown else None
        phase = f"{describe(step)}: sample" if step else "sample"

        def finished(done: int) -> None:
            eta.item_done()
            if done < n:
                self._report(Progress("ask", phase, done, n, "samples", self.question, round(eta.rate, 4),
                                      eta.seconds_left(n - done)))
        self._report(Progress("ask", phase, 0, n, "samples", self.question))
        return finished

    def reply_origin(self, reply: Any) -> ModelReply | None:
        """The call that returned `reply` (the very object), if a model call did."""
        return next((origin for origin in self.replies if origin.reply is reply), None)

    # -- the final answer --------------------------------------------------------------------------

    def conclude(self, final: FinalAnswer, numbered: list[PageRef],
                 quotes: list[tuple[PageRef, str]] | None = None, seen: list[PageRef] | None = None) -> None:
        """The method's draft: its final answer, cited to `quotes` (default: its reply's "evidence" quotes, by page
        number in `numbered`) among the pages `seen` (default: `numbered`). Only recorded here: after the
        method's last step, methods/verdict.py checks its proof and sets the verdict, once."""
        self.concluded = Concluded(final, list(numbered), None if quotes is None else list(quotes),
                                   None if seen is None else list(seen))

    def decide(self, decided: Decided) -> Decided:
        """A verdict reached without a model's draft to check (a quoted value, passages, not found): recorded
        here, set on the answer by methods/verdict.py after the method's last step."""
        self.decided = decided
        return decided

    def decline(self, why: str) -> None:
        """The method read no page (none matched, or none is left): `why` is what its "not found" says."""
        self.concluded = Concluded(FinalAnswer.declined(), [], unread=why)

    # -- retrieval ---------------------------------------------------------------------------------

    def retrieve(self, query: str, k: int, mode: str | None = None) -> list[PageRef]:
        """The k best pages with their scores (PageRef.score), best first; mode text | visual | hybrid,
        None for the user's search.mode setting."""
        self.check_cancel()
        return self.search.pages(query, k, mode)

    def retrieve_chunks(self, query: str, k: int) -> list[ChunkHit]:
        """The k best passages (id, text, parent page, score), best first."""
        self.check_cancel()
        return self.search.chunks(query, k)

    def scope_pages(self) -> list[PageRef]:
        """Every page of the documents the question is about (the whole library when none were named)."""
        self.check_cancel()
        return self.search.all_pages()

    def mentions(self, phrase: str) -> dict[int, list[int]]:
        """{doc_id: pages} of the documents in scope whose pages hold `phrase` as whole words (the index's
        exact answer, every page read: not retrieval's best few)."""
        self.check_cancel()
        return self.search.mentions(phrase)

    def catalogue(self) -> list[CatalogueEntry]:
        """The documents in scope as the library lists them (file, title, authors, year, pages, indexed at)."""
        self.check_cancel()
        return self.search.catalogue()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Sentence embeddings of `texts` by the embedder the chunks were indexed with (L2-normalised rows)."""
        self.check_cancel()
        return self.search.embed(texts)

    def similar_chunks(self, vector: np.ndarray, k: int) -> list[ChunkHit]:
        """The k passages whose embeddings are nearest `vector` (cosine similarity as score), best first."""
        self.check_cancel()
        return self.search.similar_chunks(vector, k)

    def page_of(self, chunk: ChunkHit) -> PageRef | None:
        refs = self.pages.refs_for([(chunk.doc_id, chunk.page)])
        return refs[0] if refs else None

    # -- page content ------------------------------------------------------------------------------

    def readable(self, refs: list[PageRef]) -> list[PageRef]:
        """The pages still indexed and on disk; the rest are noted as gone."""
        present, gone = self.pages.still_there(refs)
        self.gone.extend(gone)
        return present

    def described_markdown(self, ref: PageRef, pictures: list[PageElement] | None = None) -> str:
        """The page's Markdown with each of `pictures` (default: all its pictures) described after its
        placeholder (describe()); every description is noted in the trace. A vision model's descriptions are
        announced with counts (one model call each, unless kept from an earlier question)."""
        descriptions = {}
        if pictures is None:
            pictures = page_content.elements(self.pages, ref, {"picture"})
        chosen = [e for e in pictures if e.kind == "picture"]
        if self.vision_model is not None:
            chosen = self.counted(f"describing the pictures of {ref.doc} p.{ref.page}", chosen, "pictures")
        for element in chosen:
            description = self.describe(ref, element)
            descriptions[element.seq] = description.text
            self.answer.notes.append(f"describe {ref.doc} p.{ref.page} {element.kind} #{element.seq}: "
                                     f"{description.source}" + (f" ({description.model})" if description.model else ""))
        return page_content.page_markdown(self.pages, ref, descriptions)

    def describe(self, ref: PageRef, element: PageElement) -> Description:
        """A picture or chart in words: the vision model's (cached per page, element and model), else one a
        vision model wrote earlier, else the OCR text inside the element's box."""
        return Descriptions(self.artifacts, self.pages).describe(ref, element, self.vision_model, self.call)

    def page_block(self, refs: list[PageRef], runtime: Runtime, budget: int, page_tokens: int,
                   query: str = "", text_of: Callable[[PageRef], str] | None = None,
                   images_of: Callable[[PageRef], tuple[bytes, ...]] | None = None,
                   ) -> tuple[str, str, tuple[bytes, ...]]:
        """(numbered page list, their texts within `budget` tokens, their images if the model reads them).
        A page over its share keeps the passages that match `query` (the question), not its first tokens.
        A page's text is `text_of(ref)` (default: its text with tables as Markdown); its images, in page
        order, `images_of(ref)` (default: the page rendered at image_side)."""
        labels = [page_label(i, ref, multi_document(refs)) for i, ref in enumerate(refs, 1)]
        text_of = text_of or self.pages.text
        texts = []
        for ref in refs:
            try:
                texts.append(text_of(ref))
            except PageGone:
                texts.append("")
        texts = fit_all_to_question(runtime, texts, page_tokens, budget, query)
        body = "\n\n".join(f"[{label}]\n{text}" for label, text in zip(labels, texts))
        images: tuple[bytes, ...] = ()
        if runtime.info.vision:
            images_of = images_of or (lambda ref: (self.pages.image(ref, self.image_side),))
            images = tuple(image for ref in refs for image in images_of(ref))
        return "; ".join(labels), body, images

    def text_budget(self, runtime: Runtime, options: Options, images: int = 0) -> int:
        """Tokens left for page text once instructions, images and the reply are counted (the longest reply the
        schema allows, so that a JSON answer is never cut off by the context)."""
        reply = max(options.max_tokens, output_token_bound(options.schema) or 0 if options.schema else 0)
        return max(200, runtime.info.context - reply - PROMPT_RESERVE_TOKENS - images * IMAGE_TOKENS)


@dataclass
class PrepareContext:
    """What a prepare step gets: the documents to prepare and the means to do it, resumably."""
    artifacts: Artifacts
    trees: Trees
    pages: Pages
    search: Search  # scoped to the documents to prepare (its embed: the chunks' sentence embedder)
    doc_ids: list[int] | None  # None: the whole library
    text_model: Runtime
    vision_model: Runtime | None
    settings: Any
    image_side: int = 1280
    progress: ProgressFn = lambda progress: None
    cancel: threading.Event | None = None
    trace: Answer = field(default_factory=lambda: Answer(id="", question="", method="prepare"))

    def counted(self, phase: str | Callable[[Any], str], items: list, unit: str):
        """Each of `items`, with progress before each one (MethodContext.counted, for `docqa prepare`)."""
        return counted(items, self.progress, "prepare", phase, unit)

    def call(self, step: str, runtime: Runtime, messages: list[Message], options: Options,
             pages: list[PageRef] = ()) -> Completion:
        check_cancel(self.cancel)
        completion = runtime.chat(messages, options, cancel=self.cancel)
        traced(self.trace, step, runtime, completion, pages)
        if completion.finish_reason == "cancelled":
            raise Cancelled()
        return completion


@dataclass(frozen=True)
class MethodSpec:
    name: str
    title: str
    paper: str  # the citation, and its file under ../shared/papers/
    description: str  # one line for the method picker
    cost: str  # low | medium | high: model calls per question on a CPU
    settings: type  # a frozen dataclass whose defaults are the paper's parameters
    run: Callable[[MethodContext], None]
    cpu_preset: dict = field(default_factory=dict)  # overrides for ask.preset = "cpu"
    needs: tuple[str, ...] = ()  # must have: "vision-model", "page-embeddings"
    uses: tuple[str, ...] = ()  # better with: "vision-model", "page-embeddings", "samples"
    prepare: Callable[[PrepareContext], int] | None = None  # work ahead of questions; returns items done
    prepare_label: str = ""  # what prepare makes, e.g. "page summaries"
    # how far prepare has got over the live library, read through the artifact port: its row in `docqa status`
    # (after the index stages), or None
    prepared: Callable[[Artifacts], StageStatus] | None = None
    # how a follow-up's earlier turns reach the method: "question" (written into ctx.question) or "conversation"
    # (the method reads ctx.conversation itself); methods/conversation.py
    follow_ups: str = "question"
    # the smallest language model, in billions of parameters, whose answers are worth reading (LANGUAGE_MODEL_FLOOR
    # for the methods that call a model); 0.0: no language model needed
    min_model_params: float = 0.0

    def defaults(self, preset: str = "paper") -> dict:
        """The settings' values before any settings file: the paper's, or with the CPU preset applied."""
        values = {f.name: f.default for f in dataclasses.fields(self.settings)}
        return {**values, **self.cpu_preset} if preset == "cpu" else values

    def as_json(self) -> dict:
        return {"name": self.name, "title": self.title, "paper": self.paper, "description": self.description,
                "cost": self.cost, "needs": list(self.needs), "uses": list(self.uses),
                "prepare": self.prepare_label or None, "min_model_params": self.min_model_params,
                "settings": {f.name: f.default for f in dataclasses.fields(self.settings)},
                "cpu_preset": dict(self.cpu_preset)}


def traced(answer: Answer, step: str, runtime: Runtime, completion: Completion, pages: list[PageRef]) -> None:
    """One model call in the answer's trace: its tokens, time, the pages it saw and what it returned."""
    answer.calls.append(LlmCall(step, runtime.info.name, completion.usage.prompt_tokens,
                                completion.usage.output_tokens, round(completion.usage.seconds, 3),
                                [f"{p.doc} p.{p.page}" for p in pages], completion.text[:2000],
                                completion.usage.cached_tokens))


def pages_named(refs: list[PageRef]) -> str:
    """Pages as a progress line names them: "pages 4, 7", or by document when there are several
    ("pages 1 of memo.pdf; 2, 3 of report.pdf")."""
    if not multi_document(refs):
        return f"page{'s' if len(refs) != 1 else ''} " + ", ".join(str(ref.page) for ref in refs)
    by_document: dict[str, list[str]] = {}
    for ref in refs:
        by_document.setdefault(ref.doc, []).append(str(ref.page))
    return "pages " + "; ".join(f"{', '.join(pages)} of {doc}" for doc, pages in by_document.items())


def page_label(number: int, ref: PageRef, with_document: bool) -> str:
    """How a page is named to the model: its number in this prompt, with the document when several."""
    printed = f" (printed {ref.label})" if ref.label and ref.label != str(ref.page) else ""
    where = f"{ref.doc}, page {ref.page}" if with_document else f"page {ref.page}"
    return f"Page {number}: {where}{printed}"
