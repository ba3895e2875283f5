"""DocLens's control flow on real indexed corpus PDFs, driven by a scripted stand-in for the model runtime:
the navigator's union of samples, printed page numbers, the empty-union fallback, library scope through the
retriever, the adjudicator (a minority answer, the unanimous skip), element crops; then end to end with the
real SmolLM2 and the tiny vision model (crops reach it as images)."""
from __future__ import annotations

import dataclasses
import io
import json
import shutil

import pymupdf
import pytest
from PIL import Image

from conftest import (LAYOUT_INDEX, SMALL_PAPER, add_layout_report, ask_from_the_cli, corpus_pdf, count_images_sent,
                      make_settings, tiny_vlm_settings)
from layout_pdf import write_layout_pdf
from scripted_model import DocLensScript, FixedRuntimes, navigation, sample
from docqa_desktop.answers import AnswerStatus, PageRef
from docqa_desktop.methods.doclens.localizer import ZOOM_HEADER, zoom_elements
from docqa_desktop.methods.doclens.navigator import named_pages
from docqa_desktop.retrieval.page_source import PageSource
from docqa_desktop.retrieval.scoped_search import ScopedSearch
from docqa_desktop.service import Service
from docqa_desktop.store.artifacts import ArtifactStore
from docqa_desktop.store.summary_trees import SummaryTrees

QUESTION = "Which languages are used as pivot?"


def ask(service, model, question=QUESTION, docs=None, **overrides):
    service.resources.use_runtimes(FixedRuntimes(model))
    return service.answers.ask(question, docs, method="doclens", overrides=overrides)


def pages(answer, stage=None) -> list[int]:
    return [r.page for r in (answer.stage_pages[stage] if stage else answer.pages_used)]


def test_the_evidence_is_the_union_of_the_navigator_samples(paper_service):
    model = DocLensScript(navigate=[navigation(1), navigation(3, 1), navigation()],
                          answers=[sample(), sample()], adjudicate=[{"reasoning": "Both agree.", "answer": "English"}])
    answer = ask(paper_service, model, navigator_samples=3)
    assert answer.status is AnswerStatus.ANSWERED and answer.short_answer == "English"
    [navigate] = [s for s in model.seen if s["kind"] == "navigate"]
    assert navigate["n"] == 3 and navigate["temperature"] == 0.7  # T_e samples of one prompt
    assert pages(answer, "candidates") == list(range(1, 9))  # the navigator looked over all 8 pages
    assert pages(answer, "located") == [1, 3] == pages(answer)
    assert [c.step for c in answer.calls] == ["navigate [sample 1/3]", "navigate [sample 2/3]",
                                              "navigate [sample 3/3]", "answer sample [sample 1/2]",
                                              "answer sample [sample 2/2]", "adjudicate"]
    assert all(json.loads(c.output) for c in answer.calls)  # every sample's reply is kept in the trace
    [citation] = answer.citations
    assert citation.page in (1, 3) and "pivot" in citation.quote.lower()
    prompt = model.seen[1]["prompt"]  # the sampler's
    assert "[Page 1: page 1]" in prompt and "[Page 2: page 3]" in prompt and "page 2]" not in prompt


def test_pages_too_many_for_one_call_are_navigated_in_batches(paper_service):
    model = DocLensScript(locate={2, 7}, answers=[sample(), sample()], context=2600)
    answer = ask(paper_service, model, navigator_samples=1, skip_unanimous=True, navigator_page_tokens=300)
    navigations = [s for s in model.seen if s["kind"] == "navigate"]
    assert len(navigations) >= 2
    assert all(model.count_tokens(s["prompt"]) < 2600 for s in navigations)
    shown = [[int(p) for p in s["schema"]["properties"]["located_pages"]["items"]["enum"]] for s in navigations]
    assert sum(shown, []) == list(range(1, 9))  # every page once, in order
    assert pages(answer, "located") == [2, 7]
    assert [c.step for c in answer.calls][:2] == [f"navigate 1/{len(shown)}", f"navigate 2/{len(shown)}"]


