"""Questions about the library answered from its index, exactly: "Which documents mention Lufthansa?", "How many
pages mention Florida?", "List the reports by Pew Research Center", "How many of my documents are from 2020?",
"What is the newest document about solar power?" (methods/extractive/library_questions.py recognises them).

Retrieval reads the best few pages, so it cannot list or count; the index reads every page in scope
(ctx.mentions) and lists every document (ctx.catalogue). The answer says it comes from the index, gives the
exact count or the list of files (with their titles), and cites each document at the first page that matches, the
phrase found among the page's words with its box.
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import replace

from ...answers import Citation, PageRef
from ..base import CatalogueEntry, Decided, MethodContext
from ..citations import cite
from ..extractive.library_questions import COUNT, NEWEST, OLDEST, PAGES, LibraryQuestion

MAX_LISTED = 50  # documents named in the answer's text (the short answer of a list names them all)
MAX_CITED = 20  # documents cited, each at its first matching page
MAX_PAGES_NAMED = 12  # page numbers written after a document's name
RANKED = 5  # documents named after the newest (or oldest) one


def answer_library_question(ctx: MethodContext, asked: LibraryQuestion) -> None:
    """Answer `asked` from the index: the documents in scope that pass its filters, listed, counted or ranked."""
    answer = ctx.answer
    ctx.step("reading the library index")
    entries = ctx.catalogue()
    answer.notes.append(f"library question: {asked.asks} {asked.of}" + "".join(
        f"; {name} {value!r}" for name, value in (("mentioning", asked.mentions), ("by", asked.author),
                                                 ("from", asked.year)) if value not in ("", None)))
    matched, pages, cited = _matching(ctx, asked, entries)
    answer.notes.append(f"library index: {len(matched)} of {len(entries)} documents in scope match" +
                        (f", {sum(len(p) for p in pages.values())} pages" if asked.mentions else ""))
    if asked.asks in (NEWEST, OLDEST):
        matched = _in_order(matched, asked.asks)
    citations, answer.pages_used = _citations(ctx, matched, cited)
    answer.note_stage("read", answer.pages_used)
    if asked.asks in (NEWEST, OLDEST):
        decided = _ranked(ctx, asked, entries, matched)
    elif asked.asks == COUNT:
        decided = _counted(ctx, asked, entries, matched, pages)
    else:
        decided = _listed(ctx, asked, entries, matched, pages)
    # exact: the index read every page in scope
    ctx.decide(replace(decided, citations=tuple(citations), confidence=1.0))


def _matching(ctx: MethodContext, asked: LibraryQuestion, entries: list[CatalogueEntry],
              ) -> tuple[list[CatalogueEntry], dict[int, list[int]], dict[int, tuple[int, str]]]:
    """(the documents that pass every filter, {doc_id: pages that mention the phrase}, {doc_id: (page, words) to
    cite}). A document is cited at the phrase asked, else the author on its first page, else its year there."""
    matched, pages, cited = list(entries), {}, {}
    if asked.year is not None:
        matched = [e for e in matched if e.year == asked.year]
        # cited at the year on the first page, where it is there (_citations checks)
        cited.update({e.doc_id: (1, str(asked.year)) for e in matched})
    if asked.author:
        on_first = _first_pages(ctx.mentions(asked.author))
        matched = [e for e in matched if _names(e.authors, asked.author) or e.doc_id in on_first]
        cited.update({e.doc_id: (1, asked.author) for e in matched if e.doc_id in on_first})
    if asked.mentions:
        found = ctx.mentions(asked.mentions)
        matched = [e for e in matched if e.doc_id in found]
        pages = {e.doc_id: found[e.doc_id] for e in matched}
        cited.update({doc_id: (found_pages[0], asked.mentions) for doc_id, found_pages in pages.items()})
    return matched, pages, cited


def _first_pages(found: dict[int, list[int]]) -> set[int]:
    """The documents whose first page is among the pages found."""
    return {doc_id for doc_id, pages in found.items() if pages and pages[0] == 1}


def _names(authors: str, author: str) -> bool:
    """Whether the metadata's authors name `author`, as whole words, in any case."""
    words = author.split()
    return bool(words) and re.search(r"(?<!\w)" + r"\s+".join(map(re.escape, words)) + r"(?!\w)", authors,
                                     re.I) is not None


