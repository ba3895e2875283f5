"""Doc-React: the selection rule on fixed scores and entropies; the Thought/Action loop on a real indexed PDF with
fixed retrieval scores and a scripted model (argmax chosen, Finish stops, T bounds, Lookup re-extracts, chosen
pages leave the candidates); the real SmolLM2's entropies; end to end with SmolLM2 from the CLI."""
from __future__ import annotations

import dataclasses
import math

import pytest

from conftest import ask_from_the_cli, count_images_sent, make_settings, tiny_vlm_settings, write_pdf
from scripted_model import DocReactScript, FixedRuntimes, sample
from docqa_desktop.answers import AnswerStatus
from docqa_desktop.llm import Message, Options
from docqa_desktop.methods.docreact.prompts import EXTRACT, EXTRACT_REQUEST
from docqa_desktop.methods.docreact.selection import best, best_by_gain, information_gains, score_sets
from docqa_desktop.retrieval.scoped_search import ScopedSearch
from docqa_desktop.service import Service
from docqa_desktop.settings import SettingsError

QUESTION = "When does the last ferry to Gull Island leave?"
PAGES = ["Harbour notes. The harbour office opens at 07:00 and the morning ferry leaves at 08:15.",
         "Timetable. The last ferry to Gull Island leaves at 18:40 on weekdays and at 17:10 on Sundays.",
         "Fares. A return ticket to Gull Island costs 12 euros; bicycles travel free.",
         "Weather. Crossings are cancelled when the wind is above force 7.",
         "Contacts. The ferry company answers the phone from 08:00 to 18:00.",
         "History. The first ferry service to Gull Island began in 1952."]
SCORES = {1: 1.0, 2: 0.9, 3: 0.5, 4: 0.2, 5: 0.1, 6: 0.0}


# -- the selection rule -----------------------------------------------------------------------------------

def test_the_gains_are_the_infonce_bound_and_the_best_ratio_wins():
    gains = information_gains([1.0, 0.9, 0.5, 0.2], 0.1)
    assert math.isclose(sum(math.exp(g) for g in gains) / 4, 1.0)  # exp(gain) averages to 1 over Ω′
    assert gains == sorted(gains, reverse=True) and gains[0] > 0 > gains[-1]
    scored = score_sets([1.0, 0.9, 0.5, 0.2], [2.0, 0.4, 0.4, 0.1], 0.1)
    ratios = [s.probability / s.entropy for s in scored]
    assert best(scored) == ratios.index(max(ratios)) == 1  # a confident extraction beats a better score
    assert best_by_gain(scored) == 0
    assert best(score_sets([1.0, 0.9], [1.0, 1.0], 0.1)) == 0  # equal entropies: the gain decides


def test_a_negative_gain_is_not_rewarded_for_uncertainty_unless_the_papers_ratio_is_asked_for():
    # both sets below the mean gain; the second is the more uncertain
    paper = score_sets([1.0, 0.5, 0.5], [1.0, 0.5, 2.0], 0.1, numerator="gain")
    assert paper[1].gain < 0 and paper[2].gain < 0
    assert paper[2].score > paper[1].score  # the paper's ratio inverts: more entropy, higher Δ
    ours = score_sets([1.0, 0.5, 0.5], [1.0, 0.5, 2.0], 0.1)
    assert ours[1].score > ours[2].score  # the softmax numerator: less entropy, higher Δ
    # and it can change the choice: a slightly lower score read with much less uncertainty
    assert best(score_sets([0.5, 0.45], [3.0, 0.2], 0.1, numerator="gain")) == 0
    assert best(score_sets([0.5, 0.45], [3.0, 0.2], 0.1)) == 1


# -- the loop on a real indexed PDF -------------------------------------------------------------------------

def write_ferry_memo(folder):
    write_pdf(folder / "ferry.pdf", PAGES)


@pytest.fixture
def ferry_service(indexed_service, monkeypatch):
    """The six-page ferry memo indexed; retrieval returns `scores_by_query[query]`, else SCORES (best first), and
    every query is kept in `service.queries`."""
    service = indexed_service(write_ferry_memo, "memo")
    service.queries, service.scores_by_query = [], {}

    def pages(search, query, k, mode=None):
        service.queries.append(query)
        scores = service.scores_by_query.get(query, SCORES)
        doc = search.documents()[0]
        order = sorted(scores, key=lambda p: -scores[p])[:k]
        return [dataclasses.replace(ref, score=scores[ref.page])
                for ref in search.source.refs_for([(doc, p) for p in order])]

    monkeypatch.setattr(ScopedSearch, "pages", pages)
    return service


def ask(service, model, **overrides):
    service.resources.use_runtimes(FixedRuntimes(model))
    return service.answers.ask(QUESTION, method="docreact", overrides=overrides)


def candidate_pages(prompts: list[str]) -> list[int]:
    return [int(p.split("[Page 1: page ")[1].split("]")[0]) for p in prompts]


