"""`ask` end to end with real models on a real corpus PDF: the built-in SmolLM2 (text) and the tiny
random Qwen2-VL (vision path: page images reach the model). Answers are weak; the path must be sound."""
from __future__ import annotations

import dataclasses
import json
import re

import pytest

from conftest import tiny_vlm_settings
from docqa_desktop.answers import AnswerStatus
from docqa_desktop.cli import main
from docqa_desktop.service import Service

pytestmark = pytest.mark.model

SMALL_BUDGET = dict(k=2, max_pages=1, page_tokens=150, summary_tokens=24, iterations=1)  # [ask]: every method


@pytest.fixture
def small_service(home, paper):
    settings = tiny_vlm_settings(home, layout=False, dense=False)
    settings = dataclasses.replace(settings, tables={**settings.tables, "ask": SMALL_BUDGET})
    with Service(settings) as service:
        service.library.index([str(paper)])
        yield service


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def assert_sound(service, answer):
    # the built-in 135M model and the tiny VLM are below the model methods' floor: a draft, never "answered"; a
    # refusal on pages about the question ends as the closest passages (methods/verdict.py)
    assert answer.status in (AnswerStatus.UNVERIFIED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND), answer.error
    assert answer.pages_used and answer.calls
    assert all(c.prompt_tokens > 0 and c.output_tokens > 0 and c.seconds > 0 for c in answer.calls)
    seen = {(p.doc, p.page) for p in answer.pages_used}
    for citation in answer.citations:
        assert (citation.doc, citation.page) in seen
        words = service.resources.db.cursor().execute(
            "SELECT string_agg(text, ' ' ORDER BY seq) FROM words WHERE page = ?", [citation.page]).fetchone()[0]
        assert citation.quote in _normalise(words)
    assert service.answers.answer(answer.id).text == answer.text


@pytest.mark.parametrize("method", ["simpledoc", "m3docrag"])
def test_builtin_model_answers_with_sound_citations(small_service, method):
    answer = small_service.answers.ask("Which pivot language is used for translation?", method=method)
    assert_sound(small_service, answer)
    assert {c.model for c in answer.calls} == {"smollm2-135m-instruct"}
    if method == "simpledoc":
        assert [c.step for c in answer.calls][-2:] == ["select pages", "reason 1"]


def test_vision_model_reads_page_images(small_service, tiny_vlm_files):
    small_service.models.import_file(*tiny_vlm_files, name="tiny-vl")
    answer = small_service.answers.ask("What does the first figure show?", method="m3docrag")
    assert_sound(small_service, answer)
    [call] = answer.calls
    assert call.model == "tiny-vl"
    assert call.prompt_tokens > 300  # the page image's tokens, not only the words
    # SimpleDoc by name (auto picks quoted answers for a model this small): summaries from page images
    answer = small_service.answers.ask("What does the first figure show?", method="simpledoc")
    assert answer.status in (AnswerStatus.UNVERIFIED, AnswerStatus.NOT_FOUND), answer.error
    assert any(c.step.startswith("summary") for c in answer.calls) or answer.calls[0].step == "select pages"


def test_ask_cli_json_shape(small_service, home, capsys, monkeypatch):
    small_service.close()
    for field, value in SMALL_BUDGET.items():  # the command line reads settings from the home and the environment
        monkeypatch.setenv(f"DOCQA_ASK_{field.upper()}", str(value))
    code = main(["ask", "Which pivot language is used?", "--method", "m3docrag", "--json", "--home", str(home)])
    printed = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    # an unverified draft says why under "proof"
    assert set(printed) - {"proof"} == {"id", "answer", "short_answer", "answer_format", "status", "citations", "pages_used", "method", "thread", "iterations",
                            "llm_calls", "prompt_tokens", "output_tokens", "seconds"}
    for citation in printed["citations"]:
        assert set(citation) == {"doc", "path", "page", "label", "bbox", "quote"}
