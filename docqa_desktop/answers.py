"""What a question produces: an answer with citations, the pages used and a trace of every model call.

Plain data (like domain.py): methods build it, the store keeps it as history, exports and the GUI show it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from enum import Enum

from .domain import BBox


class AnswerStatus(str, Enum):
    """The verdict, named alike in the CLI, the app, exports and --json (the labels below)."""
    ANSWERED = "answered"  # a value the method stands behind, in a cited passage
    UNVERIFIED = "unverified"  # a model's draft whose proof did not check out: shown beside the passages it read
    PASSAGES = "passages"  # no confident value: the closest passages, cited, for the reader to judge
    NOT_FOUND = "not_found"  # nothing relevant in the documents (a model method: it says they do not tell)
    FAILED = "failed"  # a model or store error; `error` says which
    CANCELLED = "cancelled"

    @classmethod
    def _missing_(cls, value):
        return cls.NOT_FOUND if value == "not_answerable" else None  # the name in history saved before Nov 2026

    @property
    def label(self) -> str:
        return STATUS_LABELS[self]

    @property
    def verdict(self) -> str:
        """The label with what it means for the reader, shown above the answer everywhere."""
        return VERDICTS.get(self, self.label)

    @property
    def confident(self) -> bool:
        """Whether the short answer is the product's answer (shown as such), not a draft or a pointer."""
        return self is AnswerStatus.ANSWERED


STATUS_LABELS = {AnswerStatus.ANSWERED: "Answered", AnswerStatus.UNVERIFIED: "Unverified draft",
                 AnswerStatus.PASSAGES: "Closest passages",
                 AnswerStatus.NOT_FOUND: "Not found", AnswerStatus.FAILED: "Failed",
                 AnswerStatus.CANCELLED: "Stopped"}
VERDICTS = {AnswerStatus.UNVERIFIED: "Unverified: a model's draft, not an answer the app could check — read the "
                                     "cited passages to judge",
            AnswerStatus.PASSAGES: "Closest passages, not an answer: read the cited passages to judge",
            AnswerStatus.NOT_FOUND: "Not found in the documents"}


@dataclass(frozen=True)
class PageRef:
    """One page of one indexed document, as methods see it."""
    doc_id: int
    doc: str  # file name
    path: str
    page: int  # 1-based
    label: str  # printed page label
    # where page-image search saw the best match (fractions of the page), when it found this page
    region: tuple[float, float, float, float] | None = field(default=None, compare=False)
    score: float = field(default=0.0, compare=False)  # the retriever's score, when retrieval found it

    @property
    def source(self) -> str:
        return page_source(self.doc, self.page, self.label)

    def key(self) -> tuple[int, int]:
        return self.doc_id, self.page


@dataclass(frozen=True)
class Citation:
    doc: str
    path: str
    page: int
    label: str
    quote: str  # text found on the page (never the model's paraphrase); empty for a region of a page without text
    bbox: BBox | None = None  # where the quote is on the page, in PDF points

    @property
    def source(self) -> str:
        return page_source(self.doc, self.page, self.label)

    def as_json(self) -> dict:
        return {"doc": self.doc, "path": self.path, "page": self.page, "label": self.label,
                "bbox": [round(v, 1) for v in self.bbox] if self.bbox else None, "quote": self.quote}


@dataclass
class LlmCall:
    step: str  # e.g. "summary", "select pages", "reason 2"
    model: str
    prompt_tokens: int
    output_tokens: int
    seconds: float
    pages: list[str] = field(default_factory=list)  # "file.pdf p.4" the call saw
    output: str = ""  # what the model returned (truncated for the trace)
    cached_tokens: int = 0  # prompt tokens reused from the previous call's KV cache (local text models)


