"""MMRAG-DocQA's topological cross-page index (method section B, eq. 7-9): a tree of LLM summaries per document.

Leaves are the document's chunks (the in-page index's passages, already embedded). Each layer clusters the layer
below (clustering.py: RAPTOR's Gaussian mixtures with soft assignment), writes one summary per cluster with the
text model ("a summary including as many key details as possible", RAPTOR's prompt), embeds the summaries like
the chunks and clusters them again: up to `tree_layers` layers, until one node is left. When a layer has at
most reduction_dims + 1 nodes (where RAPTOR stops), they are summarised together into the root.

Built ahead of questions by the prepare step (`docqa prepare --method mmrag`), per document and text model,
resumably (store/summary_tree.py plans a layer before writing it), only for documents without a finished tree
by that model: a changed document is a new document and gets its own tree.
"""
from __future__ import annotations


from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...llm import Message, Options
from ...llm.budget import trim_to_tokens
from ...llm.runtime import Runtime
from ...progress import Progress, check_cancel
from ...store import catalog, summary_tree
from ...store.database import Database
from ..base import PrepareContext
from .clustering import ClusterSettings, clusters_within, consecutive_runs
from .settings import check_settings

SUMMARY_STEP = "tree summary"
SUMMARIZE = "You are a Summarizing Assistant.\n\nWrite a summary of the following, including as many key details " \
            "as possible: {context}:"
PROMPT_MARGIN = 64  # the instructions and the chat template around a cluster's texts


@dataclass
class Layer:
    """The nodes one layer up is built from: ids (chunk or node ids), their pages, texts and embeddings."""
    ids: list[int]
    pages: list[list[int]]
    texts: list[str]
    vectors: np.ndarray


class TreeBuilder:
    def __init__(self, db: Database, runtime: Runtime, embed: Callable[[list[str]], np.ndarray], settings,
                 call, progress: Callable[[Progress], None] = lambda p: None, cancel=None):
        self.db, self.runtime, self.embed, self.settings = db, runtime, embed, settings
        self.call, self.progress, self.cancel = call, progress, cancel
        self.written = 0  # summaries written by this builder, over every document (what a cancel reports)
        self.clustering = ClusterSettings(settings.reduction_dims, settings.cluster_threshold, settings.max_clusters)
        # a cluster's texts must fit one summarising prompt, whatever cluster_tokens says
        self.max_cluster_tokens = max(1, min(settings.cluster_tokens,
                                             runtime.info.context - settings.summary_tokens - PROMPT_MARGIN))

    @property
    def model(self) -> str:
        return self.runtime.info.name

    def build(self, doc_id: int, name: str) -> None:
        """The document's tree, finished (resuming a killed build). Progress counts the summaries written by
        this builder against those plus the current layer's unwritten ones."""
        below = self._leaves(doc_id)
        layers = 0
        for layer in range(1, self.settings.tree_layers + 1):
            if len(below.ids) < 2:
                break
            planned = summary_tree.nodes(self.db.cursor(), doc_id, self.model, layer)
            if not planned:
                clusters = self._clusters(below)
                if layer > 1 and len(clusters) >= len(below.ids):
                    break  # clustering no longer merges anything
                with self.db.transaction() as cur:
                    summary_tree.plan_layer(self.db, cur, doc_id, self.model, layer, [
                        ([below.ids[i] for i in members], [p for i in members for p in below.pages[i]])
                        for members in clusters])
                planned = summary_tree.nodes(self.db.cursor(), doc_id, self.model, layer)
            texts = dict(zip(below.ids, below.texts))
            unwritten = [node for node in planned if node.text is None]
            for left, node in enumerate(unwritten, 1):
                self._summarize(node, [texts[c] for c in node.children], name)
                self.written += 1
                self.progress(Progress("prepare", f"summary tree, layer {layer}", self.written,
                                       self.written + len(unwritten) - left, "summaries", name))
            layers = layer
            below = self._layer(doc_id, layer)
        with self.db.transaction() as cur:
            summary_tree.finish(cur, doc_id, self.model, layers)

    def _leaves(self, doc_id: int) -> Layer:
        ids, pages, texts, vectors = summary_tree.leaves(self.db.cursor(), doc_id)
        missing = [i for i, v in enumerate(vectors) if v is None]
        if missing:  # chunks the indexer has not embedded yet
            for i, vector in zip(missing, self.embed([texts[i] for i in missing])):
                vectors[i] = vector
        matrix = np.stack(vectors) if vectors else np.zeros((0, summary_tree.DIMENSION), np.float32)
        return Layer(ids, [[p] for p in pages], texts, matrix)

    def _layer(self, doc_id: int, layer: int) -> Layer:
        nodes = summary_tree.nodes(self.db.cursor(), doc_id, self.model, layer)
        ids = [node.id for node in nodes]
        return Layer(ids, [node.pages for node in nodes], [node.text or "" for node in nodes],
                     summary_tree.node_vectors(self.db.cursor(), ids))

    def _clusters(self, below: Layer) -> list[np.ndarray]:
        tokens = np.array([self.runtime.count_tokens(text) for text in below.texts])
        if len(below.ids) <= self.settings.reduction_dims + 1:  # few enough for one root
            return consecutive_runs(np.arange(len(below.ids)), tokens, self.max_cluster_tokens)
        return clusters_within(below.vectors, tokens, self.max_cluster_tokens, self.clustering)

    def _summarize(self, node: summary_tree.TreeNode, texts: list[str], name: str) -> None:
        check_cancel(self.cancel)
        context = trim_to_tokens(self.runtime, "\n\n".join(" ".join(t.splitlines()) for t in texts),
                                 self.max_cluster_tokens)
        completion = self.call(f"{SUMMARY_STEP} {name} layer {node.layer} #{node.seq + 1}", self.runtime,
                               [Message("user", SUMMARIZE.format(context=context))],
                               Options(max_tokens=self.settings.summary_tokens, temperature=0.0))
        text = completion.text.strip() or context[:500]  # an empty reply: the cluster's own opening words
        with self.db.transaction() as cur:
            summary_tree.fill_node(cur, node.id, text, self.embed([text])[0])


def prepare_trees(ctx: PrepareContext) -> int:
    """Every document without a finished tree by the text model gets one; returns the summaries written. Trees
    are kept per document and model: changing the tree settings later does not rebuild finished trees."""
    check_settings(ctx.settings)
    cur = ctx.db.cursor()
    doc_ids = sorted(ctx.doc_ids if ctx.doc_ids is not None else catalog.live_documents(cur))
    builder = TreeBuilder(ctx.db, ctx.text_model, ctx.embed, ctx.settings, ctx.call, ctx.progress, ctx.cancel)
    done = summary_tree.finished(cur, doc_ids, builder.model)
    names = catalog.doc_names(cur)
    for doc_id in doc_ids:
        if doc_id not in done:
            builder.build(doc_id, names.get(doc_id, f"document {doc_id}"))
    return builder.written