def test_an_empty_union_falls_back_to_the_retrievers_top_k(paper_service):
    model = DocLensScript(navigate=[navigation(), navigation()], answers=[sample(), sample()])
    answer = ask(paper_service, model, navigator_samples=2, fallback_k=2, skip_unanimous=True)
    assert pages(answer, "located") == []
    search = ScopedSearch(paper_service.pages.retriever(), PageSource(paper_service.resources.db), None,
                          paper_service.settings.search.mode)
    retrieved = [r.page for r in search.pages(QUESTION, 2)]
    assert pages(answer, "selected") == retrieved == sorted(pages(answer), key=retrieved.index)
    assert any(n.startswith("navigate: no page located; read the retriever's top 2") for n in answer.notes)
    assert "adjudicate" not in [c.step for c in answer.calls]  # both samples agree, skip_unanimous on
    assert any(n.startswith("adjudicate: no call") for n in answer.notes)


def test_a_scope_too_large_to_read_is_navigated_through_the_retriever(paper_service):
    model = DocLensScript(navigate=[navigation()], answers=[sample(), sample()])
    answer = ask(paper_service, model, navigator_samples=1, read_all_up_to=5, library_pages=3)
    assert len(pages(answer, "retrieved")) == 3 == len(pages(answer, "candidates"))
    [navigate] = [s for s in model.seen if s["kind"] == "navigate"]
    assert sorted(int(p) for p in navigate["schema"]["properties"]["located_pages"]["items"]["enum"]) == sorted(
        pages(answer, "retrieved"))
    assert any("more than read_all_up_to (5); the navigator read the retriever's top 3" in n for n in answer.notes)


def test_the_adjudicator_may_choose_a_minority_answer_and_ignores_frequency(paper_service):
    model = DocLensScript(navigate=[navigation(1)],
                          answers=[sample("French"), sample("French"), sample("English", analysis="Page 1 says "
                                                                                   "English is the pivot.")],
                          adjudicate=[{"reasoning": "Only the third reads the page right.", "answer": "English"}])
    answer = ask(paper_service, model, navigator_samples=1, answer_samples=3)
    assert answer.short_answer == "English" and answer.status is AnswerStatus.ANSWERED
    judge = model.seen[-1]
    assert judge["kind"] == "adjudicate" and judge["temperature"] == 0.0
    assert judge["schema"]["properties"]["answer"]["enum"] == ["French", "English", "Not answerable"]
    assert "Avoid frequency bias" in judge["prompt"] and "Agreement is a hint" not in judge["prompt"]
    assert "English is the pivot" in judge["prompt"]  # the analyses, not the document
    assert "[Page 1" not in judge["prompt"]


def test_unanimous_samples_are_still_adjudicated_by_default_and_may_be_overruled(paper_service):
    model = DocLensScript(navigate=[navigation(1)], answers=[sample("German"), sample("German")],
                          adjudicate=[{"reasoning": "The page never names German.", "answer": "Not answerable"}])
    answer = ask(paper_service, model, navigator_samples=1)
    assert model.kinds()[-1] == "adjudicate"
    # overruled: the draft is withheld, and the pages read (about the question) end as the closest passages
    assert answer.status is AnswerStatus.PASSAGES and answer.short_answer == ""
    assert answer.citations


def test_named_pages_resolve_printed_numbers_to_file_pages(tmp_path):
    pdf = tmp_path / "labelled.pdf"
    doc = pymupdf.open()
    for text in ["Cover", "Contents", "Chapter one text", "Chapter two text", "Index"]:
        doc.new_page().insert_text((72, 72), text)
    doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
                         {"startpage": 2, "prefix": "", "style": "D", "firstpagenum": 1}])
    doc.save(pdf)
    refs = [PageRef(1, "labelled.pdf", str(pdf), i + 1, doc[i].get_label()) for i in range(5)]
    assert [r.label for r in refs] == ["i", "ii", "1", "2", "3"]
    assert [r.page for r in named_pages("What is on page 2?", refs)] == [4]  # printed 2 is the 4th page
    assert [r.page for r in named_pages("Compare pages 1-2", refs)] == [3, 4]
    assert [r.page for r in named_pages("What is on slide 5?", refs)] == [5]  # no page printed 5: the 5th
    assert named_pages("How many figures are in Pages 400-640?", refs) == []
    other = [PageRef(2, "deck.pdf", "deck.pdf", i, str(i)) for i in range(1, 4)]
    assert [(r.doc, r.page) for r in named_pages("slides 1 and 3", refs + other)] == [
        ("labelled.pdf", 3), ("labelled.pdf", 5), ("deck.pdf", 1), ("deck.pdf", 3)]


