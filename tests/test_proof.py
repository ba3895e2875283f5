"""Written answers that show their proof (methods/proof): the model quotes, the app finds the quotes on the pages
read and computes the arithmetic itself; a proof that does not hold gets one repair round, then the answer is an
unverified draft; a refusal while a page read states a confident value is asked again with that passage."""
from __future__ import annotations

import dataclasses
import json
import re

import shutil

import pymupdf
import pytest

from conftest import SMALL_PAPER, corpus_pdf, make_settings
from scripted_model import FixedRuntimes
from docqa_desktop.answers import AnswerStatus, PageRef
from docqa_desktop.index.tables import tables_on
from docqa_desktop.llm import Completion, ModelError, ModelInfo, Usage
from docqa_desktop.llm.jsonout import parse_json
from docqa_desktop.methods.proof.check import check_proof
from docqa_desktop.methods.proof.quotes import QUOTE_TOLERANCE, locate
from docqa_desktop.methods.toolkit.final_answer import FinalAnswer
from docqa_desktop.service import Service
from docqa_desktop.settings import TablesGate

# page 6 of the small corpus paper (1912.01214), Table 3's rows and the sentence after it
BEST_ROW = "MLM+BRLM-SA 44.17 33.20 29.01 28.91 32.53 41.93 34.95"
PIVOT_ROW = "Pivotingm 42.29 30.15 27.23 26.16 29.57 40.08 32.58"
GAIN = "How many BLEU points does MLM+BRLM-SA with back translation gain over pivotingm on average zero-shot (A-ZST)?"
BATCH = "We set the batch size to 2400 per batch and limit sentence length to 100 BPE tokens."


# -- finding quotes ------------------------------------------------------------------------------------------


def test_a_quote_is_found_through_ligatures_hyphenation_split_words_and_layout():
    page = ("†Institute of Artiﬁcial Intelligence, Soochow University\nwe propose an effective trans-\nfer "
            "learning approach\nGerman wings flight 4U 9525\nMLM+BRLM-SA\n44.17\n33.20")
    for quote in ("Institute of Artificial Intelligence", "an effective transfer learning approach",
                  "Germanwings flight 4U9525", "MLM+BRLM-SA 44.17 33.20", "INSTITUTE OF ARTIFICIAL INTELLIGENCE."):
        match = locate(quote, page)
        assert match.found and match.score == 1.0, quote


def test_a_quote_with_a_wrong_number_or_made_up_words_is_not_found():
    page = "We set the batch size to 2400 per batch and limit sentence length to 100 BPE tokens."
    wrong_number = locate("We set the batch size to 4200 per batch", page)
    assert wrong_number.score >= QUOTE_TOLERANCE and wrong_number.missing_numbers == ("4200",)
    assert not wrong_number.found
    invented = locate("The batch size was chosen to fit the memory of the GPU", page)
    assert invented.score < QUOTE_TOLERANCE and not invented.found
    dropped_word = locate("We set the batch size to 2400 and limit sentence length to 100 BPE tokens", page)
    assert dropped_word.found  # a word left out of a faithful copy is tolerated
    assert locate("2400 per batch", page).excerpt == "2400 per batch"


# -- checking a proof (pages given as text) ----------------------------------------------------------------


PAGES = [PageRef(1, "paper.pdf", "/p/paper.pdf", 6, "6"), PageRef(1, "paper.pdf", "/p/paper.pdf", 5, "5")]
TEXTS = {6: f"Table 3\n{PIVOT_ROW.replace(' ', chr(10))}\n{BEST_ROW.replace(' ', chr(10))}\nA-ZST: averaged BLEU", 5: BATCH}


def final(short, fmt="Float", proof=(), computation="", answer=""):
    return FinalAnswer(answer or f"The answer is {short}.", short, fmt, tuple(proof), computation)


def checked(question, answer):
    return check_proof(question, answer, PAGES, lambda ref: TEXTS[ref.page])


def test_a_value_read_off_a_found_quote_that_matches_the_question_passes():
    result = checked("What batch size is used?", final("2400", "Int", [(2, "We set the batch size to 2400 per batch")]))
    assert result.ok and result.holding.ref.page == 5 and result.computed is None
    assert result.summary() == "Checked: the value is in the quote from paper.pdf, page 5"


