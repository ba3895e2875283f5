"""A big library through the service (issue 21): time until searchable, background enrichment rate, BM25 / dense /
hybrid search latency, adding and removing one document, memory and database size, at N pages.

    .venv/bin/python benchmarks/library_scale.py --pages 10000 [--index-pages 1000] [--queries 30] [--json]

How the library is made:
- N minus `--index-pages` synthetic pages go straight into the database (benchmarks/_synthetic.py: corpus pages with a fifth of their
  words redrawn by corpus frequency, 20 pages a document), with their keyword rows (the same SQL the indexer runs)
  and their chunks (the indexer's chunking). Chunk vectors: real all-MiniLM-L6-v2 embeddings of 2,000 corpus
  chunks, and for the rest a mixture of two of those plus noise, normalised — parsing and embedding 100,000 pages
  would take this machine a day; what is measured here is the store and the search over them.
- Then `--index-pages` pages (the same corpus pages at every N), as real 20-page PDFs, are indexed by Service.index into that same library with
  the default pipeline (text, layout pass, embedding pass; page images off: no page embedder here).
  indexed_searchable_s is the time from the start of that call until its last document committed
  (keyword-searchable); enrich_pages_per_s is those pages over the time the background passes took after that.
- searchable_s: `--searchable-pages` more pages (20-page PDFs) indexed into a fresh library with the passes left
  for later (`docqa index --searchable-only`): the time until every page is keyword-searchable.
- Searches are the dev questions through Service.search (query embedding included for dense and hybrid), after one
  warm-up search that loads the in-RAM indexes (first_search_s). hybrid = BM25 + dense fused (search.mode fused);
  visual is null: no page embedder is installed here.
- dense_recall_at_10: the top 10 chunks of the quantized dense search against exact float32 cosine over every
  chunk vector, mean over the queries.
- add_document_s: a new 20-page PDF, from Service.index's start until it is searchable (its parse committed);
  add_document_enriched_s until its layout and embeddings are done too. remove_document_s: Service.remove.
- The searches, the recall, adding and removing run in a second process that opens the built library and does
  nothing else, as the app would: rss_mb is its resident memory after the timed searches (the in-RAM indexes
  loaded), peak_rss_mb its peak until then (the first search's loading included).

Writes benchmarks/results/library_scale-N.json.
"""
from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from _synthetic import PAGES_PER_DOCUMENT, corpus_pages, synthetic_pages  # noqa: E402

REAL_VECTORS = 2000
BUILD_BATCH_PAGES = 5000


def status_mb(field: str = "VmRSS") -> float:
    """This process's resident memory now (VmRSS) or at its peak (VmHWM). Not getrusage's ru_maxrss: that one
    survives exec, so a child started by a big parent reports the parent's size at the fork."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


class SyntheticVectors:
    """Chunk vectors shaped like MiniLM's: real embeddings of corpus chunks, mixed and perturbed."""

    def __init__(self, texts: list[str], seed: int = 11):
        from docqa_desktop.vectors.text_embedder import default_embedder

        self.real = default_embedder().embed(texts).astype(np.float32)
        self.rng = np.random.default_rng(seed)

    def make(self, count: int) -> np.ndarray:
        first = self.real[self.rng.integers(0, len(self.real), count)]
        second = self.real[self.rng.integers(0, len(self.real), count)]
        mixed = first + 0.5 * second + self.rng.normal(0, 0.03, (count, self.real.shape[1])).astype(np.float32)
        return (mixed / np.linalg.norm(mixed, axis=1, keepdims=True)).astype(np.float32)


