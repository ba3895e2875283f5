"""`docqa eval` end to end on two corpus PDFs with the built-in SmolLM2: results, scores, report,
charts, and resuming after an interruption without asking finished questions again."""
from __future__ import annotations

import json
import threading

import pymupdf
import pytest

from conftest import REPORT_15, SMALL_PAPER, corpus_pdf
from docqa_desktop.cli import main
from docqa_desktop.evaluation import load_questions
from docqa_desktop.evaluation.scoring import score
from docqa_desktop.service import Service
from docqa_desktop.settings import Settings

QUESTIONS = [  # labelled by reading the pages
    {"doc": REPORT_15, "question": "Which agency submitted the Integrated Personnel Management System business case?",
     "answer": "Department of State", "answer_format": "Str", "evidence_pages": [1],
     "evidence_sources": ["Pure-text (Plain-text)"]},
    {"doc": SMALL_PAPER, "question": "What does BRLM stand for?", "answer": "BRidge Language Modeling",
     "answer_format": "Str", "evidence_pages": [3], "evidence_sources": ["Figure", "Pure-text (Plain-text)"]},
    {"doc": SMALL_PAPER, "question": "What is the capital of Peru according to the paper?",
     "answer": "Not answerable", "answer_format": "None", "evidence_pages": [], "evidence_sources": []},
]
METHODS = ["simpledoc", "m3docrag"]
SMALL_BUDGET = {"DOCQA_ASK_K": "2", "DOCQA_ASK_MAX_PAGES": "1", "DOCQA_ASK_PAGE_TOKENS": "150",
                "DOCQA_ASK_SUMMARY_TOKENS": "24", "DOCQA_ASK_ITERATIONS": "1", "DOCQA_LLM_THREADS": "1",
                "DOCQA_INDEX_LAYOUT": "0", "DOCQA_INDEX_DENSE": "0"}


@pytest.fixture
def eval_setup(tmp_path, monkeypatch):
    for key, value in SMALL_BUDGET.items():
        monkeypatch.setenv(key, value)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in (SMALL_PAPER, REPORT_15):  # read in place, as the corpus licence asks
        (corpus / name).symlink_to(corpus_pdf(name))
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return tmp_path / "home", corpus, questions, tmp_path / "out"


def _lines(path):
    return path.read_text(encoding="utf-8").splitlines()


@pytest.mark.model
def test_eval_scores_reports_and_resumes(eval_setup, capsys):
    home, corpus, questions, out = eval_setup
    # first run: interrupted right after its first answer (as Ctrl-C would)
    cancel = threading.Event()

    def progress(message):
        if message.startswith("[1/"):
            cancel.set()

    with Service(Settings.load(home)) as service:
        outcome = service.answers.evaluate(load_questions(questions), corpus, METHODS, out, say=progress,
                                           cancel=cancel)
        assert service.answers.history() == []  # evaluation answers stay out of the user's history
    assert outcome.cancelled and outcome.ran == 1
    first_line = _lines(out / "results.jsonl")[0]
    with (out / "results.jsonl").open("a") as fh:
        fh.write('{"qid": "cut by a crash')  # a write that never finished

    # second run through the command line resumes: only the five missing results are computed
    assert main(["--home", str(home), "eval", str(questions), "--corpus", str(corpus),
                 "--method", "simpledoc", "--method", "m3docrag", "--out", str(out), "--judge"]) == 0
    assert "5 answered now, 1 from earlier runs" in capsys.readouterr().out
    lines = _lines(out / "results.jsonl")
    assert lines[0] == first_line and len(lines) == 6
    records = [json.loads(line) for line in lines]
    assert sorted((r["qid"], r["method"]) for r in records) == sorted(
        (q.id, m) for q in load_questions(questions) for m in METHODS)

    pages_in = {SMALL_PAPER: pymupdf.open(corpus_pdf(SMALL_PAPER)).page_count,
                REPORT_15: pymupdf.open(corpus_pdf(REPORT_15)).page_count}
    for r in records:
        assert r["status"] in ("unverified", "passages", "not_found"), r["error"]  # the built-in model's drafts
        assert r["pages_used"] and all(1 <= p <= pages_in[r["doc"]] for p in r["pages_used"])
        assert r["llm_calls"] >= 1 and r["prompt_tokens"] > 0 and r["output_tokens"] > 0 and r["seconds"] > 0
        assert r["score"] == pytest.approx(score(r["gold"], r["extracted"], r["answer_format"]), abs=1e-4)
        if r["evidence_pages"]:
            hit = set(r["evidence_pages"]) & set(r["pages_used"])
            assert r["page_metrics"]["recall"] == len(hit) / len(r["evidence_pages"])
            assert r["page_metrics"]["precision"] == len(hit) / len(r["pages_used"])
        else:
            assert r["page_metrics"] is None
        if r["status"] == "not_found":
            assert r["extracted"] == "Not answerable"
        if r is not records[0]:  # the first run had no --judge
            assert r["judge"].get("correct") in (0, 1) or r["judge"]["error"]
        cited = {(c["doc"], c["page"]) for c in r["citations"]}
        assert cited <= {(r["doc"], p) for p in r["pages_used"]}
        # every call's output is kept, and what each stage of the method kept
        assert all(c["output"].strip() and c["pages"] for c in r["calls"]), r["calls"]
        assert r["stage_pages"]["read"] == r["pages_used"]
        # llama.cpp's cached prompt prefix, counted per call and per question
        assert r["cached_tokens"] == sum(c["cached_tokens"] for c in r["calls"]) <= r["prompt_tokens"]
        assert set(r["stage_pages"]["retrieved"]) and list(r["stage_pages"])[0] == "retrieved"
        if r["evidence_pages"]:
            assert r["stage_metrics"]["read"] == r["page_metrics"]

    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| generalized accuracy % |" in report
    assert "|  | m3docrag | simpledoc |" in report  # side by side
    assert "| judge agrees with rules % |" in report
    assert "| prompt tokens from the cache % |" in report
    assert "| page recall / all-hit % by stage | retrieved " in report  # m3docrag: retrieved → read
    assert "→ selected " in report and "→ read " in report  # simpledoc's stages too
    for heading in ("Accuracy by evidence source", "Accuracy by evidence pages", "Accuracy by answer format"):
        assert heading in report
    for chart in ("accuracy_by_source.png", "cost_vs_accuracy.png"):
        assert f"]({chart})" in report
        png = (out / chart).read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 5000
    run = json.loads((out / "run.json").read_text())
    assert run["models"]["text"] == "smollm2-135m-instruct" and run["method_settings"]["simpledoc"]["k"] == 2

    # a third run has nothing left to ask; --limit narrows the report to the first question
    assert main(["--home", str(home), "eval", str(questions), "--corpus", str(corpus), "--method", "m3docrag",
                 "--limit", "1", "--out", str(out)]) == 0
    assert "0 answered now, 1 from earlier runs" in capsys.readouterr().out
    assert len(_lines(out / "results.jsonl")) == 6
    assert "(1 results, 1 questions, methods: m3docrag)" in (out / "report.md").read_text(encoding="utf-8")


