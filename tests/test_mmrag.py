"""MMRAG-DocQA: RAPTOR clustering on embeddings with known clusters, the summary tree's shape, resumption and
rebuilds on real indexed PDFs (a scripted summariser), the re-ranking blend, the answer's context and
citations; then end to end with the real SmolLM2 from the CLI, tree included."""
from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pymupdf
import pytest
import sklearn.mixture  # noqa: F401  scikit-learn's import (seconds), paid at collection, not by the first test
from threadpoolctl import threadpool_limits

from conftest import SMALL_PAPER, ask_from_the_cli, corpus_pdf, make_settings, write_pdf
from scripted_model import SUMMARY_REPLY, FixedRuntimes, MMRAGScript, mmrag_answer
from docqa_desktop.answers import AnswerStatus
from docqa_desktop.cli import main
from docqa_desktop.methods.mmrag.settings import MMRAGSettings, check_settings
from docqa_desktop.methods.mmrag.clustering import (ClusterSettings, best_component_count, cluster,
                                                    clusters_within, consecutive_runs, reduce)
from docqa_desktop.service import Service
from docqa_desktop.settings import SettingsError
from docqa_desktop.store import content
from docqa_desktop.store.summary_trees import DIMENSION, SummaryTrees, TreeNode

QUESTION = "Which languages are used as pivot?"
# BIC searched up to 12 components, over twice the most groups below (the default 50 fits 50 mixtures a search,
# seconds a test for no more than the choice among these)
CLUSTERING = ClusterSettings(reduction_dims=10, threshold=0.1, max_clusters=12)


@pytest.fixture(autouse=True)
def one_blas_thread():
    """BLAS on one thread for every test here: on mixtures this small, threads waiting for a busy core made the
    clustering 10x slower beside another test run (the tree tests took 230 s in CI for 22 s alone)."""
    with threadpool_limits(1):
        yield


def blobs(sizes: list[int], seed: int = 7, spread: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors in 384 dimensions around len(sizes) random centres; (vectors, true labels)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(sizes), 384))
    labels = np.repeat(np.arange(len(sizes)), sizes)
    vectors = centres[labels] / np.linalg.norm(centres[labels], axis=1, keepdims=True)
    vectors = vectors + rng.normal(scale=spread, size=vectors.shape) / np.sqrt(384) * 4
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32), labels


@pytest.mark.parametrize("sizes", [[40], [30, 25, 35], [20, 20, 20, 20, 20]])
def test_bic_picks_the_number_of_clusters_and_the_clusters_are_the_true_groups(sizes):
    vectors, labels = blobs(sizes)
    assert best_component_count(reduce(vectors, 10), CLUSTERING.max_clusters) == len(sizes)
    clusters = cluster(vectors, CLUSTERING)  # global clusters, each clustered again locally (RAPTOR)
    assert all(len(set(labels[members])) == 1 for members in clusters)  # local clusters never mix groups
    assert set(np.concatenate(clusters)) == set(range(len(vectors)))


def test_a_cluster_too_long_to_summarise_is_clustered_again_or_cut():
    vectors, _ = blobs([30, 30])
    tokens = np.full(len(vectors), 100)
    clusters = clusters_within(vectors, tokens, 1000, CLUSTERING)
    assert all(tokens[members].sum() <= 1000 for members in clusters)
    assert set(np.concatenate(clusters)) == set(range(len(vectors)))  # every node is in some cluster


def test_consecutive_runs_keep_order_and_the_token_limit():
    tokens = np.array([400, 300, 500, 900, 100, 100])
    runs = consecutive_runs(np.arange(6), tokens, 800)
    assert [list(r) for r in runs] == [[0, 1], [2], [3], [4, 5]]  # a member over the limit is a run of its own


# -- the tree on indexed PDFs --------------------------------------------------------------------------

def prepare(service: Service, model, docs=None):
    service.resources.use_runtimes(FixedRuntimes(model))
    return service.answers.prepare("mmrag", docs)


def tree(service: Service, doc_id: int) -> list[TreeNode]:
    return SummaryTrees(service.resources.db).nodes(doc_id, "scripted")