def _citations(ctx: MethodContext, matched: list[CatalogueEntry], cited: dict[int, tuple[int, str]],
               ) -> tuple[list[Citation], list[PageRef]]:
    """Each matched document (the first MAX_CITED) cited at its page, the words found there with their box."""
    wanted = [(e.doc_id, cited[e.doc_id]) for e in matched if e.doc_id in cited][:MAX_CITED]
    refs = {ref.key(): ref for ref in ctx.pages.refs_for([(doc_id, page) for doc_id, (page, _) in wanted])}
    citations, used = [], []
    for doc_id, (page, words) in wanted:
        ref = refs.get((doc_id, page))
        if ref is None:
            continue
        found = cite(ctx.pages, [(ref, words)], words, [ref])
        used.append(ref)
        if found and _holds(found[0].quote, words):
            citations += found
    return citations, used


def _holds(quote: str, words: str) -> bool:
    """Whether the cited words are the ones looked for (not the closest window cite() falls back to)."""
    def tokens(text: str) -> str:
        plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
        return " " + " ".join(re.findall(r"[a-z0-9]+", plain)) + " "
    return tokens(words).strip() != "" and tokens(words) in tokens(quote)


def _listed(ctx: MethodContext, asked: LibraryQuestion, entries, matched, pages) -> Decided:
    if not matched:
        return Decided.not_found(_none_text(ctx, asked, len(entries)))
    if asked.of == PAGES:
        listed = json.dumps([f"{e.name}, page {p}" for e in matched for p in _pages_of(e, pages)], ensure_ascii=False)
    else:
        listed = json.dumps([e.name for e in matched], ensure_ascii=False)
    return Decided.answered(listed, _header(ctx, asked, entries, matched, pages) + ":\n" +
                            _lines(asked, matched, pages), (), "List")


def _counted(ctx: MethodContext, asked: LibraryQuestion, entries, matched, pages) -> Decided:
    count = sum(len(_pages_of(e, pages)) if asked.mentions else e.pages for e in matched) if asked.of == PAGES \
        else len(matched)
    if not matched:  # none is an answer too: every page in scope was read
        return Decided.answered(str(count), "0\n\n" + _none_text(ctx, asked, len(entries)), (), "Int")
    return Decided.answered(str(count), f"{count}\n\n" + _header(ctx, asked, entries, matched, pages) + ":\n" +
                            _lines(asked, matched, pages), (), "Int")


def _in_order(matched: list[CatalogueEntry], asks: str) -> list[CatalogueEntry]:
    """Newest (or oldest) first: by the year in the metadata (documents without one last), then by when indexed."""
    if asks == NEWEST:
        return sorted(matched, key=lambda e: (e.year is not None, e.year or 0, e.indexed_at), reverse=True)
    return sorted(matched, key=lambda e: (e.year is None, e.year or 0, e.indexed_at))


def _ranked(ctx: MethodContext, asked: LibraryQuestion, entries, order) -> Decided:
    """The newest (or oldest) matched document (`order`: _in_order's), and the next few."""
    if not order:
        return Decided.not_found(_none_text(ctx, asked, len(entries)))
    matched, first = order, order[0]
    which = "newest" if asked.asks == NEWEST else "oldest"
    what = f"that {_predicate(asked, len(matched))}" if asked.filtered else _where(ctx)
    if len(matched) == 1:
        return Decided.answered(first.name, f"{first.name}\n\nFrom the library index: the only document {what} is "
                                            f"{_named(first)}.", ())
    by = ("by the year in its metadata, then by when it was indexed" if first.year is not None
          else "none of them has a year in its metadata: by when it was indexed")
    return Decided.answered(first.name, f"{first.name}\n\nFrom the library index: the {which} of the {len(matched)} "
                                        f"documents {what} is {_named(first)} ({by})." +
                            "\nThen: " + "; ".join(_named(e) for e in order[1:1 + RANKED]) + ".", ())