def test_a_named_page_joins_the_union_and_the_prompt_shows_printed_numbers(fast_service, tmp_path):
    folder = tmp_path / "book"
    folder.mkdir()
    doc = pymupdf.open()
    for text in ["Cover of the harbour book", "The harbour has twelve piers.", "The ferry leaves at noon."]:
        doc.new_page().insert_text((72, 72), text)
    doc.set_page_labels([{"startpage": 0, "prefix": "cover", "style": "", "firstpagenum": 1},
                         {"startpage": 1, "prefix": "", "style": "D", "firstpagenum": 1}])
    doc.save(folder / "book.pdf")
    fast_service.library.index([str(folder)])
    model = DocLensScript(navigate=[navigation()], answers=[sample("twelve", quote="twelve piers", page=1)] * 2)
    answer = ask(fast_service, model, "How many piers are listed on page 1?", navigator_samples=1,
                 skip_unanimous=True)
    navigate_prompt = model.seen[0]["prompt"]
    assert "[Page 2, printed 1]" in navigate_prompt and "[Page 3, printed 2]" in navigate_prompt
    assert pages(answer, "located") == [] and pages(answer) == [2]  # printed 1 is the file's page 2
    assert any("pages the question names, added: p.2 (printed 1)" in n for n in answer.notes)
    assert answer.citations[0].page == 2


def test_cancel_during_navigation_stops_the_answer(paper_service):
    import threading
    stop = threading.Event()

    class Cancelling(DocLensScript):
        def sample(self, messages, options, n=1, cancel=None):
            stop.set()
            return super().sample(messages, options, n)

    paper_service.resources.use_runtimes(FixedRuntimes(Cancelling(navigate=[navigation(1)])))
    answer = paper_service.answers.ask(QUESTION, method="doclens", cancel=stop, overrides={"navigator_samples": 1})
    assert answer.status is AnswerStatus.CANCELLED


# -- the element localizer on real layout elements ------------------------------------------------------


@pytest.fixture(scope="module")
def layout_service(index_templates, tmp_path_factory):
    with index_templates.open_copy(tmp_path_factory.mktemp("doclens-layout"), add_layout_report, "library",
                                   LAYOUT_INDEX) as service:
        yield service


def test_crops_of_the_pages_elements_reach_a_vision_model_after_the_screenshot(layout_service):
    model = DocLensScript(navigate=[navigation(1)], answers=[sample("161", quote="161 megawatt hours")] * 2,
                          vision=True, context=16384)
    answer = ask(layout_service, model, "How many megawatt hours did the park produce?", navigator_samples=1,
                 skip_unanimous=True, crop_pixels=300_000)
    sampler = next(s for s in model.seen if s["kind"] == "answer")
    assert sampler["images"] == 3  # the screenshot, then the table and the picture
    assert ZOOM_HEADER in sampler["prompt"] and "table #" in sampler["prompt"]
    assert [n.split(" at ")[0] for n in answer.notes if n.startswith("crop")] == [
        n for n in (f"crop report.pdf p.1 {e.kind} #{e.seq}" for e in zoom_elements_of(layout_service))]


def zoom_elements_of(service):
    from docqa_desktop.methods.base import MethodContext
    from docqa_desktop.retrieval.page_source import PageSource
    from docqa_desktop.answers import Answer
    ref = PageSource(service.resources.db).refs_for([(service.library.status()[0].doc_id, 1)])[0]
    ctx = MethodContext("q", Answer("x", "q", "doclens"), None, PageSource(service.resources.db), ArtifactStore(service.resources.db),
                        SummaryTrees(service.resources.db), None, None, None)
    return zoom_elements(ctx, ref, 4)


def test_a_text_model_gets_tables_as_markdown_and_pictures_described(layout_service):
    model = DocLensScript(navigate=[navigation(1)], answers=[sample("161", quote="161 megawatt hours")] * 2)
    answer = ask(layout_service, model, "How many megawatt hours did the park produce?", navigator_samples=1,
                 skip_unanimous=True)
    sampler = next(s for s in model.seen if s["kind"] == "answer")
    assert sampler["images"] == 0 and "|Q3|50|6.0|" in sampler["prompt"]
    assert "Megawatt hours per month" in sampler["prompt"]  # the OCR/text words inside the picture's box
    assert any(n.startswith("describe report.pdf p.1 picture") and n.endswith("ocr") for n in answer.notes)


