"""The two LLM parts of the method toolkit, each alone with a scripted model: the aggregator (one answer
from candidate answers, constrained to the distinct candidates or "Not answerable") and the page judge
(pages packed into batches by token budget, one verdict per page)."""
from __future__ import annotations

import json
import re

import pytest

from docqa_desktop.answers import PageRef
from docqa_desktop.llm import Completion, InvalidOutput, ModelInfo, Usage
from docqa_desktop.llm.budget import TRIM_MARK
from docqa_desktop.llm.jsonout import parse_json
from docqa_desktop.methods.toolkit.aggregate import (NOT_ANSWERABLE, Candidate, aggregate, aggregate_schema,
                                                     normalise)
from docqa_desktop.methods.toolkit.page_judge import NO_VERDICT, PageVerdict, judge_pages


class ScriptedRuntime:
    """Plays a runtime: `reply(prompt, schema)` gives each reply (a dict or raw text), which is parsed
    against the call's schema like a backend without a grammar; `count` counts tokens."""

    def __init__(self, reply, count=lambda text: len(text.split())):
        self.info = ModelInfo("scripted", "local", 8192, False)
        self.reply, self.count = reply, count

    def count_tokens(self, text: str) -> int:
        return self.count(text)

    def chat(self, messages, options, cancel=None):
        prompt = messages[-1].text
        reply = self.reply(prompt, options.schema)
        text = reply if isinstance(reply, str) else json.dumps(reply)
        completion = Completion(text, "stop", Usage(self.count(prompt), len(text.split()), 0.01))
        if options.schema:
            completion.parsed = parse_json(text, options.schema)
        return completion


class Calls:
    """Stands in for ctx.call(step, runtime, messages, options, pages): records every call."""

    def __init__(self):
        self.seen: list[dict] = []

    def __call__(self, step, runtime, messages, options, pages=(), shows=None):
        self.seen.append({"step": step, "prompt": messages[-1].text, "messages": messages,
                          "options": options, "schema": options.schema, "pages": list(pages)})
        return runtime.chat(messages, options)


# -- aggregator ------------------------------------------------------------------------------------------

CANDIDATES = [
    Candidate("Paris", "Page 3 says the headquarters are in Paris.", "text agent"),
    Candidate("paris.", "The letterhead on page 1 reads Paris.", "image agent"),
    Candidate("  PARIS ", "Both pages mention Paris.", "general agent"),
    Candidate("Lyon", "The 2019 report moved the office to Lyon.", "sample 4"),
    Candidate("not answerable", "No page names a headquarters.", "sample 5"),
    Candidate("3.5", "Table 2 gives 3.5.", "sample 6"),
    Candidate("35", "Table 2 gives 35.", "sample 7"),
]


def answering(answer, reasoning="Agents 1-3 read Paris, agent 4 a later move."):
    return ScriptedRuntime(lambda prompt, schema: {"reasoning": reasoning, "answer": answer})


def test_aggregator_enum_is_the_distinct_candidates_plus_not_answerable():
    calls = Calls()
    result = aggregate("Where is the headquarters?", CANDIDATES, answering("Lyon"), calls)
    assert len(calls.seen) == 1 and calls.seen[0]["step"] == "aggregate"
    schema = calls.seen[0]["schema"]
    assert schema["properties"]["answer"]["enum"] == ["Paris", "Lyon", "3.5", "35", NOT_ANSWERABLE]
    assert list(schema["properties"]) == ["reasoning", "answer"]  # reasoning generated before the choice
    assert schema["required"] == ["reasoning", "answer"]
    assert schema["properties"]["reasoning"]["maxLength"] <= 400
    assert result.answer == "Lyon" and result.chosen == 3
    assert result.reasoning == "Agents 1-3 read Paris, agent 4 a later move."


def test_aggregator_merges_duplicates_and_shows_support_counts():
    calls = Calls()
    aggregate("Where is the headquarters?", CANDIDATES, answering("Paris"), calls)
    prompt = calls.seen[0]["prompt"]
    assert '"Paris" (given by 3 of 7 agents)' in prompt
    assert '"Lyon" (given by 1 of 7 agents)' in prompt
    assert f'"{NOT_ANSWERABLE}" (given by 1 of 7 agents)' in prompt
    assert "5 distinct answers" in prompt
    assert "paris." not in prompt and "PARIS" not in prompt  # merged spellings are not offered again
    # every agent's reasoning is shown, under the answer it gave, with its source
    assert "- Agent 2 (image agent): The letterhead on page 1 reads Paris." in prompt
    assert prompt.index("Agent 3 (general agent)") < prompt.index('"Lyon"')
    assert prompt.index("<question>Where is the headquarters?</question>") < prompt.index("Answer 1:")


