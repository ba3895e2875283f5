"""Trust figures of `docqa eval`: precision of answered, coverage, answered but wrong, declined on unanswerable,
legacy "not_answerable" results, the risk–coverage table, and where report.md and figures.json show them."""
from __future__ import annotations

import json

import pytest

from docqa_desktop.answers import Answer, AnswerStatus
from docqa_desktop.evaluation.questions import EvalQuestion
from docqa_desktop.evaluation.report import FIGURES_FILE, method_figures, write_report
from docqa_desktop.evaluation.runner import result_record
from docqa_desktop.evaluation.trust import risk_coverage, trust_figures

ANSWERED, PASSAGES, NOT_FOUND, FAILED = (AnswerStatus.ANSWERED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND,
                                         AnswerStatus.FAILED)


def record(n: int, status: AnswerStatus, short: str, answerable: bool = True, confidence: float | None = None,
           method: str = "quoted") -> dict:
    """A result as the runner records it: gold 7 (Int) on answerable questions, "Not answerable" otherwise."""
    q = EvalQuestion(id=f"q{n}", doc="a.pdf", question=f"Question {n}?", answer=7 if answerable else "Not answerable",
                     answer_format="Int" if answerable else "None", evidence_pages=(1,) if answerable else (),
                     evidence_sources=("Table",) if answerable else ())
    answer = Answer(id=f"a{n}", question=q.question, method=method, text=short, status=status, short_answer=short,
                    confidence=confidence)
    return result_record(q, method, answer)


def legacy(r: dict) -> dict:
    """The same result as saved before the passages verdict existed."""
    return {**r, "status": "not_answerable"}


def quoted_records(method: str = "quoted") -> list[dict]:
    """6 answerable, 4 unanswerable; 5 answered (3 right, 1 wrong, 1 on an unanswerable question)."""
    return [
        record(1, ANSWERED, "9", confidence=0.2, method=method),  # wrong, least sure (listed first on purpose)
        record(2, ANSWERED, "7", confidence=0.5, method=method),
        record(3, ANSWERED, "Not answerable", answerable=False, confidence=0.7, method=method),
        record(4, ANSWERED, "7", confidence=0.95, method=method),
        record(5, ANSWERED, "7", confidence=0.8, method=method),
        record(6, PASSAGES, "7", method=method),  # a right value, but not stood behind: not answered
        legacy(record(7, NOT_FOUND, "", method=method)),
        record(9, PASSAGES, "", answerable=False, method=method),
        legacy(record(10, NOT_FOUND, "", answerable=False, method=method)),
        record(11, FAILED, "", answerable=False, method=method),
    ]


def test_an_answer_on_an_unanswerable_question_is_wrong_even_when_it_scores():
    answered_unanswerable = quoted_records()[2]
    assert answered_unanswerable["score"] == 1  # the benchmark's rule alone would count it right
    figures = trust_figures([answered_unanswerable])
    assert figures["answered"] == 1 and figures["answered_right"] == 0 and figures["answered_wrong"] == 1
    assert figures["precision"] == 0


def test_precision_coverage_wrong_and_declined():
    figures = trust_figures(quoted_records())
    assert figures["answered"] == 5 and figures["answered_right"] == 3
    assert figures["precision"] == pytest.approx(3 / 5)
    assert figures["answerable"] == 6 and figures["coverage"] == pytest.approx(4 / 6)  # questions 1, 2, 4, 5
    assert figures["answered_right_share"] == pytest.approx(3 / 6)
    assert figures["answered_wrong"] == 2  # question 1's 9 and question 3's answer to the unanswerable
    # passages (9) and the legacy not_answerable (10) decline; failed (11) does not
    assert figures["unanswerable"] == 4 and figures["declined"] == 2
    assert figures["declined_share"] == pytest.approx(2 / 4)


def test_an_unverified_draft_is_not_an_answer_and_declines_an_unanswerable_question():
    draft = record(1, AnswerStatus.UNVERIFIED, "7")  # the right value, but its proof did not hold
    refused = record(2, AnswerStatus.UNVERIFIED, "12", answerable=False)
    figures = trust_figures([draft, refused])
    assert figures["answered"] == 0 and figures["precision"] is None and figures["coverage"] == 0
    assert figures["declined"] == 1 and figures["declined_share"] == 1


def test_legacy_not_answerable_counts_as_not_found():
    figures = method_figures(quoted_records())
    assert figures["status"] == {"answered": 5, "unverified": 0, "passages": 2, "not_found": 2, "failed": 1}
    assert trust_figures([legacy(record(1, NOT_FOUND, "", answerable=False))])["declined"] == 1


