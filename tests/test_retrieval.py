"""Fusion, neighbouring pages, page references and snippets (pure functions), and scoped search."""
import pytest

from conftest import make_settings, write_pdf
from docqa_desktop.retrieval.fusion import convex_fusion, min_max, reciprocal_rank_fusion, with_neighbours
from docqa_desktop.retrieval.page_refs import referenced_labels
from docqa_desktop.retrieval.snippets import best_window
from docqa_desktop.retrieval.text_retriever import Mode
from docqa_desktop.service import Service


def test_convex_fusion_lets_a_confident_retriever_win():
    lexical = [("a", 30.0), ("b", 10.0), ("c", 9.0)]
    semantic = [("c", 0.52), ("b", 0.50), ("a", 0.49)]  # dense barely separates the pages
    fused = convex_fusion(lexical, semantic, lexical_weight=0.75)
    assert max(fused, key=fused.get) == "a"
    rrf = reciprocal_rank_fusion([[k for k, _ in lexical], [k for k, _ in semantic]])
    assert rrf["a"] == rrf["c"]  # rank fusion cannot tell them apart


def test_min_max_handles_ties_and_empty_lists():
    assert min_max([]) == {}
    assert min_max([("x", 2.0), ("y", 2.0)]) == {"x": 1.0, "y": 1.0}
    assert min_max([("only", 7.2)]) == {"only": 1.0}  # a rare word found on one page is a strong hit


def test_neighbours_earn_a_share_but_stay_inside_the_document():
    scores = with_neighbours({(1, 1): 1.0, (1, 5): 0.5}, 0.25, {1: 5})
    assert scores[(1, 2)] == pytest.approx(0.25) and scores[(1, 4)] == pytest.approx(0.125)
    assert (1, 0) not in scores and (1, 6) not in scores
    assert scores[(1, 1)] == 1.0
    assert with_neighbours({(1, 1): 1.0}, 0.0, {1: 5}) == {(1, 1): 1.0}


@pytest.mark.parametrize("question, labels", [
    ("How many figures are provided in Pages 51-53?", ["51", "52", "53"]),
    ("the figure at the top of page 6985?", ["6985"]),
    ("see p. iv and pp. 3 to 4", ["iv", "3", "4"]),
    ("what is the revenue?", []),
])
def test_page_references(question, labels):
    assert referenced_labels(question) == labels


def test_snippet_is_the_window_with_the_query_words():
    text = " ".join(["filler"] * 100 + ["the", "breakwater", "cost", "four", "million"] + ["filler"] * 100)
    snippet = best_window(text, "breakwater cost", width=12)
    assert "breakwater cost" in snippet and snippet.startswith("…") and snippet.endswith("…")


@pytest.fixture(scope="module")
def searchable(tmp_path_factory):
    base = tmp_path_factory.mktemp("search")
    folder = base / "lib"
    folder.mkdir()
    write_pdf(folder / "ledger.pdf", [
        "Harbour ledger. Dredging contract signed with Meridian Marine.",
        "The dredging contract price was 1.2 million euros, payable in three parts.",
        "Payment schedule continued: the last part is due in June 2026.",
        "Unrelated notes about seagull nesting season.",
    ])
    write_pdf(folder / "minutes.pdf", ["Board minutes: the dredging contract was approved unanimously."])
    with Service(make_settings(base / "home", layout=False)) as service:
        service.library.index([str(folder)])
        yield service


def test_search_scopes_to_documents(searchable):
    everywhere = {h.doc for h in searchable.pages.search("dredging contract", k=10)}
    assert everywhere == {"ledger.pdf", "minutes.pdf"}
    assert {h.doc for h in searchable.pages.search("dredging contract", ["minutes.pdf"])} == {"minutes.pdf"}
    both = searchable.pages.search("dredging contract", ["minutes.pdf", "ledger.pdf"], k=10)
    assert {h.doc for h in both} == {"ledger.pdf", "minutes.pdf"}


@pytest.mark.parametrize("mode", list(Mode))
def test_each_mode_ranks_the_page_with_the_answer_first(searchable, mode):
    hits = searchable.pages.search("how much was the dredging contract price", ["ledger.pdf"], 4, mode)
    assert hits[0].page == 2
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_the_page_after_a_strong_match_is_brought_in(searchable):
    pages = [h.page for h in searchable.pages.search("dredging contract price", ["ledger.pdf"], 3, Mode.BM25)]
    assert 3 in pages  # the continuation page shares no query word with it


def test_a_named_page_comes_first(searchable):
    assert searchable.pages.search("what is on page 4", ["ledger.pdf"], 1)[0].page == 4