def test_eval_names_missing_documents_and_bad_question_files(eval_setup, capsys):
    home, corpus, questions, out = eval_setup
    (corpus / SMALL_PAPER).unlink()
    assert main(["--home", str(home), "eval", str(questions), "--corpus", str(corpus), "--out", str(out)]) == 2
    assert f"lacks the question documents: {SMALL_PAPER}" in capsys.readouterr().err
    questions.write_text('{"doc": "x.pdf", "question": "Q", "answer": 1, "answer_format": "Number"}\n')
    assert main(["--home", str(home), "eval", str(questions), "--corpus", str(corpus), "--out", str(out)]) == 2
    assert "questions.jsonl:1: answer_format 'Number'" in capsys.readouterr().err


def test_report_only_rebuilds_the_report_from_saved_results(eval_setup, capsys):
    """Hand-made answers through the real record builder; the report's figures checked by hand."""
    from docqa_desktop.answers import Answer, AnswerStatus, PageRef
    from docqa_desktop.evaluation.runner import result_record

    home, corpus, questions, out = eval_setup
    qs = load_questions(questions)

    def answer(q, text, status, pages):
        return Answer(id="x", question=q.question, method="m3docrag", text=text, status=status,
                      pages_used=[PageRef(1, q.doc, str(corpus / q.doc), p, str(p)) for p in pages])

    out.mkdir()
    records = [result_record(qs[0], "m3docrag", answer(qs[0], "Department of State.", AnswerStatus.ANSWERED, [1, 2])),
               result_record(qs[1], "m3docrag", answer(qs[1], "It is about pivots", AnswerStatus.ANSWERED, [4])),
               result_record(qs[2], "m3docrag", answer(qs[2], "No.", AnswerStatus.NOT_FOUND, [2]))]
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert main(["--home", str(home), "eval", str(questions), "--corpus", str(corpus), "--out", str(out),
                 "--report-only"]) == 0
    report = (out / "report.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in report.splitlines()
            if line.startswith("| ") and line.count("|") == 3}
    assert rows["generalized accuracy %"] == "66.7"  # scores 1, 0, 1
    assert rows["F1 %"] == "50.0"  # recall 1/2 over answerable, precision 1/2 over attempted
    assert rows["page recall %"] == "50.0" and rows["page precision %"] == "25.0"  # (1 + 0) / 2, (1/2 + 0) / 2
    assert rows["page F1 %"] == "33.3" and rows["all-hit %"] == "50.0"
    assert rows["answered / unverified / passages / not found / failed"] == "2 / 0 / 0 / 1 / 0"
    assert rows["precision of answered %"] == "50.0 (1 of 2)" and rows["declined on unanswerable %"] == "100.0 (1 of 1)"
    assert "| unanswerable | 1 | 100.0 |" in report and "| single-page | 2 | 50.0 |" in report
    assert "indexing" not in capsys.readouterr().err  # nothing was indexed or asked


def test_a_report_without_results_says_so(eval_setup):
    home, corpus, questions, out = eval_setup
    out.mkdir()
    (out / "results.jsonl").write_text("", encoding="utf-8")
    assert main(["--home", str(home), "eval", str(questions), "--corpus", str(corpus), "--out", str(out),
                 "--report-only"]) == 0
    assert "No results yet" in (out / "report.md").read_text(encoding="utf-8")
