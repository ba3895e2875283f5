"""Change counters for the in-RAM search structures (keyword index, chunk vectors): every transaction that changes
what they hold bumps its counter, so a search learns that nothing changed from one row instead of a scan."""
from __future__ import annotations

KEYWORDS = "keywords_version"
CHUNKS = "chunks_version"


def bump_sql(name: str) -> str:
    """The statement bumping counter `name` (one of the constants above), for SQL scripts."""
    return (f"INSERT OR REPLACE INTO meta VALUES ('{name}', CAST(coalesce((SELECT CAST(value AS BIGINT) FROM meta "
            f"WHERE key = '{name}'), 0) + 1 AS VARCHAR))")


def bump(cur, name: str) -> None:
    cur.execute(bump_sql(name))


def current(cur, name: str) -> str | None:
    row = cur.execute("SELECT value FROM meta WHERE key = ?", [name]).fetchone()
    return row[0] if row else None
