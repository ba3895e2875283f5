"""Candidate answers with their context, and the evidence for each: what the learned scorer (scorer.py) weighs.

DeepQA's shape on a laptop (issue 53): generate many candidates, score each with many independent pieces of
evidence, let a model trained on labelled questions weigh them. A candidate is a value of the asked kind — and, when
the kind is unsure, of every plausible kind — from a sentence, a "label: value" or form line, a table cell, or a
difference the app computed. Each carries its context chain: its sentence, the sentences before and after, its
page, its page's title lines and its document's first page; every qualifier of the question (years, names, the
rarest topic words) is looked for at each level, so that "the report's title says 2018" counts where a rule that
read the sentence alone threw the value away. Yesterday's rules are features here, not vetoes: the reason a rule
gave (qualifiers.rejection) becomes a one-hot; only what is certain stays a filter (a value the question states).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable

from ...answers import PageRef
from .cell_arithmetic import Computed
from .matching import TOKEN, WordSet, stem
from .question import (
    COUNT, DATE, FREQUENCY, LIST, MONEY, NAME_KINDS, NUMBER, PERCENT, THING, TIME, WHEN, YEAR, YES_NO, Question,
)
from .scoring import Found, value_candidates
from .table_answers import CellAnswer, candidate_cells, written_labels
from .values import find_values, normal

SENTENCE, CELL, COMPUTED, LABELLED, LINE = "sentence", "cell", "computed", "labelled", "line"
SOURCES = (SENTENCE, CELL, COMPUTED, LABELLED, LINE)
LABELLED_LINES = 30  # the most relevant sentences searched for "label: value" and form lines
CELLS = 24  # table cells kept by their labels' nearness to the question
LINES = 12  # the page lines holding most of the question's words, whose figures and next lines are candidates
LINE_COVERAGE = 0.3  # ... holding this weighted share of them at least
NEXT_LINES, NEXT_LINE_WORDS = 2, 8  # a form's or a badly read table's value: a short line after its label
WINDOW = 6  # tokens before a value read as its label in running text
TITLE_CHARS = 300  # a page's first characters: its running header and title
DOCUMENT_CHARS = 600  # the document's first page's first characters: its title block
LONGEST_NAME = 5  # words: a longer value is a phrase or a clause, rarely the answer to a "what is" question
LONGEST_VALUE = 12  # words: a longer "value" after a colon is a sentence, not a field's value
# the kinds a candidate may also be of, when the question's kind is unsure or often written otherwise
_ALSO = {None: (NUMBER, DATE, THING), COUNT: (NUMBER,), MONEY: (NUMBER,), PERCENT: (NUMBER,),
         **{kind: (THING,) for kind in NAME_KINDS if kind != THING}}
# "a. If "yes," what was the date of this approval? 8/28/2007", "Living allowance: S$6,500"
_LABELLED = re.compile(r"^(?P<label>[^:?]{2,160}?)\s*[:?]\s+(?P<value>[^:?]{1,120})$")
_COLON = re.compile(r"\s*:\s+|\s+:\s*")
LABEL_WORDS = 4  # the words before a colon read as its field's label
_NUMBERED = re.compile(r"\b([a-z]{3,})\s+(\d{1,3})\b", re.I)  # "quarter 2", "phase 3", "grade 10"
_YEAR_IN = re.compile(r"\b(?:19|20)\d\d\b")
_NEGATION = re.compile(r"\b(?:not|no|never|none|neither|nor|without|excluding|except)\b", re.I)
# the reasons qualifiers.rejection and the reader give, as families: each is a feature of its own
_REJECTIONS = (("rejected_core", "does not mention"), ("rejected_year", "does not say"),
               ("rejected_dated", "the value is for"), ("rejected_unit", "not given in"),
               ("rejected_group", "not all"), ("rejected_subgroup", "only, which"),
               ("rejected_name", "does not name"), ("rejected_labels", "row and column name nothing"),
               ("rejected_compared", "compares against"))
LEVELS = ("sentence", "neighbours", "page", "document")
VALUE_KINDS = ("percent", "money", "number", "date", "name", "text")
# the asked kinds by family: which kind of value answers them is what the scorer learns
ASKED_FAMILIES = {"figure": (PERCENT, MONEY, COUNT, NUMBER), "time": (DATE, YEAR, TIME, WHEN),
                  "name": NAME_KINDS, "unsure": (None,), "other": (FREQUENCY, LIST, YES_NO)}
# evidence also given as the distance below the question's best candidate on it: what tells candidates apart
RELATIVE = ("coverage", "similarity", "affinity", "row_coverage", "column_coverage", "near_coverage", "cell_fit")

FEATURES = (
    *(f"source_{s}" for s in SOURCES),
    "coverage", "similarity", "affinity", "rule_confidence", "page_rank", "sentence_rank",
    "passes_rules", "ambiguous", "rejected", *(name for name, _ in _REJECTIONS),
    "kind_exact", "kind_unsure", "value_numeric", "value_words",
    "asks_years", "asks_names",
    *(f"years_{level}" for level in LEVELS), *(f"names_{level}" for level in LEVELS),
    *(f"core_{level}" for level in LEVELS), "neighbours_coverage", "title_coverage",
    "long_value", "recurrence", "sentence_values", "negated", "table_answer", "table_tied", "cell_fit",
    "after_question_word", "qualifier_contradicted", "years_contradicted",
    "row_coverage", "column_coverage", "near_coverage", "line_figures", "line_position",
    "from_chart", "from_axis", "labels_written", "other_label_written",
    *(f"value_{k}" for k in VALUE_KINDS), *(f"asks_{k}" for k in ASKED_FAMILIES),
    *(f"{name}_below_best" for name in RELATIVE),
)


@dataclass(frozen=True)
class Evidence:
    """One candidate answer: its value, where it stands, and the evidence for it (FEATURES, in order)."""
    value: str
    source: str  # SENTENCE, CELL, COMPUTED or LABELLED
    ref: PageRef
    quote: str  # the sentence, the form line, "row — column: cell", or the computation with its operands
    features: tuple[float, ...]
    found: Found | None = None
    cell: CellAnswer | None = None
    computed: Computed | None = None

    def feature(self, name: str) -> float:
        return self.features[FEATURES.index(name)]


class Chain:
    """The context levels above a sentence, read once per page and per document (page text and first page)."""

    def __init__(self, page_text: Callable[[PageRef], str], first_page: Callable[[PageRef], str]):
        self._page_text, self._first_page = page_text, first_page
        self._pages: dict[tuple[int, int], tuple[str, list[str]]] = {}
        self._documents: dict[int, WordSet] = {}
        self._words: dict[str, WordSet] = {}

    def words(self, text: str) -> WordSet:
        if text not in self._words:
            self._words[text] = WordSet(text)
        return self._words[text]

    def page(self, ref: PageRef) -> str:
        return self._page(ref)[0]

    def neighbours(self, ref: PageRef, sentence: str) -> str:
        """The sentence with the one before and after it on its page (the page's line order)."""
        text, lines = self._page(ref)
        at = text.find(sentence[:40])
        if at < 0:
            return sentence
        before = text[:at].rstrip().rsplit("\n", 2)[-2:]
        after = text[at + len(sentence):].lstrip().split("\n", 2)[:2]
        return " ".join([*before, sentence, *after])

    def title(self, ref: PageRef) -> str:
        return self.page(ref)[:TITLE_CHARS]

    def document(self, ref: PageRef) -> WordSet:
        """The document's title block and file name."""
        if ref.doc_id not in self._documents:
            name = re.sub(r"[_.-]+", " ", ref.doc)
            self._documents[ref.doc_id] = WordSet(f"{name} {self._first_page(ref)[:DOCUMENT_CHARS]}")
        return self._documents[ref.doc_id]

    def _page(self, ref: PageRef) -> tuple[str, list[str]]:
        if ref.key() not in self._pages:
            text = self._page_text(ref)
            self._pages[ref.key()] = (text, text.splitlines())
        return self._pages[ref.key()]


def gather(question: Question, reading, chain: Chain, embed: Callable[[list[str]], "object"]) -> list[Evidence]:
    """Every candidate of the reading, with its evidence; the same value from the same place once."""
    drafts = (_from_sentences(question, reading) + _from_labelled(question, reading) + _from_cells(question, reading) +
              _from_computed(reading) + _from_lines(question, reading, chain))
    seen, unique = set(), []
    for draft in drafts:
        key = (normal(draft["value"]), draft["ref"].key(), draft["quote"])
        if draft["value"].strip() and key not in seen:
            seen.add(key)
            unique.append(draft)
    _similarities(question, unique, embed)
    counts = Counter(normal(draft["value"]) for draft in unique)
    per_quote = Counter(draft["quote"] for draft in unique)
    return _relative([_evidence(question, reading, chain, d, counts, per_quote) for d in unique])


def _relative(evidence: list[Evidence]) -> list[Evidence]:
    """Each RELATIVE feature again as its distance below the best candidate's of the same question."""
    if not evidence:
        return evidence
    index = {name: FEATURES.index(name) for name in RELATIVE}
    best = {name: max(e.features[i] for e in evidence) for name, i in index.items()}
    out = []
    for e in evidence:
        values = list(e.features)
        for name, i in index.items():
            values[FEATURES.index(f"{name}_below_best")] = best[name] - values[i]
        out.append(replace(e, features=tuple(values)))
    return out


def _from_sentences(question: Question, reading) -> list[dict]:
    found = list(reading.found)
    for kind in _ALSO.get(question.kind, ()):
        found += value_candidates(replace(question, kind=kind), reading.ranking, reading.subjects)
    ranks = {id(s): i for i, s in enumerate(reading.sentences)}
    best = reading.best
    return [{"value": f.value.text, "source": SENTENCE, "ref": f.scored.candidate.ref, "quote": f.quote,
             "found": f, "scored": f.scored, "sentence_rank": ranks.get(id(f.scored), len(ranks)),
             "kind_exact": f.value.kind == question.kind or (question.kind == COUNT and f.value.kind == NUMBER),
             "passes": best is not None and f is best} for f in found]


def _from_labelled(question: Question, reading) -> list[dict]:
    """ "label: value" and form lines among the most relevant sentences, and each field of a line of fields
    ("Name : … Father's Name : …")."""
    drafts = []
    for rank, scored in enumerate(reading.sentences[:LABELLED_LINES]):
        text = scored.candidate.sentence.text
        whole = _LABELLED.match(text)
        fields = [(whole.group("label"), whole.group("value"))] if whole else []
        for label, value in fields + _fields(text):
            value = value.strip().rstrip(".;,")
            if not value or len(value.split()) > LONGEST_VALUE or normal(value) in normal(question.text):
                continue
            drafts.append({"value": value, "source": LABELLED, "ref": scored.candidate.ref, "quote": text,
                           "scored": scored, "sentence_rank": rank, "label": label,
                           "kind_exact": False, "passes": False})
    return drafts


def _fields(text: str) -> list[tuple[str, str]]:
    """A line of fields ("Name : Sheetal Bansal Father's Name : Ram Bansal"): each colon's label (its last words
    before it) and value (what follows, up to the next label). Where the next label begins is unknown, so each
    reading of it (its last one to three words) is a candidate of its own."""
    parts = _COLON.split(text)
    found = []
    for i in range(1, len(parts)):
        label = " ".join(parts[i - 1].split()[-LABEL_WORDS:])
        words = parts[i].split()
        if i == len(parts) - 1:
            found.append((label, " ".join(words)))
        else:
            found += [(label, " ".join(words[:-k])) for k in (1, 2, 3) if len(words) > k]
    return found


def _from_cells(question: Question, reading) -> list[dict]:
    """The cells nearest the question by their labels (of any text when the kind asks no figure), with the one the
    table reader answered and those it found tied (compared by place: the two readings make their own copies)."""
    table = reading.table
    asked = question if question.kind in (PERCENT, MONEY, COUNT, NUMBER, None) else replace(question, kind=None)
    answer = _place(table.answer) if table.answer else None
    tied = {_place(c) for c in table.tied}
    cells = ([table.answer] if table.answer else []) + list(table.tied)
    cells += [c for c in candidate_cells(asked, reading.tables, reading.subjects, CELLS)
              if _place(c) != answer and _place(c) not in tied]
    return [{"value": c.value, "source": CELL, "ref": c.ref, "quote": c.quote, "cell": c,
             "label": f"{c.cell.row_path} {c.cell.column_path} {c.table.caption}", "sentence_rank": i,
             "kind_exact": c.cell.number is not None and question.kind in (PERCENT, MONEY, COUNT, NUMBER),
             "passes": _place(c) == answer, "tied": _place(c) in tied} for i, c in enumerate(cells)]


def _place(cell: CellAnswer) -> tuple:
    return cell.ref.key(), cell.cell.row, cell.cell.column, cell.cell.bbox


def _from_lines(question: Question, reading, chain: Chain) -> list[dict]:
    """The page lines holding most of the question's words (a table the tables stage misread is still lines of a
    label and its figures): each figure of such a line, and the short lines after it (a form's value under its
    label)."""
    weights = reading.ranking.weights
    lines = []
    for rank, ref in enumerate(reading.pages):
        page_lines = [" ".join(line.split()) for line in chain.page(ref).splitlines()]
        for i, line in enumerate(page_lines):
            if line and not line.startswith("|"):
                coverage = _coverage(weights, chain.words(line))
                if coverage >= LINE_COVERAGE:
                    lines.append((coverage, -rank, i, ref, page_lines))
    drafts = []
    for coverage, _, i, ref, page_lines in sorted(lines, key=lambda x: (-x[0], -x[1], x[2]))[:LINES]:
        line = page_lines[i]
        figures = [v for v in find_values(line) if v.kind != "name"]
        for n, value in enumerate(figures):
            drafts.append({"value": value.text, "source": LINE, "ref": ref, "quote": line, "label": line[:value.start],
                           "sentence_rank": i, "kind_exact": _fits(question.kind, value.text),
                           "passes": False, "figures": len(figures), "position": (n + 1) / len(figures)})
        for following in page_lines[i + 1:i + 1 + NEXT_LINES]:
            if following and len(following.split()) <= NEXT_LINE_WORDS:
                drafts.append({"value": following.strip(" .:;"), "source": LINE, "ref": ref, "quote": f"{line} {following}",
                               "label": line, "sentence_rank": i, "kind_exact": False, "passes": False})
    return drafts


def _from_computed(reading) -> list[dict]:
    computed = reading.computed
    if computed is None:
        return []
    quote = f"{computed.expression}: " + " and ".join(c.quote for c in computed.operands)
    return [{"value": computed.shown, "source": COMPUTED, "ref": computed.operands[0].ref, "quote": quote,
             "computed": computed, "sentence_rank": 0, "kind_exact": True, "passes": True,
             "label": " ".join(f"{c.cell.row_path} {c.cell.column_path}" for c in computed.operands)}]


def _similarities(question: Question, drafts: list[dict], embed) -> None:
    """MiniLM similarity of the question to each candidate's labels (cells, form lines): sentences have theirs."""
    todo = [d for d in drafts if "scored" not in d or d["source"] == LABELLED]
    if not todo:
        return
    vectors = embed([question.text] + [d.get("label") or d["quote"] for d in todo])
    for draft, similarity in zip(todo, (vectors[1:] @ vectors[0]).tolist()):
        draft["similarity"] = similarity


def _evidence(question: Question, reading, chain: Chain, draft: dict, counts: dict[str, int],
              per_quote: dict[str, int]) -> Evidence:
    weights, ref, quote = reading.ranking.weights, draft["ref"], draft["quote"]
    found, scored, cell = draft.get("found"), draft.get("scored"), draft.get("cell")
    own_text = draft.get("label") or quote if draft["source"] != SENTENCE else scored.candidate.sentence.context
    own = chain.words(own_text)
    neighbours = chain.words(chain.neighbours(ref, quote)) if draft["source"] != COMPUTED else own
    page, document = chain.words(chain.page(ref)), chain.document(ref)
    levels = (own, neighbours, page, document)
    rejected = found.rejected if found is not None else ""
    values = [v for v in find_values(draft["value"])]
    f = {
        f"source_{draft['source']}": 1.0,
        "coverage": scored.coverage if scored is not None and draft["source"] == SENTENCE else _coverage(weights, own),
        "similarity": draft.get("similarity", scored.similarity if scored is not None else 0.0),
        "affinity": found.affinity if found is not None else (cell.fit if cell is not None else 0.0),
        "rule_confidence": found.confidence if found is not None else 0.0,
        "page_rank": 1.0 / (1 + _page_rank(reading, ref)),
        "sentence_rank": 1.0 / (1 + draft["sentence_rank"]),
        "passes_rules": float(draft["passes"]),
        "ambiguous": float(found is not None and draft["passes"] is False and reading.best is None and not rejected),
        "rejected": float(bool(rejected)),
        **{name: float(phrase in rejected) for name, phrase in _REJECTIONS},
        "kind_exact": float(draft["kind_exact"]),
        "kind_unsure": float(question.kind is None),
        "value_numeric": float(bool(values)),
        "value_words": min(len(TOKEN.findall(draft["value"])), 12) / 12,
        "asks_years": float(bool(question.years)), "asks_names": float(bool(question.names)),
        **_levels("years", [(y, y) for y in question.years], levels),
        **_levels("names", [(stem(w), w) for w in sorted(question.name_words)], levels),
        **_levels("core", list(reading.ranking.core), levels),
        "neighbours_coverage": _coverage(weights, neighbours),
        "title_coverage": _coverage(weights, chain.words(chain.title(ref))),
        "long_value": float(len(draft["value"].split()) > LONGEST_NAME),
        "recurrence": math.log1p(counts[normal(draft["value"])] - 1),
        "sentence_values": math.log1p(per_quote[quote] - 1),
        "negated": float(bool(_NEGATION.search(quote))),
        "table_answer": float(draft["source"] == CELL and draft["passes"]),
        "table_tied": float(bool(draft.get("tied"))),
        "cell_fit": cell.fit if cell is not None else 0.0,
        "after_question_word": float(_after_question_word(question, quote, draft["value"])),
        "qualifier_contradicted": float(_contradicted(question, quote)),
        "years_contradicted": float(bool(question.years) and bool(_YEAR_IN.search(quote)) and
                                    not any(y in quote for y in question.years)),
        **_label_coverages(weights, draft, chain),
        **_cell_labels(question, cell),
        "line_figures": min(draft.get("figures", 0), 12) / 12,
        "line_position": draft.get("position", 0.0),
        f"value_{_kind_of(draft['value'])}": 1.0,
        f"asks_{_family(question.kind)}": 1.0,
    }
    return Evidence(draft["value"], draft["source"], ref, quote, tuple(float(f.get(n, 0.0)) for n in FEATURES),
                    found, cell, draft.get("computed"))


def _label_coverages(weights: dict, draft: dict, chain: Chain) -> dict[str, float]:
    """The question's weighted words in the candidate's row label, its column header, and the words just before it
    (a running text's label)."""
    cell, found = draft.get("cell"), draft.get("found")
    row = column = ""
    if cell is not None:
        row, column = cell.cell.row_path, f"{cell.cell.column_path} {cell.table.caption}"
    elif found is not None and found.scored.candidate.sentence.cells:
        sentence = found.scored.candidate.sentence
        at = next((i for i, c in enumerate(sentence.cells) if c and found.value.text in c), None)
        labels = sentence.labels(at) if at is not None else []
        row = labels[0] if labels else ""
        column = labels[1] if len(labels) > 1 else ""
    elif draft.get("label"):
        row = draft["label"]
    quote, value = draft["quote"], draft["value"]
    at = quote.find(value)
    near = " ".join(TOKEN.findall(quote[:at])[-WINDOW:]) if at > 0 else ""
    return {"row_coverage": _coverage(weights, chain.words(row)), "column_coverage": _coverage(weights, chain.words(column)),
            "near_coverage": _coverage(weights, chain.words(near))}


def _cell_labels(question: Question, cell: CellAnswer | None) -> dict[str, float]:
    """A cell's labels as the question writes them, and whether it is a chart's value (read off its axis or not):
    a chart's series are often words content words drop ("More", "Less", "Good")."""
    if cell is None:
        return {}
    written, other = written_labels(question, cell.table, cell.cell)
    return {"from_chart": float(bool(cell.table.chart)), "from_axis": float(cell.cell.from_axis),
            "labels_written": written, "other_label_written": float(other)}


def _kind_of(value: str) -> str:
    """What a candidate's value is, as VALUE_KINDS names it."""
    found = find_values(value)
    if found and found[0].start == 0:
        kind = found[0].kind
        return ("percent" if kind == PERCENT else "money" if kind == MONEY else
                "date" if kind in (DATE, YEAR, TIME) else "number")
    return "name" if value[:1].isupper() else "text"


def _fits(kind: str | None, value: str) -> bool:
    """A line's figure is of the asked family of kinds (a percentage for a figure question, a date for a time)."""
    family = {"percent": "figure", "money": "figure", "number": "figure", "date": "time"}.get(_kind_of(value))
    return family == _family(kind)


def _family(kind: str | None) -> str:
    return next(family for family, kinds in ASKED_FAMILIES.items() if kind in kinds)


def _after_question_word(question: Question, quote: str, value: str) -> bool:
    """The value is the number of a label the question uses ("quarter 2" asked about quarter 1): a label, not an
    answer."""
    at = quote.find(value)
    before = TOKEN.findall(quote[:at])[-1:] if at > 0 else []
    return bool(before) and stem(before[0].lower()) in question.terms


def _contradicted(question: Question, quote: str) -> bool:
    """The line numbers a label of the question otherwise: "quarter 2" where "quarter 1" is asked."""
    asked = {stem(word.lower()): number for word, number in _NUMBERED.findall(question.text)}
    said = [(stem(word.lower()), number) for word, number in _NUMBERED.findall(quote)]
    return any(word in asked and number != asked[word] for word, number in said) and \
        not any(word in asked and number == asked[word] for word, number in said)


def _levels(name: str, terms: list[tuple[str, str]], levels: tuple[WordSet, ...]) -> dict[str, float]:
    """The share of `terms` found at each level of the chain or below it (1.0 when none is asked)."""
    shares, held = {}, set()
    for level, words in zip(LEVELS, levels):
        held |= {t for t in terms if words.has(*t)}
        shares[f"{name}_{level}"] = len(held) / len(terms) if terms else 1.0
    return shares


def _coverage(weights: dict[tuple[str, str], float], words: WordSet) -> float:
    return sum(w for (t, word), w in weights.items() if words.has(t, word)) / (sum(weights.values()) or 1.0)


def _page_rank(reading, ref: PageRef) -> int:
    return next((i for i, page in enumerate(reading.pages) if page.key() == ref.key()), len(reading.pages))