def test_aggregator_result_points_at_the_first_candidate_of_the_chosen_answer():
    result = aggregate("Where?", CANDIDATES, answering("Paris"), Calls())
    assert (result.answer, result.chosen) == ("Paris", 0)
    result = aggregate("Where?", CANDIDATES, answering(NOT_ANSWERABLE), Calls())
    assert (result.answer, result.chosen) == (NOT_ANSWERABLE, 4)  # the candidate that said so
    two = [Candidate("Paris", "p. 3", "a"), Candidate("Lyon", "p. 4", "b")]
    result = aggregate("Where?", two, answering(NOT_ANSWERABLE), Calls())
    assert (result.answer, result.chosen) == (NOT_ANSWERABLE, None)  # no candidate said so


@pytest.mark.parametrize("candidates, answer, chosen", [
    ([], NOT_ANSWERABLE, None),
    ([Candidate("42", "Table 1.", "s1"), Candidate("42.", "Row 3.", "s2"), Candidate(" 42 ", "", "s3")], "42", 0),
    ([Candidate("Not answerable", "", "s1"), Candidate("not answerable.", "", "s2"), Candidate("", "", "s3")],
     NOT_ANSWERABLE, 0),
    ([Candidate("The  Board\nof Directors", "p. 2", "s1")], "The Board of Directors", 0),
])
def test_aggregator_shortcuts_make_no_call(candidates, answer, chosen):
    def never(prompt, schema):
        raise AssertionError("no model call expected")

    calls = Calls()
    result = aggregate("How many?", candidates, ScriptedRuntime(never), calls)
    assert calls.seen == []
    assert (result.answer, result.chosen) == (answer, chosen)


def test_aggregator_calls_when_one_answer_faces_not_answerable():
    calls = Calls()
    candidates = [Candidate("42", "Table 1.", "s1"), Candidate("Not answerable", "Nothing on 2024.", "s2")]
    result = aggregate("How many in 2024?", candidates, answering(NOT_ANSWERABLE), calls)
    assert len(calls.seen) == 1
    assert calls.seen[0]["schema"]["properties"]["answer"]["enum"] == ["42", NOT_ANSWERABLE]
    assert (result.answer, result.chosen) == (NOT_ANSWERABLE, 1)


def test_aggregator_rejects_a_reply_outside_the_enum():
    schema = aggregate_schema(["Paris", "Lyon"])
    with pytest.raises(InvalidOutput):
        parse_json('{"reasoning": "A new idea.", "answer": "Marseille"}', schema)
    with pytest.raises(InvalidOutput):
        parse_json('{"reasoning": "Close enough.", "answer": "paris"}', schema)  # not verbatim
    assert parse_json('{"reasoning": "Page 3.", "answer": "Paris"}', schema)["answer"] == "Paris"
    with pytest.raises(InvalidOutput):
        aggregate("Where?", CANDIDATES, answering("Marseille"), Calls())


def test_aggregator_trims_each_reasoning():
    calls = Calls()
    long = " ".join(f"word{i}" for i in range(500))
    candidates = [Candidate("A", long, "s1"), Candidate("B", "short", "s2")]
    aggregate("Which?", candidates, answering("A"), calls, reasoning_tokens=20)
    line = next(line for line in calls.seen[0]["prompt"].splitlines() if line.startswith("- Agent 1"))
    assert line.endswith(TRIM_MARK) and "word17" in line and "word30" not in line


def test_normalise_merges_spelling_but_keeps_numbers_apart():
    assert normalise("Paris.") == normalise("  paris ") == normalise('"PARIS"')
    assert normalise("3.5") != normalise("35")
    assert normalise("1,000") != normalise("1000")
    assert normalise("-5") != normalise("5")
    assert normalise("5%") != normalise("5")
    assert normalise("Not Answerable.") == normalise(NOT_ANSWERABLE)


# -- page judge ------------------------------------------------------------------------------------------

def pages_of(count, doc_id=1, doc="a.pdf", first=1):
    return [PageRef(doc_id, doc, f"/docs/{doc}", n, str(n)) for n in range(first, first + count)]


