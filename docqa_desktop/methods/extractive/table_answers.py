"""Answers read off tables read as tables: the cell whose row label and column header name what the question asks.

"What were total revenues in fiscal 2023?" is the cell of the row labelled "Revenue" under the column headed
"Fiscal Years Ended / January 28, 2023". The rules, each about the labels alone so that they hold for any table:
- the row's label names something the question asks (the measure): a cell is never the answer by its column alone;
- every year the question names is in the cell's labels (or the table's caption);
- a question word that another row's label (or another column's header) holds and this cell's labels lack says
  that the question is about that other row (column): this cell is not the answer;
- most of the question's words are in the cell's labels, its table's caption or the page's title;
- two cells that fit equally well are never guessed between: they are shown as candidates.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ...answers import PageRef
from ...domain import TableCell, TableOnPage
from .matching import TOKEN, WordSet, stem
from .question import (
    CITED, COUNT, KIND_WORDS, MONEY, NUMBER, PERCENT, Question, content_words,
)

NUMERIC_KINDS = (PERCENT, MONEY, COUNT, NUMBER)
MIN_COVERAGE = 0.75  # the share of the question's words a cell's labels, caption and page title must hold
TIE = 1e-9
PLAIN_HEADER_ROWS, PLAIN_HEADER_WORDS = 2, 8  # the header a word cell can be read under (_plain_header)
Term = tuple[str, str, str]  # a question word: its stem, itself, its capitals when it has several ("tqa")
# tie-breaks, never a match: a cell's labels naming a year the question does not ask fits a little less; a row
# label the question writes word for word, and then one naming the document's subject as the question does, more
YEAR_PENALTY = 0.05
VERBATIM_BONUS = 0.05
SUBJECT_BONUS = 0.1
_YEARS = re.compile(r"\b(?:19|20)\d\d\b")
_FISCAL_YEAR = re.compile(r"fy(?:19|20)?\d\d")  # "FY2023": the year, which the labels must say
# what a cell's labels naming the question's years, and its names ("Texas"), add to its nearness (candidate_cells)
NEAR_YEARS, NEAR_NAMES = 0.3, 0.3
CONTEXT_WEIGHT = 0.1  # what the caption and the page's title add to a cell's fit: a tie-break, never a match
_REFERENCE = re.compile(r"\b(?:table|figure|fig\.?|exhibit|section|appendix)\s+[\dIVX]+[a-z]?\b", re.I)
_EXCLUDING = re.compile(r"\b(?:excluding|except(?:ing)?|other than|without|not including|net of)\s+((?:the\s+)?"
                        r"[\w\s+-]+?)(?=[,;?)]|\s+(?:in|on|for|at|did|does|do|was|were|is|are)\b|$)", re.I)
_SCALE_WORDS = {1e3: "thousand", 1e6: "million", 1e9: "billion"}
_CURRENCY = re.compile(r"[$€£¥]")
_SPREAD = re.compile(r"(?<=[\d%])\s*(?:\(\s*±?\s*[\d.,]+%?\s*\)|±\s*[\d.,]+%?)$")
_LABEL_PARTS = re.compile(r"\s+(?:/|·)\s+|:\s+")  # a path's levels: "Germans · More", "Income: Interest expense"


@dataclass(frozen=True)
class CellAnswer:
    ref: PageRef
    table: TableOnPage
    cell: TableCell
    fit: float  # the weighted share of the question's words in the cell's own labels
    value: str  # as shown: the cell's text with its currency, scale and percent sign ("$46,298 million")
    quote: str  # "Revenue — Fiscal Years Ended / January 28, 2023: 46,298"


@dataclass(frozen=True)
class TableReading:
    answer: CellAnswer | None  # the one cell that answers
    tied: tuple[CellAnswer, ...]  # cells that fit as well as each other: shown, never chosen between
    notes: tuple[str, ...]  # why cells were passed over, for the trace


def read_tables(question: Question, tables: list[tuple[PageRef, TableOnPage, str]],
                subjects: frozenset[str] = frozenset()) -> TableReading:
    """The cell of `tables` ((page, table, the page's first lines)) that answers `question`, if one does."""
    numeric = question.kind in NUMERIC_KINDS
    if question.kind is not None and not numeric:
        return TableReading(None, (), ())
    terms, excluded = _terms(question, subjects), _excluded(question)
    # the document's subject ("Best Buy" in its 10-K, "Step-Back" in the Step-Back paper) is asked of every
    # cell, so it never rejects one; a row that names it fits a little better ("PaLM-2L + Step-Back")
    subject_terms = [t for t in _terms(question, frozenset()) if t not in terms]
    if not terms:
        return TableReading(None, (), ())
    fitting, notes = [], []
    for ref, table, title in tables:
        body = table.body
        rows = [WordSet(c.row_path) for c in body]
        columns = [WordSet(c.column_path) for c in body]
        context = WordSet(f"{table.caption} {title}")
        in_context = _share(terms, context)
        for i, cell in enumerate(body):
            if cell.column == 0 or (numeric and cell.number is None) or (not numeric and cell.number is not None):
                continue
            why = _mismatch(question, terms, table, body, i, rows, columns, context) or \
                _excludes(excluded, rows[i])
            if why:
                if len(notes) < 5 and rows[i].stems & {t[0] for t in terms}:
                    notes.append(f"table cell {cell.text!r} ({ref.doc} p.{ref.page}) passed over: {why}")
                continue
            if not numeric and not (_share(terms, rows[i]) and _share(terms, columns[i]) and
                                    _plain_header(table, cell)):
                continue  # a cell of words answers only when both its row and its column are named, plainly
            # the table's caption and page title break ties between tables ("Domestic Segment Performance")
            fit = _share(terms, rows[i], columns[i]) + CONTEXT_WEIGHT * in_context - \
                (YEAR_PENALTY * _other_years(question, cell) if question.years else 0.0) + \
                (VERBATIM_BONUS if _quoted_label(question, cell) else 0.0) + \
                (SUBJECT_BONUS * _share(subject_terms, rows[i]) if subject_terms else 0.0)
            fitting.append(CellAnswer(ref, table, cell, fit, _shown(question, table, cell),
                                      cell_quote(table, cell)))
    if not fitting:
        return TableReading(None, (), tuple(notes))
    fitting.sort(key=lambda a: -a.fit)
    tied = tuple(a for a in fitting if a.fit >= fitting[0].fit - TIE and a.cell.text != fitting[0].cell.text)
    if tied:
        return TableReading(None, (fitting[0], *tied), tuple(notes))
    return TableReading(fitting[0], (), tuple(notes))


def candidate_cells(question: Question, tables: list[tuple[PageRef, TableOnPage, str]],
                    subjects: frozenset[str], most: int) -> list[CellAnswer]:
    """The `most` cells nearest the question by their labels alone, with none of read_tables' rejections: what a
    model may choose among when no cell answers by the rules (a cell whose row names nothing asked is left
    out; a cell naming a year the question does not ask ranks below one naming its years)."""
    numeric = question.kind in NUMERIC_KINDS
    terms = _terms(question, subjects)
    if not terms or (question.kind is not None and not numeric):
        return []
    near = []
    for ref, table, title in tables:
        context = WordSet(f"{table.caption} {title}")
        for cell in table.body:
            if cell.column == 0 or (numeric and cell.number is None) or not cell.text.strip():
                continue
            row = WordSet(cell.row_path)
            if not any(_has(row, t) for t in terms):
                continue
            labels = f"{cell.row_path} {cell.column_path} {table.caption}"
            years = sum(y in labels for y in question.years) / max(1, len(question.years))
            names = sum(name.lower() in labels.lower() for name in question.names) / max(1, len(question.names))
            fit = _share(terms, row, WordSet(cell.column_path)) + CONTEXT_WEIGHT * _share(terms, context) + \
                NEAR_YEARS * years - YEAR_PENALTY * _other_years(question, cell) + NEAR_NAMES * names
            near.append(CellAnswer(ref, table, cell, fit, _shown(question, table, cell),
                                   cell_quote(table, cell)))
    near.sort(key=lambda a: -a.fit)
    return near[:most]


def label_words(question: Question, subjects: frozenset[str]) -> list[str]:
    """The stems of the words a cell's labels must hold for a numeric question, to look for its table with;
    none for a question tables do not answer."""
    return [stem_ for stem_, _, _ in _terms(question, subjects)] if question.kind in NUMERIC_KINDS else []


def _terms(question: Question, subjects: frozenset[str]) -> list[Term]:
    """(stem, word) of the question's words a table's labels could hold: not its years, not the document's
    subject ("Best Buy" in its own 10-K), not the words that say what kind of value it asks for, not a table's
    own number ("In Table 1"), not what it excludes ("excluding the current portion")."""
    subject_words = {w.lower() for name in subjects for w in TOKEN.findall(name)}
    years = set(question.years)
    text = _EXCLUDING.sub("", _REFERENCE.sub("", CITED.sub("", question.text)))
    initials = {w.lower(): "".join(ch for ch in w if ch.isupper()).lower() for w in TOKEN.findall(text)
                if sum(ch.isupper() for ch in w) >= 2 and not w.isupper()}  # "TimeQA" is headed "TQA"
    return list(dict.fromkeys((stem(w), w, initials.get(w, "")) for w in content_words(text)
                              if w not in years and w not in subject_words and w not in KIND_WORDS and
                              not _FISCAL_YEAR.fullmatch(w)))


def _excluded(question: Question) -> list[Term]:
    """The words of what the question leaves out: "excluding the current portion", "(without RAG)"."""
    return [(stem(w), w, "") for match in _EXCLUDING.finditer(question.text) for w in content_words(match.group(1))]


def _has(words: WordSet, term: Term) -> bool:
    """Whether the label's words hold the question's word, or its initials ("TQA" for "TimeQA")."""
    stemmed, word, initials = term
    return words.has(stemmed, word) or (bool(initials) and initials in words.stems)


def _excludes(excluded: list[Term], row: WordSet) -> str:
    held = [t[1] for t in excluded if _has(row, t)]
    return f"its row is the {' '.join(held)} the question leaves out" if held else ""


def _mismatch(question: Question, terms: list[Term], table: TableOnPage, body: tuple[TableCell, ...], i: int,
              rows: list[WordSet], columns: list[WordSet], context: WordSet) -> str:
    cell, row, column = body[i], rows[i], columns[i]
    labels = f"{cell.row_path} {cell.column_path}"
    if not any(_has(row, t) for t in terms):
        return "its row names nothing the question asks about"
    missing_years = [y for y in question.years if y not in labels and y not in table.caption]
    if missing_years:
        return f"its labels do not say {', '.join(missing_years)}"
    lacking = [t for t in terms if not _has(row, t) and not _has(column, t)]
    for term in lacking:
        if any(_has(other, term) for j, other in enumerate(rows) if body[j].row != cell.row):
            return f"another row is about {term[1]!r}"
        if any(_has(other, term) for j, other in enumerate(columns) if body[j].column != cell.column):
            return f"another column is about {term[1]!r}"
    unexplained = [t for t in lacking if not _has(context, t)]
    if 1 - len(unexplained) / len(terms) < MIN_COVERAGE:
        return f"its labels lack {', '.join(t[1] for t in unexplained)}"
    return ""


def _share(terms: list[Term], *labels: WordSet) -> float:
    return sum(any(_has(words, t) for words in labels) for t in terms) / len(terms)


def written_labels(question: Question, table: TableOnPage, cell: TableCell) -> tuple[float, bool]:
    """How the question writes the cell's own labels word for word, every word counted — "cooperate more with
    Japan" names a chart's series "More", which content words drop as filler: (the share of the cell's label
    levels written, whether another row's or column's label is written that is none of the cell's own)."""
    asked = _asked(question)
    own = _parts(cell.row_path) | _parts(cell.column_path)
    others = {part for other in table.body for path in (other.row_path, other.column_path)
              for part in _parts(path)} - own
    written = sum(f" {part} " in asked for part in own) / max(1, len(own))
    return written, any(f" {part} " in asked for part in others)


@dataclass(frozen=True)
class LabelConflict:
    """A cell the question's words place in another row or column: "handgun checks in Texas" read off the Texas
    row's "Permit" column."""
    axis: str  # "row" or "column"
    label: str  # the cell's own label on that axis, as printed ("Permit")
    asked: str  # the other row's or column's label the question writes instead ("Handgun")


def label_conflict(question: Question, table: TableOnPage, cell: TableCell) -> LabelConflict | None:
    """Where written_labels finds another label written: the one other row (column) whose label the question
    writes word for word while it says nothing of what sets this cell's row (column) apart from it, neither word
    for word nor by a stem the quoted reader matches ("revenues" names "Revenue"). None when there is none, or
    when the question writes two other rows' (columns') labels: it compares them, and the cell may be their
    difference."""
    written, other = written_labels(question, table, cell)
    if not other or written == 1:
        return None
    asked, terms = _asked(question), _terms(question, frozenset())
    for axis in ("row", "column"):
        path = _path(cell, axis)
        own = _parts(path)
        instead = {part: neighbour for neighbour in sorted({_path(c, axis) for c in table.body} - {path})
                   for part in _parts(neighbour) - own if f" {part} " in asked}
        if len(instead) != 1:
            continue
        (named, neighbour), = instead.items()
        apart = sorted(own - _parts(neighbour))
        # the words that set the two apart: "29 2022" of "January 29, 2022" against "January 28, 2023"
        distinct = WordSet(" ".join(set(" ".join(apart).split()) - set(" ".join(_parts(neighbour)).split())))
        if apart and distinct.stems and not any(f" {part} " in asked for part in apart) and \
                not any(_has(distinct, t) for t in terms):
            return LabelConflict(axis, _printed(path, apart[0]), _printed(neighbour, named))
    return None


def _asked(question: Question) -> str:
    return f" {_spaced(question.text)} "


def _path(cell: TableCell, axis: str) -> str:
    return cell.row_path if axis == "row" else cell.column_path


def _printed(path: str, part: str) -> str:
    """A level of a label path as printed, for the level `part` spaced as _parts gives it."""
    return next((level.strip() for level in _LABEL_PARTS.split(path) if _spaced(level) == part), part)


@lru_cache(maxsize=4096)
def _parts(path: str) -> frozenset[str]:
    """A label path's levels, spaced: a table's paths recur in every candidate cell's comparison."""
    return frozenset(spaced for part in _LABEL_PARTS.split(path) if (spaced := _spaced(part)))


def _spaced(text: str) -> str:
    return " ".join(TOKEN.findall(text.lower()))


def _quoted_label(question: Question, cell: TableCell) -> bool:
    """Whether the question writes the row's label word for word ("what is Cash and cash equivalents …"), which
    names it more exactly than "Total cash, cash equivalents and restricted cash"."""
    label = " ".join(TOKEN.findall(cell.row_path.rsplit(": ", 1)[-1].lower()))
    return bool(label) and f" {label} " in f" {' '.join(TOKEN.findall(question.text.lower()))} "


def _other_years(question: Question, cell: TableCell) -> int:
    """Years a cell's labels name besides the asked ones ("2023 / 2022" heads a column less surely than
    "2023")."""
    return len(set(_YEARS.findall(f"{cell.row_path} {cell.column_path}")) - set(question.years))


def _plain_header(table: TableOnPage, cell: TableCell) -> bool:
    """A header a word cell can be read under: a row or two of short labels (a grid that split a table's
    multi-line cells gives deep headers of run-together words, and half a cell's words)."""
    return table.header_rows <= PLAIN_HEADER_ROWS and len(cell.column_path.split()) <= PLAIN_HEADER_WORDS


def cell_quote(table: TableOnPage, cell: TableCell) -> str:
    """A cell as quoted: "Revenue — Fiscal 2023: 46,298"; a chart's value "Germany · 2019 → 34%"."""
    if table.chart:
        return f"{' · '.join(label for label in (cell.row_path, cell.column_path) if label)} → {cell.text}"
    return f"{_labels(cell)}: {cell.text}"


def _labels(cell: TableCell) -> str:
    return " — ".join(label for label in (cell.row_path, cell.column_path) if label)


def _shown(question: Question, table: TableOnPage, cell: TableCell) -> str:
    """The cell as an answer: "46,298" in a "$ in millions" table asked about money is "$46,298 million"."""
    text = _SPREAD.sub("", cell.text.strip())  # "79.9% (1.0%)": the figure, not its spread
    text = text.lstrip("$€£¥ ").strip() if _CURRENCY.fullmatch(text[:1] or " ") else text
    context = f"{table.caption} {cell.column_path} {cell.row_path}"
    currency = _CURRENCY.search(cell.text) or _CURRENCY.search(context)
    if question.kind == MONEY and currency and not _CURRENCY.search(text):
        text = currency.group(0) + text
    if table.scale in _SCALE_WORDS and question.kind in (MONEY, NUMBER, COUNT) and "%" not in text and \
            "%" not in f"{cell.row_path} {cell.column_path}" and \
            "per share" not in cell.row_path.lower():  # "$ in millions, except per share amounts"
        text += f" {_SCALE_WORDS[table.scale]}"
    if question.kind == PERCENT and "%" not in text and "%" in context:
        text += "%"
    return text