@dataclass
class Answer:
    id: str
    question: str
    method: str
    text: str = ""  # the long answer people read
    status: AnswerStatus = AnswerStatus.FAILED
    citations: list[Citation] = field(default_factory=list)
    pages_used: list[PageRef] = field(default_factory=list)  # every page shown to the answering model
    iterations: int = 0
    calls: list[LlmCall] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # working memory: document summary and notes per round
    seconds: float = 0.0
    scope: list[str] = field(default_factory=list)  # documents asked about; empty = whole library
    error: str = ""
    created_at: str = ""
    short_answer: str = ""  # the answer alone (a number, a name, a list), as the method's final step typed it
    answer_format: str = ""  # Str | Int | Float | List | None (None: not answerable); "" when untyped
    # what each stage of the method kept, e.g. "retrieved" → "selected" → "read" (the eval's per-stage recall)
    stage_pages: dict[str, list[PageRef]] = field(default_factory=dict)
    thread: str = ""  # the id of the thread's first answer (follow-ups share it); "" or its own id: a new thread
    # how sure the method is of its short answer (higher = surer), for methods that can say; the eval ranks by it
    confidence: float | None = None
    # the proof a model method gave with its value, as the app checked it (methods/proof): the arithmetic that
    # gives the value from quoted numbers ("" when the value is read off a quote) and what the check found
    computation: str = ""
    check: str = ""
    # a follow-up as the methods read it, its thread's subject and period written in ("And how many employees did
    # it have?" -> "How many employees did Best Buy have …?"); "" when it was read as asked
    standalone_question: str = ""
    # the default reader's likeliest value when it is not sure enough to answer ("" otherwise); its probability is
    # `confidence`
    likeliest: str = ""
    # the candidates the default reader weighed, best first, each with its evidence (methods/extractive/evidence):
    # what the reader's training data is made of; working data, never kept in the history or exported
    candidates: list = field(default_factory=list, compare=False, repr=False)
    # the values a text model checked, with its probability that the passages state each (methods/cascade): working
    # data like `candidates`
    checked: list = field(default_factory=list, compare=False, repr=False)
    # the model serving text tasks when it was asked, called or not (the cascade's sure quote calls none): whose
    # time with this method the answer's is; "" in answers kept before it was recorded
    text_model: str = ""

    def note_stage(self, stage: str, refs: list[PageRef]) -> None:
        """Add pages to what `stage` kept over the rounds (each page once, first-seen order)."""
        kept = self.stage_pages.setdefault(stage, [])
        kept.extend(r for r in refs if r not in kept)

    @property
    def thread_id(self) -> str:
        return self.thread or self.id

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.calls)

    @property
    def cached_tokens(self) -> int:
        return sum(c.cached_tokens for c in self.calls)

    @property
    def output_tokens(self) -> int:
        return sum(c.output_tokens for c in self.calls)

    @property
    def models(self) -> list[str]:
        """The models that answered, in the order they were first called."""
        return list(dict.fromkeys(c.model for c in self.calls))

    def as_json(self) -> dict:
        """The `docqa ask --json` shape (a confidence only when the method gave one)."""
        shape = {"id": self.id, "answer": self.text, "status": self.status.value,
                 "short_answer": self.short_answer, "answer_format": self.answer_format,
                 "citations": [c.as_json() for c in self.citations],
                 "pages_used": [{"doc": p.doc, "page": p.page} for p in self.pages_used],
                 "method": self.method, "thread": self.thread_id, "iterations": self.iterations,
                 "llm_calls": len(self.calls),
                 "prompt_tokens": self.prompt_tokens, "output_tokens": self.output_tokens,
                 "seconds": round(self.seconds, 2)}
        if self.confidence is not None:
            shape["confidence"] = self.confidence
        if self.likeliest:
            shape["likeliest"] = self.likeliest
        if self.check:
            shape["proof"] = {"computation": self.computation, "check": self.check}
        if self.standalone_question:
            shape["read_as"] = self.standalone_question
        return shape

    def as_record(self) -> dict:
        """Everything, for the store and the JSON export (the full trace)."""
        record = asdict(replace(self, candidates=[], checked=[]))
        del record["candidates"], record["checked"]  # working data (see the fields)
        record["status"] = self.status.value
        return record

    @classmethod
    def from_record(cls, record: dict) -> "Answer":
        data = dict(record)
        data["status"] = AnswerStatus(data["status"])
        data["citations"] = [Citation(**{**c, "bbox": tuple(c["bbox"]) if c.get("bbox") else None})
                             for c in data.get("citations", [])]
        data["pages_used"] = [_page_ref(p) for p in data.get("pages_used", [])]
        data["stage_pages"] = {stage: [_page_ref(p) for p in refs]
                               for stage, refs in data.get("stage_pages", {}).items()}
        data["calls"] = [LlmCall(**c) for c in data.get("calls", [])]
        return cls(**data)


# a probability that an answer is right, in words (the app and the CLI say it so); thresholds, highest first
SURENESS = ((0.95, "very likely right"), (0.8, "likely right"), (0.5, "as likely wrong as right"),
            (0.0, "more likely wrong"))


def sureness(probability: float) -> str:
    """ "likely right (p = 0.87)": how sure the app is, in words, with the probability."""
    words = next(words for floor, words in SURENESS if probability >= floor)
    return f"{words}, p = {probability:.2f}"


def page_source(doc: str, page: int, label: str) -> str:
    """Where a page is, as people read it: "report.pdf, page 7 (printed iv)"."""
    printed = f" (printed {label})" if label and label != str(page) else ""
    return f"{doc}, page {page}{printed}"


def _page_ref(record: dict) -> PageRef:
    return PageRef(**{**record, "region": tuple(record["region"]) if record.get("region") else None})
