"""The default answer, the cascade (methods/quoted/cascade.py): quoted, then one grammar-constrained choice by a
model among lettered candidates, trusted with a margin, else the passages.

The grammar and the first-step probabilities are tested on the real built-in model (llama.cpp); the cascade's
verdicts on a real indexed table with a scripted chooser, since those tests are about what the app does with a
choice (quote, compute, cite, hold back), not about which choice a model makes."""
from __future__ import annotations

import dataclasses
import re

import pytest

from docqa_desktop.answers import AnswerStatus, PageRef
from docqa_desktop.llm import Completion, ModelInfo, Usage
from docqa_desktop.methods.quoted import choice as choosing
from docqa_desktop.methods.quoted.candidates import Option
from docqa_desktop.service import Service
from docqa_desktop.settings import TablesGate

from conftest import make_settings
from scripted_model import FixedRuntimes
from table_pdf import write_table_pdf

REF = PageRef(1, "report.pdf", "/x/report.pdf", 3, 0.9)
OPTIONS = [Option("A", REF, "46,298", "Revenue — 2023: 46,298"), Option("B", REF, "51,761", "Revenue — 2022: 51,761"),
           Option("C", REF, "", "Revenue fell in fiscal 2023 as customers bought fewer computers.")]


def test_a_letter_a_span_an_operation_and_none_are_read_and_anything_else_declines():
    probabilities = {"A": 0.7, "B": 0.1, "C": 0.05, "none": 0.05, "difference": 0.1}
    picked = choosing.parse("A", OPTIONS, probabilities)
    assert picked.options == (OPTIONS[0],) and picked.probability == 0.7 and not picked.none
    spanned = choosing.parse("C: fewer computers", OPTIONS, probabilities)
    assert spanned.span == "fewer computers" and spanned.options == (OPTIONS[2],)
    computed = choosing.parse("difference(A, B)", OPTIONS, probabilities)
    assert computed.expression == "46298 - 51761" and computed.computed == -5463 and computed.probability == 0.1
    assert choosing.parse("ratio(B, A)", OPTIONS, probabilities).computed == pytest.approx(51761 / 46298)
    for declined in ("none", "Z", "A: a span for a candidate with a value", "C", "sum(A, C)", "The answer is A"):
        assert choosing.parse(declined, OPTIONS, probabilities).none, declined


def test_the_grammar_allows_only_the_offered_replies():
    decoding = choosing.reply_options(OPTIONS, operations=True)
    assert decoding.choices == ("A", "B", "C", "none", *choosing.OPERATIONS)
    assert '"C: " span' in decoding.grammar and '"A: "' not in decoding.grammar  # a span only where no value is
    assert 'operand ::= "A" | "B"' in decoding.grammar  # the operands: candidates with a value
    assert "op" not in choosing.reply_options(OPTIONS, operations=False).grammar.split("::=")[1]


@pytest.mark.model
def test_the_real_model_replies_within_the_grammar_and_its_first_step_weighs_every_reply(smollm2):
    operations = choosing.operations_allowed(OPTIONS)
    messages = choosing.messages("What was revenue in 2022?", OPTIONS, operations)
    allowed = re.compile(r"^(?:[AB]|C: [^\n]+|none|(?:difference|sum|ratio|change)\([AB], [AB]\))$")
    for seed in range(3):
        options = dataclasses.replace(choosing.reply_options(OPTIONS, operations), temperature=0.8, seed=seed)
        completion = smollm2.chat(messages, options)
        assert allowed.match(completion.text.strip()), completion.text
        probabilities = completion.choice_probabilities
        assert set(probabilities) == set(options.choices) and sum(probabilities.values()) == pytest.approx(1.0)
        parsed = choosing.parse(completion.text, OPTIONS, probabilities)
        assert 0.0 <= parsed.probability <= 1.0