def test_a_computation_over_quoted_numbers_is_evaluated_by_the_app():
    result = checked(GAIN, final("2.37", proof=[(1, BEST_ROW), (1, PIVOT_ROW)], computation="34.95 - 32.58"))
    assert result.ok and result.computed == pytest.approx(2.37)
    percent = checked(GAIN, final("7.3%", proof=[(1, BEST_ROW), (1, PIVOT_ROW)],
                                  computation="(34.95 - 32.58) / 32.58 * 100"))
    assert percent.ok, percent.problems  # 7.27 % shown as 7.3 %, the answer's own precision


def test_what_does_not_hold_is_named_for_the_repair_round():
    wrong_sum = checked(GAIN, final("2.5", proof=[(1, BEST_ROW), (1, PIVOT_ROW)], computation="34.95 - 32.58"))
    assert wrong_sum.problems == ["the computation gives 2.37, not 2.5"]
    unquoted_operand = checked(GAIN, final("2.4", proof=[(1, BEST_ROW)], computation="34.95 - 32.55"))
    assert "32.55 in the computation is not in any quote" in unquoted_operand.problems
    not_on_page = checked("What batch size is used?", final("4096", "Int", [(2, "the batch size is 4096")]))
    assert not_on_page.problems == ["page 2 does not have 4096 where it says “the batch size”"]
    invented = checked("What batch size is used?", final("4096", "Int", [(2, "a batch of 4096 examples fits the GPU")]))
    assert invented.problems == ["the quote “a batch of 4096 examples fits the GPU” is not on page 2"]
    value_elsewhere = checked("What batch size is used?", final("100", "Int", [(2, BATCH)]))
    assert value_elsewhere.ok  # 100 is in the quote: the check proves the value is quoted, not that it is right
    not_in_quote = checked("What batch size is used?", final("3000", "Int", [(2, BATCH)]))
    assert not_in_quote.problems[0].startswith("“3000” is not in any quote")
    no_quote = checked("What batch size is used?", final("2400", "Int"))
    assert no_quote.problems[0].startswith("no quote was given")
    not_arithmetic = checked(GAIN, final("2.37", proof=[(1, BEST_ROW)], computation="import os"))
    assert "is not plain arithmetic" in not_arithmetic.problems[0]


def test_a_date_is_the_same_date_however_it_is_written():
    pages = [PageRef(1, "r.pdf", "/p/r.pdf", 2, "2")]
    page = "The installation was commissioned on 14 May 2021 and feeds the town's ferry terminal."
    quote = [(1, "The installation was commissioned on 14 May 2021")]
    for short, holds in (("2021-05-14", True), ("May 14, 2021", True), ("14 May 2021", True), ("2021-05-15", False)):
        result = check_proof("When was the installation commissioned?", final(short, "Str", quote), pages,
                             lambda ref: page)
        assert result.ok is holds, short


def test_a_value_that_only_repeats_the_question_is_not_an_answer():
    quote = [(2, "We set the batch size to 2400 per batch")]
    echo = checked("What batch size is used?", final("Batch size", "Str", quote))
    assert echo.problems == ["“Batch size” only repeats the question's words: give the value it asks for"]
    year = checked("What batch size is used in 2400?", final("2400", "Int", quote))
    assert not year.ok
    assert checked("What batch size is used?", final("2400", "Int", quote)).ok
    choice = checked("Is the batch size 2400 or 4800?", final("2400", "Int", quote))
    assert choice.ok  # a choice is answered with the question's own words


def test_numbers_are_compared_as_numbers_not_as_text():
    page = "Total revenue was $1.5bn in 2020; goodwill of $1,383 million; a loss of (123); margin 3.5%; 12 stores."
    assert not locate("total revenue was $1.2bn in 2020", page).found  # a unit glued on hides no number
    pages = [PageRef(1, "r.pdf", "/p/r.pdf", 2, "2")]

    def holds(question, short, quote, computation=""):
        return check_proof(question, final(short, "Float", [(1, quote)], computation), pages, lambda ref: page).ok

    assert holds("How much goodwill?", "1.383 billion", "goodwill of $1,383 million")
    assert holds("What was the loss?", "-123", "a loss of (123)")
    assert holds("What is the margin?", "0.035", "margin 3.5%")  # a ratio and its percentage
    assert not holds("How many stores?", "1200", "12 stores")  # a count is not a percentage of itself
    assert not holds("How many stores?", "3", "12 stores", computation="1 + 1 + 1")  # no quoted operand


