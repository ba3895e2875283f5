"""Question-and-answer history: one row per answer, the whole record as JSON."""
from __future__ import annotations

import json

from ..answers import Answer


def save_answer(cur, answer: Answer) -> None:
    cur.execute("DELETE FROM answers WHERE id = ?", [answer.id])
    cur.execute("INSERT INTO answers (id, question, method, record) VALUES (?, ?, ?, ?)",
                [answer.id, answer.question, answer.method, json.dumps(answer.as_record(), ensure_ascii=False)])


def load_answer(cur, answer_id: str) -> Answer | None:
    row = cur.execute("SELECT record, strftime(created_at, '%Y-%m-%d %H:%M:%S') FROM answers WHERE id = ?",
                      [answer_id]).fetchone()
    return _answer(*row) if row else None


def count_answers(cur) -> int:
    return cur.execute("SELECT count(*) FROM answers").fetchone()[0]


def recent_answers(cur, limit: int | None = 50) -> list[Answer]:
    """The newest `limit` answers, newest first (None: all of them)."""
    rows = cur.execute("SELECT record, strftime(created_at, '%Y-%m-%d %H:%M:%S') FROM answers "
                       "ORDER BY created_at DESC, rowid DESC LIMIT ?", [limit]).fetchall()
    return [_answer(*row) for row in rows]


def _answer(record: str, created_at: str) -> Answer:
    answer = Answer.from_record(json.loads(record))
    answer.created_at = created_at
    return answer


def thread_answers(cur, thread_id: str) -> list[Answer]:
    """Every answer of a thread (the one that started it and its follow-ups), oldest first."""
    rows = cur.execute("SELECT record, strftime(created_at, '%Y-%m-%d %H:%M:%S') FROM answers "
                       "WHERE id = ? OR json_extract_string(record, '$.thread') = ? ORDER BY created_at, rowid",
                       [thread_id, thread_id]).fetchall()
    return [_answer(*row) for row in rows]


# The answers a method ran to the end: their time is what a question takes (a failed or stopped one is cut short).
FINISHED = ("answered", "unverified", "passages", "not_found")


def method_timings(cur, model: str, last: int = 20) -> dict[str, tuple[float, int]]:
    """What questions took on this machine with `model`: by method, the median seconds of its newest `last`
    finished answers that the model wrote in or that called no model (the quoted reader; a cascade whose quote
    needed no choice: its time whatever the model), and how many that is."""
    rows = cur.execute(
        "WITH finished AS ("
        "  SELECT method, created_at, rowid AS n, CAST(json_extract(record, '$.seconds') AS DOUBLE) AS seconds,"
        "         json_extract_string(record, '$.calls[*].model') AS models"
        "  FROM answers WHERE json_extract_string(record, '$.status') IN (SELECT unnest(?))),"
        " newest AS ("
        "  SELECT method, seconds, row_number() OVER (PARTITION BY method ORDER BY created_at DESC, n DESC) AS rank"
        "  FROM finished WHERE len(models) = 0 OR list_contains(models, ?))"
        " SELECT method, median(seconds), count(*) FROM newest WHERE rank <= ? GROUP BY method",
        [list(FINISHED), model, last]).fetchall()
    return {method: (float(seconds), count) for method, seconds, count in rows}
