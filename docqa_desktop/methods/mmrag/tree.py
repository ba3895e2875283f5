"""MMRAG-DocQA's topological cross-page index (method section B, eq. 7-9): a tree of LLM summaries per document.

Leaves are the document's chunks (the in-page index's passages, already embedded). Each layer clusters the layer
below (clustering.py: RAPTOR's Gaussian mixtures with soft assignment), writes one summary per cluster with the
text model ("a summary including as many key details as possible", RAPTOR's prompt), embeds the summaries like
the chunks and clusters them again: up to `tree_layers` layers, until one node is left. When a layer has at
most reduction_dims + 1 nodes (where RAPTOR stops), they are summarised together into the root.

Built ahead of questions by the prepare step (`docqa prepare --method mmrag`), per document and text model,
resumably (store/summary_trees.py plans a layer before writing it), only for documents without a finished tree
by that model: a changed document is a new document and gets its own tree.
"""
from __future__ import annotations


from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...llm import Message, Options
from ...llm.budget import trim_to_tokens
from ...llm.runtime import Runtime
from ...progress import Eta, Progress, check_cancel
from ..base import PrepareContext, TreeNode, Trees
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
    def __init__(self, trees: Trees, runtime: Runtime, embed: Callable[[list[str]], np.ndarray], settings,
                 call, progress: Callable[[Progress], None] = lambda p: None, cancel=None):
        self.trees, self.runtime, self.embed, self.settings = trees, runtime, embed, settings
        self.call, self.progress, self.cancel = call, progress, cancel
        self.written = 0  # summaries written by this builder, over every document (what a cancel reports)
        self.eta = Eta()  # every summary is alike: one model call over a cluster of at most cluster_tokens
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
            planned = self.trees.nodes(doc_id, self.model, layer)
            if not planned:
                clusters = self._clusters(below)
                if layer > 1 and len(clusters) >= len(below.ids):
                    break  # clustering no longer merges anything
                self.trees.plan_layer(doc_id, self.model, layer, [
                    ([below.ids[i] for i in members], [p for i in members for p in below.pages[i]])
                    for members in clusters])
                planned = self.trees.nodes(doc_id, self.model, layer)
            texts = dict(zip(below.ids, below.texts))
            unwritten = [node for node in planned if node.text is None]
            for left, node in enumerate(unwritten, 1):
                self._summarize(node, [texts[c] for c in node.children], name)
                self.written += 1
                self.eta.item_done()
                self.progress(Progress("prepare", f"summary tree, layer {layer}", self.written,
                                       self.written + len(unwritten) - left, "summaries", name,
                                       round(self.eta.rate, 4), self.eta.seconds_left(len(unwritten) - left)))
            layers = layer
            below = self._layer(doc_id, layer)
        self.trees.finish(doc_id, self.model, layers)

    def _leaves(self, doc_id: int) -> Layer:
        ids, pages, texts, vectors = self.trees.leaves(doc_id)
        missing = [i for i, v in enumerate(vectors) if v is None]
        if missing:  # chunks the indexer has not embedded yet
            for i, vector in zip(missing, self.embed([texts[i] for i in missing])):
                vectors[i] = vector
        matrix = np.stack(vectors) if vectors else np.zeros((0, self.trees.dimension), np.float32)
        return Layer(ids, [[p] for p in pages], texts, matrix)

    def _layer(self, doc_id: int, layer: int) -> Layer:
        nodes = self.trees.nodes(doc_id, self.model, layer)
        ids = [node.id for node in nodes]
        return Layer(ids, [node.pages for node in nodes], [node.text or "" for node in nodes],
                     self.trees.node_vectors(ids))

    def _clusters(self, below: Layer) -> list[np.ndarray]:
        tokens = np.array([self.runtime.count_tokens(text) for text in below.texts])
        if len(below.ids) <= self.settings.reduction_dims + 1:  # few enough for one root
            return consecutive_runs(np.arange(len(below.ids)), tokens, self.max_cluster_tokens)
        return clusters_within(below.vectors, tokens, self.max_cluster_tokens, self.clustering)

    def _summarize(self, node: TreeNode, texts: list[str], name: str) -> None:
        check_cancel(self.cancel)
        context = trim_to_tokens(self.runtime, "\n\n".join(" ".join(t.splitlines()) for t in texts),
                                 self.max_cluster_tokens)
        completion = self.call(f"{SUMMARY_STEP} {name} layer {node.layer} #{node.seq + 1}", self.runtime,
                               [Message("user", SUMMARIZE.format(context=context))],
                               Options(max_tokens=self.settings.summary_tokens, temperature=0.0))
        text = completion.text.strip() or context[:500]  # an empty reply: the cluster's own opening words
        self.trees.fill_node(node.id, text, self.embed([text])[0])


def prepare_trees(ctx: PrepareContext) -> int:
    """Every document without a finished tree by the text model gets one; returns the summaries written. Trees
    are kept per document and model: changing the tree settings later does not rebuild finished trees."""
    check_settings(ctx.settings)
    doc_ids = sorted(ctx.search.documents())
    builder = TreeBuilder(ctx.trees, ctx.text_model, ctx.search.embed, ctx.settings, ctx.call, ctx.progress, ctx.cancel)
    done = ctx.trees.finished(doc_ids, builder.model)
    names = ctx.pages.document_names()
    for doc_id in doc_ids:
        if doc_id not in done:
            builder.build(doc_id, names.get(doc_id, f"document {doc_id}"))
    return builder.written
