"""Page retrieval quality on the dev questions: DuckDB-FTS BM25, dense, fused, and a bm25s baseline.

    .venv/bin/python benchmarks/retrieval_eval.py [--home DIR] [--out FILE]

Indexes the PDFs that /work/shared/eval/dev.jsonl mentions (read in place through a folder of
symlinks inside the home) with the default full pipeline (OCR, layout, dense embeddings). With
--home the index is kept and reused on the next run (indexing is incremental).
For every question with evidence pages, searches scoped to its document with k=10 in each mode.
"""
from __future__ import annotations

import argparse
import logging
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from docqa_desktop.evaluation.pages import page_metrics  # noqa: E402
from docqa_desktop.evaluation.questions import load_questions  # noqa: E402

KS = (1, 3, 5, 10)
MODES = ("bm25", "dense", "fused")
REFERENCE_ALL_HIT_10 = 0.61  # page BM25 over the raw text layer
TARGET_FUSED_ALL_HIT_10 = 0.80


def metrics_at_k(evidence: list[int], retrieved: list[int]) -> dict:
    """SimpleDoc A.3 recall and all-hit of the top k pages, for each k."""
    out = {}
    for k in KS:
        top = page_metrics(evidence, retrieved[:k])
        out[f"recall@{k}"] = top["recall"]
        out[f"all_hit@{k}"] = top["all_hit"]
    return out


def summarise(per_question: list[dict], key: str) -> dict:
    rows = [q[key] for q in per_question if key in q]
    if not rows:
        return {}
    metrics = {m: round(statistics.fmean(r["metrics"][m] for r in rows), 4) for m in rows[0]["metrics"]}
    lat = [r["ms"] for r in rows]
    metrics["latency_ms_mean"] = round(statistics.fmean(lat), 2)
    metrics["latency_ms_median"] = round(statistics.median(lat), 2)
    metrics["latency_ms_max"] = round(max(lat), 2)
    metrics["questions"] = len(rows)
    return metrics


