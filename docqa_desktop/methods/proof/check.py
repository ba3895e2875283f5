"""Checking a written answer's proof: its quotes are on the pages read, and its value is in a quote or is what
the quoted numbers give by the computation it names (evaluated here, never by the model).

What passes: every quote found on its page (quotes.locate); the value stated by a found quote that shares a
word with the question, or computed from numbers all found in quotes. A value that the quoted pages' tables
hold only in cells the question places elsewhere (the Permit column's figure for a question about handgun
checks: table_answers.label_conflict, the quoted reader's reading of labels) does not pass. A yes/no cannot be
read off a quote, so it never passes: it stays the model's draft beside the passages.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Callable

from ...answers import PageRef
from ...domain import TableOnPage
from ...numbers import SCALES, find as find_numbers
from ..toolkit.final_answer import FinalAnswer
from .arithmetic import ArithmeticRejected, evaluate, operands
from ..extractive.question import parse_question
from ..extractive.table_answers import label_conflict
from .quotes import QuoteMatch, letters, locate, normalised

CONSTANTS = (1.0, 100.0, 1000.0)  # numbers a computation may use without quoting them (ratios, percentages)
_WORD = re.compile(r"[a-z]+")
_CHOICE = re.compile(r"\b(?:or|which of|among|between|versus|vs)\b")
_MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                       "dec"), 1)}
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DATE_ANY = re.compile(rf"\b(?:(?P<iso_y>\d{{4}})-(?P<iso_m>\d{{1,2}})-(?P<iso_d>\d{{1,2}})"
                       rf"|(?P<dmy_d>\d{{1,2}})\s+(?P<dmy_m>{_MONTH})\s+(?P<dmy_y>\d{{4}})"
                       rf"|(?P<mdy_m>{_MONTH})\s+(?P<mdy_d>\d{{1,2}}),?\s+(?P<mdy_y>\d{{4}}))\b")
_YES_NO = {"yes", "no", "true", "false"}
_STOP = {"the", "a", "an", "of", "in", "on", "at", "to", "for", "and", "or", "by", "with", "from", "as", "is",
         "are", "was", "were", "be", "its", "it", "this", "that", "these", "those", "what", "which", "who",
         "whom", "how", "many", "much", "when", "where", "why", "does", "do", "did", "there", "their", "than",
         "according", "document", "documents", "page", "pages", "report", "figure", "table", "shown", "show"}


@dataclass(frozen=True)
class CheckedQuote:
    ref: PageRef
    number: int  # the page's number in the prompt, as the model named it
    quote: str  # the model's words
    match: QuoteMatch


@dataclass
class ProofCheck:
    quotes: list[CheckedQuote]
    problems: list[str] = field(default_factory=list)  # what did not check out, told to the model in a repair
    computed: float | None = None  # the computation's value, when the value was computed
    holding: CheckedQuote | None = None  # the found quote that states the value (or its first operand)
    checkable: bool = True  # False for a yes/no: no quote can show it, a repair cannot help

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def found(self) -> list[CheckedQuote]:
        return [q for q in self.quotes if q.match.found]

    def summary(self) -> str:
        """One line for the reader: what was checked, or why the draft is unverified."""
        if not self.ok:
            return "Not verified: " + "; ".join(self.problems)
        where = self.holding.ref.source if self.holding else "the quotes"
        if self.computed is not None:
            return f"Checked: the app computed {self.computed:g} from numbers quoted from {where}"
        return f"Checked: the value is in the quote from {where}"


def check_proof(question: str, final: FinalAnswer, numbered: list[PageRef], text_of: Callable[[PageRef], str],
                tables_of: Callable[[PageRef], list[TableOnPage]] = lambda ref: []) -> ProofCheck:
    """Whether `final`'s proof holds on the pages (numbered[n - 1] is the prompt's page n; `tables_of`: a page's
    tables read as tables)."""
    checked = [_placed(quote, n, numbered, text_of) for n, quote in final.proof if 0 < n <= len(numbered)]
    result = ProofCheck(checked)
    result.problems += [f"page {n} was not among the pages shown" for n, _ in final.proof
                        if not 0 < n <= len(numbered)]
    for quote in checked:
        if not quote.match.found:
            result.problems.append(_not_found(quote))
    if not final.proof:
        result.problems.append("no quote was given: copy, word for word, the words of a page that state the value")
    if result.problems:
        return result
    short = (final.short_answer or final.answer).strip()
    if short.lower().strip(".! ") in _YES_NO:
        result.checkable = False
        result.problems.append("a yes or no cannot be checked against a quote")
    elif final.computation:
        _check_computation(result, final.computation, short)
    else:
        _check_value(result, short, question)
        if result.ok:
            _check_cells(result, short, question, tables_of)
    if result.ok and result.holding is not None:
        _check_names(result, question, text_of(result.holding.ref))
    return result


def _check_names(result: ProofCheck, question: str, page_text: str) -> None:
    """The page the value is quoted from must mention every name the question gives ("How many tweets are
    attributed to Boeing?": a count from a page that never says Boeing is another count), or its file name."""
    holding = result.holding
    on_page = letters(page_text) + letters(holding.ref.doc)
    for name in parse_question(question).names:
        if letters(name) not in on_page:
            result.problems.append(f"page {holding.number} does not mention {name}, which the question names")


def _placed(quote: str, named: int, numbered: list[PageRef], text_of: Callable[[PageRef], str]) -> CheckedQuote:
    """The quote on the page it names, else on another page read where it is found (a small model often copies
    the words right and the page number wrong: the words were read on a page of this answer all the same)."""
    on_named = CheckedQuote(numbered[named - 1], named, quote, locate(quote, text_of(numbered[named - 1])))
    if on_named.match.found:
        return on_named
    elsewhere = (CheckedQuote(ref, n, quote, locate(quote, text_of(ref)))
                 for n, ref in enumerate(numbered, 1) if n != named)
    return next((c for c in elsewhere if c.match.found), on_named)


def _not_found(quote: CheckedQuote) -> str:
    if quote.match.score >= 0.5 and quote.match.missing_numbers:
        return (f"page {quote.number} does not have {', '.join(quote.match.missing_numbers)} where it says "
                f"“{_clip(quote.match.excerpt)}”")
    return f"the quote “{_clip(quote.quote)}” is not on page {quote.number}"


def _check_computation(result: ProofCheck, computation: str, short: str) -> None:
    try:
        value, used = evaluate(computation), operands(computation)
    except ArithmeticRejected as exc:
        result.problems.append(f"the computation “{_clip(computation)}” is not plain arithmetic ({exc})")
        return
    result.computed = value
    for operand in used:
        holder = next((q for q in result.found if operand in q.match.numbers or -operand in q.match.numbers), None)
        if holder is None and operand not in CONSTANTS:
            result.problems.append(f"{operand:g} in the computation is not in any quote")
        result.holding = result.holding or holder
    if result.holding is None and not result.problems:
        result.problems.append("the computation uses no number from a quote")
    stated = scaled_numbers(short)
    if len(stated) != 1:
        result.problems.append(f"the short answer “{short}” is not the single number the computation gives")
    elif not any(same_number(value, reading, short) for reading in stated[0]):
        result.problems.append(f"the computation gives {value:g}, not {short}")


def _check_value(result: ProofCheck, short: str, question: str) -> None:
    items = _items(short)
    asked = _content_words(question)
    for item in items:
        stating = [q for q in result.found if _states(q.match.excerpt, item)]
        holder = next((q for q in stating if asked & _content_words(q.match.excerpt)), stating[0] if stating else None)
        if _echoes(item, question):
            result.problems.append(f"“{_clip(item)}” only repeats the question's words: give the value it asks for")
        elif holder is None:
            result.problems.append(f"“{_clip(item)}” is not in any quote (quote the words that state it, or give "
                                   f"the computation)")
        elif asked and not asked & _content_words(holder.match.excerpt):
            result.problems.append(f"the quote from page {holder.number} that holds “{_clip(item)}” shares no "
                                   f"word with the question")
        result.holding = result.holding or holder


def _check_cells(result: ProofCheck, short: str, question: str,
                 tables_of: Callable[[PageRef], list[TableOnPage]]) -> None:
    """A number the quoted pages' tables hold must be in a cell whose labels the question does not contradict: in
    the Texas row's Permit column, 21,550 does not answer how many handgun checks Texas had. A number in no cell
    (a sentence's) is left as the quote shows it."""
    parsed = parse_question(question)
    tables = [table for ref in dict.fromkeys(q.ref for q in result.found) for table in tables_of(ref)]
    for item in _items(short):
        readings = [reading for readings in scaled_numbers(item) for reading in readings]
        conflicts = [label_conflict(parsed, table, cell) for table in tables for cell in table.body
                     if cell.number is not None and any(same_number(cell.number, r, item) for r in readings)]
        if conflicts and all(conflicts):
            conflict = conflicts[0]
            result.problems.append(f"{_clip(item)} is the '{conflict.label}' {conflict.axis}; the question asks "
                                   f"about '{conflict.asked}'")


def _echoes(item: str, question: str) -> bool:
    """Whether `item` says nothing the question does not ("Goodwill" for "what goodwill does Best Buy have", 2023
    for "… in fiscal 2023"): every word and number of it is the question's. A question that offers a choice ("X or
    Y", "which of") is answered with its own words."""
    if _CHOICE.search(normalised(question)):
        return False
    words, numbers = _content_words(item, keep_stop=True), scaled_numbers(item)
    asked_numbers = {reading for readings in scaled_numbers(question) for reading in readings}
    return bool(words or numbers) and words <= _content_words(question, keep_stop=True) and \
        all(readings[0] in asked_numbers for readings in numbers)


def _states(excerpt: str, item: str) -> bool:
    """Whether the page's words `excerpt` state `item`: the same date however written, else each of its numbers
    and each of its content words."""
    day = date_in(item, whole=True)
    if day is not None:
        return day in dates_in(excerpt)
    numbers = scaled_numbers(item)
    on_page = [abs(reading) for readings in scaled_numbers(excerpt) for reading in readings]
    wanted = (_content_words(item) or _content_words(item, keep_stop=True)) - set(SCALES)
    if not numbers and not wanted:
        return False
    # a number is stated when any reading of it (as written, or with its scale word applied) is on the page;
    # signs aside: a loss written "(123)" is -123
    return (all(any(same_number(q, abs(n), item) for q in on_page for n in readings) for readings in numbers)
            and wanted <= _content_words(excerpt, keep_stop=True))


def same_number(value: float, stated: float, written: str) -> bool:
    """`value` (quoted or computed) read as the `written` answer: equal at the answer's decimals, or, for a
    percentage or a ratio, as the other (0.263 as 26.3 %)."""
    fraction = re.search(r"\d\.(\d+)", written)
    tolerance = 0.5 * 10 ** -(len(fraction.group(1)) if fraction else 0) + 1e-9
    percent = "%" in written or "percent" in written.lower() or min(abs(value), abs(stated)) <= 1
    candidates = (value, value * 100, value / 100) if percent else (value,)
    return any(abs(candidate - stated) <= tolerance for candidate in candidates)


def date_in(text: str, whole: bool = False) -> tuple[int, int, int] | None:
    """(year, month, day) of a date written as 2021-05-14, 14 May 2021 or May 14, 2021 (`whole`: the text is
    only the date), else None."""
    found = dates_in(text)
    if not found or (whole and len(_DATE_ANY.sub("", normalised(text)).strip(" .,")) > 0):
        return None
    return found[0]


def dates_in(text: str) -> list[tuple[int, int, int]]:
    dates = []
    for match in _DATE_ANY.finditer(normalised(text)):
        parts = match.groupdict()
        if parts["iso_y"]:
            year, month, day = int(parts["iso_y"]), int(parts["iso_m"]), int(parts["iso_d"])
        else:
            year = int(parts["dmy_y"] or parts["mdy_y"])
            month = _MONTHS[(parts["dmy_m"] or parts["mdy_m"])[:3]]
            day = int(parts["dmy_d"] or parts["mdy_d"])
        if 1 <= month <= 12 and 1 <= day <= 31:
            dates.append((year, month, day))
    return dates


def scaled_numbers(text: str) -> list[tuple[float, ...]]:
    """The numbers in `text`, each as its readings: with its scale word applied ("1.2 billion" → 1.2e9) and as
    written."""
    return [(n.scaled, float(n.value)) if n.scale != 1.0 else (float(n.value),)
            for n in find_numbers(normalised(text))]


def _items(short: str) -> list[str]:
    """A list answer's items (["a", "b"], or "a, b and c" for a List that was not JSON); else the answer."""
    try:
        parsed = json.loads(short)
    except ValueError:
        parsed = None
    if isinstance(parsed, list):
        return [str(item) for item in parsed if str(item).strip()] or [short]
    return [short]


def _content_words(text: str, keep_stop: bool = False) -> set[str]:
    words = {_stem(w) for w in _WORD.findall(normalised(text))}
    return words if keep_stop else {w for w in words if w not in _STOP}


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
