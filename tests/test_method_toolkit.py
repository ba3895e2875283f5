"""The method toolkit, part by part: sampling with a trace, scored retrieval per mode, passage retrieval, the
typed final answer and its scoring, the evidence-first prompt layout, and the method registry and settings."""
from __future__ import annotations

import dataclasses
import json

import pytest

from conftest import add_small_paper
from docqa_desktop.answers import Answer, AnswerStatus
from docqa_desktop.cli import main
from docqa_desktop.evaluation.runner import score_record
from docqa_desktop.llm import Completion, Message, ModelInfo, Options, Usage
from docqa_desktop.llm.jsonout import parse_json
from docqa_desktop.methods import METHODS, MethodContext, method_settings, method_spec
from docqa_desktop.retrieval.page_source import PageSource
from docqa_desktop.retrieval.scoped_search import ScopedSearch
from docqa_desktop.methods.toolkit.final_answer import FinalAnswer
from docqa_desktop.methods.verdict import record
from docqa_desktop.progress import Cancelled
from docqa_desktop.retrieval.page_retriever import VisualUnavailable
from docqa_desktop.service import Service
from docqa_desktop.settings import Settings, SettingsError
from docqa_desktop.store.artifacts import ArtifactStore
from docqa_desktop.store.summary_trees import SummaryTrees


class EchoModel:
    """Replies with the JSON it is given for the call's schema (or text), recording every prompt and n."""

    def __init__(self, replies=None):
        self.info = ModelInfo("echo", "local", 8192, False)
        self.replies = list(replies or [])
        self.calls: list[tuple[list[Message], int]] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def sample(self, messages, options, n=1, cancel=None):
        self.calls.append((messages, n))
        out = []
        for i in range(n):
            reply = self.replies.pop(0) if self.replies else f"sample {i}"
            text = reply if isinstance(reply, str) else json.dumps(reply)
            completion = Completion(text, "stop", Usage(sum(len(m.text.split()) for m in messages), 2, 0.01))
            if options.schema:
                completion.parsed = parse_json(text, options.schema)
            out.append(completion)
        return out

    def chat(self, messages, options, cancel=None):
        return self.sample(messages, options, 1, cancel)[0]


def context(service: Service, model, question="Which languages are used as pivot?", settings=None, cancel=None):
    pages = PageSource(service.resources.db)
    spec = method_spec("m3docrag")
    return MethodContext(question, Answer("t", question, spec.name), ScopedSearch(service.pages.retriever(), pages, None,
                                                                                   "text"),
                         pages, ArtifactStore(service.resources.db), SummaryTrees(service.resources.db), model, None,
                         settings or method_settings(spec, service.settings), cancel=cancel)


@pytest.fixture
def dense_paper_service(paper, indexed_service):
    """The small corpus paper indexed with dense embeddings on: passages and dense retrieval need them."""
    return indexed_service(add_small_paper, paper.name, dense=True)


def test_sample_draws_n_from_one_prompt_and_traces_each(paper_service):
    model = EchoModel()
    ctx = context(paper_service, model)
    completions = ctx.sample("vote", model, [Message("user", "Say something")], Options(temperature=0.7), 3)
    assert [c.text for c in completions] == ["sample 0", "sample 1", "sample 2"]
    assert [n for _, n in model.calls] == [3]  # one prompt, three samples
    assert [c.step for c in ctx.answer.calls] == ["vote [sample 1/3]", "vote [sample 2/3]", "vote [sample 3/3]"]
    assert [c.output for c in ctx.answer.calls] == ["sample 0", "sample 1", "sample 2"]


def test_sample_stops_when_cancelled(paper_service):
    import threading
    cancel = threading.Event()
    cancel.set()
    model = EchoModel()
    with pytest.raises(Cancelled):
        context(paper_service, model, cancel=cancel).sample("vote", model, [Message("user", "x")], Options(), 2)
    assert model.calls == []


@pytest.mark.model  # MiniLM embeds the corpus paper's chunks (dense retrieval is one of the modes)
def test_retrieval_returns_scored_pages_in_the_mode_asked(dense_paper_service):
    ctx = context(dense_paper_service, EchoModel())
    by_mode = {mode: ctx.retrieve("pivot language translation", 4, mode) for mode in ("text", "bm25", "dense")}
    for mode, pages in by_mode.items():
        assert len(pages) == 4, mode
        scores = [p.score for p in pages]
        assert scores == sorted(scores, reverse=True) and scores[0] > 0, mode
        assert all(p.doc.endswith(".pdf") and p.page >= 1 for p in pages)
    assert [p.score for p in by_mode["bm25"]] != [p.score for p in by_mode["dense"]]  # different retrievers
    with pytest.raises(VisualUnavailable):  # no page embedder here: asking for page images says so
        ctx.retrieve("pivot language", 3, "visual")