def bm25s_baseline(db_path: Path, questions: list[dict]) -> tuple[dict, dict]:
    """bm25s (default lucene BM25, k1=1.5, b=0.75) per document over the page texts stored in DuckDB.

    Tokenisation: bm25s.tokenize(texts, stopwords="en"), i.e. lowercase, \\w\\w+ tokens, no stemmer.
    Pages with a zero score are dropped (DuckDB FTS does not return non-matching pages either).
    Returns per-question results keyed by question index, and timing figures.
    """
    import bm25s
    import duckdb

    logging.getLogger("bm25s").setLevel(logging.ERROR)
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        rows = con.execute("""
            SELECT regexp_extract(f.path, '[^/]+$') AS name, p.page, p.text
            FROM files f JOIN pages p ON p.doc_id = f.doc_id
            WHERE f.status = 'indexed' ORDER BY name, p.page""").fetchall()
    finally:
        con.close()
    by_doc: dict[str, tuple[list[int], list[str]]] = {}
    for name, page, text in rows:
        pages, texts = by_doc.setdefault(name, ([], []))
        pages.append(page)
        texts.append(text or "")

    retrievers, index_seconds = {}, 0.0
    for name, (pages, texts) in by_doc.items():
        started = time.perf_counter()
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
        index_seconds += time.perf_counter() - started
        retrievers[name] = (retriever, pages)

    results = {}
    for i, q in enumerate(questions):
        if q.doc not in retrievers:
            continue
        retriever, pages = retrievers[q.doc]
        started = time.perf_counter()
        tokens = bm25s.tokenize(q.question, stopwords="en", return_ids=False, show_progress=False)
        ids, scores = retriever.retrieve(tokens, k=min(10, len(pages)), show_progress=False)
        ms = (time.perf_counter() - started) * 1000
        results[i] = (ms, [pages[int(j)] for j, s in zip(ids[0], scores[0]) if s > 0])
    timing = {"index_seconds_total": round(index_seconds, 3), "documents": len(by_doc),
              "pages": sum(len(p) for p, _ in by_doc.values())}
    return results, timing


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="JSON output (default benchmarks/results/retrieval_eval.json)")
    ap.add_argument("--home", type=Path, help="DOCQA home to create or reuse (default: a temporary one, deleted)")
    ap.add_argument("--eval", type=Path, default=_common.EVAL_FILE)
    ap.add_argument("--corpus", type=Path, default=_common.CORPUS)
    ap.add_argument("--k", type=int, default=10, help="hits asked from each search")
    args = ap.parse_args()

    import dataclasses

    from docqa_desktop.retrieval import bm25 as fts_bm25
    from docqa_desktop.retrieval.text_retriever import Mode
    from docqa_desktop.service import Service
    from docqa_desktop.settings import Settings

    env = _common.environment()
    questions = load_questions(args.eval)
    docs = sorted({q.doc for q in questions})
    missing = [d for d in docs if not (args.corpus / d).exists()]
    if missing:
        print(f"missing corpus PDFs: {missing}", file=sys.stderr)
        return 2

    temporary = args.home is None
    home = Path(tempfile.mkdtemp(prefix="docqa-bench-eval-")) if temporary else args.home.resolve()
    folder = _common.link_folder(home / "eval-pdfs", [args.corpus / d for d in docs])
    settings = Settings.load(home)
    per_question: list[dict] = []
    try:
        with Service(settings) as service:
            print(f"[retrieval_eval] indexing {len(docs)} PDFs into {home} ...", file=sys.stderr, flush=True)
            started = time.perf_counter()
            report = service.library.index([str(folder)])
            index_wall = time.perf_counter() - started
            print(f"[retrieval_eval] index: added {report.added}, unchanged {report.unchanged}, "
                  f"pages {report.pages}, {index_wall:.1f} s, errors {report.errors}", file=sys.stderr, flush=True)

            # warm-up, not timed: FTS extension load, embedder load
            for mode in MODES:
                service.pages.search("warm up", docs=[docs[0]], k=args.k, mode=Mode(mode))
            fts_build_started = time.perf_counter()
            fts_bm25.KeywordIndex().refresh(service.resources.db.cursor())  # the keyword index read in full, as on a first search
            fts_build_seconds = time.perf_counter() - fts_build_started

            for i, q in enumerate(questions):
                if not q.evidence_pages:
                    continue
                entry = {"index": i, "doc": q.doc, "question": q.question, "evidence_pages": list(q.evidence_pages),
                         "evidence_sources": list(q.evidence_sources)}
                for mode in MODES:
                    started = time.perf_counter()
                    hits = service.pages.search(q.question, docs=[q.doc], k=args.k, mode=Mode(mode))
                    ms = (time.perf_counter() - started) * 1000
                    pages = [h.page for h in hits]
                    entry[mode] = {"ms": round(ms, 2), "pages": pages,
                                   "metrics": metrics_at_k(list(q.evidence_pages), pages)}
                # ranking only (no snippets, no page-text lookups): the DuckDB FTS query itself
                doc_ids = service.pages.resolve_documents([q.doc])
                started = time.perf_counter()
                fts_bm25.search_pages(service.resources.db, q.question, doc_ids, settings.search.candidates)
                entry["fts_ranking_ms"] = round((time.perf_counter() - started) * 1000, 2)
                per_question.append(entry)

        # text sources of evidence pages: a miss on an empty page is a parsing problem, not ranking
        import duckdb
        con = duckdb.connect(str(settings.locations.database), read_only=True)
        try:
            sources = {(n, p): s for n, p, s in con.execute("""
                SELECT regexp_extract(f.path, '[^/]+$'), p.page, p.text_source
                FROM files f JOIN pages p ON p.doc_id = f.doc_id""").fetchall()}
            index_sources = dict(con.execute("SELECT text_source, count(*) FROM pages GROUP BY 1").fetchall())
        finally:
            con.close()
        for entry in per_question:
            entry["evidence_text_sources"] = [sources.get((entry["doc"], p), "missing") for p in entry["evidence_pages"]]

        baseline, bm25s_timing = bm25s_baseline(settings.locations.database, questions)
        for entry in per_question:
            if entry["index"] in baseline:
                ms, pages = baseline[entry["index"]]
                entry["bm25s"] = {"ms": round(ms, 3), "pages": pages,
                                  "metrics": metrics_at_k(entry["evidence_pages"], pages)}
    finally:
        if temporary:
            shutil.rmtree(home, ignore_errors=True)

    summary = {mode: summarise(per_question, mode) for mode in (*MODES, "bm25s")}
    fts_ms = [e["fts_ranking_ms"] for e in per_question]
    by_doc = {}
    for doc in docs:
        rows = [e for e in per_question if e["doc"] == doc]
        if rows:
            by_doc[doc] = {"questions": len(rows), **{
                f"{mode}_all_hit@10": round(statistics.fmean(e[mode]["metrics"]["all_hit@10"] for e in rows), 3)
                for mode in (*MODES, "bm25s") if all(mode in e for e in rows)}}
    misses = [{"doc": e["doc"], "question": e["question"], "evidence_pages": e["evidence_pages"],
               "evidence_text_sources": e["evidence_text_sources"], "evidence_sources": e["evidence_sources"],
               "fused_top10": e["fused"]["pages"], "bm25_top10": e["bm25"]["pages"], "dense_top10": e["dense"]["pages"]}
              for e in per_question if e["fused"]["metrics"]["all_hit@10"] < 1]
    data = {
        "benchmark": "retrieval_eval",
        **env,
        "eval_file": str(args.eval),
        "home": None if temporary else str(home),
        "questions_total": len(questions),
        "questions_with_evidence": len(per_question),
        "documents": docs,
        "k": args.k,
        "index_settings": dataclasses.asdict(settings.index),
        "search_settings": dataclasses.asdict(settings.search),
        "index_report": report.as_json(),
        "index_wall_seconds": round(index_wall, 2),
        "index_text_sources": index_sources,
        "reference_all_hit@10_raw_text_bm25": REFERENCE_ALL_HIT_10,
        "target_fused_all_hit@10": TARGET_FUSED_ALL_HIT_10,
        "summary": summary,
        "speed": {
            "fts_ranking_ms_mean": round(statistics.fmean(fts_ms), 2) if fts_ms else None,
            "keyword_index_load_seconds": round(fts_build_seconds, 3),
            "bm25s": bm25s_timing,
            "note": "mode latencies are Service.search() end to end (ranking + snippets); fts_ranking_ms is "
                    "DuckDB FTS ranking alone (100 candidates); bm25s latency is tokenize + retrieve in memory",
        },
        "by_document": by_doc,
        "fused_misses_at_10": misses,
        "per_question": per_question,
    }
    out = _common.write_json(data, args.out, "retrieval_eval.json")
    print(render(data))
    print(f"\nwritten: {out}")
    return 0