@pytest.mark.model  # the layout model over all 8 pages of a corpus PDF
def test_crops_of_real_corpus_elements_land_inside_the_page_at_the_asked_resolution(tmp_path):
    folder = tmp_path / "paper"
    folder.mkdir()
    shutil.copy(corpus_pdf(SMALL_PAPER), folder / SMALL_PAPER)
    with Service(make_settings(tmp_path / "home", layout=True, dense=False, ocr=False)) as service:
        service.library.index([str(folder)])
        from docqa_desktop.answers import Answer
        from docqa_desktop.methods.base import MethodContext
        from docqa_desktop.retrieval.page_source import PageSource
        source = PageSource(service.resources.db)
        ctx = MethodContext("q", Answer("x", "q", "doclens"), None, source, ArtifactStore(service.resources.db),
                            SummaryTrees(service.resources.db), None, None, None)
        doc_id = service.library.status()[0].doc_id
        cropped = 0
        for ref in source.refs_for([(doc_id, page) for page in range(1, 9)]):
            width, height = source.size(ref)
            for element in zoom_elements(ctx, ref, 4):
                x0, y0, x1, y1 = element.box
                assert 0 <= x0 < x1 <= width + 1 and 0 <= y0 < y1 <= height + 1
                image = Image.open(io.BytesIO(ctx.pages.crop(ref, element.box, 200_000)))
                assert image.width * image.height <= 200_000 * 1.02
                aspect = (x1 - x0) / (y1 - y0)
                assert image.width / image.height == pytest.approx(aspect, rel=0.05)
                cropped += 1
        assert cropped >= 2  # the paper's tables and figures


# -- end to end with real models -----------------------------------------------------------------------


@pytest.mark.model
def test_the_builtin_model_answers_with_citations_of_pages_it_read(home, paper, capsys):
    settings = make_settings(home, layout=False, dense=False)
    settings = dataclasses.replace(settings, tables={**settings.tables, "methods": {"doclens": dict(
        navigator_samples=2, navigator_page_tokens=40, page_tokens=150, answer_tokens=120, fallback_k=2,
        max_read_pages=2, skip_unanimous=True)}},
        llm=dataclasses.replace(settings.llm, threads=1))
    answer = ask_from_the_cli(home, settings, paper, "Which pivot language is used for translation?", "doclens",
                              capsys)
    assert answer.status in (AnswerStatus.UNVERIFIED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND), answer.error
    steps = [c.step for c in answer.calls]
    assert steps[0].startswith("navigate") and any(s.startswith("answer sample") for s in steps)
    assert {c.model for c in answer.calls} == {"smollm2-135m-instruct"}
    read = {(p.doc, p.page) for p in answer.pages_used}
    assert read and all((c.doc, c.page) in read for c in answer.citations)
    if answer.status is AnswerStatus.UNVERIFIED:
        assert answer.citations


@pytest.mark.model
def test_the_tiny_vision_model_gets_page_screenshots_and_crops(tmp_path, tiny_vlm_files):
    library = tmp_path / "library"
    library.mkdir()
    write_layout_pdf(library / "report.pdf")
    with Service(tiny_vlm_settings(tmp_path / "home", layout=True, dense=False, ocr=False)) as service:
        service.library.index([str(library)])
        service.models.import_file(*tiny_vlm_files, name="tiny-vl")
        seen_images = count_images_sent(service.resources.runtimes.vision())
        answer = service.answers.ask("What does the chart show?", method="doclens",
                             overrides=dict(navigator_samples=1, answer_samples=1, navigator_page_tokens=60,
                                            page_tokens=120, answer_tokens=120, crops_per_page=1,
                                            crop_pixels=120_000, fallback_k=1, skip_unanimous=True))
    assert answer.status in (AnswerStatus.UNVERIFIED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND), answer.error
    steps = [c.step for c in answer.calls]
    assert steps[0] == "navigate" and steps[1] == "answer sample" and {c.model for c in answer.calls} >= {"tiny-vl"}
    assert seen_images[0] == 1  # the navigator saw the page's screenshot
    assert seen_images[1] == 2  # the sampler: the screenshot, then the crop of the largest element
    assert any(n.startswith("crop report.pdf p.1") for n in answer.notes)


def test_the_retrieved_floor_joins_the_union_and_the_located_stage_keeps_the_navigators_own(paper_service):
    model = DocLensScript(navigate=[navigation(8)], answers=[sample(), sample()])
    answer = ask(paper_service, model, navigator_samples=1, retrieved_floor=2, skip_unanimous=True)
    search = ScopedSearch(paper_service.pages.retriever(), PageSource(paper_service.resources.db), None,
                          paper_service.settings.search.mode)
    top = [r.page for r in search.pages(QUESTION, 2)]
    assert 8 not in top  # the navigator's page is not among the retriever's best
    assert pages(answer, "located") == [8]
    assert pages(answer, "selected") == sorted(top + [8]) == pages(answer)
    assert any(n.startswith("navigate: the retriever's top 2 join the union") for n in answer.notes)