def test_the_page_of_the_value_must_mention_the_names_the_question_gives():
    pages = [PageRef(1, "germanwings.pdf", "/p/germanwings.pdf", 18, "18")]
    page = "Within the first 60 minutes, 2000 tweets referencing #Germanwings had been posted."
    quote = [(1, "2000 tweets referencing #Germanwings had been posted")]
    other = check_proof("How many tweets are attributed to Boeing?", final("2000", "Int", quote), pages,
                        lambda ref: page)
    assert other.problems == ["page 1 does not mention Boeing, which the question names"]
    named = check_proof("How many tweets referenced Germanwings in the first 60 minutes?", final("2000", "Int", quote),
                        pages, lambda ref: page)
    assert named.ok


def test_a_quote_on_another_page_read_than_the_one_it_names_is_found_there():
    result = checked("What batch size is used?", final("2400", "Int", [(1, "We set the batch size to 2400 per batch")]))
    assert result.ok and result.holding.ref.page == 5 and result.holding.number == 2


def test_a_yes_or_no_cannot_be_proved_by_a_quote_and_is_not_repaired():
    result = checked("Is the batch size 2400?", final("Yes", "Str", [(2, BATCH)]))
    assert not result.ok and not result.checkable


def test_a_quote_holding_the_value_must_be_about_the_question():
    result = checked("How long is the warm-up of the optimizer?", final("2400", "Int", [(2, "batch size to 2400")]))
    assert result.problems == ["the quote from page 2 that holds “2400” shares no word with the question"]


# -- a table's value checked against the question's labels -----------------------------------------------------

NICS = [("Alabama", "26,138", "20,211", "17,436"), ("Texas", "21,550", "75,112", "58,930"),
        ("Utah", "9,804", "8,317", "6,102")]
HANDGUN = "How many handgun checks were there in Texas in November 2026?"


def make_nics_pdf(path):
    """One page: a ruled table of firearm checks, states × Permit, Handgun, Long gun, under its title."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "NICS Firearm Checks: November 2026", fontsize=16)
    page.insert_text((72, 100), "Checks by state and type of check.", fontsize=10)
    xs, top, height = [72, 200, 290, 380, 470], 120, 22
    grid = [("State", "Permit", "Handgun", "Long gun"), *NICS]
    for r, row in enumerate(grid):
        for c, text in enumerate(row):
            page.insert_text((xs[c] + 4, top + r * height + 15), text, fontsize=10)
        page.draw_line((xs[0], top + r * height), (xs[-1], top + r * height))
    page.draw_line((xs[0], top + len(grid) * height), (xs[-1], top + len(grid) * height))
    for x in xs:
        page.draw_line((x, top), (x, top + len(grid) * height))
    doc.save(path)
    doc.close()
    return path


@pytest.fixture(scope="module")
def nics_page(tmp_path_factory):
    """The table page's text and its tables as the tables stage reads them."""
    with pymupdf.open(make_nics_pdf(tmp_path_factory.mktemp("nics") / "nics.pdf")) as doc:
        return doc[0].get_text(), tables_on(doc[0], None)


@pytest.mark.parametrize("question, short, problem", [
    (HANDGUN, "75,112", None),
    # the Permit column's figure for a question about handgun checks: on the page, but not what was asked
    (HANDGUN, "21,550", "21,550 is the 'Permit' column; the question asks about 'Handgun'"),
    # Utah's handgun figure for Texas, from a quote of the whole table
    (HANDGUN, "8,317", "8,317 is the 'Utah' row; the question asks about 'Texas'"),
    ("How many permit checks were there in Texas?", "21,550", None),
    # the cell's own column named, if not word for word ("permits"), beside another: not contradicted
    ("How many permits were checked in Texas, apart from handgun checks?", "21,550", None),
    # two other columns named: the question sets them apart from the one asked for
    ("How many checks in Texas were neither handgun nor permit checks?", "58,930", None),
])
def test_a_table_value_must_be_in_the_row_and_column_the_question_names(nics_page, question, short, problem):
    text, tables = nics_page
    assert [c.column_path for c in tables[0].body][:4] == ["State", "State / Permit", "State / Handgun",
                                                           "State / Long gun"]
    pages = [PageRef(1, "nics.pdf", "/p/nics.pdf", 1, "1")]
    rows = " ".join(" ".join(row) for row in NICS)  # the quote holds the value and the question's "Texas"
    result = check_proof(question, final(short, "Int", [(1, rows)]), pages, lambda ref: text, lambda ref: tables)
    assert result.problems == ([problem] if problem else [])
    if problem is None:
        assert result.summary() == "Checked: the value is in the quote from nics.pdf, page 1"


# -- the check after a method, with a scripted model on the real paper ----------------------------------------


