"""Question files as MMLongBench-Doc's release writes them, and questions about the whole library ("doc": "*")
run by the evaluation runner through stand-in ports (nothing indexed, no model)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from docqa_desktop.answers import Answer, AnswerStatus, PageRef
from docqa_desktop.domain import IndexReport
from docqa_desktop.evaluation import EvalError, EvalPorts, EvalRunner, load_questions
from docqa_desktop.evaluation.questions import LIBRARY, MULTI, SINGLE, UNANSWERABLE, QuestionFileError
from docqa_desktop.evaluation.report import write_report
from docqa_desktop.evaluation.scoring import score

SAMPLES = Path(__file__).resolve().parent.parent / "resources" / "samples"
SAMPLE_PDFS = ("harbour-solar-report.pdf", "ferry-memo-scanned.pdf")

RELEASE_LINES = [  # the fields as the release's samples.json spells them: doc_id, lists inside strings
    {"doc_id": "PH_2016.06.08_Economy-Final.pdf", "doc_type": "Research report / Introduction",
     "question": "Which platforms are named?", "answer": "['Reddit', 'Facebook']", "evidence_pages": "[25]",
     "evidence_sources": "['Table', 'Chart']", "answer_format": "List"},
    {"doc_id": "PH_2016.06.08_Economy-Final.pdf", "doc_type": "Research report / Introduction",
     "question": "How many adults were surveyed?", "answer": "1,138", "evidence_pages": "[3, 4]",
     "evidence_sources": "['Pure-text (Plain-text)']", "answer_format": "Int"},
    {"doc_id": "PH_2016.06.08_Economy-Final.pdf", "doc_type": "Research report / Introduction",
     "question": "What share of Germans agree?", "answer": "Not answerable", "evidence_pages": "[]",
     "evidence_sources": "[]", "answer_format": "None"},
]


def _write_lines(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_releases_own_fields_are_read(tmp_path):
    questions = load_questions(_write_lines(tmp_path / "release.jsonl", RELEASE_LINES))
    assert [q.doc for q in questions] == ["PH_2016.06.08_Economy-Final.pdf"] * 3
    assert [q.evidence_pages for q in questions] == [(25,), (3, 4), ()]
    assert [q.evidence_sources for q in questions] == [("Table", "Chart"), ("Pure-text (Plain-text)",), ()]
    assert [q.kind for q in questions] == [SINGLE, MULTI, UNANSWERABLE]
    assert questions[0].answer == ["Reddit", "Facebook"]  # the list the string spells, as dev.jsonl writes it
    assert questions[1].answer == "1,138"
    assert score(questions[0].answer, ["Facebook", "Reddit"], "List") == 1.0
    assert score(questions[1].answer, "1138", "Int") == 1.0

    # the same question spelled with "doc" keeps its id: results saved under either spelling are resumed
    as_doc = {("doc" if k == "doc_id" else k): v for k, v in RELEASE_LINES[1].items()}
    assert load_questions(_write_lines(tmp_path / "doc.jsonl", [as_doc]))[0].id == questions[1].id


def test_the_releases_samples_json_is_read_as_a_json_array(tmp_path):
    path = tmp_path / "samples.json"
    path.write_text(json.dumps(RELEASE_LINES, indent=4), encoding="utf-8")
    assert load_questions(path) == load_questions(_write_lines(tmp_path / "release.jsonl", RELEASE_LINES))
    path.write_text(json.dumps([RELEASE_LINES[0], {**RELEASE_LINES[1], "evidence_pages": "[0]"}]), encoding="utf-8")
    with pytest.raises(QuestionFileError, match=r"samples.json: item 2: evidence_pages are 1-based"):
        load_questions(path)


@pytest.mark.parametrize("field, value, message", [
    ("answer", "['Reddit', 'Facebook'", "answer is not a list"),
    ("evidence_pages", "25", "evidence_pages is not a list"),
    ("evidence_sources", "[Table]", "evidence_sources is not a list"),
])
def test_a_string_that_spells_no_list_is_named(tmp_path, field, value, message):
    path = _write_lines(tmp_path / "q.jsonl", [RELEASE_LINES[1], {**RELEASE_LINES[0], field: value}])
    with pytest.raises(QuestionFileError, match=rf"q.jsonl:2: {message}"):
        load_questions(path)


def test_a_question_without_doc_or_doc_id_is_refused(tmp_path):
    line = {k: v for k, v in RELEASE_LINES[1].items() if k != "doc_id"}
    with pytest.raises(QuestionFileError, match=r"q.jsonl:1: missing field\(s\) doc$"):
        load_questions(_write_lines(tmp_path / "q.jsonl", [line]))


# -- questions about the whole library -----------------------------------------------------------------------------

LIBRARY_QUESTION = {"doc": "*", "question": "Which documents mention the ferry?",
                    "answer": ["ferry-memo-scanned.pdf", "harbour-solar-report.pdf"], "answer_format": "List",
                    "evidence_pages": [], "evidence_sources": []}
ONE_DOC_QUESTION = {"doc": "harbour-solar-report.pdf", "question": "How many members did the cooperative have?",
                    "answer": "238", "answer_format": "Int", "evidence_pages": [2],
                    "evidence_sources": ["Pure-text (Plain-text)"]}


class StandInPorts:
    """What the runner asks of the app, recorded: the paths indexed, and each question's scope."""

    def __init__(self, index_errors: dict[str, str] | None = None):
        self.indexed: list[str] = []
        self.asked: dict[str, list[str]] = {}
        self.index_errors = index_errors or {}

    def ports(self) -> EvalPorts:
        return EvalPorts(self.index, self.ask, judge_model=lambda: None,
                         run_info=lambda methods: {"models": {}, "settings": {}, "method_settings": {}})

    def index(self, paths, progress, cancel) -> IndexReport:
        self.indexed = list(paths)
        return IndexReport(errors={p: reason for p, reason in self.index_errors.items() if p in paths})

    def ask(self, question, docs, method, cancel=None, save=True) -> Answer:
        self.asked[question] = list(docs)
        pages = [PageRef(n, os.path.basename(path), path, 2, "2") for n, path in enumerate(docs, 1)]
        text = ", ".join(sorted(os.path.basename(p) for p in docs)) if len(docs) > 1 else "238"
        return Answer(id="x", question=question, method=method, text=text, status=AnswerStatus.ANSWERED,
                      pages_used=pages, seconds=0.1)


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name in SAMPLE_PDFS:
        (folder / name).symlink_to(SAMPLES / name)
    (folder / "notes.txt").write_text("not a PDF", encoding="utf-8")  # not part of the library
    return folder