def build_library(db, texts: list[str], vectors: SyntheticVectors) -> dict:
    """Documents, files, pages, keyword rows, chunks with vectors for `texts`; seconds per step."""
    from docqa_desktop.index.chunking import chunk_page
    from docqa_desktop.store import enrichment, keywords

    seconds = {"pages": 0.0, "keywords": 0.0, "chunks": 0.0}
    for start in range(0, len(texts), BUILD_BATCH_PAGES):
        part = texts[start:start + BUILD_BATCH_PAGES]
        count = -(-len(part) // PAGES_PER_DOCUMENT)
        docs = [d for (d,) in db.cursor().execute("SELECT nextval('document_ids') FROM range(?)", [count]).fetchall()]
        doc_of = [docs[n // PAGES_PER_DOCUMENT] for n in range(len(part))]
        page_of = [n % PAGES_PER_DOCUMENT + 1 for n in range(len(part))]
        started = time.perf_counter()
        with db.transaction() as cur:
            db.insert_arrow(cur, "documents", pa.table({
                "id": pa.array(docs, pa.int64()), "sha256": [f"synthetic-{d}" for d in docs],
                "size": pa.array([0] * len(docs), pa.int64()),
                "pages": pa.array([PAGES_PER_DOCUMENT] * len(docs), pa.int32()),
                "title": [f"Synthetic {d}" for d in docs], "parser_version": pa.array([2] * len(docs), pa.int32())}))
            db.insert_arrow(cur, "files", pa.table({
                "path": [f"/synthetic/library/doc-{d:06d}.pdf" for d in docs], "doc_id": pa.array(docs, pa.int64()),
                "status": ["indexed"] * len(docs)}))
            db.insert_arrow(cur, "pages", pa.table({
                "doc_id": pa.array(doc_of, pa.int64()), "page": pa.array(page_of, pa.int32()),
                "label": [str(p) for p in page_of], "width": pa.array([612.0] * len(part), pa.float32()),
                "height": pa.array([792.0] * len(part), pa.float32()), "text": part,
                "text_source": ["layer"] * len(part)}))
            for doc_id in docs:  # their layout is not this benchmark's: the pass must not look for their files
                enrichment.mark_done(cur, doc_id, enrichment.LAYOUT)
            seconds["pages"] += time.perf_counter() - started
            started = time.perf_counter()
            cur.execute(keywords.index_pages_sql(
                f"(SELECT doc_id, page, text FROM pages WHERE doc_id BETWEEN {docs[0]} AND {docs[-1]})"))
            seconds["keywords"] += time.perf_counter() - started
            started = time.perf_counter()
            chunks = [(d, c.page, c.seq, c.text) for d, p, text in zip(doc_of, page_of, part)
                      for c in chunk_page(p, text)]
            embedded = vectors.make(len(chunks))
            ids = pa.array([i for (i,) in cur.execute("SELECT nextval('chunk_ids') FROM range(?)", [len(chunks)]
                                                      ).fetchall()], pa.int64())
            doc_ids, pages = pa.array([c[0] for c in chunks], pa.int64()), pa.array([c[1] for c in chunks], pa.int32())
            db.insert_arrow(cur, "chunks", pa.table({
                "id": ids, "doc_id": doc_ids, "page": pages,
                "seq": pa.array([c[2] for c in chunks], pa.int32()), "text": [c[3] for c in chunks]}))
            db.insert_arrow(cur, "chunk_vectors", pa.table({
                "id": ids, "doc_id": doc_ids, "page": pages,
                "embedding": pa.FixedSizeListArray.from_arrays(pa.array(embedded.ravel()), embedded.shape[1])}))
            seconds["chunks"] += time.perf_counter() - started
    return {k: round(v, 1) for k, v in seconds.items()}


def write_pdf(path: Path, pages: list[str]) -> None:
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 560, 760), text, fontsize=8)
    doc.save(path)
    doc.close()


class PhaseClock:
    """Progress callback noting when parsing ended (the documents are searchable) and when everything did."""

    def __init__(self):
        self.started = time.perf_counter()
        self.searchable_at: float | None = None

    def __call__(self, p) -> None:
        if self.searchable_at is None and p.phase in ("layout", "embedding", "visual", "done"):
            self.searchable_at = time.perf_counter() - self.started


def percentile(values: list[float], q: int) -> float:
    return round(float(np.percentile(values, q)), 1)


def timed_searches(service, queries: list[str], mode: str) -> list[float]:
    latencies = []
    for query in queries:
        started = time.perf_counter()
        service.pages.search(query, k=10, mode=mode)
        latencies.append(1000 * (time.perf_counter() - started))
    return latencies


def exact_top10(db, queries: np.ndarray) -> list[list[int]]:
    """Exact float32 cosine top 10 chunk ids per query, reading every vector from the store in batches."""
    best = [np.zeros(0, np.int64) for _ in queries]
    best_scores = [np.zeros(0, np.float32) for _ in queries]
    cur = db.cursor()
    reader = cur.execute("SELECT id, embedding FROM chunk_vectors").fetch_record_batch(100_000)
    for batch in reader:
        ids = batch.column(0).to_numpy()
        flat = batch.column(1).values.to_numpy(zero_copy_only=False)
        scores = flat.reshape(len(ids), -1) @ queries.T
        for q in range(len(queries)):
            merged_ids = np.concatenate([best[q], ids])
            merged = np.concatenate([best_scores[q], scores[:, q]])
            keep = np.argsort(-merged, kind="stable")[:10]
            best[q], best_scores[q] = merged_ids[keep], merged[keep]
    return [list(b) for b in best]


def write_library(folder: Path, texts: list[str]) -> None:
    folder.mkdir(parents=True)
    for n in range(len(texts) // PAGES_PER_DOCUMENT):
        write_pdf(folder / f"incoming-{n:04d}.pdf", texts[n * PAGES_PER_DOCUMENT:(n + 1) * PAGES_PER_DOCUMENT])


def time_to_searchable(settings, folder: Path, pages: int) -> float:
    """A fresh library: seconds from Service.index's start until every page is keyword-searchable (the
    background passes are left for later, as `docqa index --searchable-only` leaves them)."""
    from docqa_desktop.service import Service

    with Service(settings) as service:
        started = time.perf_counter()
        report = service.library.index([str(folder)], enrich=False)
        seconds = time.perf_counter() - started
        assert report.pages == pages and service.library.enrichment()[0].done == pages, report.as_json()
    return seconds


def library_settings(home: Path):
    from docqa_desktop.settings import Settings

    settings = Settings.load(home)
    return dataclasses.replace(settings, index=dataclasses.replace(settings.index, visual="off"))


def measure(pages: int, index_pages: int, searchable_pages: int, queries: int, base: list[list[str]]) -> dict:
    """Builds the library here, then searches, adds and removes in a fresh process (searching()), whose memory is
    what the app's would be: this one holds every synthetic page's text."""
    from docqa_desktop.service import Service

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        settings = library_settings(home)
        synthetic = max(0, pages - index_pages)
        # the pages indexed for real, the added document and the fresh library come first in the stream, so that
        # every library size indexes the same pages (the stream cycles through the corpus, whose pages differ in
        # density: the 200 at stream position 99,800 hold 1.9x the words of those at 9,800)
        texts = list(synthetic_pages(base, index_pages + PAGES_PER_DOCUMENT + searchable_pages + synthetic))
        indexed, added_pages = texts[:index_pages], texts[index_pages:index_pages + PAGES_PER_DOCUMENT]
        fresh_pages = texts[index_pages + PAGES_PER_DOCUMENT:index_pages + PAGES_PER_DOCUMENT + searchable_pages]
        built = texts[index_pages + PAGES_PER_DOCUMENT + searchable_pages:]
        sample_chunks = [" ".join(words[:80]) for words in base[: REAL_VECTORS]]
        first_library = Path(tmp) / "first-library"
        write_library(first_library, fresh_pages)
        fresh = dataclasses.replace(settings, locations=dataclasses.replace(
            settings.locations, data_dir=Path(tmp) / "fresh-data"))
        searchable_s = time_to_searchable(fresh, first_library, searchable_pages)
        with Service(settings) as service:
            started = time.perf_counter()
            build = build_library(service.resources.db, built, SyntheticVectors(sample_chunks))
            build_s = time.perf_counter() - started
            folder = Path(tmp) / "incoming"
            write_library(folder, indexed)
            clock = PhaseClock()
            report = service.library.index([str(folder)], clock)
            total_s = time.perf_counter() - clock.started
            in_library_s = clock.searchable_at or total_s
            assert report.added == index_pages // PAGES_PER_DOCUMENT, report.as_json()
        added = Path(tmp) / "added.pdf"
        write_pdf(added, added_pages)
        child = subprocess.run([sys.executable, __file__, "--searching", str(home), "--added", str(added),
                                "--probe", added_pages[0][:60], "--queries", str(queries)],
                               capture_output=True, text=True, check=True)
        found = json.loads(child.stdout.splitlines()[-1])
        db_mb = sum(f.stat().st_size for f in home.rglob("library.duckdb*")) / 2**20
    return {
        "pages": pages, "synthetic_pages": synthetic, "indexed_pages": index_pages,
        "build_s": round(build_s, 1), "build_steps_s": build,
        "searchable_pages": searchable_pages, "searchable_s": round(searchable_s, 1),
        "indexed_searchable_s": round(in_library_s, 1), "index_total_s": round(total_s, 1),
        "enrich_pages_per_s": round(index_pages / max(total_s - in_library_s, 1e-9), 2),
        "stage_seconds": report.stage_seconds, **found, "db_mb": round(db_mb, 1),
    }


def searching(home: Path, added: Path, probe: str, queries: list[str]) -> dict:
    """In a process that has done nothing else: the first search (loading the in-RAM indexes), timed searches,
    dense recall against exact, memory while searching, then adding and removing one document."""
    from docqa_desktop.vectors.text_embedder import default_embedder
    from docqa_desktop.retrieval import dense
    from docqa_desktop.service import Service

    with Service(library_settings(home)) as service:
        db = service.resources.db
        started = time.perf_counter()
        service.pages.search("annual report revenue", k=10, mode="fused")
        first_search_s = time.perf_counter() - started
        latency = {mode: timed_searches(service, queries, mode) for mode in ("bm25", "dense", "fused")}
        gc.collect()
        searching_rss, searching_peak = status_mb("VmRSS"), status_mb("VmHWM")

        query_vectors = default_embedder().embed(queries)
        exact = exact_top10(db, query_vectors)
        found = [[i for i, _ in dense.search_chunks(db, q, None, 10)] for q in query_vectors]
        recall = statistics.fmean(len(set(f) & set(e)) / 10 for f, e in zip(found, exact))

        clock = PhaseClock()
        service.library.index([str(added)], clock)
        add_enriched_s = time.perf_counter() - clock.started
        add_s = clock.searchable_at or add_enriched_s
        assert service.pages.search(probe, k=3, mode="bm25")
        started = time.perf_counter()
        service.library.remove(str(added))
        remove_s = time.perf_counter() - started
        chunks = db.cursor().execute("SELECT count(*) FROM chunks").fetchone()[0]
    p50 = {mode: percentile(v, 50) for mode, v in latency.items()}
    p90 = {mode: percentile(v, 90) for mode, v in latency.items()}
    return {
        "chunks": chunks, "first_search_s": round(first_search_s, 2),
        "bm25_p50_ms": p50["bm25"], "bm25_p90_ms": p90["bm25"], "dense_p50_ms": p50["dense"],
        "dense_p90_ms": p90["dense"], "hybrid_p50_ms": p50["fused"], "hybrid_p90_ms": p90["fused"],
        "visual_p50_ms": None, "dense_recall_at_10": round(recall, 4),
        "add_document_s": round(add_s, 2), "add_document_enriched_s": round(add_enriched_s, 1),
        "remove_document_s": round(remove_s, 2),
        "rss_mb": searching_rss, "peak_rss_mb": searching_peak, "queries": len(queries),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, help="pages in the library (required)")
    ap.add_argument("--index-pages", type=int, default=200,
                    help="of those, pages indexed for real (20-page PDFs) after the synthetic rest; a multiple of 20")
    ap.add_argument("--searchable-pages", type=int, default=1000,
                    help="pages (20-page PDFs) of a separate fresh library timed until keyword-searchable")
    ap.add_argument("--queries", type=int, default=30, help="dev questions asked per search mode")
    ap.add_argument("--corpus", type=Path, default=_common.CORPUS)
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    ap.add_argument("--out")
    ap.add_argument("--searching", type=Path, help=argparse.SUPPRESS)  # the search phase's process: the home
    ap.add_argument("--added", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--probe", help=argparse.SUPPRESS)
    args = ap.parse_args()
    questions = [json.loads(line)["question"] for line in _common.EVAL_FILE.read_text().splitlines() if line.strip()]
    if args.searching:
        print(json.dumps(searching(args.searching, args.added, args.probe, questions[: args.queries])))
        return 0
    if args.pages is None:
        ap.error("--pages is required")
    figures = measure(args.pages, args.index_pages, args.searchable_pages, args.queries, corpus_pages(args.corpus))
    path = _common.write_json({"environment": _common.environment(), **figures}, args.out,
                              f"library_scale-{args.pages}.json")
    print(json.dumps(figures) if args.json else f"{json.dumps(figures, indent=2)}\nwritten to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
