"""The default answer, the cascade (methods/cascade): quoted, then a text model reads the passages: it writes a span
(kept where a passage holds it) and checks each value by its probability of "yes"; a value answers when that
clears `min_yes` and no other value does, else the passages with the model's lean.

The grammars and the first-step probabilities are tested on the real built-in model (llama.cpp); the cascade's
verdicts on a real indexed table with a scripted reader, since those tests are about what the app does with what
the model says (quote, cite, hold back), not about what a model says."""
from __future__ import annotations

import dataclasses
import re

import pytest

from docqa_desktop.answers import AnswerStatus, PageRef
from docqa_desktop.llm import Completion, ModelInfo, Usage
from docqa_desktop.methods.cascade import reading
from docqa_desktop.methods.cascade.reading import Passage
from docqa_desktop.service import Service
from docqa_desktop.settings import TablesGate

from conftest import make_settings
from scripted_model import FixedRuntimes
from table_pdf import write_table_pdf

REF = PageRef(1, "report.pdf", "/x/report.pdf", 3, "3")
PASSAGES = [Passage(REF, "Revenue fell in fiscal 2023 as customers bought fewer computers and phones."),
            Passage(REF, "Cost of sales was $36,386 million in fiscal 2023.")]


def test_a_span_counts_only_where_a_passage_holds_it_word_for_word():
    assert reading.copied_from("$36,386  Million", PASSAGES) == PASSAGES[1]  # spaces and case aside
    assert reading.copied_from("fewer computers.", PASSAGES) == PASSAGES[0]
    assert reading.copied_from("36,387 million", PASSAGES) is None  # a figure the passages do not hold
    assert reading.copied_from("none", PASSAGES) is None and reading.copied_from("  ", PASSAGES) is None


def test_the_check_shares_the_span_prompts_beginning():
    """llama.cpp reuses the span's prompt for each check: the passages and the question come first."""
    span = reading.span_messages("What was the cost of sales?", PASSAGES)
    check = reading.check_messages("What was the cost of sales?", PASSAGES, "$36,386 million")
    assert span[0] == check[0]
    shared = span[1].text[:span[1].text.index("Reply with")]
    assert check[1].text.startswith(shared) and "Question: What was the cost of sales?" in shared
    assert "Proposed answer: $36,386 million" in check[1].text


def test_the_real_model_writes_within_the_grammars_and_weighs_yes_and_no(smollm2):
    question = "What was the cost of sales in fiscal 2023?"
    for seed in range(2):
        written = smollm2.chat(reading.span_messages(question, PASSAGES),
                               dataclasses.replace(reading.span_options(), temperature=0.8, seed=seed)).text.strip()
        assert written == reading.NONE or 0 < len(written) <= reading.SPAN_CHARS
        assert not re.search(r'[\n"“”]', written)
    checked = smollm2.chat(reading.check_messages(question, PASSAGES, "$36,386 million"), reading.check_options())
    assert checked.text.strip() in ("yes", "no")
    probabilities = checked.choice_probabilities
    assert set(probabilities) == {"yes", "no"} and sum(probabilities.values()) == pytest.approx(1.0)


class Reader:
    """A model that writes `span(passages shown)` and says yes to a proposed value with the probability
    `yes(value)`; it keeps the prompts it was shown."""

    def __init__(self, span, yes=lambda value: 0.1):
        self.span, self.yes = span, yes
        self.info = ModelInfo("reader", "remote", 8192, False)
        self.prompts: list[str] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def chat(self, messages, options, cancel=None):
        prompt = messages[-1].text
        self.prompts.append(prompt)
        proposed = re.search(r"^Proposed answer: (.*?)(?: \(from .*)?$", prompt, re.M)
        if proposed is None:
            return Completion(self.span(_passages(prompt)), "stop", Usage(len(prompt.split()), 5, 0.01))
        yes = self.yes(proposed.group(1))
        return Completion("yes" if yes >= 0.5 else "no", "stop", Usage(len(prompt.split()), 1, 0.01),
                          choice_probabilities={"yes": yes, "no": 1 - yes})

    def close(self):
        pass


def _passages(prompt: str) -> list[str]:
    return re.findall(r"^\[\d+\] [^:]+: “(.*)”$", prompt, re.M)


