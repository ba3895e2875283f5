"""Plain data shared by every layer. Nothing here knows about Qt, DuckDB or models."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum

BBox = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points, origin top-left


class FileStatus(str, Enum):
    INDEXED = "indexed"
    ERROR = "error"
    PENDING = "pending"


class TextSource(str, Enum):
    LAYER = "layer"  # the PDF's own text layer
    OCR = "ocr"
    NONE = "none"  # no usable text and OCR disabled or found nothing


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    bbox: BBox
    line: int  # running line number on the page, for re-assembling text


@dataclass(frozen=True, slots=True)
class Element:
    """A layout region: table, picture, text, section-header, caption, ..."""
    kind: str
    bbox: BBox
    text: str  # markdown (tables as markdown tables)


@dataclass(frozen=True, slots=True)
class TableCell:
    """A cell of a table read as a table (index/tables.py): where it stands, what it says, and its labels."""
    row: int  # 0-based, in the table's grid
    column: int
    text: str  # as printed (the page's words inside its box)
    row_path: str  # its row's label, under a section row's label ("Other income (expense): Interest expense")
    column_path: str  # its column's header rows, top down ("Fiscal Years Ended / January 28, 2023")
    number: float | None  # "(34)" -> -34.0, "46,298" -> 46298.0; None when it is no figure
    bbox: BBox
    row_span: int = 1  # rows and columns it covers from (row, column): a header over "Male" and "Female" spans 2
    column_span: int = 1
    header: bool = False  # a cell of the table's header rows, as printed (the body's cells carry it in column_path)
    from_axis: bool = False  # a chart's value with no label printed: read off its axis scale, so only about right


@dataclass(frozen=True, slots=True)
class TableOnPage:
    """A table of a page: its box, the caption or header that gives its figures' scale, and its cells."""
    bbox: BBox
    caption: str  # the text just above it ("Table 3: …"), or ""
    scale: float  # what its figures are in: 1e6 for "$ in millions", else 1
    rows: int
    columns: int
    header_rows: int
    cells: tuple[TableCell, ...]  # header cells first, then the body's, each in row then column order
    from_scan: bool = False  # read from OCR words' boxes: its cells are as sure as the OCR
    chart: str = ""  # a chart read as a table (index/charts.py): its kind ("bar chart", "pie chart"); "" for a table
    by_model: bool = False  # a chart the vision model read from its picture: as sure as the model

    @property
    def body(self) -> tuple[TableCell, ...]:
        """The cells under the header rows: what a question is answered from."""
        return tuple(c for c in self.cells if not c.header)


@dataclass(slots=True)
class ParsedPage:
    number: int  # 1-based index in the file
    label: str  # printed page label ("iv", "6985"), or the number as text
    width: float
    height: float
    text: str
    text_source: TextSource
    words: list[Word] = field(default_factory=list)
    elements: list[Element] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Chunk:
    page: int
    seq: int
    text: str