def render(data: dict) -> str:
    s = data["summary"]
    rows = []
    for mode in (*MODES, "bm25s"):
        m = s.get(mode)
        if not m:
            continue
        rows.append([mode + (" (DuckDB FTS)" if mode == "bm25" else ""),
                     *[m[f"recall@{k}"] for k in KS], *[m[f"all_hit@{k}"] for k in KS], m["latency_ms_mean"]])
    head = (f"Page retrieval on {data['questions_with_evidence']} dev questions with evidence "
            f"({len(data['documents'])} PDFs), scoped to the question's document, {data['date']}\n\n")
    table = _common.markdown_table(
        ["mode", *[f"R@{k}" for k in KS], *[f"all@{k}" for k in KS], "ms/query"], rows)
    sp = data["speed"]
    notes = [
        f"- reference: raw-text-layer page BM25 all@10 = {REFERENCE_ALL_HIT_10}; target fused all@10 >= "
        f"{TARGET_FUSED_ALL_HIT_10} -> fused all@10 = {s['fused']['all_hit@10']}",
        f"- index: {data['index_report']['added']} added / {data['index_report']['unchanged']} unchanged, "
        f"{data['index_wall_seconds']} s, pages by text source {data['index_text_sources']}, "
        f"errors {data['index_report']['errors'] or 'none'}",
        f"- speed: keyword ranking alone {sp['fts_ranking_ms_mean']} ms/query, keyword index load "
        f"{sp['keyword_index_load_seconds']} s; bm25s index build {sp['bm25s']['index_seconds_total']} s "
        f"for {sp['bm25s']['pages']} pages",
        "",
        _common.markdown_table(["document", "questions", *[f"{m} all@10" for m in (*MODES, "bm25s")]],
                               [[d, v["questions"], *[v.get(f"{m}_all_hit@10") for m in (*MODES, "bm25s")]]
                                for d, v in data["by_document"].items()]),
    ]
    return head + table + "\n\n" + "\n".join(notes)


if __name__ == "__main__":
    sys.exit(main())
