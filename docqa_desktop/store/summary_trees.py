"""Trees of summaries over a document's chunks, per document and summarising model (tables tree_nodes, tree_builds).

Layer 1 summarises chunks (a node's children are chunk ids), layer n > 1 summarises layer n-1 (node ids). A layer
is planned whole (plan_layer: its nodes, children and pages, text NULL) and then filled one summary at a time
(fill_node), so a build killed in the middle resumes with the unwritten nodes of the planned layer and never
writes a node twice; finish() marks the tree complete. Each call is its own read or transaction: this is what
an answering method gets as `ctx.trees` (methods/base.py), without the database itself.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..domain import TreeNode
from .database import Database

DIMENSION = 384  # all-MiniLM-L6-v2, the chunks' embedder (the chunks table's FLOAT[384])


class SummaryTrees:
    """The trees as a method gets them (`ctx.trees`: the Trees port, methods/ports.py); the database stays
    private."""
    dimension = DIMENSION  # of node and leaf embeddings

    def __init__(self, db: Database):
        self._db = db

    def nodes(self, doc_id: int, model: str, layer: int | None = None) -> list[TreeNode]:
        """The document's nodes by `model` (one layer, or all), by layer then seq."""
        sql = "SELECT id, doc_id, layer, seq, children, pages, text FROM tree_nodes WHERE doc_id = ? AND model = ?"
        params: list = [doc_id, model]
        if layer is not None:
            sql += " AND layer = ?"
            params.append(layer)
        return _nodes(self._db.cursor().execute(sql + " ORDER BY layer, seq", params).fetchall())

    def node_vectors(self, node_ids: list[int]) -> np.ndarray:
        """The embeddings of written nodes, in the order of `node_ids` (a node without one is an error)."""
        if not node_ids:
            return np.zeros((0, DIMENSION), np.float32)
        table = self._db.cursor().execute(
            "SELECT id, embedding FROM tree_nodes WHERE id IN (SELECT unnest(?::BIGINT[]))",
            [list(node_ids)]).fetch_arrow_table()
        by_id = dict(zip(table.column("id").to_pylist(), _embedding_rows(table.column("embedding"))))
        return np.stack([by_id[i] for i in node_ids])

    def plan_layer(self, doc_id: int, model: str, layer: int, clusters: list[tuple[list[int], list[int]]]) -> None:
        """Insert a layer's nodes unwritten: one (children, pages) per cluster, numbered in order."""
        with self._db.transaction() as cur:
            self._db.insert_arrow(cur, "tree_nodes", pa.table({
                "doc_id": pa.array([doc_id] * len(clusters), pa.int64()),
                "model": [model] * len(clusters),
                "layer": pa.array([layer] * len(clusters), pa.int32()),
                "seq": pa.array(list(range(len(clusters))), pa.int32()),
                "children": pa.array([children for children, _ in clusters], pa.list_(pa.int64())),
                "pages": pa.array([sorted(set(pages)) for _, pages in clusters], pa.list_(pa.int32())),
            }))

    def fill_node(self, node_id: int, text: str, embedding: np.ndarray) -> None:
        with self._db.transaction() as cur:
            cur.execute("UPDATE tree_nodes SET text = ?, embedding = ?::FLOAT[384] WHERE id = ?",
                        [text, embedding.astype(np.float32).tolist(), node_id])

    def finish(self, doc_id: int, model: str, layers: int) -> None:
        with self._db.transaction() as cur:
            cur.execute("INSERT OR REPLACE INTO tree_builds (doc_id, model, layers) VALUES (?, ?, ?)",
                        [doc_id, model, layers])

    def finished(self, doc_ids: list[int], model: str) -> set[int]:
        """The documents among `doc_ids` whose tree by `model` is complete."""
        if not doc_ids:
            return set()
        return {d for (d,) in self._db.cursor().execute(
            "SELECT doc_id FROM tree_builds WHERE model = ? AND doc_id IN (SELECT unnest(?::BIGINT[]))",
            [model, list(doc_ids)]).fetchall()}

    def written_nodes(self, doc_ids: list[int], model: str) -> list[TreeNode]:
        """Every written node of the documents' trees by `model`, by document, layer and seq."""
        if not doc_ids:
            return []
        return _nodes(self._db.cursor().execute(
            "SELECT id, doc_id, layer, seq, children, pages, text FROM tree_nodes WHERE model = ? "
            "AND text IS NOT NULL AND doc_id IN (SELECT unnest(?::BIGINT[])) ORDER BY doc_id, layer, seq",
            [model, list(doc_ids)]).fetchall())

    def leaves(self, doc_id: int) -> tuple[list[int], list[int], list[str], list[np.ndarray | None]]:
        """The document's chunks: (ids, pages, texts, embeddings or None where not embedded yet), in order."""
        table = self._db.cursor().execute(
            "SELECT c.id, c.page, c.text, v.embedding FROM chunks c LEFT JOIN chunk_vectors v USING (id) "
            "WHERE c.doc_id = ? ORDER BY c.page, c.seq, c.id", [doc_id]).fetch_arrow_table()
        return (table.column("id").to_pylist(), table.column("page").to_pylist(), table.column("text").to_pylist(),
                _embedding_rows(table.column("embedding")))


def _nodes(rows) -> list[TreeNode]:
    return [TreeNode(i, d, l, s, list(c), list(p), t) for i, d, l, s, c, p, t in rows]


def _embedding_rows(column) -> list[np.ndarray | None]:
    """An Arrow FLOAT[384] column as one vector per row, None where the row has no embedding."""
    column = column.combine_chunks()
    flat = column.flatten().to_numpy(zero_copy_only=False).astype(np.float32).reshape(-1, DIMENSION)
    rows: list[np.ndarray | None] = [None] * len(column)
    for vector, i in zip(flat, np.flatnonzero(column.is_valid().to_numpy(zero_copy_only=False))):
        rows[i] = vector
    return rows