TIMETABLE = ("The last ferry to Gull Island leaves at 18:40 on weekdays.", 0.2)


def test_the_set_with_the_best_gain_to_entropy_ratio_is_the_observation_and_is_cited(ferry_service):
    model = DocReactScript([("Search", "the ferry timetable"), ("Finish", "18:40")],
                           {1: ("The harbour office opens at 07:00.", 2.0), 2: TIMETABLE, 3: ("Fares.", 0.4),
                            4: ("Wind.", 0.1)},
                           answer=sample("The last ferry leaves at 18:40.", quote="last ferry to Gull Island "
                                         "leaves at 18:40", short="18:40"))
    answer = ask(ferry_service, model)
    assert candidate_pages(model.calls("extract")) == [1, 2, 3, 4]  # |Ω′| = 4 sets of one page, best first
    assert "the ferry timetable" in model.calls("extract")[0] and QUESTION in model.calls("extract")[0]
    assert f"{QUESTION} the ferry timetable" in ferry_service.queries  # f(S′, [Q, A′]) scores every candidate
    assert "Observation 1 (from Page 1: page 2): " + TIMETABLE[0] in model.calls("answer")[0]
    assert [p.page for p in answer.pages_used] == [2] and answer.stage_pages["candidates"][0].page == 1
    assert answer.status is AnswerStatus.ANSWERED and answer.short_answer == "18:40"
    assert answer.citations[0].page == 2 and "18:40" in answer.citations[0].quote
    chosen = [n for n in answer.notes if n.endswith("← chosen")]
    assert len(chosen) == 1 and "p.2 f 0.900" in chosen[0] and "H 0.20" in chosen[0]
    assert "extract 1: chose ferry.pdf p.2; gain alone: ferry.pdf p.1" in answer.notes
    assert any(n.startswith("entropy: exact") for n in answer.notes)
    assert [c.step for c in answer.calls] == ["thought 1", *[f"extract 1 [candidate {i}/4]" for i in range(1, 5)],
                                              "thought 2", "answer"]


def test_candidates_are_the_sub_querys_and_the_questions_pages_ranked_by_their_combined_score(ferry_service):
    ferry_service.scores_by_query = {"the fares": {3: 1.0, 5: 0.9, 6: 0.1},  # the question's: SCORES, 1 and 2 first
                                     f"{QUESTION} the fares": {2: 1.0, 3: 0.9, 4: 0.5, 1: 0.2, 6: 0.0}}
    model = DocReactScript([("Search", "the fares"), ("Finish", "12 euros")])
    answer = ask(ferry_service, model, candidate_sets=2)
    assert candidate_pages(model.calls("extract")) == [2, 3]  # not 3 and 1, the two lists taken in turn
    assert any(n.startswith("extract 1: ferry.pdf p.2 f 1.000 ") for n in answer.notes)


def test_round_one_can_only_search_and_finish_stops_early(ferry_service):
    model = DocReactScript([("Search", "timetable"), ("Finish", "18:40")], {2: TIMETABLE})
    answer = ask(ferry_service, model)
    assert model.offered == [["Search"], ["Search", "Lookup", "Finish"]]
    assert answer.iterations == 2 and len(model.calls("thought")) == 2 and len(model.calls("answer")) == 1
    assert "Action 2: Finish[18:40]" in model.calls("answer")[0]


def test_the_rounds_are_bounded_by_t_and_later_searches_skip_chosen_pages(ferry_service):
    model = DocReactScript([("Search", "timetable")] * 3, {2: TIMETABLE})
    answer = ask(ferry_service, model, rounds=3, candidate_sets=2)
    assert len(model.calls("thought")) == 3 and answer.iterations == 3  # then the answer is forced
    # the candidates are {1, 2}, {1, 3}, {3, 4}: the rounds keep 2 (p 0.27 / H 0.2 beats 0.73 / 1.0), then 1, then
    # 3; a chosen page is no candidate again, and a page read for the same sub-query before is not read again
    assert [p.page for p in answer.pages_used] == [2, 1, 3]
    assert candidate_pages(model.calls("extract")) == [1, 2, 3, 4]
    assert [n.split(":")[0] for n in answer.notes if n.endswith("its extraction is reused")] == [
        "extract 2 [candidate 1/2]", "extract 3 [candidate 1/2]"]
    assert [c.step for c in answer.calls][-1] == "answer"
    trajectory = model.calls("answer")[0]
    assert all(f"Observation {n}" in trajectory for n in (1, 2, 3))


