"""A page's text cut to a token budget by what the question needs, not by position.

A 10-K page or a dense table runs to thousands of tokens; a small model on a CPU reads a few hundred per
page. Keeping the first N tokens drops the table row or the paragraph that holds the answer whenever it
sits low on the page. Instead the page is split into passages (paragraph windows, single table rows,
captions), each scored by BM25 against the question within the page, and the best ones are kept in page
order until the budget is spent. The page's opening passage (its heading) is kept first, and a kept table
row brings its table's header rows, so numbers keep their column names. Gaps are marked " […]".
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...llm.budget import TRIM_MARK, TokenCounter, share_budget, trim_to_tokens
from ...retrieval.chunks import lexical_scores

WORDS_PER_PASSAGE = 60
# question words that match everywhere and say nothing about where the answer is
QUESTION_WORDS = frozenset("""a an and are as at be by did do does for from has have how in is it its many much of
on or please that the their there this to was were what when where which who why with""".split())
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Passage:
    text: str
    table: int | None = None  # which Markdown table of the page a row belongs to
    header: bool = False  # the table's heading row or its |---| line


def passages(text: str, words: int = WORDS_PER_PASSAGE) -> list[Passage]:
    """The page split into passages: runs of lines up to about `words` words (cut at blank lines), and each
    Markdown table row on its own."""
    found: list[Passage] = []
    lines: list[str] = []
    table, tables, header_left = None, 0, 0

    def flush() -> None:
        tokens = " ".join(lines).split()
        for start in range(0, len(tokens), words):
            found.append(Passage("\n".join(lines) if len(tokens) <= words else " ".join(tokens[start:start + words])))
        lines.clear()

    for line in text.splitlines():
        if line.lstrip().startswith("|"):
            flush()
            if table is None:
                table, tables, header_left = tables, tables + 1, 2
            found.append(Passage(line, table, header_left > 0))
            header_left -= 1
            continue
        table = None
        if not line.strip():
            flush()
            continue
        lines.append(line)
        if sum(len(x.split()) for x in lines) >= words:
            flush()
    flush()
    return found


def fit_to_question(counter: TokenCounter, text: str, limit: int, question: str) -> str:
    """`text` within `limit` tokens: whole when it fits, else its passages that best match `question`."""
    if limit <= 0 or counter.count_tokens(text) <= limit:
        return text if limit > 0 else ""
    query = " ".join(w for w in _WORD.findall(question.lower()) if w not in QUESTION_WORDS)
    parts = passages(text)
    scores = dict(lexical_scores(query, {i: p.text for i, p in enumerate(parts)})) if query else {}
    if len(parts) < 2 or not scores:
        return trim_to_tokens(counter, text, limit)
    kept: set[int] = set()
    spent = 0

    def keep(*indices: int) -> None:
        """Keep these passages together, or none of them when they do not fit."""
        nonlocal spent
        new = [i for i in dict.fromkeys(indices) if i not in kept]
        cost = sum(counter.count_tokens(parts[i].text) + 3 for i in new)  # + line break and a gap mark
        if spent + cost <= limit:
            kept.update(new)
            spent += cost

    keep(0)
    for i in sorted(scores, key=lambda i: (-scores[i], i)):
        table = parts[i].table
        keep(*[j for j, p in enumerate(parts) if table is not None and p.table == table and p.header], i)
    for i in range(len(parts)):  # what room is left goes to the rest, in page order
        keep(i)
    return _join(parts, sorted(kept))


def fit_all_to_question(counter: TokenCounter, texts: list[str], each: int, budget: int, question: str) -> list[str]:
    """Each text within `each` tokens and all of them within `budget`, every cut keeping what matches `question`."""
    def fit(counter_: TokenCounter, text: str, limit: int) -> str:
        return fit_to_question(counter_, text, limit, question)

    return share_budget(counter, [fit(counter, text, each) for text in texts], budget, fit)


def _join(parts: list[Passage], kept: list[int]) -> str:
    pieces, previous = [], -1
    for i in kept:
        if i != previous + 1:
            pieces.append(TRIM_MARK.strip())
        pieces.append(parts[i].text)
        previous = i
    if previous != len(parts) - 1:
        pieces.append(TRIM_MARK.strip())
    return "\n".join(pieces)
