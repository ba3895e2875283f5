"""Follow-up questions: a thread's earlier turns reach the method (SimpleDoc's working memory, the others'
question), answers keep their own citations, history and exports keep whole threads."""
from __future__ import annotations

import json
import threading

from scripted_model import FixedRuntimes, ScriptedModel, reasoning
from docqa_desktop.cli import main
from docqa_desktop.methods.base import Turn
from docqa_desktop.methods.conversation import question_in_context, thread_query


FIRST = "Which languages are used as pivot?"
FIRST_ANSWER = "English is the pivot language."
FOLLOW_UP = "Why was it chosen?"


def _ask(service, model, question, **kwargs):
    service.resources.use_runtimes(FixedRuntimes(model))
    return service.answers.ask(question, method=kwargs.pop("method", "simpledoc"), **kwargs)


def test_simpledoc_asks_a_follow_up_with_the_thread_in_its_working_memory(paper_service):
    first = _ask(paper_service, ScriptedModel([reasoning("answer", FIRST_ANSWER, [{"page": 1, "quote": "pivot"}])]),
                 FIRST)
    model = ScriptedModel([reasoning("answer", "It has the most parallel data.", [{"page": 1, "quote": "English"}])])
    second = _ask(paper_service, model, FOLLOW_UP, follow_up=first.id)
    reasoner_prompt = [prompt for kind, prompt in model.prompts if kind == "reason"][0]
    memory = reasoner_prompt[reasoner_prompt.index("Working memory"):]
    assert f"Q: {FIRST}\nA: {FIRST_ANSWER}" in memory  # the earlier turn is memory, before the question
    assert memory.index(FIRST_ANSWER) < memory.index(FOLLOW_UP)
    assert second.question == FOLLOW_UP and second.thread == first.id and first.thread == ""
    assert second.citations and all(c.quote for c in second.citations)
    assert [a.id for a in paper_service.answers.thread(second.id)] == [first.id, second.id]
    assert [a.id for a in paper_service.answers.thread(first.id)] == [first.id, second.id]
    # a third question continues the same thread, whichever of its answers it follows
    third = _ask(paper_service, ScriptedModel([reasoning("not_answerable")] * 3), "And the year?",
                 follow_up=first.id)
    assert third.thread == first.id
    assert [a.id for a in paper_service.answers.thread(third.id)] == [first.id, second.id, third.id]


def test_a_stopped_answer_is_not_part_of_what_a_follow_up_remembers(paper_service):
    first = _ask(paper_service, ScriptedModel([reasoning("answer", FIRST_ANSWER, [{"page": 1, "quote": "pivot"}])]),
                 FIRST)
    cancel = threading.Event()
    cancel.set()
    stopped = _ask(paper_service, ScriptedModel([]), "Which pivot languages were compared?", follow_up=first.id,
                   cancel=cancel)
    assert stopped.status.value == "cancelled" and stopped.thread == first.id
    model = ScriptedModel([reasoning("not_answerable")] * 3)
    _ask(paper_service, model, "Which pivot languages, in the end?", follow_up=stopped.id)
    prompt = [p for kind, p in model.prompts if kind == "reason"][0]
    assert FIRST_ANSWER in prompt and "Stopped before an answer" not in prompt


def test_a_new_question_does_not_carry_the_previous_one(paper_service):
    _ask(paper_service, ScriptedModel([reasoning("answer", FIRST_ANSWER, [{"page": 1, "quote": "pivot"}])]), FIRST)
    model = ScriptedModel([reasoning("not_answerable")] * 3)
    alone = _ask(paper_service, model, "Which pivot languages were compared?")
    assert FIRST_ANSWER not in [p for kind, p in model.prompts if kind == "reason"][0]
    assert alone.thread == "" and [a.id for a in paper_service.answers.thread(alone.id)] == [alone.id]


def test_other_methods_get_the_thread_in_the_question(paper_service):
    first = _ask(paper_service, ScriptedModel([reasoning("answer", FIRST_ANSWER, [{"page": 1, "quote": "pivot"}])]),
                 FIRST)
    seen = []
    second = _ask(paper_service, _M3Answer(seen), FOLLOW_UP, method="m3docrag", follow_up=first.id)
    assert second.thread == first.id and second.question == FOLLOW_UP
    assert question_in_context(FOLLOW_UP, [Turn(FIRST, FIRST_ANSWER)]) in seen[-1]


