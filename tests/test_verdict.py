"""One owner of the verdict (methods/verdict.py): a method ends with a draft and `finish` sets the status and the
citations once. A model's refusal ends as the closest passages read, cited, unless no page read shares the
question's key terms (not found); an answer is cited once; Stop keeps what was streamed; a draft that a model
below the method's floor wrote is unverified."""
from __future__ import annotations

import dataclasses

from scripted_model import FixedRuntimes, ScriptedModel, reasoning
from docqa_desktop.answers import Answer, AnswerStatus, Citation
from docqa_desktop.llm import ModelError
from docqa_desktop.llm.gguf_file import ModelSize
from docqa_desktop.methods import method_spec
from docqa_desktop.methods.base import Decided, MethodContext, MethodSpec
from docqa_desktop.methods.toolkit.final_answer import FinalAnswer
from docqa_desktop.methods.verdict import finish
from docqa_desktop.progress import Cancelled

BUILT_IN = ModelSize(0.135, "135M", builtin=True)


def ask(service, model, question="Which languages are used as pivot?"):
    service.resources.use_runtimes(FixedRuntimes(model))
    return service.answers.ask(question, method="simpledoc", overrides={"k": 3})


def bare_context(question="When?") -> MethodContext:
    """A context without ports: enough for a draft that names no page."""
    return MethodContext(question, Answer("v", question, "test"), None, None, None, None, None, None, None)


def spec_running(run, min_model_params=1.0) -> MethodSpec:
    return MethodSpec("test", "Test", "", "", "low", object, run, min_model_params=min_model_params)


# -- on the real paper, with a scripted model --------------------------------------------------------------------

def test_a_refusal_on_pages_that_share_the_questions_key_terms_ends_as_cited_passages(paper_service):
    answer = ask(paper_service, ScriptedModel([reasoning("not_answerable")]))
    assert answer.status is AnswerStatus.PASSAGES and answer.short_answer == ""
    assert answer.text.startswith("The model found no answer; the closest passages (read them to judge):\n[1] ")
    assert answer.citations and all(c.quote for c in answer.citations)
    read = {(p.doc, p.page) for p in answer.pages_used}
    assert {(c.doc, c.page) for c in answer.citations} <= read


def test_a_refusal_on_pages_about_something_else_is_not_found(paper_service):
    answer = ask(paper_service, ScriptedModel([reasoning("not_answerable")]),
                 "What results did the weather forecast give for Berlin?")  # "results": pages retrieved
    assert answer.pages_used  # pages were read, none about the question
    assert answer.status is AnswerStatus.NOT_FOUND and answer.short_answer == "Not answerable"
    assert answer.citations == [] and answer.text.startswith("Not found: none of the")


def test_an_answer_is_cited_once(paper_service):
    quote = {"page": 1, "quote": "pivot"}
    answer = ask(paper_service, ScriptedModel([reasoning("answer", "English is the pivot language.", [quote, quote])]))
    assert answer.status is AnswerStatus.ANSWERED
    cited = [(c.doc, c.page, c.quote) for c in answer.citations]
    assert len(cited) == 1 and len(set(cited)) == len(cited)


# -- finish() itself ------------------------------------------------------------------------------------------

def test_conclude_only_records_the_draft():
    ctx = bare_context()
    ctx.conclude(FinalAnswer("In 2022.", "2022", "Int"), [])
    assert ctx.answer.status is AnswerStatus.FAILED and ctx.answer.text == "" and ctx.concluded.final.short_answer == "2022"


def test_stop_keeps_the_streamed_text():
    def run(ctx):
        ctx.streamed = "English is the"
        raise Cancelled()

    ctx = bare_context()
    finish(spec_running(run), ctx, check_proofs=False, writers=lambda answer: [BUILT_IN])
    assert ctx.answer.status is AnswerStatus.CANCELLED and ctx.answer.text == "English is the"
    quiet = bare_context()
    finish(spec_running(lambda c: (_ for _ in ()).throw(Cancelled())), quiet, check_proofs=False)
    assert quiet.answer.text == "Stopped before an answer was found."


def test_a_model_error_fails_the_answer():
    def run(ctx):
        raise ModelError("the prompt does not fit")

    ctx = bare_context()
    finish(spec_running(run), ctx, check_proofs=False)
    assert ctx.answer.status is AnswerStatus.FAILED and ctx.answer.error == "the prompt does not fit"


def test_a_below_floor_writers_answer_is_unverified():
    def run(ctx):
        ctx.conclude(FinalAnswer("It was 2022.", "2022", "Int"), [])

    ctx = bare_context()
    finish(dataclasses.replace(method_spec("m3docrag"), run=run), ctx, check_proofs=False,
           writers=lambda answer: [BUILT_IN])
    assert ctx.answer.status is AnswerStatus.UNVERIFIED and ctx.answer.short_answer == "2022"
    assert ctx.answer.check.startswith("unverified — written by a 135M model")
    large = bare_context()
    finish(spec_running(run), large, check_proofs=False, writers=lambda answer: [ModelSize(1.5, "1.5B")])
    assert large.answer.status is AnswerStatus.ANSWERED and not large.answer.check
    no_floor = bare_context()
    finish(spec_running(run, min_model_params=0.0), no_floor, check_proofs=False, writers=lambda answer: [BUILT_IN])
    assert no_floor.answer.status is AnswerStatus.ANSWERED


def test_a_method_that_read_no_page_is_not_found_saying_why():
    ctx = bare_context()
    finish(spec_running(lambda c: c.decline("No indexed page matches the question.")), ctx, check_proofs=True)
    assert ctx.answer.status is AnswerStatus.NOT_FOUND and ctx.answer.text == "No indexed page matches the question."
    assert ctx.answer.short_answer == "Not answerable" and ctx.answer.citations == []


def test_a_verdict_the_method_reached_itself_is_rendered_whole_by_finish():
    """The quoted answers decide without a draft to check: finish sets what they decided, every part of it."""
    cited = Citation("a.pdf", "/a.pdf", 2, "2", "The ferry leaves at 18:40.")

    def run(ctx):
        ctx.decide(dataclasses.replace(Decided.passages("Likeliest: 18:40 …", [cited]), likeliest="18:40",
                                       confidence=0.42))

    ctx = bare_context()
    ctx.answer.check = "from an earlier step"
    finish(spec_running(run, 0.0), ctx)
    answer = ctx.answer
    assert (answer.status, answer.text, answer.citations) == (AnswerStatus.PASSAGES, "Likeliest: 18:40 …", [cited])
    assert (answer.likeliest, answer.confidence, answer.short_answer, answer.answer_format) == ("18:40", 0.42, "", "None")
    assert answer.check == ""  # the verdict's own, not what was there before

    ctx = bare_context()
    finish(spec_running(lambda c: c.decide(Decided.not_found("Not found: nothing matches.")), 0.0), ctx)
    assert (ctx.answer.status, ctx.answer.short_answer, ctx.answer.citations) == (
        AnswerStatus.NOT_FOUND, "Not answerable", [])
