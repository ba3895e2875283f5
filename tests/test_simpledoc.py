"""SimpleDoc's control flow on a real indexed corpus PDF, driven by a scripted stand-in for the model
runtime (each reasoner branch), plus citations, history, export and the CLI."""
from __future__ import annotations

import json
import os
import re

import pymupdf

from conftest import SMALL_PAPER, corpus_pdf
from scripted_model import FixedRuntimes, ScriptedModel, reasoning
from docqa_desktop.answers import AnswerStatus, PageRef
from docqa_desktop.cli import main
from docqa_desktop.export import export, markdown_text
from docqa_desktop.methods.citations import cite
from docqa_desktop.retrieval.page_source import PageSource


def ask_with(service, model, question="Which languages are used as pivot?", **kwargs):
    """service.answers.ask with the scripted model; k=, iterations= and the reading-list knobs go to the method's
    settings."""
    service.resources.use_runtimes(FixedRuntimes(model))
    settings = ("k", "iterations", "max_pages", "min_pages", "keep_top", "read_before_declining")
    overrides = {key: kwargs.pop(key) for key in settings if key in kwargs}
    return service.answers.ask(question, method=kwargs.pop("method", "simpledoc"), overrides=overrides, **kwargs)


def page_words(service, page: int) -> str:
    return service.resources.db.cursor().execute(
        "SELECT string_agg(text, ' ' ORDER BY seq) FROM words w JOIN documents d ON d.id = w.doc_id "
        "WHERE page = ?", [page]).fetchone()[0]


def test_answer_with_a_verifiable_citation(paper_service):
    model = ScriptedModel([reasoning("answer", "English is the pivot language.",
                                     [{"page": 1, "quote": "pivot"}])])
    answer = ask_with(paper_service, model, k=3)
    assert answer.status is AnswerStatus.ANSWERED and answer.iterations == 1
    assert answer.text == "English is the pivot language."
    [citation] = answer.citations
    assert (citation.doc, citation.page) in {(p.doc, p.page) for p in answer.pages_used}
    page_text = re.sub(r"\s+", " ", page_words(paper_service, citation.page))
    assert citation.quote in page_text  # the quote is the page's own words
    assert "pivot" in citation.quote.lower()
    x0, y0, x1, y1 = citation.bbox
    assert 0 <= x0 < x1 and 0 <= y0 < y1
    kinds = [kind for kind, _ in model.prompts]
    assert kinds.count("select") == 1 and kinds[-1] == "reason" and "summary" in kinds
    assert [c.step for c in answer.calls][-2:] == ["select pages", "reason 1"]
    assert answer.prompt_tokens > 0 and answer.output_tokens > 0
    # summaries were stored with the model that wrote them, and are reused
    again = ScriptedModel([reasoning("not_answerable")])
    ask_with(paper_service, again, k=3)
    assert "summary" not in [kind for kind, _ in again.prompts]


def test_not_answerable(paper_service):
    answer = ask_with(paper_service, ScriptedModel([reasoning("not_answerable")]), k=3)
    # the pages read share the question's key terms: the refusal ends as the closest passages, cited
    assert answer.status is AnswerStatus.PASSAGES and answer.iterations == 1
    assert answer.citations and answer.pages_used


def test_query_update_grows_the_memory_and_searches_again(paper_service):
    model = ScriptedModel([
        reasoning("query_update", query_update="BLEU scores of the pivot-based systems on Europarl",
                  notes="Page 1 names the pivot setup; the scores are elsewhere."),
        reasoning("answer", "The scores are in the results table.", [{"page": 1, "quote": "BLEU"}]),
    ])
    answer = ask_with(paper_service, model, k=3)
    assert answer.status is AnswerStatus.ANSWERED and answer.iterations == 2
    selects = [prompt for kind, prompt in model.prompts if kind == "select"]
    reasons = [prompt for kind, prompt in model.prompts if kind == "reason"]
    assert "BLEU scores of the pivot-based systems" in selects[1]  # the updated query drives retrieval
    assert "the scores are elsewhere" in reasons[1] and "the scores are elsewhere" not in reasons[0]
    assert answer.notes[-1] == "The paper studies pivot-based translation."  # memory: summaries and notes
    assert any("scores are elsewhere" in note for note in answer.notes)


