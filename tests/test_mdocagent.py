"""MDocAgent's control flow on a real indexed corpus paper, driven by a scripted stand-in for the models: both
retrievals with their own k, the critical agent's clues reaching the right agents, the image agent skipped
without a vision model, a summarizer that sees answers but no evidence, citations only of pages the agents it
sided with read, the shared evidence prefix; then end to end with the real SmolLM2, and with the tiny vision
model fed by tiny ColQwen2.5 page-image search."""
from __future__ import annotations

import dataclasses

import pytest

from conftest import ask_from_the_cli, count_images_sent, make_settings, tiny_vlm_settings
from scripted_model import FixedRuntimes, MDocAgentScript, sample
from docqa_desktop.answers import AnswerStatus
from docqa_desktop.methods.mdocagent.prompts import PREAMBLE
from docqa_desktop.retrieval.scoped_search import ScopedSearch
from docqa_desktop.service import Service
from docqa_desktop.settings import SettingsError

QUESTION = "Which languages are used as pivot?"
AGREED = {"reasoning": "They agree.", "answer": "English"}


def replies(general=None, text=None, image=None, critical=None, summarize=None) -> dict:
    return {"general agent": general or sample(), "text agent": text or sample(), "image agent": image or sample(),
            "critical agent": critical or {"text": "the pivot language", "image": "the table of pivots"},
            "summarize": summarize or AGREED}


def ask(service, text_model, vision_model=None, **overrides):
    service.resources.use_runtimes(FixedRuntimes(text_model, vision_model))
    return service.answers.ask(QUESTION, method="mdocagent", overrides=overrides)


def steps(answer) -> list[str]:
    return [c.step for c in answer.calls]


def spy_retrieval(monkeypatch) -> list[tuple]:
    calls = []
    pages, chunks = ScopedSearch.pages, ScopedSearch.chunks

    def spy_pages(self, query, k, mode=None):
        calls.append(("pages", k, mode))
        return pages(self, query, k, mode)

    def spy_chunks(self, query, k):
        calls.append(("chunks", k))
        return chunks(self, query, k)

    monkeypatch.setattr(ScopedSearch, "pages", spy_pages)
    monkeypatch.setattr(ScopedSearch, "chunks", spy_chunks)
    return calls


def test_both_retrievers_run_with_their_own_k_and_every_agent_reads_its_modality(paper_service, monkeypatch):
    calls = spy_retrieval(monkeypatch)
    vision = MDocAgentScript(replies(), vision=True, name="vision")
    text = MDocAgentScript(replies(), name="text")
    answer = ask(paper_service, text, vision, text_k=2, image_k=3)
    assert ("chunks", 2) in calls
    assert ("pages", 3, "visual") in calls and ("pages", 3, "text") in calls  # no page embeddings: text ranking
    assert any("no page-image embeddings" in note for note in answer.notes)
    text_pages = [r.page for r in answer.stage_pages["text retrieved"]]
    image_pages = [r.page for r in answer.stage_pages["image retrieved"]]
    assert 1 <= len(text_pages) <= 2 and len(image_pages) == 3
    assert [r.page for r in answer.stage_pages["retrieved"]] == list(dict.fromkeys(text_pages + image_pages))
    assert steps(answer) == ["general agent", "critical agent", "text agent", "image agent", "summarize"]
    # the vision model runs the general, critical and image agents, the text model the text agent and summary
    assert [s["agent"] for s in vision.seen] == ["general agent", "critical agent", "image agent"]
    assert [s["agent"] for s in text.seen] == ["text agent", "summarize"]
    assert vision.call("general agent")["images"] == 3 == vision.call("image agent")["images"]
    assert text.call("text agent")["images"] == 0
    assert "[Segment 1," in vision.call("general agent")["prompt"]
    assert "[Segment 1," not in vision.call("image agent")["prompt"]
    assert answer.status is AnswerStatus.ANSWERED and answer.short_answer == "English"


def test_the_critical_agents_clues_reach_the_agent_of_their_modality(paper_service):
    critical = {"text": "look for TEXTCLUE", "image": "look for IMAGECLUE"}
    vision = MDocAgentScript(replies(critical=critical, general=sample(answer="GENERALANSWER")), vision=True)
    text = MDocAgentScript(replies())
    ask(paper_service, text, vision)
    text_prompt, image_prompt = text.call("text agent")["prompt"], vision.call("image agent")["prompt"]
    assert "TEXTCLUE" in text_prompt and "IMAGECLUE" not in text_prompt
    assert "IMAGECLUE" in image_prompt and "TEXTCLUE" not in image_prompt
    assert "GENERALANSWER" in vision.call("critical agent")["prompt"]  # it reads the general agent's answer
    assert set(vision.call("critical agent")["schema"]["properties"]) == {"text", "image"}


def test_without_a_vision_model_the_image_agent_is_skipped_and_the_trace_says_why(paper_service, monkeypatch):
    calls = spy_retrieval(monkeypatch)
    model = MDocAgentScript(replies(text=sample(answer="French", short="French"),
                                    summarize={"reasoning": "The text agent quotes it.", "answer": "French"}))
    answer = ask(paper_service, model)
    assert steps(answer) == ["general agent", "critical agent", "text agent", "summarize"]
    assert not any(call[0] == "pages" for call in calls)  # nothing retrieved for images no one can read
    assert any(note.startswith("image agent: skipped, no vision model is installed") for note in answer.notes)
    assert set(model.call("critical agent")["schema"]["properties"]) == {"text"}
    assert all(s["images"] == 0 for s in model.seen)
    assert "image retrieved" not in answer.stage_pages
    summary = model.call("summarize")["prompt"]
    assert "2 agents, 2 distinct answers" in summary and "(text agent)" in summary and "(general agent)" in summary
    assert answer.short_answer == "French"