class ReplyList:
    """Plays the answering model: each call gets the next reply, built from the prompt (so that a reply can name
    a page by the number the prompt gave it); every call's messages are kept."""

    def __init__(self, *replies):
        self.info = ModelInfo("scripted", "local", 8192, False)
        self.replies, self.calls = list(replies), []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def chat(self, messages, options, cancel=None):
        self.calls.append(messages)
        prompt = "\n".join(m.text for m in messages)
        reply = self.replies.pop(0)(prompt)
        text = json.dumps(reply)
        completion = Completion(text, "stop", Usage(len(prompt.split()), len(text.split()), 0.01))
        completion.parsed = parse_json(text, options.schema)
        return completion

    def close(self):
        pass


def number_of(prompt: str, page: int) -> int:
    return int(re.search(rf"Page (\d+): page {page}\b", prompt).group(1))


def m3docrag_reply(short, fmt="Float", proof=(), computation="", answer=""):
    """An M3DocRAG reply whose proof names corpus pages ((page, quote)); numbered as the prompt numbers them."""
    return lambda prompt: {"evidence": [], "reasoning": "From the table.", "answer": answer or f"It is {short}.",
                           "proof": [{"page": number_of(prompt, page), "quote": quote} for page, quote in proof],
                           "computation": computation, "short_answer": short, "answer_format": fmt}


@pytest.fixture(scope="module")
def paper_service(tmp_path_factory):
    """The small paper indexed once for the module (layout and dense embeddings off); questions only read it."""
    home = tmp_path_factory.mktemp("proof")
    (home / "paper").mkdir()
    shutil.copy(corpus_pdf(SMALL_PAPER), home / "paper" / SMALL_PAPER)
    with Service(make_settings(home / "home", check_proofs=True, layout=False, dense=False)) as service:
        service.library.index([str(home / "paper")])
        yield service


def ask(service, question, *replies):
    model = ReplyList(*replies)
    service.resources.use_runtimes(FixedRuntimes(model))
    return service.answers.ask(question, method="m3docrag"), model


@pytest.mark.slow  # indexes the paper once for the module
def test_a_correct_computation_is_answered_with_its_operands_cited(paper_service):
    answer, model = ask(paper_service, GAIN, m3docrag_reply("2.37", proof=[(6, BEST_ROW), (6, PIVOT_ROW)],
                                                            computation="34.95 - 32.58"))
    assert answer.status is AnswerStatus.ANSWERED and len(model.calls) == 1
    assert answer.computation == "34.95 - 32.58" and answer.check.startswith("Checked: the app computed 2.37")
    quotes = " ".join(c.quote for c in answer.citations)
    assert "34.95" in quotes and "32.58" in quotes and all(c.page == 6 and c.bbox for c in answer.citations)
    assert answer.confidence is not None


@pytest.mark.slow  # indexes the paper once for the module
def test_a_wrong_sum_gets_one_repair_round_told_what_did_not_add_up(paper_service):
    answer, model = ask(paper_service, GAIN,
                        m3docrag_reply("2.5", proof=[(6, BEST_ROW), (6, PIVOT_ROW)], computation="34.95 - 32.58"),
                        m3docrag_reply("2.37", proof=[(6, BEST_ROW), (6, PIVOT_ROW)], computation="34.95 - 32.58"))
    assert len(model.calls) == 2 and "the computation gives 2.37, not 2.5" in model.calls[1][-1].text
    assert model.calls[1][-2].role == "assistant" and '"2.5"' in model.calls[1][-2].text  # its own first reply
    assert answer.status is AnswerStatus.ANSWERED and answer.short_answer == "2.37"
    assert [c.step for c in answer.calls] == ["answer", "repair proof"]


@pytest.mark.slow  # indexes the paper once for the module
def test_a_quote_not_on_the_page_is_repaired_once_then_left_an_unverified_draft(paper_service):
    made_up = [(6, "MLM+BRLM-SA reaches 36.2 BLEU on average")]
    answer, model = ask(paper_service, GAIN, m3docrag_reply("36.2", proof=made_up),
                        m3docrag_reply("36.2", proof=made_up))
    assert len(model.calls) == 2 and "is not on page" in model.calls[1][-1].text
    assert answer.status is AnswerStatus.UNVERIFIED and not answer.status.confident
    assert answer.short_answer == "36.2" and answer.check.startswith("Not verified:")
    assert answer.citations and all(c.quote for c in answer.citations)  # the passages read, for the reader