def test_a_library_question_is_asked_of_every_pdf_in_the_corpus(tmp_path, corpus):
    questions = load_questions(_write_lines(tmp_path / "q.jsonl", [LIBRARY_QUESTION, ONE_DOC_QUESTION]))
    assert [q.kind for q in questions] == [LIBRARY, SINGLE]  # answerable, though it names no evidence pages
    stand_in = StandInPorts()
    outcome = EvalRunner(stand_in.ports(), tmp_path / "out").run(questions, corpus, ["quoted"])

    library = sorted(str(corpus / name) for name in SAMPLE_PDFS)
    assert stand_in.indexed == library
    assert stand_in.asked == {LIBRARY_QUESTION["question"]: library,
                              ONE_DOC_QUESTION["question"]: [str(corpus / "harbour-solar-report.pdf")]}
    by_doc = {r["doc"]: r for r in outcome.records}
    assert by_doc["*"]["kind"] == LIBRARY and by_doc["*"]["score"] == 1.0
    assert by_doc["*"]["page_metrics"] is None  # page 2 of two documents is no evidence page of either
    assert by_doc["harbour-solar-report.pdf"]["page_metrics"]["recall"] == 1.0

    report = write_report(tmp_path / "out", outcome.records).read_text(encoding="utf-8")
    assert "| library | 1 | 100.0 |" in report and "| single-page | 1 | 100.0 |" in report
    assert "| multi-page |" not in report  # a kind no question has is left out
    assert "| * | Which documents mention the ferry? |" in report


def test_a_library_question_fails_when_a_corpus_pdf_could_not_be_indexed(tmp_path, corpus):
    questions = load_questions(_write_lines(tmp_path / "q.jsonl", [LIBRARY_QUESTION]))
    scanned = str(corpus / "ferry-memo-scanned.pdf")
    stand_in = StandInPorts(index_errors={scanned: "damaged"})
    outcome = EvalRunner(stand_in.ports(), tmp_path / "out").run(questions, corpus, ["quoted"])
    assert stand_in.asked == {}  # an answer over part of the library would be judged as one over all of it
    assert outcome.records[0]["status"] == "failed" and outcome.records[0]["error"] == f"{scanned}: damaged"


def test_a_library_question_needs_pdfs_and_missing_documents_are_still_named(tmp_path, corpus):
    questions = load_questions(_write_lines(tmp_path / "q.jsonl", [LIBRARY_QUESTION]))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(EvalError, match="has no PDFs"):
        EvalRunner(StandInPorts().ports(), tmp_path / "out").run(questions, empty, ["quoted"])
    questions = load_questions(_write_lines(tmp_path / "q.jsonl", [LIBRARY_QUESTION, {**ONE_DOC_QUESTION,
                                                                                      "doc": "gone.pdf"}]))
    with pytest.raises(EvalError, match=r"lacks the question documents: gone.pdf$"):
        EvalRunner(StandInPorts().ports(), tmp_path / "out").run(questions, corpus, ["quoted"])
