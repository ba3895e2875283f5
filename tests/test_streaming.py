"""Streaming: the answer field of a JSON reply as it grows, from the real llama.cpp runtime and through a
method to the caller; Stop keeps what was written; the CLI prints it once."""
from __future__ import annotations

import io
import json

from scripted_model import FixedRuntimes, StreamingModel, reasoning
from docqa_desktop.answers import AnswerStatus
from docqa_desktop.cli.asking import StreamPrinter
from docqa_desktop.llm import Message, Options
from docqa_desktop.llm.partial_json import partial_field


def test_the_answer_field_of_a_reply_still_being_written():
    reply = json.dumps({"scratchpad": 'the "answer": is on page 2', "evidence": [{"page": 1, "quote": "a"}],
                        "answer": "The last ferry leaves at 18:40 — \"late\"\nin winter.", "short_answer": "18:40"})
    seen = [partial_field(reply[:end], "answer") for end in range(len(reply) + 1)]
    shown = [s for s in seen if s is not None]
    assert seen[reply.index('"answer"') + 10] is None  # the key is not complete before its value starts
    assert shown[-1] == "The last ferry leaves at 18:40 — \"late\"\nin winter."
    assert all(later.startswith(earlier) for earlier, later in zip(shown, shown[1:]))  # it only grows
    assert not any("\\" in s for s in shown)  # a half-written escape is never shown
    assert partial_field('{"short_answer": "18:40", "answer_format": "Str"', "answer") is None
    assert partial_field('{"answer": "caf\\u00e9 au l', "answer") == "café au l"
    assert partial_field('{"answer": "caf\\u00', "answer") == "caf"


def test_the_real_runtime_streams_the_text_before_the_call_ends(smollm2):
    seen: list[str] = []
    completion = smollm2.chat([Message("user", "Count from one to ten in words.")],
                              Options(max_tokens=40, on_text=seen.append))
    assert len(seen) >= 5  # token by token, not once at the end
    assert all(later.startswith(earlier) for earlier, later in zip(seen, seen[1:]))
    assert completion.text.startswith(seen[-1])  # one token behind at most; the completion has it all


ANSWER = "English is the pivot language between the source and the target."


def test_a_method_streams_its_answer_field_and_ends_with_the_whole_answer(paper_service):
    model = StreamingModel([reasoning("answer", ANSWER, [{"page": 1, "quote": "pivot"}])], pieces=20)
    paper_service.resources.use_runtimes(FixedRuntimes(model))
    seen: list[str] = []
    answer = paper_service.answers.ask("Which languages are used as pivot?", method="simpledoc", stream=seen.append)
    assert answer.status is AnswerStatus.ANSWERED and answer.text == ANSWER
    assert len(seen) >= 3 and seen[0] != ANSWER and ANSWER.startswith(seen[0])  # partial text came first
    assert seen[-1] == ANSWER
    assert not any("scratchpad" in s or "{" in s for s in seen)  # only the answer, never the JSON around it


def test_a_round_that_searches_on_streams_nothing(paper_service):
    searching = {**reasoning("query_update", query_update="pivot languages table", notes="Not on these pages."),
                 "answer": "A guess the method throws away"}
    model = StreamingModel([searching, reasoning("answer", ANSWER, [{"page": 1, "quote": "pivot"}])], pieces=20)
    paper_service.resources.use_runtimes(FixedRuntimes(model))
    seen: list[str] = []
    answer = paper_service.answers.ask("Which languages are used as pivot?", method="simpledoc", stream=seen.append)
    assert answer.iterations == 2 and answer.text == ANSWER
    assert seen and not any("guess" in s for s in seen) and seen[-1] == ANSWER


def test_stop_keeps_what_was_written(paper_service):
    reply = reasoning("answer", ANSWER, [{"page": 1, "quote": "pivot"}])
    model = StreamingModel([reply], pieces=len(json.dumps(reply)), stop_after=None)
    text = json.dumps(reply)
    model.stop_after = text.index(ANSWER) + 20  # Stop pressed 20 characters into the answer
    paper_service.resources.use_runtimes(FixedRuntimes(model))
    seen: list[str] = []
    answer = paper_service.answers.ask("Which languages are used as pivot?", method="simpledoc", stream=seen.append,
                               cancel=model.cancel)
    assert answer.status is AnswerStatus.CANCELLED
    assert answer.text == seen[-1] == ANSWER[:20]
    assert paper_service.answers.answer(answer.id).text == ANSWER[:20]  # kept in the history as it was shown


def test_without_a_stream_nothing_is_asked_to_stream(paper_service):
    model = StreamingModel([reasoning("answer", ANSWER, [{"page": 1, "quote": "pivot"}])])
    paper_service.resources.use_runtimes(FixedRuntimes(model))
    assert paper_service.answers.ask("Which languages are used as pivot?", method="simpledoc").text == ANSWER


def test_the_cli_prints_a_streamed_answer_once():
    out = io.StringIO()
    printer = StreamPrinter(out)
    for text in ("The", "The last", "The last ferry"):
        printer(text)
    printer.finish("The last ferry")
    assert out.getvalue() == "\nThe last ferry\n\n"
    out = io.StringIO()
    printer = StreamPrinter(out)
    printer("Round one")  # a method that starts its answer over prints it on a new line
    printer("Another")
    printer.finish("Another answer, as finally written")
    assert out.getvalue() == "\nRound one\nAnother\n\nAnother answer, as finally written\n\n"
    out = io.StringIO()
    StreamPrinter(out).finish("Quoted, never streamed")
    assert out.getvalue() == "\nQuoted, never streamed\n\n"