def test_iteration_limit_ends_as_not_answerable(paper_service):
    model = ScriptedModel([reasoning("query_update", query_update=f"try {i}", notes=f"note {i}") for i in range(3)])
    answer = ask_with(paper_service, model, k=2, iterations=2)
    assert answer.status is AnswerStatus.PASSAGES and answer.iterations == 2  # no answer: the pages read, cited
    assert len([k for k, _ in model.prompts if k == "reason"]) == 2


def test_malformed_model_output_fails_clearly_and_is_kept(paper_service):
    answer = ask_with(paper_service, ScriptedModel(["I think the answer is English, probably."]), k=2)
    assert answer.status is AnswerStatus.FAILED
    assert "not valid JSON" in answer.error
    assert paper_service.answers.answer(answer.id).status is AnswerStatus.FAILED


def test_document_deleted_between_retrieval_and_reading(paper_service, paper):
    def delete_it():
        os.unlink(paper / SMALL_PAPER)

    model = ScriptedModel([reasoning("answer", "x", [])], on_select=delete_it)
    answer = ask_with(paper_service, model, k=2)
    assert answer.status is AnswerStatus.NOT_FOUND
    assert "reason" not in [kind for kind, _ in model.prompts]  # nothing left to read
    assert any("removed while answering" in note for note in answer.notes)


def test_citations_only_name_pages_the_model_saw(paper_service):
    source = PageSource(paper_service.resources.db)
    doc_id = paper_service.resources.db.cursor().execute("SELECT id FROM documents").fetchone()[0]
    seen = PageRef(doc_id, SMALL_PAPER, str(corpus_pdf(SMALL_PAPER)), 1, "1")
    unseen = PageRef(doc_id, SMALL_PAPER, str(corpus_pdf(SMALL_PAPER)), 5, "5")
    citations = cite(source, [(unseen, "BLEU"), (seen, "pivot")], "pivot", [seen])
    assert [c.page for c in citations] == [1]


