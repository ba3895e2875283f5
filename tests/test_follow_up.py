"""Follow-ups keep their subject: a follow-up's pronouns and elisions are written out against the thread's last
question as it was read (extractive.follow_up), every method is asked that standalone question, and the app and
the CLI show it under the answer ("Read as: …") when it differs from what was typed."""
from __future__ import annotations

import io

import pytest

from conftest import write_pdf
from docqa_desktop.answers import Answer, AnswerStatus
from docqa_desktop.methods.base import Turn
from docqa_desktop.methods.conversation import standalone_question, thread_query
from docqa_desktop.methods.extractive.follow_up import standalone, subject
from docqa_desktop.methods.extractive.question import parse_question

STORES = "How many stores did Best Buy have at the end of fiscal 2023?"
REVENUE = "What was Best Buy's revenue in fiscal 2023?"


@pytest.mark.parametrize("follow_up, read_as", [
    # a pronoun of the subject: the subject put in, the period added
    ("And how many employees did it have?", "How many employees did Best Buy have at the end of fiscal 2023?"),
    ("How many employees do they have?", "How many employees does Best Buy have at the end of fiscal 2023?"),
    ("Who was its CEO?", "Who was Best Buy's CEO at the end of fiscal 2023?"),
    ("How many did this have?", "How many did Best Buy have at the end of fiscal 2023?"),
    # elisions: the previous question with the period, the subject or the thing counted in its place
    ("And in 2012?", "How many stores did Best Buy have at the end of fiscal 2012?"),
    ("And for fiscal 2022?", "How many stores did Best Buy have at the end of fiscal 2022?"),
    ("And the year before?", "How many stores did Best Buy have at the end of fiscal 2022?"),
    ("And in Q3 2012?", "How many stores did Best Buy have in Q3 2012?"),
    ("What about Walmart?", "How many stores did Walmart have at the end of fiscal 2023?"),
    ("And Walmart in 2012?", "How many stores did Walmart have at the end of fiscal 2012?"),
    ("What about employees?", "How many employees did Best Buy have at the end of fiscal 2023?"),
    ("Employees?", "How many employees did Best Buy have at the end of fiscal 2023?"),
    ("How many employees?", "How many employees did Best Buy have at the end of fiscal 2023?"),
    # a thing that cannot be counted has no place in "how many stores": asked with the subject and the period
    ("What about net income?", "What about net income for Best Buy at the end of fiscal 2023?"),
    ("How long did it take?", "How long did it take for Best Buy at the end of fiscal 2023?"),  # "it": no one
])
def test_a_follow_up_is_written_out_against_the_question_before_it(follow_up, read_as):
    assert standalone(follow_up, STORES) == read_as


@pytest.mark.parametrize("follow_up, read_as", [
    ("What about net income?", "What was Best Buy's net income in fiscal 2023?"),
    ("And its operating income?", "What was Best Buy's operating income in fiscal 2023?"),
    ("And in 2012?", "What was Best Buy's revenue in fiscal 2012?"),
    ("What was the company's revenue the year before?", "What was Best Buy's revenue in fiscal 2022?"),
    ("When was it founded?", "When was Best Buy founded?"),  # a date is not asked for a period
])
def test_a_measure_asked_of_an_owner_is_replaced_in_place(follow_up, read_as):
    assert standalone(follow_up, REVENUE) == read_as


@pytest.mark.parametrize("follow_up, previous", [
    ("How many stores did Walmart have?", STORES),  # names its own subject
    ("What percentage of all adults had broadband in 2013?", STORES),  # a question of its own, no pronoun
    ("Why was it chosen?", "Which languages are used as pivot?"),  # nothing named to resolve "it" with
    ("And the year?", "Which pivot languages, part 1?"),
    ("Why?", STORES),
])
def test_a_follow_up_that_stands_alone_or_has_nothing_to_resolve_against_is_kept(follow_up, previous):
    assert standalone(follow_up, previous) == follow_up


def test_the_subject_is_the_name_the_question_is_about():
    assert subject(STORES) == "Best Buy" and subject(REVENUE) == "Best Buy"
    assert subject("How many COVID cases did Italy report in March 2020?") == "Italy"
    assert subject("Which languages are used as pivot?") == ""