class Chooser:
    """A model that makes a given choice with a given probability, and keeps the prompts it was shown. Asked again
    with the candidates in another order, it chooses the same candidates (their letters in the new list), unless
    it is `by_letter` (a model that favours a letter, whatever stands there)."""

    def __init__(self, reply: str, probability: float, by_letter: bool = False):
        self.reply, self.probability, self.by_letter = reply, probability, by_letter
        self.info = ModelInfo("chooser", "remote", 8192, False)
        self.prompts: list[str] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def chat(self, messages, options, cancel=None):
        self.prompts.append(messages[-1].text)
        reply = self.reply if self.by_letter else re.sub(r"\b[A-M]\b", self._same_candidate, self.reply)
        first = re.match(r"[a-z]+|[A-Z]", reply).group()
        rest = (1 - self.probability) / (len(options.choices) - 1)
        return Completion(reply, "stop", Usage(len(messages[-1].text.split()), 1, 0.01),
                          choice_probabilities={c: self.probability if c == first else rest for c in options.choices})

    def _same_candidate(self, letter) -> str:
        """The letter that the candidate lettered so in the first prompt has in the latest one."""
        line = _lines(self.prompts[0])[letter.group()]
        return next(label for label, text in _lines(self.prompts[-1]).items() if text == line)


def _lines(prompt: str) -> dict[str, str]:
    return dict(re.findall(r"^([A-Z])\. (.*)$", prompt, re.M))

    def close(self):
        pass


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


def _ask(home, chooser: Chooser):
    with Service(_settings(home)) as service:
        service.resources.use_runtimes(FixedRuntimes(chooser))
        return service.answers.ask(QUESTION, save=False)


def _offered(prompt: str) -> dict[str, str]:
    """{letter: value} of the candidates with a value, as the prompt lists them."""
    return dict(re.findall(r"^([A-Z])\. ([^—\n]+?) — ", prompt, re.M))


@pytest.mark.slow  # indexes a PDF
def test_a_sure_choice_answers_with_the_candidates_value_cited_to_its_cell(statement_home):
    chooser = Chooser("A", 0.9)
    answer = _ask(statement_home, chooser)
    offered = _offered(chooser.prompts[0])
    assert answer.method == "cascade" and answer.status is AnswerStatus.ANSWERED and len(answer.calls) == 2
    assert answer.short_answer == offered["A"] and answer.check.startswith("chosen by the model among ")
    assert len(chooser.prompts) == 2 and _lines(chooser.prompts[1])["A"] == list(_lines(chooser.prompts[0]).values())[-1]
    cited = answer.citations[0]
    assert cited.page == 1 and cited.bbox is not None and offered["A"].split()[0].lstrip("$") in cited.quote


@pytest.mark.slow  # indexes a PDF
def test_an_unsure_choice_leaves_the_passages_and_says_where_the_model_leans(statement_home):
    answer = _ask(statement_home, Chooser("A", 0.3))
    assert answer.status is AnswerStatus.PASSAGES and answer.text.startswith("The model leans to “")
    assert "probability 0.30 is under 0.7" in answer.text and answer.citations  # the passages, cited


@pytest.mark.slow  # indexes a PDF
def test_a_model_that_keeps_its_letter_when_the_candidates_are_reversed_is_not_trusted(statement_home):
    answer = _ask(statement_home, Chooser("A", 0.95, by_letter=True))
    assert answer.status is AnswerStatus.PASSAGES and "in reverse order, the model chose otherwise" in answer.text


@pytest.mark.slow  # indexes a PDF
def test_an_operation_is_computed_by_the_app_from_the_two_values_chosen(statement_home):
    chooser = Chooser("difference(A, B)", 0.8)
    answer = _ask(statement_home, chooser)
    offered = _offered(chooser.prompts[0])
    a, b = (float(offered[x].split()[0].lstrip("$").replace(",", "")) for x in "AB")
    assert answer.status is AnswerStatus.ANSWERED and answer.check.startswith("computed by the app")
    assert float(answer.short_answer.replace(",", "")) == pytest.approx(a - b)
    assert answer.computation.replace(" ", "") == f"{a:g}-{b:g}" and len(answer.citations) == 2


@pytest.mark.slow  # indexes a PDF
def test_none_of_these_keeps_the_quoted_verdict(statement_home):
    answer = _ask(statement_home, Chooser("none", 0.9))
    assert answer.status is AnswerStatus.PASSAGES and not answer.text.startswith("The model leans")
    assert any("none of the candidates" in note for note in answer.notes)
