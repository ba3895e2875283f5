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