def marker_count(text):
    """A tokenizer for exact arithmetic: only ZQ (page text) and QQ (question) words count."""
    words = text.split()
    return words.count("ZQ") + words.count("QQ")


def verdicts_for_every_page(relevant=lambda page: page % 2 == 1):
    def reply(prompt, schema):
        ids = schema["properties"]["verdicts"]["items"]["properties"]["page"]["enum"]
        return {"verdicts": [{"page": i, "reason": f"page {i} mentions it", "relevant": relevant(i)}
                             for i in ids]}
    return reply


def batch_enums(calls):
    return [c["schema"]["properties"]["verdicts"]["items"]["properties"]["page"]["enum"] for c in calls.seen]


def labels_in(prompt):
    return [int(n) for n in re.findall(r"^\[Page (\d+)", prompt, re.M)]


QUESTION_10 = "Count: " + "QQ " * 10 + "?"  # ten counted tokens


def test_judge_packs_pages_greedily_into_batches_that_fit_the_budget():
    sizes = {1: 30, 2: 30, 3: 30, 4: 50, 5: 20, 6: 90, 7: 5}  # 4 and 6 are trimmed to 40 (per_page_tokens)
    pages = pages_of(7)
    runtime, calls = ScriptedRuntime(verdicts_for_every_page(), marker_count), Calls()
    verdicts = judge_pages(QUESTION_10, pages, lambda ref: "ZQ " * sizes[ref.page], runtime, calls,
                           budget_tokens=100, per_page_tokens=40)
    # 10 + 30+30+30 = 100 fits exactly; 10 + 40+20 = 70 and +40 would be 110; 10 + 40+5 = 55
    assert batch_enums(calls) == [[1, 2, 3], [4, 5], [6, 7]]
    assert [labels_in(c["prompt"]) for c in calls.seen] == [[1, 2, 3], [4, 5], [6, 7]]
    assert [[ref.page for ref in c["pages"]] for c in calls.seen] == [[1, 2, 3], [4, 5], [6, 7]]
    assert [marker_count(c["prompt"]) for c in calls.seen] == [100, 70, 55]
    assert all(c["step"] == "judge pages" for c in calls.seen)
    assert [(v.ref.page, v.relevant) for v in verdicts] == [(n, n % 2 == 1) for n in range(1, 8)]
    assert all(isinstance(v, PageVerdict) and v.reason == f"page {v.ref.page} mentions it" for v in verdicts)
    page_4 = calls.seen[1]["prompt"].split("[Page 4]")[1].split("[Page 5]")[0]
    assert page_4.split().count("ZQ") == 40 and TRIM_MARK.strip() in page_4


def test_judge_batches_share_instructions_and_question_as_their_prefix():
    question = "Which year had the highest revenue?"
    runtime, calls = ScriptedRuntime(verdicts_for_every_page()), Calls()
    judge_pages(question, pages_of(6), lambda ref: "revenue " * 120, runtime, calls,
                budget_tokens=600, per_page_tokens=150)
    prompts = [c["prompt"] for c in calls.seen]
    assert len(prompts) >= 2
    head = prompts[0][:prompts[0].index("[Page")]
    assert question in head and all(p.startswith(head) for p in prompts)  # llama.cpp reuses this prefix


def test_no_batch_prompt_exceeds_the_budget_with_real_overheads():
    sizes = [120, 15, 300, 80, 80, 5, 260, 40, 200, 10, 90, 150]
    pages = pages_of(len(sizes), first=3)
    text = {ref.page: " ".join(f"w{ref.page}x{i}" for i in range(size)) for ref, size in zip(pages, sizes)}
    runtime, calls = ScriptedRuntime(verdicts_for_every_page()), Calls()
    verdicts = judge_pages("What is the total headcount in 2022?", pages, lambda ref: text[ref.page],
                           runtime, calls, budget_tokens=500, per_page_tokens=180)
    assert len(calls.seen) > 2
    assert all(runtime.count_tokens(c["prompt"]) <= 500 for c in calls.seen)
    seen = [labels_in(c["prompt"]) for c in calls.seen]
    assert seen == batch_enums(calls)  # every page shown is asked about, and only those
    assert [n for batch in seen for n in batch] == [ref.page for ref in pages]  # each once, in order
    assert [v.ref for v in verdicts] == pages