def test_risk_coverage_keeps_the_surest_answers_first():
    levels = trust_figures(quoted_records())["risk_coverage"]
    # surest first: 4 (0.95, right), 5 (0.8, right), 3 (0.7, unanswerable: wrong), 2 (0.5, right), 1 (0.2, wrong)
    assert [level["coverage"] for level in levels] == [0.25, 0.5, 0.75, 1.0]
    assert [level["answers"] for level in levels] == [1, 3, 4, 5]  # 1.25 → 1, 2.5 → 3 (half up), 3.75 → 4
    assert [level["precision"] for level in levels] == pytest.approx([1, 2 / 3, 3 / 4, 3 / 5])
    assert [level["answerable_share"] for level in levels] == pytest.approx([1 / 6, 2 / 6, 3 / 6, 4 / 6])


def test_an_answer_without_a_confidence_ranks_below_those_with_one():
    unrated_right, rated_wrong = record(1, ANSWERED, "7"), record(2, ANSWERED, "9", confidence=0.1)
    levels = risk_coverage([unrated_right, rated_wrong], answerable=2)
    assert levels[0]["answers"] == 1 and levels[0]["precision"] == 0  # the rated wrong one comes first
    assert risk_coverage([unrated_right], answerable=1) is None  # nothing to rank by


def test_the_record_carries_the_answers_confidence_and_old_answers_still_load():
    assert record(1, ANSWERED, "7", confidence=0.75)["confidence"] == 0.75
    answer = Answer(id="a", question="Q", method="quoted", status=ANSWERED, confidence=0.75)
    assert answer.as_json()["confidence"] == 0.75
    assert "confidence" not in Answer(id="a", question="Q", method="simpledoc").as_json()
    old = answer.as_record()
    del old["confidence"]  # saved before answers had one
    assert Answer.from_record(old).confidence is None
    assert Answer.from_record(answer.as_record()).confidence == 0.75


def _table_rows(report: str) -> dict[str, list[str]]:
    return {cells[0]: cells[1:] for line in report.splitlines() if line.startswith("| ")
            for cells in [[c.strip() for c in line.strip("|").split("|")]]}


def test_report_has_a_trust_section_and_figures_json(tmp_path):
    records = quoted_records() + [record(20, ANSWERED, "7", method="simpledoc"),
                                  record(21, NOT_FOUND, "", answerable=False, method="simpledoc")]
    report = write_report(tmp_path, records).read_text(encoding="utf-8")
    trust = report.index("## Trust: precision of answered")
    assert trust < report.index("## Overall")  # near the top
    rows = _table_rows(report[trust:report.index("## Overall")])  # methods sorted: quoted, simpledoc
    assert rows["precision of answered %"] == ["60.0 (3 of 5)", "100.0 (1 of 1)"]
    assert rows["coverage: answered / answerable %"] == ["66.7 (n=6)", "100.0 (n=1)"]
    assert rows["answered right / answerable %"] == ["50.0", "100.0"]
    assert rows["answered but wrong"] == ["2", "0"]
    assert rows["declined on unanswerable %"] == ["50.0 (2 of 4)", "100.0 (1 of 1)"]
    assert rows["answered / unverified / passages / not found / failed"] == ["5 / 0 / 2 / 2 / 1", "1 / 0 / 0 / 1 / 0"]
    assert rows["coverage of answered"] == ["quoted"]  # only the method with confidences gets a column
    assert rows["50 %"] == ["66.7 (3; 33.3)"] and rows["100 %"] == ["60.0 (5; 66.7)"]
    assert "No confidence on record for: simpledoc." in report
    overall = _table_rows(report[report.index("## Overall"):])
    assert overall["precision of answered %"] == rows["precision of answered %"]  # in the overall table too

    figures = json.loads((tmp_path / FIGURES_FILE).read_text(encoding="utf-8"))["methods"]
    assert figures["quoted"]["trust"]["precision"] == pytest.approx(0.6)
    assert figures["quoted"]["trust"]["risk_coverage"][1]["precision"] == pytest.approx(2 / 3)
    assert figures["simpledoc"]["trust"]["risk_coverage"] is None
    assert figures["quoted"]["status"]["not_found"] == 2


def test_without_any_confidence_the_risk_coverage_table_is_omitted(tmp_path):
    records = [record(1, ANSWERED, "7", method="simpledoc"), record(2, NOT_FOUND, "", method="simpledoc")]
    report = write_report(tmp_path, records).read_text(encoding="utf-8")
    assert "Risk–coverage: omitted — no answered result carries a confidence" in report
    assert "| coverage of answered |" not in report
