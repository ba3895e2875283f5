"""Question-and-answer history: one row per answer, the whole record as JSON."""
from __future__ import annotations

import json
from collections.abc import Iterable

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


def question_timings(cur, model_free: Iterable[str] = (), last: int = 20) -> dict[tuple[str, str], tuple[float, int]]:
    """What questions took on this machine, by (method, model): the median seconds of the method's newest `last`
    finished answers asked while that model served text tasks, and how many that is. An answer kept before the
    serving model was recorded counts for the models it called, and for none when it called none (whose time it
    was is not known: a quote that needed no model took a second, whatever the model). A method in `model_free`
    (the quoted reader: it calls no model) is timed whatever the model, under the model ""."""
    rows = cur.execute(
        "WITH finished AS ("
        "  SELECT method, created_at, rowid AS n, CAST(json_extract(record, '$.seconds') AS DOUBLE) AS seconds,"
        "         CASE WHEN list_contains(CAST(? AS VARCHAR[]), method) THEN ['']"
        "              WHEN coalesce(json_extract_string(record, '$.text_model'), '') <> ''"
        "                THEN [json_extract_string(record, '$.text_model')]"
        "              ELSE list_distinct(json_extract_string(record, '$.calls[*].model')) END AS served"
        "  FROM answers WHERE json_extract_string(record, '$.status') IN (SELECT unnest(?))),"
        " by_model AS (SELECT method, created_at, n, seconds, unnest(served) AS model FROM finished),"
        " newest AS ("
        "  SELECT method, model, seconds,"
        "         row_number() OVER (PARTITION BY method, model ORDER BY created_at DESC, n DESC) AS rank"
        "  FROM by_model)"
        " SELECT method, model, median(seconds), count(*) FROM newest WHERE rank <= ? GROUP BY method, model",
        [list(model_free), list(FINISHED), last]).fetchall()
    return {(method, model): (float(seconds), count) for method, model, seconds, count in rows}


def model_calls(cur, answers: int = 100) -> dict[str, tuple[int, int, float, int]]:
    """How the models ran here, by model: the prompt tokens they read (less those reused from the cache), the
    tokens they wrote, the seconds it took and the number of calls, over the calls of the newest `answers`
    answers (any outcome: a call that returned was whole)."""
    rows = cur.execute(
        "WITH recent AS (SELECT record FROM answers ORDER BY created_at DESC, rowid DESC LIMIT ?),"
        " calls AS (SELECT unnest(from_json(json_extract(record, '$.calls'),"
        "   '[{\"model\": \"VARCHAR\", \"prompt_tokens\": \"BIGINT\", \"cached_tokens\": \"BIGINT\","
        "     \"output_tokens\": \"BIGINT\", \"seconds\": \"DOUBLE\"}]')) AS c FROM recent)"
        " SELECT c.model, sum(c.prompt_tokens - coalesce(c.cached_tokens, 0)), sum(c.output_tokens), sum(c.seconds),"
        "        count(*) FROM calls GROUP BY c.model",
        [answers]).fetchall()
    return {model: (int(prompt), int(output), float(seconds), count) for model, prompt, output, seconds, count in rows}