@pytest.mark.model  # MiniLM embeds the corpus paper's chunks (passages are found by them)
def test_passage_retrieval_returns_chunks_with_their_page(dense_paper_service):
    ctx = context(dense_paper_service, EchoModel())
    chunks = ctx.retrieve_chunks("pivot language", 5)
    assert len(chunks) == 5
    assert [c.score for c in chunks] == sorted((c.score for c in chunks), reverse=True)
    assert "pivot" in chunks[0].text.lower()
    assert len({c.id for c in chunks}) == 5
    for chunk in chunks:
        page = ctx.page_of(chunk)
        words = set(ctx.pages.text(page).split())
        assert set(chunk.text.split()) <= words  # the passage is text of its parent page
    assert ctx.retrieve_chunks("pivot language", 2) == chunks[:2]


@pytest.mark.parametrize("reply, status, short, fmt", [
    ({"answer": "The rate is 56.8 %.", "short_answer": "56.8", "answer_format": "Float"}, "answered", "56.8", "Float"),
    ({"answer": "The pages do not say.", "short_answer": "Not answerable", "answer_format": "None"},
     "not_found", "Not answerable", "None"),
    ({"answer": "Paris", "short_answer": "Not answerable", "answer_format": "Str"},
     "not_found", "Not answerable", "None"),
])
def test_final_answer_is_typed(reply, status, short, fmt):
    answer = Answer("t", "q", "m")
    record(answer, FinalAnswer.from_reply(reply))
    assert (answer.status.value, answer.short_answer, answer.answer_format) == (status, short, fmt)


def scored(prediction, short, predicted, gold, gold_format, status="answered"):
    return score_record({"prediction": prediction, "short_answer": short, "predicted_format": predicted,
                         "status": status, "gold": gold, "answer_format": gold_format, "evidence_pages": [1],
                         "pages_used": [1]})


def test_scoring_reads_the_typed_short_answer():
    # the long answer's first number is a year; the typed short answer is the value asked for
    assert scored("In 2023 the margin was 26.3 %.", "26.3", "Float", "26.3", "Float")["score"] == 1.0
    assert scored("In 2023 the margin was 26.3 %.", "", "", "26.3", "Float")["score"] == 0.0  # the regex's guess
    assert scored("It is answerable.", "Not answerable", "None", "Not answerable", "None")["score"] == 1.0
    assert scored("answerable", "answerable", "Str", "answerable", "Str")["extracted"] == "answerable"  # not "able"
    assert scored("Fact Checker and QA", '["Fact Checker", "QA"]', "List", ["QA", "Fact Checker"],
                  "List")["score"] == 1.0


def test_prompts_put_the_evidence_before_the_question(paper_service):
    """Two M3DocRAG questions over the same pages share the whole prompt up to the question (the part
    llama.cpp's prefix cache reuses): instructions, then pages, then the question, in one user message."""
    reply = {"evidence": [], "reasoning": "", "answer": "English", "proof": [], "computation": "", "short_answer": "English",
             "answer_format": "Str"}
    model = EchoModel([reply, reply])
    pages = context(paper_service, model).retrieve("pivot language", 2)
    for question in ("Which language is the pivot?", "Name the pivot languages."):
        ctx = context(paper_service, model, question)
        ctx.search = FixedPages(pages)
        method_spec("m3docrag").run(ctx)
        final = ctx.concluded.final  # the method's draft (methods/verdict.py sets the verdict after it)
        assert final.short_answer == "English" and final.answer_format == "Str"
    ([first], _), ([second], _) = model.calls
    assert first.role == second.role == "user" and first.text.startswith("Answer the question using only")
    user_a, user_b = first.text, second.text
    shared = next(i for i, (a, b) in enumerate(zip(user_a, user_b)) if a != b)
    assert "</page_text>" in user_a[:shared] and user_a[shared:].startswith("Which language is the pivot?")


class FixedPages:
    def __init__(self, pages):
        self.found = pages

    def pages(self, query, k, mode=None):
        return self.found[:k]