def test_a_page_the_model_omits_is_not_relevant():
    def first_only(prompt, schema):
        ids = schema["properties"]["verdicts"]["items"]["properties"]["page"]["enum"]
        return {"verdicts": [{"page": ids[0], "reason": "the table", "relevant": True},
                             {"page": ids[0], "reason": "a repeat", "relevant": False}]}  # a repeat: first counts

    verdicts = judge_pages("Q?", pages_of(4), lambda ref: "text", ScriptedRuntime(first_only), Calls(),
                           budget_tokens=2000, per_page_tokens=100)
    assert [(v.relevant, v.reason) for v in verdicts] == [(True, "the table")] + [(False, NO_VERDICT)] * 3


def test_a_verdict_for_a_page_outside_the_batch_is_rejected():
    def stray(prompt, schema):
        return {"verdicts": [{"page": 99, "reason": "elsewhere", "relevant": True}]}

    with pytest.raises(InvalidOutput):
        judge_pages("Q?", pages_of(2), lambda ref: "text", ScriptedRuntime(stray), Calls(),
                    budget_tokens=2000, per_page_tokens=100)


def test_an_oversize_page_goes_alone_and_is_trimmed_to_fit():
    sizes = {1: 10, 2: 70, 3: 10}
    runtime, calls = ScriptedRuntime(verdicts_for_every_page(), marker_count), Calls()
    judge_pages(QUESTION_10, pages_of(3), lambda ref: "ZQ " * sizes[ref.page], runtime, calls,
                budget_tokens=50, per_page_tokens=80)
    assert batch_enums(calls) == [[1], [2], [3]]
    page_2 = calls.seen[1]["prompt"].split("[Page 2]")[1]
    assert page_2.split().count("ZQ") == 40 and TRIM_MARK.strip() in page_2  # 50 budget - 10 question
    assert marker_count(calls.seen[1]["prompt"]) == 50


def test_an_oversize_page_fits_with_real_overheads():
    runtime, calls = ScriptedRuntime(verdicts_for_every_page()), Calls()
    huge = " ".join(f"t{i}" for i in range(5000))
    verdicts = judge_pages("Which chart shows the trend?", pages_of(3), lambda ref: huge if ref.page == 2 else "a b",
                           runtime, calls, budget_tokens=400, per_page_tokens=1000)
    assert batch_enums(calls) == [[1], [2], [3]]
    assert all(runtime.count_tokens(c["prompt"]) <= 400 for c in calls.seen)
    assert runtime.count_tokens(calls.seen[1]["prompt"]) >= 390  # trimmed to fill the budget, not emptied
    assert [v.ref.page for v in verdicts] == [1, 2, 3]


def test_a_budget_below_the_instructions_is_an_error():
    with pytest.raises(ValueError, match="budget_tokens"):
        judge_pages("Q?", pages_of(1), lambda ref: "text", ScriptedRuntime(verdicts_for_every_page()), Calls(),
                    budget_tokens=20, per_page_tokens=100)


def test_max_batch_pages_caps_a_batch():
    calls = Calls()
    judge_pages("Q?", pages_of(5), lambda ref: "short", ScriptedRuntime(verdicts_for_every_page()), calls,
                budget_tokens=5000, per_page_tokens=100, max_batch_pages=2)
    assert batch_enums(calls) == [[1, 2], [3, 4], [5]]


def test_pages_of_two_documents_sharing_numbers_are_named_by_position():
    pages = pages_of(2, doc_id=1, doc="a.pdf") + pages_of(2, doc_id=2, doc="b.pdf")
    calls = Calls()
    verdicts = judge_pages("Q?", pages, lambda ref: f"text of {ref.doc}", ScriptedRuntime(
        verdicts_for_every_page(lambda i: i == 3)), calls, budget_tokens=5000, per_page_tokens=100)
    assert batch_enums(calls) == [[1, 2, 3, 4]]
    assert "[Page 3: b.pdf, page 1]" in calls.seen[0]["prompt"]
    assert [(v.ref.doc, v.ref.page, v.relevant) for v in verdicts] == [
        ("a.pdf", 1, False), ("a.pdf", 2, False), ("b.pdf", 1, True), ("b.pdf", 2, False)]


def test_no_pages_no_call():
    calls = Calls()
    assert judge_pages("Q?", [], lambda ref: "", ScriptedRuntime(verdicts_for_every_page()), calls,
                       budget_tokens=100, per_page_tokens=10) == []
    assert calls.seen == []