def only_document(service: Service) -> int:
    return service.resources.db.cursor().execute("SELECT doc_id FROM files WHERE doc_id IS NOT NULL").fetchone()[0]


def chunks_of(service: Service, doc_id: int) -> dict[int, int]:
    return dict(service.resources.db.cursor().execute("SELECT id, page FROM chunks WHERE doc_id = ?", [doc_id]).fetchall())


@pytest.mark.slow
def test_the_tree_summarises_every_chunk_layer_by_layer_up_to_one_root(paper_service):
    model = MMRAGScript()
    report = prepare(paper_service, model)
    doc_id = only_document(paper_service)
    nodes, chunks = tree(paper_service, doc_id), chunks_of(paper_service, doc_id)
    layers = sorted({n.layer for n in nodes})
    assert report.done == len(nodes) == len(model.calls("summary")) and report.what == "summary-tree nodes"
    assert layers == list(range(1, len(layers) + 1)) and len(layers) >= 2
    counts = [sum(n.layer == layer for n in nodes) for layer in layers]
    assert counts == sorted(counts, reverse=True) and counts[-1] == 1  # fewer each layer, one root
    assert {c for n in nodes if n.layer == 1 for c in n.children} == set(chunks)  # every chunk is summarised
    by_id = {n.id: n for n in nodes}
    for node in nodes:
        assert node.text and node.text.startswith("summary ")
        below = [chunks[c] for c in node.children] if node.layer == 1 else \
            [p for c in node.children for p in by_id[c].pages]
        assert node.pages == sorted(set(below))
        assert node.layer == 1 or all(by_id[c].layer == node.layer - 1 for c in node.children)
    assert len(SummaryTrees(paper_service.resources.db).node_vectors(list(by_id))) == len(nodes)
    assert SummaryTrees(paper_service.resources.db).finished([doc_id], "scripted") == {doc_id}
    # the summarising prompt is RAPTOR's, over the cluster's chunk texts
    assert all(p.startswith("You are a Summarizing Assistant.") and "including as many key details" in p
               for p in model.calls("summary"))
    assert prepare(paper_service, MMRAGScript()).done == 0  # finished trees are not built again


@pytest.mark.slow
@pytest.mark.parametrize("where", ["in the middle of layer 1", "at the end of layer 1"])
def test_a_build_killed_then_resumed_writes_each_node_once_and_equals_a_clean_build(fast_service, paper, home,
                                                                                   where):
    with Service(make_settings(home.parent / "clean", layout=False, dense=False)) as clean:
        clean.library.index([str(paper)])
        prepare(clean, MMRAGScript())
        clean_nodes = tree(clean, only_document(clean))
    first_layer = sum(n.layer == 1 for n in clean_nodes)
    killed_after = 3 if where == "in the middle of layer 1" else first_layer  # the next layer is not planned yet

    fast_service.library.index([str(paper)])
    with pytest.raises(RuntimeError):
        prepare(fast_service, MMRAGScript(fail_after=killed_after))
    doc_id = only_document(fast_service)
    assert sum(n.text is not None for n in tree(fast_service, doc_id)) == killed_after
    assert not SummaryTrees(fast_service.resources.db).finished([doc_id], "scripted")
    resumed = MMRAGScript()
    report = prepare(fast_service, resumed)
    nodes = tree(fast_service, doc_id)
    assert report.done == len(resumed.calls("summary")) == len(nodes) - killed_after
    assert len({(n.layer, n.seq) for n in nodes}) == len(nodes) and all(n.text for n in nodes)
    # the same tree as the build that was never interrupted (clustering is deterministic, and so is the
    # scripted summariser: its reply is a function of the prompt, as a model's at temperature 0); chunk ids are
    # the same in both databases (one document indexed the same way), node ids differ by nothing either
    assert [(n.layer, n.seq, n.pages, n.children, n.text) for n in clean_nodes] == \
        [(n.layer, n.seq, n.pages, n.children, n.text) for n in nodes]