def test_located_pages_beyond_the_context_are_left_out_fewest_votes_first(paper_service):
    # a context that holds a few of the 8 pages beside the reply's room (its proof fields take ~520 tokens of it)
    model = DocLensScript(navigate=[navigation(*range(1, 9)), navigation(5, 6)], answers=[sample(page=1)] * 2,
                          context=3950)
    answer = ask(paper_service, model, navigator_samples=2, skip_unanimous=True, navigator_page_tokens=100)
    assert [c.step for c in answer.calls][:2] == ["navigate [sample 1/2]", "navigate [sample 2/2]"], answer.text
    read = pages(answer)
    assert pages(answer, "located") == list(range(1, 9)) and {5, 6} <= set(read) and 1 < len(read) < 8
    assert read == sorted(read)  # shown in document order
    [note] = [n for n in answer.notes if n.startswith("answer: read")]
    assert note.startswith(f"answer: read {len(read)} of the 8 chosen pages")
    sampler = next(s for s in model.seen if s["kind"] == "answer")
    assert model.count_tokens(sampler["prompt"]) + 500 < 3950


def test_a_misspelt_navigator_input_is_a_clear_error(paper_service):
    from docqa_desktop.settings import SettingsError
    with pytest.raises(SettingsError, match="navigator_input must be one of pages, summaries, not 'summary'"):
        ask(paper_service, DocLensScript(), navigator_input="summary")


def test_summaries_as_navigator_input_and_their_prepare_step(paper_service, monkeypatch):
    from docqa_desktop.methods.toolkit.page_summaries import PAGE_SUMMARY
    from docqa_desktop.store import artifacts
    doc_id = paper_service.library.status()[0].doc_id
    with paper_service.resources.db.transaction() as cur:
        artifacts.put(cur, PAGE_SUMMARY, doc_id, 2, 0, "scripted", "SUMMARY OF PAGE TWO: pivot languages compared.")
    model = DocLensScript(navigate=[navigation(1)], answers=[sample()] * 2)
    answer = ask(paper_service, model, navigator_samples=1, skip_unanimous=True, navigator_input="summaries")
    assert "[Page 2]\nSUMMARY OF PAGE TWO: pivot languages compared.\n" in model.seen[0]["prompt"]
    assert any(n.startswith("navigate: 7 of 8 pages have no stored summary") for n in answer.notes)
    # the prepare step writes the missing summaries only when the navigator reads summaries
    assert paper_service.answers.prepare(method="doclens").done == 0
    monkeypatch.setenv("DOCQA_DOCLENS_NAVIGATOR_INPUT", "summaries")
    assert paper_service.answers.prepare(method="doclens").done == 7
    stored = artifacts.get_many(paper_service.resources.db.cursor(), PAGE_SUMMARY, [(doc_id, p, 0) for p in range(1, 9)],
                                "scripted")
    assert len(stored) == 8


def test_a_sample_locating_most_pages_is_ignored_and_max_read_pages_caps_the_reading(paper_service):
    search = ScopedSearch(paper_service.pages.retriever(), PageSource(paper_service.resources.db), None,
                          paper_service.settings.search.mode)
    top = [r.page for r in search.pages(QUESTION, 2)]
    others = [p for p in range(1, 9) if p not in top][-2:]  # two pages the retriever does not rank first
    model = DocLensScript(navigate=[navigation(*range(1, 9)), navigation(*others)], answers=[sample(page=1)] * 2)
    answer = ask(paper_service, model, navigator_samples=2, max_located_share=0.5, retrieved_floor=2,
                 max_read_pages=3, skip_unanimous=True)
    assert pages(answer, "located") == others  # the sample naming all 8 pages did not count
    assert any("1 sample(s) located more than 50% of their pages and were ignored" in n for n in answer.notes)
    assert set(pages(answer, "selected")) == set(top) | set(others)
    assert len(pages(answer)) == 3 and set(top) < set(pages(answer))  # the retriever's floor is read first
    assert any(n.startswith("answer: read 3 of the 4 chosen pages") for n in answer.notes)