def _last_words(passages: list[str]) -> str:
    return " ".join(passages[0].rstrip(".").split()[-3:])


def _remembered(write):
    """`write`, keeping what it wrote in words["span"] (a check's probability may depend on it)."""
    words = {}

    def span(passages):
        words["span"] = write(passages)
        return words["span"]
    return span, words


QUESTION = "What were the company's sales costs?"  # no cell's labels say "costs": the reader is not sure


@pytest.fixture(scope="module")
def statement_home(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cascade") / "docs"
    folder.mkdir()
    write_table_pdf(folder / "statement.pdf")
    home = folder.parent / "home"
    with Service(_settings(home)) as service:
        service.library.index([str(folder)])
    return home


def _settings(home):
    settings = make_settings(home, layout=False, ocr=False, dense=False, tables_gate=TablesGate.NONE)
    # a server's model: its size is the user's choice, so it may choose (the built-in 135M never does)
    return dataclasses.replace(settings, llm=dataclasses.replace(settings.llm, backend="remote",
                                                                 remote_url="http://127.0.0.1:9/v1"))


def _ask(home, reader: "Reader", model_answers: bool = True):
    with Service(_settings(home)) as service:
        service.resources.use_runtimes(FixedRuntimes(reader))
        return service.answers.ask(QUESTION, save=False, overrides={"model_answers": model_answers})


@pytest.mark.slow  # indexes a PDF
def test_a_span_the_model_is_sure_the_passages_state_answers_cited_to_its_page(statement_home):
    span, words = _remembered(_last_words)
    reader = Reader(span, lambda value: 0.95 if value == words["span"] else 0.1)
    answer = _ask(statement_home, reader)
    assert answer.method == "cascade" and answer.status is AnswerStatus.ANSWERED
    assert answer.short_answer == words["span"] and answer.confidence == 0.95
    assert answer.check.startswith("written by the model from the passages; the model's check")
    assert answer.citations and answer.citations[0].page == 1 and words["span"] in answer.citations[0].quote
    assert len(answer.calls) >= 2 and not reader.prompts[0].count("Proposed answer")


@pytest.mark.slow  # indexes a PDF
def test_a_span_no_passage_holds_is_not_checked_and_an_unsure_check_leaves_the_passages(statement_home):
    reader = Reader(lambda passages: "forty-two billion")
    answer = _ask(statement_home, reader)
    assert answer.status is AnswerStatus.PASSAGES and answer.citations
    assert any("which no passage holds word for word" in note for note in answer.notes)
    assert not any("Proposed answer: forty-two billion" in p for p in reader.prompts)
    assert all(c.origin != "span" for c in answer.checked) and answer.checked  # the scorer's values were checked
    assert not answer.text.startswith("The model leans")  # every check said no (0.1)


@pytest.mark.slow  # indexes a PDF
def test_a_value_checked_under_the_threshold_is_said_as_the_models_lean(statement_home):
    reader = Reader(_last_words, lambda value: 0.7)
    answer = _ask(statement_home, reader)
    assert answer.status is AnswerStatus.PASSAGES and answer.text.startswith("The model leans to “")
    assert "its check 0.70 is under 0.9" in answer.text


@pytest.mark.slow  # indexes a PDF
def test_two_different_values_both_stated_as_the_answer_answer_nothing(statement_home):
    reader = Reader(_last_words, lambda value: 0.97)
    answer = _ask(statement_home, reader)
    assert len({c.value for c in answer.checked}) >= 2
    assert answer.status is AnswerStatus.PASSAGES and "it finds another value stated as well" in answer.text



@pytest.mark.slow  # indexes a PDF
def test_by_default_a_sure_check_is_the_models_lean_not_an_answer(statement_home):
    """model_answers is off by default: the 1.5B's checks were not precise enough on documents it never saw."""
    span, words = _remembered(_last_words)
    answer = _ask(statement_home, Reader(span, lambda value: 0.97 if value == words["span"] else 0.1),
                  model_answers=False)
    assert answer.status is AnswerStatus.PASSAGES and answer.text.startswith("The model leans to “")
    assert "cascade.model_answers is off" in answer.text