def test_a_chain_of_follow_ups_keeps_the_subject_of_the_first_question():
    """Each turn carries its question as it was read: the third question is resolved against the second's
    standalone form, which named Best Buy and fiscal 2023 though the second as typed named neither."""
    second = standalone_question("And how many employees did it have?", [Turn(STORES, "1,138")])
    third = standalone_question("And in fiscal 2022?", [Turn(STORES, "1,138"), Turn(second, "90,000")])
    assert third == "How many employees did Best Buy have at the end of fiscal 2022?"
    assert standalone_question("And in 2012?", []) == "And in 2012?"  # a thread's first question is as asked
    read = parse_question(second)  # what the quoted reader looks for: employees, at Best Buy, in 2023
    assert "employe" in read.terms and "store" not in read.terms
    assert read.names == ("Best Buy",) and read.years == ("2023",)
    assert thread_query("And?", [Turn(second, "90,000")]).startswith(second)


BEST_BUY = [
    "Stores\nBest Buy store count at the end of fiscal 2023: 978 domestic stores and 160 international stores.\n"
    "How many stores did Best Buy have? The store count at the end of fiscal 2023 was 1,138 stores in total, "
    "against 1,144 stores at the end of fiscal 2022.",
    "Our people\nAt the end of fiscal 2023, Best Buy had approximately 90,000 employees.\n"
    "At the end of fiscal 2022, Best Buy had approximately 105,000 employees.",
]


def _best_buy(folder) -> None:
    write_pdf(folder / "best-buy.pdf", BEST_BUY)


@pytest.mark.slow  # indexes a PDF and embeds its sentences at question time, three questions: 6 s
def test_the_quoted_reader_answers_a_follow_up_about_the_thread_s_subject(indexed_service):
    """A service-level thread over an indexed PDF: the follow-up is read as the standalone question, saved with
    its answer, answered from the employees page, and the next follow-up is resolved against it."""
    service = indexed_service(_best_buy, "bestbuy")
    first = service.answers.ask(STORES, method="quoted")
    assert first.standalone_question == ""  # a thread's first question is read as typed
    second = service.answers.ask("And how many employees did it have?", method="quoted", follow_up=first.id)
    assert second.question == "And how many employees did it have?"
    assert second.standalone_question == "How many employees did Best Buy have at the end of fiscal 2023?"
    assert second.status is AnswerStatus.ANSWERED and "90,000" in second.short_answer, second.text
    assert second.citations[0].page == 2
    saved = service.answers.answer(second.id)
    assert saved.standalone_question == second.standalone_question and saved.as_json()["read_as"]
    third = service.answers.ask("And in fiscal 2022?", method="quoted", follow_up=second.id)
    assert third.standalone_question == "How many employees did Best Buy have at the end of fiscal 2022?"
    assert "105,000" in third.short_answer, third.text


def _answer(standalone_question: str = "") -> Answer:
    return Answer(id="a1", question="And how many employees did it have?", method="quoted", text="90,000",
                  status=AnswerStatus.ANSWERED, standalone_question=standalone_question)


def test_the_cli_shows_the_standalone_question_only_when_it_differs():
    from docqa_desktop.cli.asking import StreamPrinter, print_answer

    read_as = "How many employees did Best Buy have at the end of fiscal 2023?"
    for answer, shown in ((_answer(read_as), True), (_answer(), False)):
        out = io.StringIO()
        print_answer(answer, StreamPrinter(out))
        assert (f"Read as: {read_as}" in out.getvalue()) is shown
        assert ("read_as" in answer.as_json()) is shown


def test_the_app_shows_the_standalone_question_under_the_answer():
    from docqa_desktop.ui.answer_view import answer_html

    page = answer_html(_answer("How many employees did Best Buy have <at the end> of fiscal 2023?"))
    assert "Read as: How many employees did Best Buy have &lt;at the end&gt; of fiscal 2023?" in page
    assert page.index("90,000") < page.index("Read as")
    assert "Read as" not in answer_html(_answer())