@pytest.mark.slow
def test_a_cancel_reports_every_summary_written_in_the_run_not_just_the_current_layers(paper_service, tmp_path):
    write_pdf(tmp_path / "rivers.pdf", ["The Rhine carries barges past Cologne. " * 40,
                                        "The Danube flows through four capitals. " * 40])
    paper_service.library.index([str(tmp_path / "rivers.pdf")])
    stop = threading.Event()

    class CancelInTheSecondTree(MMRAGScript):
        def chat(self, messages, options, cancel=None):
            if SUMMARY_REPLY.search(messages[-1].text):  # a prompt over summaries: layer 2
                stop.set()  # the user cancels while the first tree's layer-2 summary is written
            return super().chat(messages, options, cancel)

    paper_service.resources.use_runtimes(FixedRuntimes(CancelInTheSecondTree()))
    report = paper_service.answers.prepare("mmrag", None, cancel=stop)
    ids = {e.name: e.doc_id for e in paper_service.library.status()}
    first = [n for n in tree(paper_service, ids[next(n for n in ids if n != "rivers.pdf")]) if n.text]
    second = [n for n in tree(paper_service, ids["rivers.pdf"]) if n.text]
    assert report.cancelled and max(n.layer for n in first) == 2 and second == []
    assert report.done == len(first)  # both layers' summaries, not the last layer's count