class _M3Answer:
    """Replies to M3DocRAG's one answering call and records its prompts."""

    def __init__(self, seen):
        from docqa_desktop.llm import ModelInfo
        self.info = ModelInfo("scripted", "local", 8192, False)
        self.seen = seen

    def count_tokens(self, text):
        return len(text.split())

    def chat(self, messages, options, cancel=None):
        from scripted_model import scripted_completion
        self.seen.append(messages[-1].text)
        reply = {"analysis": "Page 1.", "evidence": [{"page": 1, "quote": "English"}], "answer": "Data.",
                 "short_answer": "Data", "answer_format": "Str"}
        return scripted_completion(messages[-1].text, {k: v for k, v in reply.items()
                                                       if k in options.schema["properties"]}, options)

    def close(self):
        pass


def test_a_follow_up_searches_with_the_question_before_it():
    turns = [Turn("When does the last ferry to Gull Island leave?", "18:40")]
    assert thread_query("And on weekends?", turns) == "When does the last ferry to Gull Island leave? And on weekends?"
    assert thread_query("And on weekends?", []) == "And on weekends?"


def test_the_follow_up_setting_bounds_the_memory(paper_service):
    answers = []
    for i in range(1, 6):
        model = ScriptedModel([reasoning("answer", f"Answer {i}.", [{"page": 1, "quote": "pivot"}])])
        answers.append(_ask(paper_service, model, f"Which pivot languages, part {i}?",
                            follow_up=answers[-1].id if answers else None))
    model = ScriptedModel([reasoning("not_answerable")] * 3)
    _ask(paper_service, model, "Which pivot languages, part 6?", follow_up=answers[-1].id)
    prompt = [p for kind, p in model.prompts if kind == "reason"][0]
    kept = paper_service.settings.ask.follow_up_turns
    assert kept == 3 and all(f"Answer {i}." in prompt for i in (3, 4, 5))
    assert "Answer 1." not in prompt and "Answer 2." not in prompt


def test_history_and_export_keep_whole_threads(paper_service, tmp_path, home, capsys):
    first = _ask(paper_service, ScriptedModel([reasoning("answer", FIRST_ANSWER, [{"page": 1, "quote": "pivot"}])]),
                 FIRST)
    second = _ask(paper_service, ScriptedModel([reasoning("answer", "Most parallel data.",
                                                          [{"page": 1, "quote": "English"}])]),
                  FOLLOW_UP, follow_up=first.id)
    out = paper_service.answers.export_thread(second.id, "json", tmp_path / "thread.json")
    record = json.loads(out.read_text())
    assert record["thread"] == first.id
    assert [a["question"] for a in record["answers"]] == [FIRST, FOLLOW_UP]
    assert all(a["citations"] for a in record["answers"])  # each answer keeps its own citations
    alone = _ask(paper_service, ScriptedModel([reasoning("answer", FIRST_ANSWER, [{"page": 1, "quote": "pivot"}])]),
                 FIRST)
    single = json.loads(paper_service.answers.export_thread(alone.id, "json", tmp_path / "alone.json").read_text())
    assert single["thread"] == alone.id and len(single["answers"]) == 1  # a thread of one is still a thread
    md = paper_service.answers.export_thread(first.id, "md", tmp_path / "thread.md").read_text()
    assert md.index("Which languages") < md.index("Why was it chosen") and md.count("Citations") == 2
    # a follow-up exported alone carries the question it follows; the thread's first answer stands alone
    follow_up_md = paper_service.answers.export(second, "md", tmp_path / "second.md").read_text()
    assert follow_up_md.index("Which languages") < follow_up_md.index("Why was it chosen")
    assert "Why was it chosen" not in paper_service.answers.export(first, "md", tmp_path / "first.md").read_text()
    paper_service.close()
    assert main(["export", second.id, "--thread", "--format", "html", "-o", str(tmp_path / "t.html"),
                 "--home", str(home)]) == 0
    html = (tmp_path / "t.html").read_text()
    assert "Which languages" in html and "Why was it chosen" in html
    capsys.readouterr()
    assert main(["history", "--home", str(home)]) == 0
    printed = capsys.readouterr().out
    assert f"↳ (follow-up in thread {first.id}) {FOLLOW_UP}" in printed