def test_history_export_and_cli(paper_service, tmp_path, home, capsys):
    model = ScriptedModel([reasoning("answer", "English is the pivot.", [{"page": 1, "quote": "pivot language"},
                                                                          {"page": 2, "quote": "BLEU"}])])
    answer = ask_with(paper_service, model, k=2)
    assert paper_service.answers.history()[0].id == answer.id
    assert len(answer.citations) >= 1
    written = {fmt: export(answer, fmt, tmp_path / f"a.{fmt}") for fmt in ("md", "html", "pdf", "json")}
    md = written["md"].read_text()
    html = written["html"].read_text()
    for n, c in enumerate(answer.citations, 1):
        assert markdown_text(c.quote) in md and f"citation-{n}.png" in md  # escaped as Markdown text
        assert (tmp_path / "a_files" / f"citation-{n}.png").stat().st_size > 1000
        assert c.quote in html
    assert html.count("data:image/png;base64,") == len(answer.citations)
    with pymupdf.open(written["pdf"]) as pdf:
        text = " ".join(page.get_text() for page in pdf)
        assert all(c.quote.split()[0] in text for c in answer.citations)
        assert sum(len(page.get_images()) for page in pdf) == len(answer.citations)
    record = json.loads(written["json"].read_text())
    assert record["calls"] and record["citations"][0]["quote"] == answer.citations[0].quote
    paper_service.close()
    assert main(["history", "--json", "--home", str(home)]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["id"] == answer.id and listed[0]["citations"]
    out = tmp_path / "cli.html"
    assert main(["export", answer.id, "--format", "html", "-o", str(out), "--home", str(home)]) == 0
    assert out.exists()
    assert main(["export", "nope", "--home", str(home)]) == 2


def test_summaries_ahead_of_questions_are_resumable(paper_service):
    import threading

    paper_service.resources.use_runtimes(FixedRuntimes(ScriptedModel([])))
    cancel = threading.Event()
    seen = []

    def progress(p):
        seen.append((p.task, p.done, p.total))
        if p.done == 3:
            cancel.set()

    stopped = paper_service.answers.prepare("simpledoc", progress=progress, cancel=cancel)
    assert (stopped.done, stopped.cancelled, stopped.what) == (3, True, "page summaries")
    assert seen[0] == ("prepare", 0, 8)  # the paper's pages, announced before the first is written
    assert paper_service.answers.prepare("simpledoc").done == 8 - 3  # picks up where it stopped
    assert paper_service.answers.prepare("simpledoc").done == 0
    assert paper_service.answers.prepare("m3docrag").what == ""  # nothing to prepare
    model = ScriptedModel([reasoning("not_answerable")])
    ask_with(paper_service, model, k=3)
    assert "summary" not in [kind for kind, _ in model.prompts]


def _retrieved_and_read(answer):
    return ([p.page for p in answer.stage_pages["retrieved"]], [p.page for p in answer.stage_pages["read"]])


def test_the_retrievers_best_page_is_read_whatever_the_reranker_picks(paper_service):
    # the re-ranker keeps only the 4th candidate: a small model's typical "one page" choice
    reranker = {"document_summary": "A paper on pivot translation.", "selected_pages": [4]}
    answer = ask_with(paper_service, ScriptedModel([reasoning("not_answerable")], select=reranker),
                      k=4, max_pages=3, min_pages=3, keep_top=1, read_before_declining=False)
    retrieved, read = _retrieved_and_read(answer)
    assert read == [retrieved[3], retrieved[0], retrieved[1]]  # the pick, the floor, then the retriever's order
    assert [p.page for p in answer.stage_pages["selected"]] == [retrieved[3]]
    # the paper's behaviour when asked for: the re-ranker's choice alone
    answer = ask_with(paper_service, ScriptedModel([reasoning("not_answerable")], select=reranker),
                      k=4, max_pages=3, min_pages=1, keep_top=0, read_before_declining=False)
    retrieved, read = _retrieved_and_read(answer)
    assert read == [retrieved[3]]


def test_the_reading_list_never_exceeds_max_pages(paper_service):
    reranker = {"document_summary": "A paper on pivot translation.", "selected_pages": [3, 4]}
    answer = ask_with(paper_service, ScriptedModel([reasoning("not_answerable")], select=reranker),
                      k=4, max_pages=2, min_pages=2, keep_top=1, read_before_declining=False)
    retrieved, read = _retrieved_and_read(answer)
    assert read == [retrieved[2], retrieved[0]]  # room for one pick beside the retriever's best


def test_round_one_reads_the_unread_candidates_before_declining(paper_service):
    reranker = {"document_summary": "A paper on pivot translation.", "selected_pages": [1]}
    model = ScriptedModel([reasoning("not_answerable"), reasoning("not_answerable")], select=reranker)
    answer = ask_with(paper_service, model, k=4, max_pages=2, min_pages=2, iterations=3)
    retrieved, _ = _retrieved_and_read(answer)
    assert answer.status is AnswerStatus.PASSAGES and answer.iterations == 2  # round 2 may decline
    assert set(retrieved) <= {p.page for p in answer.pages_used}  # all four were read over the two rounds
    reasons = [prompt for kind, prompt in model.prompts if kind == "reason"]
    assert "did not answer the question" in reasons[1]  # round 2 knows what round 1 found
    # switched off (the paper), round 1's "not answerable" ends the question
    answer = ask_with(paper_service, ScriptedModel([reasoning("not_answerable")], select=reranker),
                      k=4, max_pages=2, min_pages=2, iterations=3, read_before_declining=False)
    assert answer.iterations == 1 and len(answer.pages_used) == 2


def test_round_one_may_decline_when_every_candidate_was_read(paper_service):
    answer = ask_with(paper_service, ScriptedModel([reasoning("not_answerable")]), k=3, max_pages=3, iterations=3)
    assert answer.status is AnswerStatus.PASSAGES and answer.iterations == 1
