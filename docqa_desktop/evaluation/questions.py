"""Labelled questions in MMLongBench-Doc's JSON-lines format (one object a line)."""
from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import DocQAError
from .scoring import FORMATS, is_not_answerable

SINGLE, MULTI, UNANSWERABLE = "single-page", "multi-page", "unanswerable"


class QuestionFileError(DocQAError, ValueError):
    pass


@dataclass(frozen=True)
class EvalQuestion:
    id: str  # stable across runs: results are resumed by it
    doc: str  # file name inside the corpus folder
    question: str
    answer: str | list
    answer_format: str  # Str | Int | Float | List | None
    evidence_pages: tuple[int, ...]  # 1-based; empty when unanswerable
    evidence_sources: tuple[str, ...]

    @property
    def kind(self) -> str:
        if is_not_answerable(self.answer) or not self.evidence_pages:
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
    missing = [k for k in ("doc", "question", "answer", "answer_format") if k not in data]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    if data["answer_format"] not in FORMATS:
        raise ValueError(f"answer_format {data['answer_format']!r} is not one of {', '.join(FORMATS)}")
    pages = [int(p) for p in _listish(data.get("evidence_pages", []), "evidence_pages")]
    if any(p < 1 for p in pages):
        raise ValueError(f"evidence_pages are 1-based: {pages}")
    key = hashlib.sha1(json.dumps([data["doc"], data["question"], data["answer"]]).encode()).hexdigest()[:12]
    seen[key] = seen.get(key, 0) + 1  # the same question twice stays two questions
    return EvalQuestion(
        id=key if seen[key] == 1 else f"{key}-{seen[key]}", doc=str(data["doc"]), question=str(data["question"]),
        answer=data["answer"], answer_format=data["answer_format"], evidence_pages=tuple(pages),
        evidence_sources=tuple(str(s) for s in _listish(data.get("evidence_sources", []), "evidence_sources")))


def load_questions(path: str | Path) -> list[EvalQuestion]:
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionFileError(f"cannot read questions from {path}: {exc}") from None
    seen: dict[str, int] = {}
    questions = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            questions.append(parse_question(data, seen))
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            raise QuestionFileError(f"{path}:{number}: {exc}") from None
    if not questions:
        raise QuestionFileError(f"{path}: no questions")
    return questions
