"""Labelled questions in MMLongBench-Doc's format: JSON lines (one object a line), or the release's own
samples.json (one JSON array). Its fields as the release writes them are read too: `doc_id` for `doc`, lists
written as strings ("[25]", "['Table', 'Chart']")."""
from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import DocQAError
from .scoring import FORMATS, is_not_answerable

SINGLE, MULTI, UNANSWERABLE, LIBRARY = "single-page", "multi-page", "unanswerable", "library"
LIBRARY_DOC = "*"  # a question's doc meaning the whole corpus folder: a question about the library itself


class QuestionFileError(DocQAError, ValueError):
    pass


@dataclass(frozen=True)
class EvalQuestion:
    id: str  # stable across runs: results are resumed by it
    doc: str  # file name inside the corpus folder, or LIBRARY_DOC
    question: str
    answer: str | list
    answer_format: str  # Str | Int | Float | List | None
    evidence_pages: tuple[int, ...]  # 1-based; empty when unanswerable
    evidence_sources: tuple[str, ...]

    @property
    def kind(self) -> str:
        if is_not_answerable(self.answer):
            return UNANSWERABLE
        if self.doc == LIBRARY_DOC:
            return LIBRARY  # answerable with or without evidence pages: its evidence is spread over documents
        if not self.evidence_pages:
            return UNANSWERABLE
        return SINGLE if len(self.evidence_pages) == 1 else MULTI


def _listish(value, field: str) -> list:
    """MMLongBench-Doc's release stores lists as strings ("[3, 5]"); accept both."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value) if value.strip() else []
        except (ValueError, SyntaxError):
            raise ValueError(f"{field} is not a list: {value!r}") from None
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{field} is not a list: {value!r}")
    return list(value)


def parse_question(data: dict, seen: dict[str, int]) -> EvalQuestion:
    doc = data.get("doc", data.get("doc_id"))  # the release names it doc_id
    missing = ["doc"] * (doc is None) + [k for k in ("question", "answer", "answer_format") if k not in data]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    if data["answer_format"] not in FORMATS:
        raise ValueError(f"answer_format {data['answer_format']!r} is not one of {', '.join(FORMATS)}")
    pages = [int(p) for p in _listish(data.get("evidence_pages", []), "evidence_pages")]
    if any(p < 1 for p in pages):
        raise ValueError(f"evidence_pages are 1-based: {pages}")
    key = hashlib.sha1(json.dumps([doc, data["question"], data["answer"]]).encode()).hexdigest()[:12]
    seen[key] = seen.get(key, 0) + 1  # the same question twice stays two questions
    return EvalQuestion(
        id=key if seen[key] == 1 else f"{key}-{seen[key]}", doc=str(doc), question=str(data["question"]),
        answer=_answer(data["answer"], data["answer_format"]), answer_format=data["answer_format"],
        evidence_pages=tuple(pages),
        evidence_sources=tuple(str(s) for s in _listish(data.get("evidence_sources", []), "evidence_sources")))


def _answer(value, answer_format: str):
    """A List answer as the release writes it, "['Reddit', 'Facebook']", becomes the list it spells."""
    if answer_format == "List" and isinstance(value, str) and value.strip().startswith("["):
        return _listish(value, "answer")
    return value


def _entries(path: Path, text: str):
    """(where, parsed object) per question: JSON lines, or one JSON array as in the release's samples.json."""
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            raise QuestionFileError(f"{path}: {exc}") from None
        yield from ((f"{path}: item {n}", item) for n, item in enumerate(items, 1))
        return
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                data = json.loads(line)
            except ValueError as exc:
                raise QuestionFileError(f"{path}:{number}: {exc}") from None
            yield f"{path}:{number}", data


def load_questions(path: str | Path) -> list[EvalQuestion]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionFileError(f"cannot read questions from {path}: {exc}") from None
    seen: dict[str, int] = {}
    questions = []
    for where, data in _entries(path, text):
        try:
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            questions.append(parse_question(data, seen))
        except ValueError as exc:
            raise QuestionFileError(f"{where}: {exc}") from None
    if not questions:
        raise QuestionFileError(f"{path}: no questions")
    return questions