def test_the_summarizer_sees_the_answers_but_no_evidence(paper_service):
    model = MDocAgentScript(replies(text=sample(answer="French", short="French")))
    answer = ask(paper_service, model)
    summary = model.call("summarize")["prompt"]
    segment_prompt = model.call("text agent")["prompt"]
    evidence = segment_prompt.split("Text segments retrieved for the question, best first:")[1].split(
        "You are a text analysis agent")[0]
    assert len(evidence) > 200 and "[Segment" not in summary
    longest_line = max(evidence.splitlines(), key=len)
    assert longest_line not in summary
    assert '"English"' in summary and '"French"' in summary  # both agents' answers
    assert "Analyze" in summary and "Synthesize" in summary and "Conclude" in summary  # the paper's A.4 prompt
    assert answer.calls[-1].pages == []


def test_citations_come_only_from_the_agents_the_summarizer_sided_with(paper_service):
    # the text agent reads page 1 of the prompt (the text ranking's top page), the image agent pages 1 and 2;
    # the two German agents quote page 1, the image agent, sided with, quotes page 2
    german = sample(answer="German", short="German", quote="pivot", page=1)
    vision = MDocAgentScript(replies(general=german, image=sample(answer="English", quote="English", page=2)),
                             vision=True)
    text = MDocAgentScript(replies(text=german, summarize={"reasoning": "The image agent.", "answer": "English"}))
    answer = ask(paper_service, text, vision, segment_unit="page", text_k=1, image_k=2)
    assert answer.short_answer == "English", (answer.status, answer.error)
    assert "summarize: sided with the image agent" in answer.notes
    second = answer.stage_pages["retrieved"][1]
    assert answer.citations and {(c.doc, c.page) for c in answer.citations} == {(second.doc, second.page)}
    assert [r.page for r in answer.pages_used] == [r.page for r in answer.stage_pages["retrieved"]]


def test_the_agents_over_the_same_evidence_share_the_prompt_prefix(paper_service):
    model = MDocAgentScript(replies())
    ask(paper_service, model, segment_unit="page", text_k=2)
    prompts = [model.call(agent)["prompt"] for agent in ("general agent", "critical agent", "text agent")]
    shared = prompts[0].split("You are an advanced agent")[0]
    assert shared.startswith(PREAMBLE) and "[Segment 2, Page 2:" in shared
    assert all(prompt.startswith(shared) for prompt in prompts)


def test_page_segments_and_a_misspelt_setting(paper_service):
    model = MDocAgentScript(replies())
    answer = ask(paper_service, model, segment_unit="page", text_k=3, segment_tokens=50)
    assert len(answer.stage_pages["text retrieved"]) == 3
    prompt = model.call("text agent")["prompt"]
    assert prompt.count("[Segment") == 3 and "[…]" in prompt  # pages cut to their best-matching passages
    with pytest.raises(SettingsError, match="segment_unit must be one of chunk, page, not 'pages'"):
        ask(paper_service, model, segment_unit="pages")


@pytest.mark.model
def test_the_builtin_model_answers_with_citations_of_pages_it_read(home, paper, capsys):
    settings = make_settings(home, layout=False, dense=False)
    settings = dataclasses.replace(settings, llm=dataclasses.replace(settings.llm, threads=1))
    answer = ask_from_the_cli(home, settings, paper, "Which pivot language is used for translation?", "mdocagent",
                              capsys)
    assert answer.status in (AnswerStatus.UNVERIFIED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND), answer.error
    assert steps(answer)[:3] == ["general agent", "critical agent", "text agent"]
    assert {c.model for c in answer.calls} == {"smollm2-135m-instruct"}
    assert answer.calls[1].cached_tokens > 0  # the critical agent reuses the general agent's evidence prefix
    read = {(p.doc, p.page) for p in answer.pages_used}
    assert read and all((c.doc, c.page) in read for c in answer.citations)
    if answer.status is AnswerStatus.UNVERIFIED:
        assert answer.citations


@pytest.mark.model
def test_page_image_search_feeds_the_tiny_vision_models_image_agent(home, paper, tiny_embedder_folder,
                                                                     tiny_vlm_files):
    settings = tiny_vlm_settings(home, layout=False, dense=False, ocr=False, visual="on", visual_tokens=256)
    with Service(settings) as service:
        service.models.import_file(tiny_embedder_folder, name="tiny-colqwen")
        assert service.library.index([str(paper)]).stages["page images"].done == 8
        service.models.import_file(*tiny_vlm_files, name="tiny-vl")
        visual_top = [h.page for h in service.pages.search(QUESTION, k=2, mode="visual")]
        images_seen = count_images_sent(service.resources.runtimes.vision())
        answer = service.answers.ask(QUESTION, method="mdocagent",
                             overrides=dict(text_k=1, image_k=2, agent_tokens=120, critical_tokens=60))
    assert answer.status in (AnswerStatus.UNVERIFIED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND), answer.error
    assert [r.page for r in answer.stage_pages["image retrieved"]] == visual_top  # ColQwen's ranking
    assert not any("no page-image embeddings" in note for note in answer.notes)
    assert [c.step for c in answer.calls][:4] == ["general agent", "critical agent", "text agent", "image agent"]
    image_call = [c for c in answer.calls if c.step == "image agent"][0]
    assert image_call.model == "tiny-vl" and len(image_call.pages) == 2
    assert images_seen[0] == 2  # the general agent saw both page images