@pytest.mark.slow  # indexes the paper once for the module
def test_a_refusal_while_a_page_read_states_the_value_is_asked_again_with_that_passage(paper_service):
    question = "What batch size is used in the experiments?"
    declined = m3docrag_reply("Not answerable", "None", answer="The documents do not say.")
    answer, model = ask(paper_service, question, declined,
                        m3docrag_reply("2400", "Int", proof=[(5, "We set the batch size to 2400 per batch")]))
    assert len(model.calls) == 2 and "2400 per batch" in model.calls[1][-1].text
    assert answer.status is AnswerStatus.ANSWERED and answer.short_answer == "2400"
    assert answer.confidence == 0.9  # the extractive reader found the same value


@pytest.mark.slow  # indexes the paper once for the module
def test_a_second_refusal_leaves_the_passage_that_states_a_value(paper_service):
    question = "What batch size is used in the experiments?"
    declined = m3docrag_reply("Not answerable", "None", answer="The documents do not say.")
    answer, model = ask(paper_service, question, declined, declined)
    assert answer.status is AnswerStatus.PASSAGES and "2400" in answer.text
    assert answer.citations[0].page == 5


@pytest.mark.slow  # indexes the paper once for the module
def test_the_check_can_be_turned_off_for_the_papers_own_verdict(paper_service):
    checked = paper_service.settings
    paper_service.apply_settings(dataclasses.replace(checked, ask=dataclasses.replace(checked.ask, check_proofs=False)))
    try:
        answer, model = ask(paper_service, GAIN, m3docrag_reply("36.2", proof=[(6, "made up words entirely")]))
    finally:
        paper_service.apply_settings(checked)  # the fixture serves the module
    assert answer.status is AnswerStatus.ANSWERED and len(model.calls) == 1 and not answer.check


class FailingRepair(ReplyList):
    """Answers once, then fails (a model error) or is stopped on the second call."""

    def __init__(self, first, error):
        super().__init__(first)
        self.error = error

    def chat(self, messages, options, cancel=None):
        if self.replies:
            return super().chat(messages, options, cancel)
        self.calls.append(messages)
        if self.error == "stop":
            return Completion("", "cancelled", Usage(1, 0, 0.01))
        raise ModelError("the prompt and its reply do not fit the context")


@pytest.mark.slow  # indexes the paper once for the module
@pytest.mark.parametrize("error", ["model error", "stop"])
def test_a_repair_that_fails_or_is_stopped_leaves_the_draft_unverified(paper_service, error):
    model = FailingRepair(m3docrag_reply("36.2", proof=[(6, "MLM+BRLM-SA reaches 36.2 BLEU on average")]), error)
    paper_service.resources.use_runtimes(FixedRuntimes(model))
    answer = paper_service.answers.ask(GAIN, method="m3docrag")
    assert len(model.calls) == 2 and answer.status is AnswerStatus.UNVERIFIED and answer.short_answer == "36.2"
    assert any(note.startswith("proof: no second reply") for note in answer.notes)


@pytest.fixture(scope="module")
def nics_service(tmp_path_factory):
    """The firearm-checks table indexed once for the module (tables read on the whole page, the layout model and
    dense embeddings off)."""
    home = tmp_path_factory.mktemp("nics-home")
    (home / "nics").mkdir()
    make_nics_pdf(home / "nics" / "nics.pdf")
    with Service(make_settings(home / "home", check_proofs=True, layout=False, dense=False,
                               tables_gate=TablesGate.NONE)) as service:
        service.library.index([str(home / "nics")])
        yield service


@pytest.mark.slow  # indexes the table page once for the module
def test_a_model_answer_from_the_wrong_column_is_not_checked(nics_service):
    """The issue's M3DocRAG answer: the Permit column's 21,550 for handgun checks, quoted from the right page,
    was "Answered · Checked". Now the repair round is told which column it read, and a second such reply is an
    unverified draft; the Handgun column's figure is checked."""
    quote = [(1, "Texas 21,550 75,112 58,930")]
    wrong = m3docrag_reply("21,550", "Int", proof=quote)
    answer, model = ask(nics_service, HANDGUN, wrong, wrong)
    told = "21,550 is the 'Permit' column; the question asks about 'Handgun'"
    assert len(model.calls) == 2 and told in model.calls[1][-1].text
    assert answer.status is AnswerStatus.UNVERIFIED and answer.check == f"Not verified: {told}"
    right, model = ask(nics_service, HANDGUN, m3docrag_reply("75,112", "Int", proof=quote))
    assert right.status is AnswerStatus.ANSWERED and len(model.calls) == 1
    assert right.check.startswith("Checked: the value is in the quote from nics.pdf, page 1")
