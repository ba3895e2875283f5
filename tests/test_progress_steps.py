"""Progress that names the real work: a long step says what it is doing, which item of how many, and — once a
few items are timed — the time left; SimpleDoc's page summaries on a real indexed PDF with a scripted model whose
calls move a scripted clock (no wall-clock timing)."""
from __future__ import annotations

import pytest

from scripted_model import DocLensScript, FixedRuntimes, ScriptedModel, navigation, reasoning, sample
from docqa_desktop import progress as progress_module
from docqa_desktop.llm import Message, Options
from docqa_desktop.progress import Progress, counted, describe

SUMMARY_SECONDS = 30.0  # what each scripted page summary "takes" on the scripted clock


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class TimedSummaries(ScriptedModel):
    """A scripted model whose page summaries each take SUMMARY_SECONDS on `clock`; it notes how many summaries it
    had written when each progress message came."""

    def __init__(self, reason, clock: Clock):
        super().__init__(reason)
        self.clock = clock

    def chat(self, messages, options, cancel=None):
        completion = super().chat(messages, options, cancel)
        if self.prompts[-1][0] == "summary":
            self.clock.t += SUMMARY_SECONDS
        return completion

    def summaries_written(self) -> int:
        return sum(kind == "summary" for kind, _ in self.prompts)