def test_registry_lists_every_method_with_paper_defaults(home, capsys):
    assert main(["methods", "--json", "--home", str(home)]) == 0
    listed = {m["name"]: m for m in json.loads(capsys.readouterr().out)}
    assert set(listed) == set(METHODS) == {"simpledoc", "m3docrag", "doclens", "mdocagent", "mmrag", "docreact",
                                           "quoted", "cascade"}
    simpledoc = listed["simpledoc"]
    assert simpledoc["settings"]["k"] == 10 and simpledoc["settings"]["iterations"] == 3
    assert simpledoc["prepare"] == "page summaries" and "simpledoc.txt" in simpledoc["paper"]
    assert listed["m3docrag"]["prepare"] is None and listed["m3docrag"]["cost"] == "low"
    doclens = listed["doclens"]  # T_e 8 at τ 0.7, T_a 2 (appendix E.1), chunks of K = 50 pages
    assert (doclens["settings"]["navigator_samples"], doclens["settings"]["navigator_temperature"],
            doclens["settings"]["answer_samples"], doclens["settings"]["batch_pages"]) == (8, 0.7, 2, 50)
    assert doclens["settings"]["library_pages"] == 40 and doclens["settings"]["skip_unanimous"] is False
    assert doclens["cpu_preset"]["navigator_samples"] == 2 and "doclens.txt" in doclens["paper"]
    assert main(["methods", "--home", str(home)]) == 0
    printed = capsys.readouterr().out
    assert "cascade (default)" in printed and "the cascade quotes only: " in printed  # only the built-in model


def test_method_settings_resolve_in_order(home, monkeypatch):
    spec = method_spec("simpledoc")
    settings = Settings.load(home)
    assert method_settings(spec, settings) == spec.settings()
    cpu = dataclasses.replace(settings, ask=dataclasses.replace(settings.ask, preset="cpu"))
    assert method_settings(spec, cpu).k == spec.cpu_preset["k"] != spec.settings().k
    monkeypatch.setenv("DOCQA_ASK_K", "7")  # a knob several methods share
    assert method_settings(spec, cpu).k == 7 and method_settings(method_spec("m3docrag"), cpu).k == 7
    monkeypatch.setenv("DOCQA_SIMPLEDOC_K", "8")  # the method's own wins
    assert method_settings(spec, cpu).k == 8 and method_settings(method_spec("m3docrag"), cpu).k == 7
    assert method_settings(spec, cpu, {"k": 9, "iterations": None}).k == 9
    with pytest.raises(SettingsError, match="m3docrag has no setting iterations"):
        method_settings(method_spec("m3docrag"), cpu, {"iterations": 2})
    monkeypatch.setenv("DOCQA_SIMPLEDOC_ITERATIONS", "many")
    with pytest.raises(SettingsError, match="DOCQA_SIMPLEDOC_ITERATIONS"):
        method_settings(spec, settings)


def test_method_settings_from_the_settings_file_survive_a_save(home):
    from docqa_desktop import settings as settings_file
    settings = Settings.load(home)
    settings.locations.create()
    settings.locations.settings_file.write_text('[ask]\nmethod = "m3docrag"\npage_tokens = 300\n\n'
                                                '[methods.simpledoc]\nk = 12\n', encoding="utf-8")
    loaded = Settings.load(home)
    assert method_settings(method_spec("simpledoc"), loaded).k == 12
    assert method_settings(method_spec("m3docrag"), loaded).page_tokens == 300
    settings_file.save(loaded)
    again = Settings.load(home)
    assert again.tables == loaded.tables and again.ask.method == "m3docrag"


def test_an_unknown_method_is_a_clear_error(fast_service):
    with pytest.raises(ValueError, match="unknown method 'nope'; choose one of cascade, doclens, docreact, m3docrag, mdocagent, mmrag, quoted, simpledoc"):
        fast_service.answers.ask("q", method="nope")
    assert AnswerStatus.ANSWERED.value == "answered"


def test_context_describes_a_picture_from_ocr_without_a_vision_model(paper_service):
    """No vision model and nothing cached: the description is the words inside the element's box."""
    from docqa_desktop.methods.toolkit.page_content import PageElement
    ctx = context(paper_service, EchoModel())
    [page] = [p for p in ctx.retrieve("pivot language", 1)]
    width, height = ctx.pages.size(page)
    whole = ctx.describe(page, PageElement(1, "picture", (0, 0, width, height), ""))
    half = ctx.describe(page, PageElement(2, "picture", (0, 0, width, height / 2), ""))
    assert whole.source == half.source == "ocr" and ctx.answer.calls == []
    assert 0 < len(half.text.split()) < len(whole.text.split())