def test_lookup_extracts_again_from_the_last_chosen_pages(ferry_service):
    model = DocReactScript([("Search", "timetable"), ("Lookup", "the Sunday departure"), ("Finish", "17:10")],
                           {2: TIMETABLE})
    answer = ask(ferry_service, model, candidate_sets=3)
    lookup = [c for c in answer.calls if c.step.startswith("extract 2")]
    assert [c.step for c in lookup] == ["extract 2 lookup"] and lookup[0].pages == ["ferry.pdf p.2"]
    assert "Search request: the Sunday departure" in model.calls("extract")[-1]
    assert any(n.startswith("extract 2: lookup in ferry.pdf p.2, H ") for n in answer.notes)
    assert [p.page for p in answer.pages_used] == [2]


def test_an_empty_extraction_never_wins(ferry_service):
    model = DocReactScript([("Search", "timetable"), ("Finish", "18:40")], {1: ("", 0.0), 2: TIMETABLE})
    answer = ask(ferry_service, model, candidate_sets=2)
    assert [p.page for p in answer.pages_used] == [2]


def test_a_remote_models_entropy_is_said_to_be_the_top_5_estimate(ferry_service):
    answer = ask(ferry_service, DocReactScript([("Search", "timetable"), ("Finish", "18:40")], backend="remote"),
                 candidate_sets=2)
    assert "entropy: estimated from the server's top-5 log-probabilities of each token (remote model)" in answer.notes


def test_a_bad_setting_names_itself(ferry_service):
    for bad, message in [({"gain_numerator": "ratio"}, "gain_numerator must be one of probability, gain"),
                         ({"score_temperature": 0}, "score_temperature must be above 0"),
                         ({"rounds": 0}, "rounds must be at least 1")]:
        with pytest.raises(SettingsError, match=message):
            ask(ferry_service, DocReactScript([]), **bad)


# -- the real model ---------------------------------------------------------------------------------------

@pytest.mark.model
def test_smollm2_entropies_are_finite_and_differ_between_an_easy_and_an_impossible_extraction(smollm2):
    def extraction(page: str, request: str):
        text = "\n\n".join([EXTRACT, EXTRACT_REQUEST.format(question=QUESTION, sub_query=request), page])
        return smollm2.chat([Message("user", text)], Options(max_tokens=40, logprobs=True))

    easy = extraction(PAGES[1], "the time of the last ferry")
    impossible = extraction("Qx7 vrl 9k; zzp mmt 44 / ooq jl.", "the time of the last ferry")
    for completion in (easy, impossible):
        assert completion.token_entropies and all(math.isfinite(h) and h >= 0 for h in completion.token_entropies)
        # one entropy per decoding step: each output token, and the end-of-text step when the model stopped
        assert len(completion.token_entropies) - completion.usage.output_tokens in (0, 1)
    # the model is less sure making up an answer than copying one (measured: 0.64 vs 2.01 nats a token)
    assert impossible.mean_entropy > easy.mean_entropy + 0.5


@pytest.mark.model
def test_smollm2_answers_with_citations_from_the_cli(home, tmp_path, capsys):
    folder = tmp_path / "memo"
    folder.mkdir()
    write_ferry_memo(folder)
    answer = ask_from_the_cli(home, make_settings(home, layout=False, ocr=False), folder, QUESTION, "docreact",
                              capsys)
    assert answer.status in (AnswerStatus.UNVERIFIED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND), answer.error
    steps = [c.step for c in answer.calls]
    assert steps[0] == "thought 1" and steps[-1] == "answer"
    assert all(s.split()[0] in ("thought", "extract", "answer") for s in steps)
    scored = [n for n in answer.notes if " Δ " in n]
    assert scored and all(math.isfinite(float(n.split(" Δ ")[1].split()[0])) for n in scored)
    read = {(p.doc, p.page) for p in answer.pages_used}
    assert read and all((c.doc, c.page) in read for c in answer.citations)


@pytest.mark.model
def test_the_tiny_vision_model_reads_each_candidates_page_image_and_its_entropies_score_them(tmp_path, tiny_vlm_files):
    folder = tmp_path / "memo"
    folder.mkdir()
    write_ferry_memo(folder)
    with Service(tiny_vlm_settings(tmp_path / "home", layout=False, dense=False, ocr=False)) as service:
        service.library.index([str(folder)])
        service.models.import_file(*tiny_vlm_files, name="tiny-vl")
        seen_images = count_images_sent(service.resources.runtimes.vision())
        answer = service.answers.ask(QUESTION, method="docreact",
                             overrides=dict(rounds=1, candidate_sets=2, extract_tokens=12, page_tokens=100,
                                            answer_tokens=120))
    assert answer.status in (AnswerStatus.UNVERIFIED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND), answer.error
    extracts = [c for c in answer.calls if c.step.startswith("extract")]
    assert len(extracts) == 2 and {c.model for c in extracts} == {"tiny-vl"}
    assert seen_images.count(1) >= 2  # each candidate's extraction saw its page image
    scored = [n for n in answer.notes if " Δ " in n]
    entropies = [float(n.split(" H ")[1].split()[0]) for n in scored]
    assert len(entropies) == 2 and any(math.isfinite(h) and h > 0 for h in entropies)  # measured via the vision handler
