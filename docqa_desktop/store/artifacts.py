"""Text a model derived from a page or a page element, for any method.

A row is keyed by (kind, doc_id, page, item) and remembers the model that wrote it: `kind` names what it is, in
the words of the method or toolkit part that owns it (the store keeps any kind and names none), `item` which
part of the page (an element's seq; 0 for the page itself). There is one row per key: writing a key again
replaces its text, whatever model wrote the old one. Rows go with their document (catalog.drop_orphan_documents) and survive `docqa repair` (store/repair.py).
"""
from __future__ import annotations

from . import enrichment
from .catalog import LIVE_DOCUMENTS, listed
from .database import Database

Key = tuple[int, int, int]  # (doc_id, page, item)


def _keys_table(keys: list[Key]) -> tuple[str, list]:
    sql = ("(SELECT unnest(?::BIGINT[]) AS doc_id, unnest(?::INTEGER[]) AS page, "
           "unnest(?::INTEGER[]) AS item)")
    return sql, [[d for d, _, _ in keys], [p for _, p, _ in keys], [i for _, _, i in keys]]


def get_many(cur, kind: str, keys: list[Key], model: str) -> dict[Key, str]:
    """{(doc_id, page, item): text} for the keys that have a text of `kind` written by `model`."""
    if not keys:
        return {}
    wanted, params = _keys_table(keys)
    rows = cur.execute(
        "SELECT a.doc_id, a.page, a.item, a.value FROM artifacts a "
        f"JOIN {wanted} w ON a.doc_id = w.doc_id AND a.page = w.page AND a.item = w.item "
        "WHERE a.kind = ? AND a.model = ?", params + [kind, model]).fetchall()
    return {(d, p, i): v for d, p, i, v in rows}


def latest(cur, kind: str, keys: list[Key]) -> dict[Key, tuple[str, str]]:
    """{(doc_id, page, item): (model, text)} for the keys that have a text of `kind` by any model."""
    if not keys:
        return {}
    wanted, params = _keys_table(keys)
    rows = cur.execute(
        "SELECT DISTINCT ON (a.doc_id, a.page, a.item) a.doc_id, a.page, a.item, a.model, a.value "
        f"FROM artifacts a JOIN {wanted} w ON a.doc_id = w.doc_id AND a.page = w.page AND a.item = w.item "
        "WHERE a.kind = ? ORDER BY a.doc_id, a.page, a.item, a.created_at DESC",
        params + [kind]).fetchall()
    return {(d, p, i): (m, v) for d, p, i, m, v in rows}


def put(cur, kind: str, doc_id: int, page: int, item: int, model: str, value: str) -> None:
    """Store one text, replacing the key's older one (by another model, or for a re-parsed page)."""
    cur.execute("DELETE FROM artifacts WHERE kind = ? AND doc_id = ? AND page = ? AND item = ?",
                [kind, doc_id, page, item])
    cur.execute("INSERT INTO artifacts (kind, doc_id, page, item, model, value) VALUES (?, ?, ?, ?, ?, ?)",
                [kind, doc_id, page, item, model, value])


def missing_pages(cur, kind: str, doc_ids: list[int] | None, model: str) -> list[tuple[int, int]]:
    """(doc_id, page) of the pages of `doc_ids` (None: every document) with no text of `kind` by `model`, in the
    background passes' document order (store/enrichment.py)."""
    scope = "" if doc_ids is None else f"AND p.doc_id IN ({listed(doc_ids)})"
    return [tuple(r) for r in cur.execute(
        f"SELECT p.doc_id, p.page FROM pages p LEFT JOIN ({enrichment.PRIORITY}) o ON o.doc_id = p.doc_id "
        "WHERE NOT EXISTS (SELECT 1 FROM artifacts a "
        "WHERE a.doc_id = p.doc_id AND a.page = p.page AND a.kind = ? AND a.model = ?) "
        f"{scope} ORDER BY o.rank NULLS LAST, p.doc_id, p.page", [kind, model]).fetchall()]


def count(cur, kind: str, doc_ids: list[int] | None, model: str | None) -> int:
    """How many texts of `kind` by `model` (None: any model) the documents (None: all) have."""
    sql = "SELECT count(*) FROM artifacts WHERE kind = ?"
    params: list = [kind]
    if model is not None:
        sql += " AND model = ?"
        params.append(model)
    if doc_ids is not None:
        sql += " AND doc_id IN (SELECT unnest(?::BIGINT[]))"
        params.append(list(doc_ids))
    return cur.execute(sql, params).fetchone()[0]



def page_counts(cur, kind: str) -> tuple[int, int]:
    """(pages of the live library with a page text of `kind` by any model, pages without one)."""
    live = f"doc_id IN ({LIVE_DOCUMENTS})"
    done = cur.execute(f"SELECT count(DISTINCT (doc_id, page)) FROM artifacts WHERE {live} AND kind = ? "
                       "AND item = 0", [kind]).fetchone()[0]
    return done, enrichment.live_pages(cur) - done


class ArtifactStore:
    """The artifacts as an answering method gets them (`ctx.artifacts`: the Artifacts port, methods/ports.py):
    each call its own read or transaction, and no database in sight. The owner of a kind spells it,
    "<owner>.<what>"."""

    def __init__(self, db: Database):
        self._db = db

    def get(self, kind: str, keys: list[Key], model: str) -> dict[Key, str]:
        """{key: text} for the keys that have a text of `kind` written by `model`."""
        return get_many(self._db.cursor(), kind, keys, model)

    def latest(self, kind: str, keys: list[Key]) -> dict[Key, tuple[str, str]]:
        """{key: (model, text)} for the keys that have a text of `kind` by any model, the newest."""
        return latest(self._db.cursor(), kind, keys)

    def put(self, kind: str, key: Key, model: str, value: str) -> None:
        """Store one text, replacing the key's older one."""
        with self._db.transaction() as cur:
            put(cur, kind, *key, model, value)

    def missing(self, kind: str, doc_ids: list[int] | None, model: str) -> list[tuple[int, int]]:
        """(doc_id, page) of the pages of `doc_ids` (None: every document) with no text of `kind` by `model`."""
        return missing_pages(self._db.cursor(), kind, doc_ids, model)

    def page_counts(self, kind: str) -> tuple[int, int]:
        """(pages of the live library with a text of `kind` by any model, pages without one)."""
        return page_counts(self._db.cursor(), kind)