@dataclass(frozen=True, slots=True)
class ChunkHit:
    """A passage found by chunk retrieval, with the page it belongs to."""
    id: int
    doc_id: int
    page: int  # 1-based
    text: str
    score: float


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """What a library lists a document by, as far as its metadata or first page say it (pdf/metadata.py): each
    field empty when not found with reasonable confidence, never guessed."""
    title: str = ""
    authors: str = ""  # "Ann Lee, Bo Chen"
    year: int | None = None


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One path on disk and what the index knows about it."""
    path: str
    name: str
    status: FileStatus
    pages: int | None
    error: str | None
    doc_id: int | None
    info: DocumentInfo = DocumentInfo()


@dataclass(frozen=True, slots=True)
class DocumentFilter:
    """Which documents a search covers by what the library lists them by: an author's name (any part of the
    authors, case ignored), years from–to (either end open), a folder (documents under it). Empty: every one."""
    author: str = ""
    years: tuple[int | None, int | None] = (None, None)
    folder: str = ""

    def __bool__(self) -> bool:
        return bool(self.author.strip() or self.folder.strip() or self.years != (None, None))

    def admits(self, entry: FileEntry) -> bool:
        first, last = self.years
        year = entry.info.year
        if (first, last) != (None, None) and year is None:
            return False  # a year asked for: a document of no known year is not of it
        folder = os.path.normpath(os.path.expanduser(self.folder.strip())) if self.folder.strip() else ""
        return (self.author.strip().lower() in entry.info.authors.lower()
                and (first is None or year >= first) and (last is None or year <= last)
                and (not folder or entry.path.startswith(folder.rstrip(os.sep) + os.sep)))

    def described(self) -> str:
        """'author “lee”, 2015–2020, under /papers' for messages."""
        first, last = self.years
        years = "" if (first, last) == (None, None) else (
            str(first) if first == last else f"{first or ''}–{last or ''}")
        return ", ".join(part for part in (self.author.strip() and f"author “{self.author.strip()}”", years,
                                           self.folder.strip() and f"under {self.folder.strip()}") if part)


def parse_years(text: str) -> tuple[int | None, int | None]:
    """'2019' → (2019, 2019); '2015-2020', '2015–', '-2020' → open ranges; '' → (None, None). ValueError when
    it is none of these."""
    text = text.strip().replace("–", "-").replace("—", "-")
    if not text:
        return (None, None)
    first, dash, last = (part.strip() for part in text.partition("-"))
    try:
        years = (int(first) if first else None, int(last) if last else None) if dash else (int(first), int(first))
    except ValueError:
        raise ValueError(f"{text!r} is not a year or a range of years (2019, 2015-2020, 2015-, -2020)") from None
    if years[0] is not None and years[1] is not None and years[0] > years[1]:
        raise ValueError(f"{text!r}: the first year comes after the last")
    return years


@dataclass(frozen=True, slots=True)
class StageStatus:
    """How far one indexing stage has got over the live library (`docqa status`, the app's library panel)."""
    stage: str  # an index stage's name (index/stages), or a method's prepared work ("summaries")
    done: int
    pending: int
    unit: str  # pages | chunks
    note: str = ""  # how its work gets done; when off, why, in plain words ("off (no GPU)")
    off: bool = False  # it does not run now (switched off, no model, not needed): its pending work is not coming
    hint: str = ""  # how to turn it on, when off
    now: str = ""  # what a question running now does for it, in words ("SimpleDoc is writing them for this question")

    @property
    def counts(self) -> str:
        """'1,200 / 1,500 pages'"""
        return f"{self.done:,} / {self.done + self.pending:,} {self.unit}"

    @property
    def state(self) -> str:
        return "off" if self.off else "pending" if self.pending else "done"

    def as_json(self) -> dict:
        return {"stage": self.stage, "done": self.done, "pending": self.pending, "unit": self.unit,
                "state": self.state, **({"note": self.note} if self.note else {}),
                **({"hint": self.hint} if self.hint else {})}


@dataclass(frozen=True, slots=True)
class SearchHit:
    doc_id: int
    doc: str  # file name
    path: str
    page: int  # 1-based
    score: float
    snippet: str
    region: tuple[float, float, float, float] | None = None  # best-matching area (fractions of the page), visual hits
    matched: frozenset[str] = frozenset()  # the snippet's words that match the query's (lower case), shown in bold

    def as_json(self) -> dict:
        found = {"doc": self.doc, "path": self.path, "page": self.page,
                 "score": round(self.score, 6), "snippet": self.snippet}
        if self.region is not None:
            found["region"] = [round(v, 4) for v in self.region]
        return found


class StageSkipped(Exception):
    """An index stage found, once running, that it cannot run now (no GPU, its model failed to load); the
    message says why and becomes the stage's note in the run's report."""


@dataclass(frozen=True, slots=True)
class Reported:
    """How an index stage's result reads in `docqa index`'s report; every part optional ("": left out)."""
    json_count: str = ""  # the key of its count in `docqa index --json`, e.g. "chunks_embedded"
    json_note: str = ""  # the key of why it did not run, there
    summary: str = ""  # its part of the printed report's first line, e.g. "{done} chunks embedded"
    line: str = ""  # its own printed line, when it did some or says why not, e.g. "page images: {done} embedded"


@dataclass(slots=True)
class StageResult:
    """What one index stage did in a run (index/stages)."""
    reported: Reported = Reported()
    done: int = 0  # units (pages, chunks) it added in this run
    note: str = ""  # why it did not run, if it did not


@dataclass(slots=True)
class IndexReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: int = 0
    pages: int = 0
    stages: dict[str, StageResult] = field(default_factory=dict)  # by stage name, in the order they run
    seconds: float = 0.0
    cancelled: bool = False
    errors: dict[str, str] = field(default_factory=dict)  # path -> reason
    stage_seconds: dict[str, float] = field(default_factory=dict)  # worker time per stage (text, ocr, layout, embed)

    def as_json(self) -> dict:
        """The run's counts, each stage's under the keys it names (Reported) where the stages stand."""
        stages = {}
        for result in self.stages.values():
            if result.reported.json_count:
                stages[result.reported.json_count] = result.done
            if result.reported.json_note:
                stages[result.reported.json_note] = result.note
        fields = [(k, getattr(self, k)) for k in self.__slots__]
        at = self.__slots__.index("stages")
        return dict(fields[:at]) | stages | dict(fields[at + 1:])


@dataclass(frozen=True)
class CatalogueEntry:
    """A document as the library lists it (store/mentions.py)."""
    doc_id: int
    name: str  # the file name of its first path
    path: str
    title: str  # "" when neither its metadata nor its first page gives one (store/document_info.py)
    authors: str  # "Ann Lee, Bo Chen", or ""
    year: int | None
    pages: int
    indexed_at: str  # when its content was indexed, ISO 8601 ("2026-11-27T04:22:21")


@dataclass(frozen=True)
class TreeNode:
    """A node of a tree of summaries over a document's chunks (store/summary_trees.py): layer 1 summarises chunks
    (children are chunk ids), layer n > 1 the nodes of layer n-1 (node ids); text None until it is written."""
    id: int
    doc_id: int
    layer: int
    seq: int
    children: list[int]
    pages: list[int]
    text: str | None