def _header(ctx: MethodContext, asked: LibraryQuestion, entries, matched, pages) -> str:
    n, total = len(matched), len(entries)
    if not asked.filtered:
        pages_total = sum(e.pages for e in matched)
        return f"From the library index: {n} document{_s(n)} {_where(ctx)} ({pages_total:,} page{_s(pages_total)})"
    if asked.of == PAGES:
        count = sum(len(_pages_of(e, pages)) if asked.mentions else e.pages for e in matched)
        if asked.mentions:
            return (f"From the library index: {count:,} page{_s(count)} in {n} of the {total} documents "
                    f"{_where(ctx)} {'mention' if count != 1 else 'mentions'} “{asked.mentions}”" +
                    (f" (documents that {_predicate(asked, n, mentions=False)})" if asked.author or asked.year else ""))
        return (f"From the library index: {n} of the {total} documents {_where(ctx)} {_predicate(asked, n)}, "
                f"with {count:,} page{_s(count)}")
    return f"From the library index: {n} of the {total} documents {_where(ctx)} {_predicate(asked, n)}"


def _predicate(asked: LibraryQuestion, n: int, mentions: bool = True) -> str:
    """What the matched documents do: "mention “Florida”", "are by “Pew Research Center”", "are from 2020"."""
    one = n == 1
    parts = []
    if asked.mentions and mentions:
        parts.append(f"{'mentions' if one else 'mention'} “{asked.mentions}”")
    if asked.author:
        parts.append(f"{'is' if one else 'are'} by “{asked.author}” (named in {'its' if one else 'their'} "
                     f"metadata's authors or on {'its' if one else 'their'} first page)")
    if asked.year is not None:
        parts.append(f"{'is' if one else 'are'} from {asked.year} (the year in {'its' if one else 'their'} metadata)")
    return " and ".join(parts)


def _none_text(ctx: MethodContext, asked: LibraryQuestion, searched: int) -> str:
    """'No document in the library mentions “X” (22 searched).'"""
    if not searched:
        return "From the library index: no document is indexed" + (" among those asked about." if ctx.answer.scope
                                                                    else " yet.")
    what = f" {_predicate(asked, 1)}" if asked.filtered else ""
    read = ", every page read" if asked.mentions or asked.author else ""
    return f"No document {_where(ctx)}{what} ({searched} searched{read}; from the library index)."


def _where(ctx: MethodContext) -> str:
    return "asked about" if ctx.answer.scope else "in the library"


def _lines(asked: LibraryQuestion, matched: list[CatalogueEntry], pages: dict[int, list[int]]) -> str:
    lines = []
    for entry in matched[:MAX_LISTED]:
        found = pages.get(entry.doc_id, [])
        where = ""
        if found:
            shown = ", ".join(map(str, found[:MAX_PAGES_NAMED])) + (", …" if len(found) > MAX_PAGES_NAMED else "")
            where = f": page{_s(len(found))} {shown}"
        lines.append(f"- {_named(entry)}{where}")
    if len(matched) > MAX_LISTED:
        lines.append(f"… and {len(matched) - MAX_LISTED} more (all of them in the short answer)")
    return "\n".join(lines)


def _named(entry: CatalogueEntry) -> str:
    """'report.pdf — “Harbour Solar Report”, Pew Research Center, 2020' (what the catalogue knows)."""
    about = ", ".join(part for part in (f"“{entry.title}”" if entry.title else "", entry.authors,
                                        str(entry.year) if entry.year is not None else "") if part)
    return entry.name + (f" — {about}" if about else "")


def _pages_of(entry: CatalogueEntry, pages: dict[int, list[int]]) -> list[int]:
    return pages.get(entry.doc_id) or list(range(1, entry.pages + 1))


def _s(n: int) -> str:
    return "" if n == 1 else "s"