def test_simpledoc_says_it_is_writing_page_summaries_with_counts_and_the_time_left(paper_service, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(progress_module, "now", clock)
    model = TimedSummaries([reasoning("answer", "English is the pivot language.", [{"page": 1, "quote": "pivot"}])],
                           clock)
    paper_service.resources.use_runtimes(FixedRuntimes(model))
    seen: list[tuple[Progress, int]] = []  # each message with the summaries written when it came

    answer = paper_service.answers.ask("Which languages are used as pivot?", method="simpledoc",
                                       overrides={"k": 5, "iterations": 1},
                                       progress=lambda p: seen.append((p, model.summaries_written())))

    assert answer.status.value == "answered"
    written = model.summaries_written()
    assert written == 5  # every candidate page was summarised, one model call each
    summaries = [(p, before) for p, before in seen if p.phase == "writing page summaries"]
    # one message before each summary, while it is written: "writing page summaries 3/5"
    assert [(p.done, p.total, before) for p, before in summaries] == [(i, written, i) for i in range(written)]
    lines = [describe(p) for p, _ in summaries]
    assert lines[:2] == ["writing page summaries 1/5", "writing page summaries 2/5"]  # the first two: not timed yet
    # from the third on, the time left at the rate of the summaries after the first (SUMMARY_SECONDS each)
    assert lines[2:] == ["writing page summaries 3/5 · ~90 s left", "writing page summaries 4/5 · ~60 s left",
                         "writing page summaries 5/5 · ~30 s left"]
    phases = [p.phase for p, _ in seen]
    # the step before says what was retrieved; the one after names the model call that reads the summaries
    after = phases[phases.index("writing page summaries") + written]
    assert phases[0] == "retrieving pages" and after == "choosing pages from 5 summaries"
    assert not any("retrieving" in p.phase for p, before in seen if 0 < before < written)

    # asked again, the summaries are kept: no message about writing them
    again, model2 = [], TimedSummaries([reasoning("not_answerable")], clock)
    paper_service.resources.use_runtimes(FixedRuntimes(model2))
    paper_service.answers.ask("Which languages are used as pivot?", method="simpledoc",
                              overrides={"k": 5, "iterations": 1}, progress=again.append)
    assert model2.summaries_written() == 0 and not any(p.phase == "writing page summaries" for p in again)


def test_docqa_prepare_announces_each_page_summary_with_the_time_left(paper_service, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(progress_module, "now", clock)
    paper_service.resources.use_runtimes(FixedRuntimes(TimedSummaries([], clock)))
    seen: list[Progress] = []
    report = paper_service.answers.prepare("simpledoc", progress=seen.append)
    assert report.done == 8 and [p.done for p in seen] == list(range(8))  # the paper's pages
    assert {p.task for p in seen} == {"prepare"}
    assert describe(seen[0]) == "writing page summaries 1/8"
    assert describe(seen[-1]) == "writing page summaries 8/8 · ~30 s left"


def test_the_time_left_leaves_out_the_first_item_which_loads_the_model():
    clock = Clock()
    durations = iter([100.0, 10.0, 10.0, 10.0, 10.0])  # the first item also loads the model
    seen: list[Progress] = []
    for _ in counted(range(5), seen.append, "ask", "reading candidates", "candidates", clock=clock):
        clock.t += next(durations)
    assert [p.eta_seconds for p in seen] == [None, None, 30.0, 20.0, 10.0]  # 10 s an item, not (100 + 10) / 2
    assert [describe(p) for p in seen][2] == "reading candidates 3/5 · ~30 s left"
    assert [p.done for p in seen] == [0, 1, 2, 3, 4] and {p.total for p in seen} == {5}


def test_a_phase_may_name_each_item_and_a_single_item_shows_no_count():
    seen: list[Progress] = []
    list(counted(["p.1–4", "p.5–8"], seen.append, "ask", lambda pages: f"navigating pages {pages}", "batches"))
    assert [describe(p) for p in seen] == ["navigating pages p.1–4 1/2", "navigating pages p.5–8 2/2"]
    seen.clear()
    list(counted(["all"], seen.append, "ask", "navigating pages", "batches"))
    assert [describe(p) for p in seen] == ["navigating pages"]


def test_the_answer_view_shows_the_step_with_its_counts_and_time_left_under_the_question(qtbot):
    from docqa_desktop.ui.answer_view import AnswerView

    view = AnswerView()
    qtbot.addWidget(view)
    view.show_question("Which languages are used as pivot?")
    view.show_step(Progress("ask", "writing page summaries", 2, 10, "pages", eta_seconds=240.0))
    assert view.text.toPlainText().splitlines() == ["Which languages are used as pivot?",
                                                    "Writing page summaries 3/10 · ~4 min left…"]


def test_the_pages_a_method_reads_are_named_by_document_when_there_are_several():
    from docqa_desktop.answers import PageRef
    from docqa_desktop.methods.base import pages_named

    memo, report = (PageRef(1, "memo.pdf", "/l/memo.pdf", 1, "1"), PageRef(2, "report.pdf", "/l/report.pdf", 2, "2"))
    report3 = PageRef(2, "report.pdf", "/l/report.pdf", 3, "3")
    assert pages_named([report, report3]) == "pages 2, 3" and pages_named([memo]) == "page 1"
    assert pages_named([memo, report, report3]) == "pages 1 of memo.pdf; 2, 3 of report.pdf"


class CountedSamples(DocLensScript):
    """DocLens's scripted runtime as a backend samples: each sample takes SUMMARY_SECONDS on `clock` and is reported
    to Options.on_sample as it is finished, with the messages shown so far noted at that moment."""

    def __init__(self, clock: Clock, seen: list, **replies):
        super().__init__(**replies)
        self.clock, self.seen_progress, self.at_sample = clock, seen, []

    def sample(self, messages, options, n=1, cancel=None):
        out = []
        for done in range(1, n + 1):
            out += super().sample(messages, options, 1, cancel)
            self.clock.t += SUMMARY_SECONDS
            if options.on_sample is not None:  # a call of several samples
                self.at_sample.append(self.seen_progress[-1])  # the line shown while it was written
                options.on_sample(done)
        return out


def test_a_call_of_several_samples_counts_them_on_the_steps_line(paper_service, monkeypatch):
    """DocLens answers from its pages 4 times over one prompt: the line says which sample is being written and,
    once two are timed, the time left — after what the step said."""
    clock, seen = Clock(), []
    monkeypatch.setattr(progress_module, "now", clock)
    model = CountedSamples(clock, seen, navigate=[navigation(1)], answers=[sample()] * 4,
                           adjudicate=[{"reasoning": "All agree.", "answer": "English"}])
    paper_service.resources.use_runtimes(FixedRuntimes(model))
    answer = paper_service.answers.ask("Which languages are used as pivot?", method="doclens", progress=seen.append,
                                       overrides={"navigator_samples": 1, "answer_samples": 4})
    assert answer.short_answer == "English"
    lines = [describe(p) for p in seen]
    start = lines.index("answering from 1 page (4 samples)")
    assert lines[start + 1:start + 5] == [
        "answering from 1 page (4 samples): sample 1/4", "answering from 1 page (4 samples): sample 2/4",
        "answering from 1 page (4 samples): sample 3/4 · ~60 s left",
        "answering from 1 page (4 samples): sample 4/4 · ~30 s left"]
    assert lines[start + 5] == "adjudicating between the sampled answers"
    # each sample was written while the line announced it
    assert [describe(p) for p in model.at_sample] == lines[start + 1:start + 5]
    assert [c.step for c in answer.calls].count("answer sample [sample 4/4]") == 1


@pytest.mark.model
def test_the_local_backend_reports_each_sample_as_it_is_finished(smollm2):
    finished: list[int] = []
    completions = smollm2.sample([Message("user", "Say a colour.")],
                                 Options(max_tokens=4, temperature=0.8, on_sample=finished.append), 3)
    assert len(completions) == 3 and finished == [1, 2, 3]
