"""Who wrote the document: its authors as the library index holds them, cited where page 1 names them."""
from __future__ import annotations

import json

from ...answers import PageRef
from ..base import Decided, MethodContext
from ..citations import cite
from ..extractive.authorship import FIRST, author_names
from ..extractive.matching import WordSet, stem

CONFIDENCE = 0.9


def answer_authors(ctx: MethodContext, asked: str, pages: list[PageRef]) -> bool:
    """Answer an authorship question about the one document in scope (or the one all retrieved pages belong
    to); False, with nothing changed, when that document is not one, has no authors on record, or its first
    page does not name them as recorded."""
    entries = {entry.doc_id: entry for entry in ctx.catalogue()}
    documents = set(entries) if len(entries) == 1 else {ref.doc_id for ref in pages}
    if len(documents) != 1 or next(iter(documents)) not in entries:
        return False
    entry = entries[next(iter(documents))]
    names = author_names(entry.authors)[:1 if asked == FIRST else None]
    first_page = ctx.pages.refs_for([(entry.doc_id, 1)])
    if not names or not first_page or not _all_named(ctx.pages.text_or_empty(first_page[0]), names):
        return False
    who = "The first author" if asked == FIRST else "The authors"
    ctx.decide(Decided.answered(
        names[0] if asked == FIRST else json.dumps(names),
        f"{names[0] if asked == FIRST else ', '.join(names)}\n\n{who} of {entry.name}, as its first page names them "
        f"(the library index: {entry.authors})",
        cite(ctx.pages, [(first_page[0], name) for name in names], names[0], first_page),
        "Str" if asked == FIRST else "List", confidence=CONFIDENCE))
    ctx.answer.pages_used = first_page
    return True


def _all_named(text: str, names: list[str]) -> bool:
    words = WordSet(text)
    return all(all(words.has(stem(part), part.lower()) for part in name.split()) for name in names)
