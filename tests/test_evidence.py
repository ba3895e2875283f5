"""Candidates and their evidence (issue 53): the context chain finds a qualifier the sentence leaves to the document,
a line of form fields gives each field's value, another period's number is evidence against, and every candidate
carries the evidence the scorer was trained on."""
from __future__ import annotations

from docqa_desktop.answers import PageRef
from docqa_desktop.methods.extractive.evidence import FEATURES, Chain, _contradicted, _fields, _levels
from docqa_desktop.methods.extractive.matching import WordSet
from docqa_desktop.methods.extractive.question import parse_question

PAGE = PageRef(1, "pew-2018-survey.pdf", "/tmp/pew-2018-survey.pdf", 4, "4")
TITLE = "Pew Research Center\nPublic Attitudes Toward Technology, 2018\nSurvey conducted April 25 - May 1, 2018"
BODY = ("Methodology\nThe survey was conducted by Abt Associates.\nInterviews were done by telephone.\n"
        "A total of 1,502 adults were interviewed.")


def _chain() -> Chain:
    return Chain(lambda ref: BODY if ref.page == 4 else TITLE, lambda ref: TITLE)


def test_a_year_the_sentence_leaves_to_the_documents_title_is_found_at_the_document_level():
    question = parse_question("Under whose direction were the interviews for Pew's 2018 survey conducted?")
    chain = _chain()
    sentence = "The survey was conducted by Abt Associates."
    levels = (chain.words(sentence), chain.words(chain.neighbours(PAGE, sentence)), chain.words(chain.page(PAGE)),
              chain.document(PAGE))
    shares = _levels("years", [(y, y) for y in question.years], levels)
    assert question.years == ("2018",)
    assert shares == {"years_sentence": 0.0, "years_neighbours": 0.0, "years_page": 0.0, "years_document": 1.0}


def test_the_neighbours_are_the_lines_around_the_sentence():
    around = _chain().neighbours(PAGE, "Interviews were done by telephone.")
    assert "Abt Associates" in around and "1,502 adults" in around
    assert WordSet(around).has("telephon", "telephone")


def test_each_field_of_a_line_of_fields_is_a_value_under_its_label():
    fields = _fields("12 LQK1856012 Name : Sheetal Bansal Father's Name : Ram Bansal House No : 119-B Age : 31")
    assert ("Ram Bansal House No", "119-B") in fields and ("119-B Age", "31") in fields
    assert any(label.endswith("Name") and value == "Sheetal Bansal" for label, value in fields)


def test_another_period_of_the_same_label_is_evidence_against():
    question = parse_question("How many times did the council meet during quarter 1?")
    assert _contradicted(question, "The council met four times during quarter 2 of the year.")
    assert not _contradicted(question, "The council met twice during quarter 1, and once in quarter 2.")
    assert not _contradicted(question, "The council met twice.")


def test_the_features_are_named_once_each():
    assert len(FEATURES) == len(set(FEATURES))
    assert {"passes_rules", "years_document", "qualifier_contradicted", "coverage_below_best"} <= set(FEATURES)
