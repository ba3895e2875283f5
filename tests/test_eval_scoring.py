"""MMLongBench-Doc scoring, answer extraction, question files and page metrics — hand-checked cases."""
import pytest

from docqa_desktop.evaluation.extraction import extract
from docqa_desktop.evaluation.pages import page_metrics
from docqa_desktop.evaluation.questions import MULTI, SINGLE, UNANSWERABLE, QuestionFileError, load_questions
from docqa_desktop.evaluation.scoring import accuracy_and_f1, anls, score


@pytest.mark.parametrize("gold, prediction, expected", [
    ("2", "2", 1.0), ("2", "2.0", 1.0), ("2", "3", 0.0), ("7", "seven", 0.0), ("7", "", 0.0)])
def test_int_answers_must_be_equal(gold, prediction, expected):
    assert score(gold, prediction, "Int") == expected


@pytest.mark.parametrize("gold, prediction", [
    ("1,138", "1,138"), ("1,138", "1138"), ("1138", "1,138"), ("$1,138", "1,138"), ("1,138", "$1,138"),
    ("-1,138", "-1138"), ("12,345,678", "12345678")])
def test_numbers_are_read_with_thousands_separators(gold, prediction):
    """MMLongBench-Doc's Int rule scores even "1,138" against itself as 0; a separator is no error."""
    assert score(gold, prediction, "Int") == 1.0
    assert score(gold, prediction, "Float") == 1.0


@pytest.mark.parametrize("gold, prediction, fmt, expected", [
    ("1,138.5", "1138.5", "Float", 1.0), ("$1,138.5", "1,138.50", "Float", 1.0), ("1,138.5", "1,238.5", "Float", 0.0),
    ("1,138", "1,139", "Int", 0.0),
    ("12", "1,2", "Int", 0.0), ("12", "1,2", "Float", 0.0),  # a comma between single digits is no separator
    ("1138", "1,1384", "Int", 0.0), ("1138", "11,38", "Float", 0.0)])
def test_only_commas_that_group_digits_by_three_are_separators(gold, prediction, fmt, expected):
    assert score(gold, prediction, fmt) == expected


def test_list_items_are_read_with_thousands_separators():
    assert score(["1,138", "2,000"], ["2000", "1138"], "List") == 1.0
    assert score(["1,138", "2,000"], ["1138", "2001"], "List") == 0.0
    assert score(["1", "2"], "['1', '2']", "List") == 1.0


@pytest.mark.parametrize("gold, prediction, expected", [
    ("56.8", "56.8", 1.0), ("56.8", "56.80", 1.0),
    ("0.263", "0.26", 1.0),         # rounded to the shorter precision (2 places)
    ("0.263", "0.27", 0.0),
    ("29.6%", "0.296", 1.0),        # a percentage may be given as a fraction …
    ("0.12", "12", 1.0),            # … or the other way round
    ("-26.7%", "-26.7", 1.0), ("-26.7%", "26.7", 0.0),
    ("1874", "1880", 1.0),          # within 1 % relative
    ("1874", "1900", 0.0),
    ("$6.31", "6.31", 1.0), ("2.91%", "n/a", 0.0)])
def test_float_answers_within_tolerance(gold, prediction, expected):
    assert score(gold, prediction, "Float") == expected


def test_strings_score_by_anls_and_exact_patterns():
    assert score("Department of State", "department of state", "Str") == 1.0
    assert score("Department of State", "Departmant of State", "Str") == pytest.approx(1 - 1 / 19)
    assert score("Department of State", "Treasury", "Str") == 0.0  # similarity under 0.5 counts as 0
    assert score("Fact Checker (FC)", "fact checker", "Str") == 1.0  # parentheses are dropped
    assert score("2015-03-24", "2015-03-25", "Str") == 0.0  # dates must match exactly
    assert score("https://example.org/a", "https://example.org/b", "Str") == 0.0
    assert anls("abcd", "abce") == 0.75


def test_lists_compare_sorted_items():
    assert score(["64.3", "62.4", "62.2"], "['62.2', '64.3', '62.4']", "List") == 1.0
    assert score(["64.3", "62.4", "62.2"], ["64.3", "62.4"], "List") == 0.0  # length differs
    assert score(["90%", "42%", "39%"], ["90", "42", "39"], "List") == 1.0  # "%" is cleaned
    assert score(["yellow", "black and white"], ["black and whites", "yellow"], "List") == pytest.approx(1 - 1 / 16)
    assert score(["yellow", "black and white"], ["red", "black and white"], "List") == 0.0  # min over items


def test_not_answerable():
    assert score("Not answerable", "Not answerable", "None") == 1.0
    assert score("Not answerable", "The year 2015", "None") == 0.0


