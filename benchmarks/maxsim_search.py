"""Visual (multi-vector MaxSim) search on synthetic pages: latency, memory, disk, recall against exact.

    .venv/bin/python benchmarks/maxsim_search.py --pages N [--queries 20] [--json] [--out FILE]

Builds a MultiVectorIndex of N synthetic pages (768 normalized 128-d vectors each, clustered around the
topics of their document, plus near-duplicate background patches; see Synthetic) and searches it with
25-token queries about random documents. Exact float32 MaxSim over every page is computed in
the same run (streamed while the pages are generated) for recall@10, and timed on a resident block of pages.
floor_ms = bytes the search reads per query / the measured memory copy bandwidth. Prints one JSON object
with --json: {"pages", "p50_ms", "p90_ms", "recall_at_10", "rss_mb", "bytes_per_page", "exact_p50_ms",
"floor_ms", ...}; writes it to benchmarks/results/maxsim_search-N.json (or --out).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from docqa_desktop.visual.search_index import MultiVectorIndex, SearchDepth  # noqa: E402

VECTORS, DIM, TOKENS = 768, 128, 25
TOPICS, TOPICS_PER_DOCUMENT, TOPICS_PER_PAGE, PAGES_PER_DOCUMENT = 4096, 12, 8, 10
CHUNK = 100  # pages generated (and scored exactly) at a time


class Synthetic:
    """Deterministic synthetic pages: page p is the same array whenever it is generated. Pages come in
    documents of 10; a document is about 12 of the 4,096 topics and each of its pages shows 8 of them, as
    patch vectors scattered around the topic directions, plus 40 % background patches (margins, white
    space) near a few directions every page shares. A query is about one document: 20 tokens near 6 of its
    topics and 5 generic tokens — so the exact top 10 are mostly that document's pages, ranked by how many
    of the query's topics each shows, as with real multi-page documents."""

    def __init__(self, seed: int):
        rng = np.random.default_rng(seed)
        self.seed = seed
        self.topics = _normalize(rng.standard_normal((TOPICS, DIM)).astype(np.float32))
        self.background = _normalize(rng.standard_normal((8, DIM)).astype(np.float32))

    def document_topics(self, doc: int) -> np.ndarray:
        return np.random.default_rng((self.seed, doc, 2)).choice(TOPICS, TOPICS_PER_DOCUMENT, replace=False)

    def page(self, p: int) -> np.ndarray:
        rng = np.random.default_rng((self.seed, p))
        topics = rng.choice(self.document_topics(p // PAGES_PER_DOCUMENT), TOPICS_PER_PAGE, replace=False)
        background = rng.random(VECTORS) < 0.4
        centres = np.where(background[:, None], self.background[rng.integers(0, 8, VECTORS)],
                           self.topics[topics[rng.integers(0, TOPICS_PER_PAGE, VECTORS)]])
        noise = rng.standard_normal((VECTORS, DIM), dtype=np.float32) * np.float32(0.06)  # cos to topic ≈ 0.8
        return _normalize(centres + noise)

    def query(self, p: int, q: int) -> np.ndarray:
        """25 tokens about the document holding page p."""
        rng = np.random.default_rng((self.seed, p, q, 1))
        topics = rng.choice(self.document_topics(p // PAGES_PER_DOCUMENT), 6, replace=False)
        centres = np.concatenate([self.topics[topics[rng.integers(0, 6, TOKENS - 5)]],
                                  self.background[rng.integers(0, 8, 5)]])
        noise = rng.standard_normal((TOKENS, DIM), dtype=np.float32) * np.float32(0.06)
        return _normalize(centres + noise)


def _normalize(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def build(folder: str, pages: int, queries: np.ndarray, seed: int) -> np.ndarray:
    """(In a child process, so its memory stays out of the search figures.) Generate, encode and index
    every page; return exact float32 MaxSim scores [queries, pages]."""
    from docqa_desktop.visual.search_index import EncodedPage, MultiVectorIndex

    data = Synthetic(seed)
    index = MultiVectorIndex(Path(folder))
    flat = queries.reshape(-1, DIM).T  # all queries' tokens at once
    exact = np.empty((len(queries), pages), np.float32)
    for start in range(0, pages, CHUNK):
        ids = list(range(start, min(start + CHUNK, pages)))
        vectors = [data.page(p) for p in ids]
        index.add_many(ids, [EncodedPage.from_vectors(v) for v in vectors])
        sims = (np.concatenate(vectors) @ flat).reshape(len(ids), VECTORS, len(queries), TOKENS)
        exact[:, start:start + len(ids)] = sims.max(axis=1).sum(axis=2).T
    return exact


def copy_bandwidth_gb_s() -> float:
    src = np.ones(256 * 2**20 // 8)
    dst = np.empty_like(src)
    best = min(_timed(lambda: np.copyto(dst, src)) for _ in range(5))
    return 2 * src.nbytes / best / 1e9  # read + write


def _timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def exact_latency_ms(data: Synthetic, query: np.ndarray, pages: int) -> tuple[float, int]:
    """Exact float32 brute force for one query, timed on up to 2,000 resident pages and scaled to `pages`."""
    resident = min(pages, 2000)
    block = np.concatenate([data.page(p) for p in range(resident)])
    times = []
    for _ in range(3):
        times.append(_timed(lambda: (block @ query.T).reshape(resident, VECTORS, TOKENS).max(axis=1).sum(axis=1)))
    return statistics.median(times) * 1000 * pages / resident, resident


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, required=True)
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--folder", type=Path, help="index folder to create and keep, with the exact scores: a "
                    "second run with the same --pages/--queries/--seed reuses it (e.g. to try other depths)")
    ap.add_argument("--stage1", type=int, default=SearchDepth().stage1, help="pages kept by the pooled-code stage")
    ap.add_argument("--stage2", type=int, default=SearchDepth().stage2,
                    help="pages kept by the full-code stage, at least (one per 1,000 in larger libraries)")
    ap.add_argument("--json", action="store_true", help="print only the result object")
    ap.add_argument("--out")
    args = ap.parse_args()

    data = Synthetic(args.seed)
    targets = np.random.default_rng(args.seed).choice(args.pages, args.queries, replace=args.queries > args.pages)
    queries = np.stack([data.query(int(p), i) for i, p in enumerate(targets)])
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder or Path(tmp) / "index"
        kept = folder / f"exact-{args.pages}-{args.queries}-{args.seed}.npy"
        started = time.perf_counter()
        reused = kept.exists()
        if reused:
            exact = np.load(kept)
        else:
            shutil.rmtree(folder, ignore_errors=True)
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                exact = pool.apply(build, (str(folder), args.pages, queries, args.seed))
            np.save(kept, exact)
        build_seconds = time.perf_counter() - started

        index = MultiVectorIndex(folder)
        depth = SearchDepth(args.stage1, args.stage2)
        index.search(queries[0], 10, depth)  # compile the kernels, load the codes
        latencies, recalls = [], []
        for i, query in enumerate(queries):
            t0 = time.perf_counter()
            hits = index.search(query, 10, depth)
            latencies.append((time.perf_counter() - t0) * 1000)
            truth = set(np.argpartition(-exact[i], 9)[:10].tolist())
            recalls.append(len(truth & {page for page, _ in hits}) / 10)
        rss_mb = _common.peak_rss_mb()["main_mb"]  # the build ran in a child process
        disk = index.nbytes_on_disk() - kept.stat().st_size

    bandwidth = copy_bandwidth_gb_s()
    stage1, stage2 = min(args.pages, depth.stage1), depth.reranked(args.pages)
    read = (args.pages * 32 * 16 * (args.pages > depth.stage1) + stage1 * VECTORS * 16 * (stage1 > stage2)
            + min(stage1, stage2) * VECTORS * (DIM + 4))
    exact_ms, resident = exact_latency_ms(data, queries[0], args.pages)
    result = {"pages": args.pages, "p50_ms": round(statistics.median(latencies), 1),
              "p90_ms": round(float(np.percentile(latencies, 90)), 1),
              "recall_at_10": round(statistics.fmean(recalls), 4), "rss_mb": round(rss_mb),
              "bytes_per_page": round(disk / args.pages), "exact_p50_ms": round(exact_ms, 1),
              "floor_ms": round(read / (bandwidth * 1e9) * 1000, 2),
              "queries": args.queries, "stage1_pages": depth.stage1, "stage2_pages": stage2,
              "exact_timed_on_pages": resident, "copy_bandwidth_gb_s": round(bandwidth, 1),
              "bytes_read_per_query": read, "build_seconds": None if reused else round(build_seconds, 1), "reused_index": reused,
              "environment": _common.environment()}
    path = _common.write_json(result, args.out, f"maxsim_search-{args.pages}.json")
    headline = {k: result[k] for k in ("pages", "p50_ms", "p90_ms", "recall_at_10", "rss_mb", "bytes_per_page",
                                       "exact_p50_ms", "floor_ms")}
    print(json.dumps(headline) if args.json else f"{headline}\nwritten to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