@pytest.mark.slow
def test_a_changed_document_gets_a_new_tree_and_an_unchanged_one_keeps_its_own(fast_service, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    lines = [f"Section {i}: herons, egrets and storks feed in wetland number {i} during spring and autumn "
             f"migrations, counted by volunteers every {i + 2} weeks." for i in range(12)]
    write_pdf(folder / "birds.pdf", [" ".join(lines[:6]), " ".join(lines[6:])])
    write_pdf(folder / "rivers.pdf", ["The Rhine carries barges past Cologne. " * 20,
                                      "The Danube flows through four capitals. " * 20])
    fast_service.library.index([str(folder)])
    prepare(fast_service, MMRAGScript())
    ids = {e.name: e.doc_id for e in fast_service.library.status()}
    kept = [n.id for n in tree(fast_service, ids["birds.pdf"])]
    assert kept and tree(fast_service, ids["rivers.pdf"])

    write_pdf(folder / "rivers.pdf", ["The Elbe reaches the sea at Hamburg. " * 20, "The Oder marks a border. " * 20])
    fast_service.library.index([str(folder)])
    rebuilt = MMRAGScript()
    prepare(fast_service, rebuilt)
    new_ids = {e.name: e.doc_id for e in fast_service.library.status()}
    assert new_ids["birds.pdf"] == ids["birds.pdf"] and new_ids["rivers.pdf"] != ids["rivers.pdf"]
    assert [n.id for n in tree(fast_service, ids["birds.pdf"])] == kept  # unchanged: same nodes, no calls
    assert len(rebuilt.calls("summary")) == len(tree(fast_service, new_ids["rivers.pdf"])) > 0
    assert all("Elbe" in p or "Oder" in p or p.count("summary") for p in rebuilt.calls("summary"))
    assert tree(fast_service, ids["rivers.pdf"]) == []  # the old version's tree went with it


# -- answering -----------------------------------------------------------------------------------------

def ask(service: Service, model, **overrides):
    service.resources.use_runtimes(FixedRuntimes(model))
    return service.answers.ask(QUESTION, method="mmrag", overrides=overrides)


def reranked(answer) -> list[tuple[int, float, float]]:
    """(page, llm score, retrieval score) from the trace's rerank notes, in the final order."""
    out = []
    for note in answer.notes:
        if note.startswith("rerank: "):
            page = int(note.split(" p.")[1].split()[0])
            llm = float(note.split(" llm ")[1].split(",")[0])
            retrieval = float(note.split(" retrieval ")[1].split()[0])
            out.append((page, llm, retrieval))
    return out


def test_pages_are_ranked_by_the_blend_of_llm_and_retrieval_scores(paper_service):
    first = ask(paper_service, MMRAGScript(), chunk_k=12, pages=8)
    retrieved = reranked(first)  # (page, llm, retrieval); all llm scores 0.5, so retrieval order
    by_retrieval = sorted(retrieved, key=lambda r: -r[2])
    top, last = by_retrieval[0], by_retrieval[-1]
    assert len(retrieved) >= 3 and top[2] - last[2] > 0.15
    # the model slightly prefers the retriever's last page to its first: the blend keeps the first on top,
    # the model's score alone (the paper's eq. 12) puts the last first
    scores = {top[0]: 0.6, last[0]: 0.7}
    blended = ask(paper_service, MMRAGScript(scores), chunk_k=12, pages=2)
    ranks = reranked(blended)
    assert [p for p, _, _ in ranks] == [p for p, _, _ in sorted(ranks, key=lambda r: -(0.7 * r[1] + 0.3 * r[2]))]
    assert {p: llm for p, llm, _ in ranks} == {p: scores.get(p, 0.5) for p, _, _ in retrieved}
    assert [r.page for r in blended.stage_pages["selected"]] == [top[0], last[0]]
    alone = ask(paper_service, MMRAGScript(scores), chunk_k=12, pages=2, llm_weight=1.0)
    assert [r.page for r in alone.stage_pages["selected"]] == [last[0], top[0]]
    assert [c.step for c in alone.calls][-1] == "answer" and all(c.step == "rerank" for c in alone.calls[:-1])


def test_the_reranker_scores_batches_with_the_papers_prompt(paper_service):
    model = MMRAGScript()
    answer = ask(paper_service, model, chunk_k=12, rerank_batch_pages=2)
    candidates = len(answer.stage_pages["retrieved"])
    assert len(model.calls("rerank")) == -(-candidates // 2)  # two pages a call
    prompt = model.calls("rerank")[0]
    assert "You are a RAG (Retrieval-Augmented Generation) retrievals ranker" in prompt
    assert "0.7 = Relevant: Clearly relates to the query" in prompt and f"Here is the query: {QUESTION}" in prompt


@pytest.mark.slow
def test_without_a_tree_the_answer_says_so_and_with_one_it_reads_the_nearest_summaries(paper_service):
    before = MMRAGScript()
    answer = ask(paper_service, before)
    assert any(n.startswith("tree: no finished summary tree by scripted for") for n in answer.notes)
    assert "Summaries of related parts" not in before.calls("answer")[0]

    prepare(paper_service, MMRAGScript())
    after = MMRAGScript()
    answer = ask(paper_service, after, tree_nodes=3, tree_leaves=False)
    assert not any("no finished summary tree" in n for n in answer.notes)
    assert "tree: 3 nodes retrieved (3 summaries, 0 leaves)" in answer.notes
    prompt = after.calls("answer")[0]
    assert prompt.count("[summary of document page") == 3
    assert prompt.index("Here is the context:") < prompt.index("Summaries of related parts") < \
        prompt.index(f"Here is the question: {QUESTION}")
    off = ask(paper_service, MMRAGScript(), tree_nodes=0)
    assert "tree: summary retrieval is off (tree_nodes = 0)" in off.notes


def test_the_answer_follows_the_papers_format_and_cites_its_relevant_pages(paper_service):
    model = MMRAGScript(answer=mmrag_answer("English", relevant=[2]))
    answer = ask(paper_service, model, pages=3)
    prompt = model.calls("answer")[0]
    for part in ("You are a RAG (Retrieval-Augmented Generation) answering system", "Final Answer [Integer]",
                 "at least 5 steps and at least 150 words", "relevant_pages: [45]"):
        assert part in prompt
    read = answer.stage_pages["read"]
    assert answer.status is AnswerStatus.ANSWERED and answer.short_answer == "English"
    assert len(read) == 3 and [(c.doc, c.page) for c in answer.citations] == [(read[1].doc, read[1].page)]

    declined = ask(paper_service, MMRAGScript(answer=mmrag_answer(relevant=[], fmt="None")))
    # declined on pages about the question: the closest passages, cited
    assert declined.status is AnswerStatus.PASSAGES and declined.citations


def test_a_vision_model_reads_the_selected_pages_images(paper_service):
    vision = MMRAGScript(vision=True, name="vision")
    text = MMRAGScript()
    paper_service.resources.use_runtimes(FixedRuntimes(text, vision))
    answer = paper_service.answers.ask(QUESTION, method="mmrag", overrides={"pages": 3})
    assert len(vision.calls("answer")) == 1 and vision.images == [3]  # the answer call, with the 3 pages' images
    assert text.calls("rerank") and not vision.calls("rerank") and set(text.images) == {0}  # scores: text model
    assert "Images of the retrieved pages are attached" in vision.calls("answer")[0]
    assert len(answer.stage_pages["read"]) == 3


def test_leaves_keep_their_embeddings_and_mark_the_missing_ones(paper_service):
    doc_id = only_document(paper_service)
    ids, _, texts, vectors = SummaryTrees(paper_service.resources.db).leaves(doc_id)
    assert ids and all(v is None for v in vectors)  # dense embeddings off in this service
    embedded = np.eye(len(ids), DIMENSION, dtype=np.float32)[::2]
    with paper_service.resources.db.transaction() as cur:
        content.set_embeddings(paper_service.resources.db, cur, ids[::2], embedded)
    _, _, _, vectors = SummaryTrees(paper_service.resources.db).leaves(doc_id)
    assert all(v is None for v in vectors[1::2])
    assert np.array_equal(np.stack(vectors[::2]), embedded)


def test_a_bad_setting_names_itself(paper_service):
    with pytest.raises(SettingsError, match="llm_weight must be between 0.0 and 1.0, not 1.5"):
        ask(paper_service, MMRAGScript(), llm_weight=1.5)
    for bad, message in ({"tree_layers": 0}, "tree_layers must be at least 1"), \
            ({"cluster_threshold": 1.5}, "cluster_threshold must be between"):
        with pytest.raises(SettingsError, match=message):  # checked before a tree is built, too
            check_settings(MMRAGSettings(**bad))


# -- the real model --------------------------------------------------------------------------------------

@pytest.fixture
def paper_start(tmp_path) -> Path:
    """The small corpus paper's first three pages (abstract to method): enough chunks for a tree of three layers,
    a third of the summaries the whole paper costs the 135M model."""
    folder = tmp_path / "paper-start"
    folder.mkdir()
    with pymupdf.open(corpus_pdf(SMALL_PAPER)) as whole, pymupdf.open() as start:
        start.insert_pdf(whole, to_page=2)
        start.save(folder / SMALL_PAPER)
    return folder


@pytest.mark.model
def test_smollm2_prepares_a_tree_and_answers_with_it_from_the_cli(home, paper_start, capsys, monkeypatch):
    paper = paper_start
    monkeypatch.setenv("DOCQA_ASK_PRESET", "cpu")  # the CPU preset's smaller tree and budgets: same steps, less text
    monkeypatch.setenv("DOCQA_MMRAG_SUMMARY_TOKENS", "40")  # the 135M model writes to the limit: half the time
    monkeypatch.setenv("DOCQA_MMRAG_ANSWER_TOKENS", "200")
    settings = make_settings(home, layout=False, ocr=False)
    with Service(settings) as service:
        service.library.index([str(paper)])
    assert main(["prepare", "--method", "mmrag", "--home", str(home)]) == 0
    assert "summary-tree nodes" in capsys.readouterr().out
    with Service(settings) as service:
        doc_id = only_document(service)
        nodes = SummaryTrees(service.resources.db).nodes(doc_id, "smollm2-135m-instruct")
        assert nodes and all(n.text for n in nodes) and max(n.layer for n in nodes) >= 2
    answer = ask_from_the_cli(home, settings, paper, "Which pivot language is used for translation?", "mmrag",
                              capsys)
    assert answer.status in (AnswerStatus.UNVERIFIED, AnswerStatus.PASSAGES, AnswerStatus.NOT_FOUND), answer.error
    steps = [c.step for c in answer.calls]
    assert steps[-1] == "answer" and steps[:-1] and all(s == "rerank" for s in steps[:-1])
    assert any(n.startswith("tree: ") and "summaries" in n and not n.startswith("tree: 0 ") for n in answer.notes)
    read = {(p.doc, p.page) for p in answer.pages_used}
    assert read and all((c.doc, c.page) in read for c in answer.citations)