def test_accuracy_and_f1_as_mmlongbench_defines_them():
    rows = [("2", "2", 1.0), ("3", "Not answerable", 0.0), ("Not answerable", "Not answerable", 1.0),
            ("Not answerable", "5", 0.0)]
    accuracy, f1 = accuracy_and_f1(rows)
    assert accuracy == 0.5
    # recall over 2 answerable = 1/2; precision over 2 attempted = 1/2
    assert f1 == pytest.approx(0.5)
    assert accuracy_and_f1([("Not answerable", "Not answerable", 1.0)]) == (1.0, 0.0)


@pytest.mark.parametrize("text, fmt, expected", [
    ("There were 2 prompt examples.", "Int", "2"),
    ("The paper shows three examples.", "Int", "3"),
    ("Revenue grew by 20.7% in 2023.", "Float", "20.7"),
    ("It fell −26.7 % year over year", "Float", "-26.7"),
    ("Total: $1,874 million", "Float", "1874"),
    ("The survey reached 1,138 adults.", "Int", "1138"),
    ("It was $1,138.5 in total", "Float", "1138.5"),
    ("Pages 1,2 and 3", "Int", "1"),  # not 12: the comma separates two numbers
    ("1,138 and 2,000", "List", ["1,138", "2,000"]),  # the separator inside a number splits nothing
    ("1,2,3", "List", ["1", "2", "3"]),
    ("Reddit, Facebook and X", "List", ["Reddit", "Facebook", "X"]),
    ('["Fact Checker", "QA"]', "List", ["Fact Checker", "QA"]),
    ("[yellow, black and white]", "List", ["yellow", "black and white"]),
    ("- yellow\n- black and white", "List", ["yellow", "black and white"]),
    ("90%, 42% and 39%", "List", ["90%", "42%", "39%"]),
    ("Answer: Department of State.\nIt is named on page 1.", "Str", "Department of State"),
    ("The document does not mention the capital of Peru.", "Str", "Not answerable"),
])
def test_extraction_reduces_an_answer_to_the_format(text, fmt, expected):
    assert extract(text, True, fmt) == expected


def test_a_declined_answer_is_not_answerable_whatever_its_text():
    assert extract("Not answerable from the documents.", False, "Int") == "Not answerable"
    assert extract("", True, "Str") == "Not answerable"


def test_page_metrics_per_simpledoc_a3():
    assert page_metrics([3, 5], [3, 4, 5, 6]) == {"recall": 1.0, "precision": 0.5, "f1": pytest.approx(2 / 3),
                                                  "all_hit": 1.0}
    assert page_metrics([3, 5], [3]) == {"recall": 0.5, "precision": 1.0, "f1": pytest.approx(2 / 3), "all_hit": 0.0}
    assert page_metrics([3], []) == {"recall": 0.0, "precision": 0.0, "f1": 0.0, "all_hit": 0.0}
    assert page_metrics([], [1, 2]) is None  # unanswerable: nothing to find


def test_question_file_accepts_both_list_encodings_and_names_bad_lines(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"doc": "a.pdf", "question": "Q1", "answer": "2", "answer_format": "Int", "evidence_pages": "[3, 5]", '
        '"evidence_sources": "[\'Table\']"}\n\n'
        '{"doc": "a.pdf", "question": "Q2", "answer": "x", "answer_format": "Str", "evidence_pages": [4], '
        '"evidence_sources": ["Chart"]}\n'
        '{"doc": "a.pdf", "question": "Q3", "answer": "Not answerable", "answer_format": "None", '
        '"evidence_pages": [], "evidence_sources": []}\n'
        '{"doc": "a.pdf", "question": "Q3", "answer": "Not answerable", "answer_format": "None"}\n')
    questions = load_questions(path)
    assert [q.evidence_pages for q in questions] == [(3, 5), (4,), (), ()]
    assert [q.kind for q in questions] == [MULTI, SINGLE, UNANSWERABLE, UNANSWERABLE]
    assert questions[0].evidence_sources == ("Table",)
    assert len({q.id for q in questions}) == 4  # a repeated question keeps its own id
    assert load_questions(path)[0].id == questions[0].id  # stable: resuming depends on it

    path.write_text('{"doc": "a.pdf", "question": "Q", "answer": "2", "answer_format": "Int"}\n'
                    '{"doc": "a.pdf", "question": "Q", "answer": "2", "answer_format": "Integer"}\n')
    with pytest.raises(QuestionFileError, match=r"q.jsonl:2: answer_format 'Integer'"):
        load_questions(path)
    path.write_text('{"doc": "a.pdf", "question": "Q", "answer": "2"\n')
    with pytest.raises(QuestionFileError, match=r"q.jsonl:1: "):
        load_questions(path)
    path.write_text('{"doc": "a.pdf", "answer": "2", "answer_format": "Int"}\n')
    with pytest.raises(QuestionFileError, match=r"missing field\(s\) question"):
        load_questions(path)
