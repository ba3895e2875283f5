"""Run every benchmark of the project, then collect their result files into benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/run_all.py                  # everything, full size (hours on 2 cores)
    .venv/bin/python benchmarks/run_all.py --quick          # smoke-sized runs (~15 min)
    .venv/bin/python benchmarks/run_all.py --collect-only   # only rebuild RESULTS.md from existing files
    .venv/bin/python benchmarks/run_all.py --only llm_speed,eval_dev

One at a time: each benchmark keeps both cores busy. A benchmark that fails is reported and the
others still run; RESULTS.md then shows the last figures that exist, with the date they were measured.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402

from docqa_desktop.evaluation.report import figures_by_method  # noqa: E402

BENCH = _common.REPO / "benchmarks"
PYTHON = sys.executable
DOCQA = str(Path(sys.executable).with_name("docqa"))
# the committed dev report runs with this budget: the built-in 135M model on 2 CPU cores
EVAL_BUDGET = {"DOCQA_ASK_K": "5", "DOCQA_ASK_MAX_PAGES": "3", "DOCQA_ASK_PAGE_TOKENS": "400",
               "DOCQA_ASK_SUMMARY_TOKENS": "80"}


@dataclass
class Benchmark:
    name: str
    command: Callable[[argparse.Namespace], list[str]]
    result: Path  # a JSON file, or an evaluation folder holding results.jsonl
    headline: Callable[[Path], list[tuple[str, str]]]  # (figure, value) rows for RESULTS.md
    env: dict | None = None
    reliability: bool = False  # a row of RESULTS.md's Reliability section rather than the speed/quality table


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _index_headline(path: Path) -> list[tuple[str, str]]:
    rows = []
    for name, run in _json(path)["runs"].items():
        rows.append((f"{name}: pages/s (wall), {run['pages']} pages", f"{run['pages_per_s']:.1f}"))
        rows.append((f"{name}: peak RSS main / worker MB",
                     f"{run['peak_rss']['main_mb']:.0f} / {run['peak_rss']['workers_max_mb']:.0f}"))
    return rows


def _born_digital_headline(path: Path) -> list[tuple[str, str]]:
    run = _json(path)["runs"]["full_default"]
    stages = run["stages"]
    return [(f"born-digital corpus PDFs, {run['pages']} pages, text + layout + embeddings: pages/s (wall); layout / "
             "embedding pages/s per stage", f"{run['pages_per_s']:.2f}; {stages['layout']['pages_per_s']:.2f} / "
                                            f"{stages['embed']['pages_per_s']:.2f}")]


def _retrieval_headline(path: Path) -> list[tuple[str, str]]:
    summary = _json(path)["summary"]
    return [(f"{mode}: all-hit@10 / recall@10 / median ms", f"{s['all_hit@10']:.3f} / {s['recall@10']:.3f} / "
             f"{s['latency_ms_median']:.0f}") for mode, s in summary.items() if "all_hit@10" in s]


def _llm_headline(path: Path) -> list[tuple[str, str]]:
    data = _json(path)
    return [(f"{data.get('model', 'model')}, {run['threads']} thread(s): prompt / generation tok/s, n=8 vs n=1",
             f"{run['prompt_tokens_per_s']:.0f} / {run['generation_tokens_per_s']:.0f}, "
             f"{run['samples']['8']['relative_to_n1']:.2f}×") for run in data["runs"]]


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _eval_headline(folder: Path) -> list[tuple[str, str]]:
    records = [json.loads(line) for line in (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    rows = []
    for method, f in figures_by_method(records).items():
        rows.append((f"{method}: accuracy / F1 / accuracy on answerable % ({f['questions']} questions, "
                     f"{f['answerable']} answerable)",
                     f"{100 * f['accuracy']:.1f} / {100 * f['f1']:.1f} / "
                     + _pct(f["answerable_accuracy"])))
        trust = f["trust"]
        if f.get("contains_gold") is not None:
            rows.append((f"{method}: answered and containing the gold answer (answerable) %; unanswerable declined "
                         "(closest passages or not found)",
                         f"{100 * f['contains_gold']:.1f}; {trust['declined']} of {trust['unanswerable']}"))
        rows.append((f"{method}: precision of answered % (right of answered); coverage: answered / answerable %; "
                     "answered but wrong",
                     f"{_pct(trust['precision'])} ({trust['answered_right']} of {trust['answered']}); "
                     f"{_pct(trust['coverage'])}; {trust['answered_wrong']}"))
        rows.append((f"{method}: page recall / F1 / all-hit %",
                     " / ".join(_pct(f[k]) for k in ("page_recall", "page_f1", "all_hit"))))
        if f["stages"]:
            rows.append((f"{method}: page recall / all-hit % by stage",
                         " → ".join(f"{stage} {100 * r:.1f} / {100 * a:.1f}"
                                    for stage, (r, a, _, _) in f["stages"].items())))
            rows.append((f"{method}: page precision % / pages by stage",
                         " → ".join(f"{stage} {100 * p:.1f} / {n:.1f}" for stage, (_, _, p, n) in f["stages"].items())))
        rows.append((f"{method}: pages, calls, tokens per question; p50 / p90 s",
                     f"{f['pages_per_question']:.1f}, {f['llm_calls']:.1f}, "
                     f"{f['prompt_tokens'] + f['output_tokens']:,.0f}; {f['seconds_p50']:.0f} / {f['seconds_p90']:.0f}"))
        if f["cached_share"] is not None:
            rows.append((f"{method}: prompt tokens taken from llama.cpp's cache %", f"{100 * f['cached_share']:.1f}"))
    return rows


def _proof_trust_headline(path: Path) -> list[tuple[str, str]]:
    """One row per set, method and figure: before issue 33 → the method's own verdict → after the check."""
    figures = (("precision of answered % (right of answered)",
                lambda f: f"{_pct(f['precision'])} ({f['answered_right']} of {f['answered']})"),
               ("answerable right %", lambda f: f"{_pct(f['answerable_right'])} (n={f['answerable']})"),
               ("unanswerable declined % (not marked answered)", lambda f: _pct(f["unanswerable_declined"])),
               ("answered but wrong", lambda f: str(f["answered_wrong"])),
               ("latency p50 s", lambda f: f"{f['latency_p50_s']:.1f}"))
    rows = []
    for name, methods in _json(path)["sets"].items():
        for method, runs in methods.items():
            for label, cell in figures:
                shown = [f"{stage} {cell(runs[stage])}" for stage in ("before", "own_verdict", "after")
                         if stage in runs]
                rows.append((f"{method} 1.5B quick, {name}: {label}", " → ".join(shown)))
            if "after" in runs:
                after = runs["after"]
                rows.append((f"{method} 1.5B quick, {name}: unverified drafts; repair rounds; p50 s without the "
                             "repair call; proof quotes by match score",
                             f"{after['unverified']}; {after['repair_rounds']}; "
                             f"{after['latency_p50_without_repair_s']:.1f}; "
                             + ", ".join(f"{k}: {v}" for k, v in runs["quote_match"].items())))
    return rows


def _quoted_trust_headline(path: Path) -> list[tuple[str, str]]:
    rows = []
    for name, s in _json(path)["sets"].items():
        rows.append((f"quoted, {name} ({s['questions']} questions, {s['answerable']} answerable): precision of answered % "
                     "(right of answered); answerable right %; unanswerable declined %; answered but wrong; p50 s",
                     f"{_pct(s['precision_of_answered'])} ({s['answered_right']} of {s['answered']}); "
                     f"{_pct(s['answerable_right'])}; {_pct(s['unanswerable_declined'])}; {s['answered_wrong']}; "
                     f"{s['latency_p50_s']:.1f}"))
        rows.append((f"quoted, {name}: per kind answered right / answerable (passages holding the gold)",
                     "; ".join(f"{kind} {k['right']}/{k['answerable']} ({k['passages_hold_gold']})"
                               for kind, k in s["by_kind"].items())))
    return rows


def _reader_headline(path: Path) -> list[tuple[str, str]]:
    d, rows = _json(path), []
    for name, s in d["sets"].items():
        rows.append((f"learned reader, {name} ({s['questions']} questions, {s['documents']} documents; grouped "
                     f"cross-validation, threshold {d['threshold']:.2f}): candidate recall %; answerable right %; "
                     "precision of answered % (right of answered); unanswerable declined %; p50 / p90 s",
                     f"{_pct(s['candidate_recall'])}; {_pct(s['answerable_right'])}; "
                     f"{_pct(s['precision_of_answered'])} ({s['answered_right']} of {s['answered']}); "
                     f"{_pct(s['unanswerable_declined'])}; {s['p50_s']} / {s['p90_s']}"))
    return rows


def _minilm_bulk_headline(path: Path) -> list[tuple[str, str]]:
    d = _json(path)
    return [(f"MiniLM bulk chunk embedding, one thread, {d['chunks']} corpus chunks: numpy (installer base) / torch "
             "chunks per s (ratio; min cosine)",
             f"{d['numpy_chunks_per_s']} / {d['torch_chunks_per_s']} ({d['numpy_over_torch']}x; {d['min_cosine']:.6f})")]


def _package_headline(path: Path) -> list[tuple[str, str]]:
    d = _json(path)
    parts = ", ".join(f"{name} {mb:.0f}" for name, mb in list(d["packages_mb"].items())[:8])
    return [("Linux package (no torch): unpacked MB (Python; largest packages MB); .tar.gz MB",
             f"{d['total_mb']:.0f} (Python {d['python_mb']:.0f}; {parts}); {d['archive_mb']:.0f}"),
            ("Linux package: self-test in env -i under Xvfb (index the samples, answer the ferry question, "
             "screenshot), s; exit", f"{d['selftest']['seconds']:.1f}; {d['selftest']['exit']}")]


def _ocr_without_opencv_headline(path: Path) -> list[tuple[str, str]]:
    d = _json(path)
    rows = []
    for kind, label in (("memo", "the scanned memo"), ("icdar", "ICDAR 2013 pages as 200-dpi scans")):
        s = d["summary"][kind]
        acc = s["accuracy"]
        pages = f"{s['pages']} page" + ("s" if s["pages"] != 1 else "")
        rows.append((f"OCR with OpenCV → with cv2_lite (the package's), {label} ({pages}): character "
                     "accuracy; word recall",
                     f"{acc['opencv']['char_accuracy']:.3f} → {acc['lite']['char_accuracy']:.3f}; "
                     f"{acc['opencv']['word_recall']:.3f} → {acc['lite']['word_recall']:.3f}"))
    s = d["summary"]["corpus"]
    rows.append((f"OCR with OpenCV → with cv2_lite, the corpus pages the indexer OCRs ({s['pages']}): pages read "
                 "identically; characters apart per 100; seconds",
                 f"{s['identical_pages']}; {s['chars_apart_per_100']}; {s['seconds']['opencv']:.0f} → "
                 f"{s['seconds']['lite']:.0f}"))
    return rows


def _insert_without_pyarrow_headline(path: Path) -> list[tuple[str, str]]:
    d = _json(path)
    s = d["summary"]
    return [(f"text-stage indexing of {len(d['pdfs'])} corpus PDFs, bulk inserts through pyarrow → through a CSV file "
             "DuckDB reads: wall s; s inside the inserts (mean of runs)",
             f"{s['arrow']['wall_s']:.1f} → {s['csv']['wall_s']:.1f} ({s['csv_vs_arrow']['wall']:+.0%}); "
             f"{s['arrow']['insert_s']:.2f} → {s['csv']['insert_s']:.2f}")]


def _cli_beside_app_headline(path: Path) -> list[tuple[str, str]]:
    d = _json(path)
    return [(f"docqa status / search / ask (quoted, samples) with the app closed → open (served by the app), "
             f"median of {d['runs']} s", " / ".join(f"{d['closed_s'][n]} → {d['served_s'][n]}"
                                                    for n in ("status", "search", "ask")))]


def _visual_index_size_headline(path: Path) -> list[tuple[str, str]]:
    d = _json(path)
    return [(f"visual index KB per page at {d['visual_tokens']} visual tokens ({d['pages']} corpus pages), token pooling "
             "factor 1 / 2 / 3", " / ".join(str(d["by_pool_factor"][f]["kb_per_page_mean"]) for f in ("1", "2", "3")))]


PEERS_PYTHON = Path("/work/bench-venv/bin/python")  # python3 -m venv … && pip install -r requirements-peers.txt


def _peers() -> list[str]:
    return ["--peers", str(PEERS_PYTHON)] if PEERS_PYTHON.is_file() else []


def _icdar2013_headline(path: Path) -> list[tuple[str, str]]:
    d = _json(path)

    def row(who: str, f: dict) -> tuple[str, str]:
        return (f"ICDAR 2013 table competition, {who} on {d['path']} ({d['documents']} documents): adjacency "
                "relations precision / recall / F1 (micro); documents with F1 < 0.5; pages/s",
                f"{f['precision']:.3f} / {f['recall']:.3f} / {f['f1']:.3f}; {len(f['below_half'])}; {f['pages_per_s']}")
    return [row("the tables stage", d)] + [row(f"peer {system}", f) for system, f in d.get("peers", {}).items()]


def _charts_headline(path: Path) -> list[tuple[str, str]]:
    d = _json(path)
    g = d["generated"]
    rows = [(f"charts read from their geometry (issue 55), {g['charts']} generated matplotlib + reportlab charts on "
             f"{g['pages']} pages: printed / axis-read values right % (targets 95 / 90); charts found; false values; "
             "pages/s of the reader alone",
             f"{_pct(g['printed_accuracy'])} / {_pct(g['axis_accuracy'])}; {g['charts_found']} of {g['charts']}; "
             f"{g['false_values']}; {g['pages_per_s']}"),
            ("charts, generated: values right % by kind",
             "; ".join(f"{kind} {_pct(t['right_share'])}" for kind, t in g["by_kind"].items()))]
    real = d["real"]
    if "skipped" not in real:
        rows.append((f"charts, hand-labelled real charts ({real['values']} values on {real['pages']} pages of "
                     f"{real['docs']} documents): values right % (printed ones)",
                     f"{_pct(real['right_share'])} ({_pct(real['printed_share'])})"))
    stage = d.get("stage", {"skipped": ""})
    if "skipped" not in stage:
        rows.append((f"charts stage as the app runs it, {stage['pages']} pages of {stage['documents']} corpus PDFs: "
                     "pages/s (target 5 on 2 cores); charts stored", f"{stage['pages_per_s']}; {stage['charts']}"))
    return rows


def _model_reader_headline(path: Path) -> list[tuple[str, str]]:
    d = _json(path)

    def row(name: str, f: dict) -> tuple[str, str]:
        threshold = f["min_yes"] if "min_yes" in f else f"per fold {f['thresholds_per_fold']}"
        return (f"cascade with the 1.5B reading the passages (issue 53), {name}: min_yes; "
                "answerable right %; answered (precision %); of them by the model (precision %); unanswerable "
                "declined %; p50 / p90 s",
                f"{threshold}; {_pct(f['answerable_right'])}; {f['answered']} ({_pct(f['precision'])}); "
                f"{f['model_answered']} ({_pct(f['model_precision'])}); {_pct(f['unanswerable_declined'])}; "
                f"{f.get('p50_s', '–')} / {f.get('p90_s', '–')}")
    return [row(f"sample ({d['sample']['questions']} questions, {d['sample']['documents']} documents), min_yes chosen "
                "on it", d["sample"]),
            row("sample, grouped cross-validation by document", d["sample_cross_validated"]),
            row("sample, the span's check alone, grouped cross-validation", d["span_only_cross_validated"]),
            row(f"dev.jsonl ({d['dev_at_sample_threshold']['questions']} questions, never trained on), the sample's "
                "min_yes", d["dev_at_sample_threshold"]),
            row("sample, quoted alone (no model)", d["quoted_alone"]),
            ("cascade with the 1.5B: questions the model read; its span on a passage; span right; any value checked "
             "right", f"{d['model_read']}; {d['span_on_a_passage']}; {d['span_right']}; {d['any_checked_right']}"),
            ("cascade with the 1.5B, sample: the model's own answers by min_yes, answered (right)",
             "; ".join(f"≥{f['min_yes']}: {f['model_answered']} ({round(f['model_answered'] * f['model_precision'])})"
                       for f in d["risk_coverage"]))]


def _tables_stage_headline(path: Path) -> list[tuple[str, str]]:
    d = _json(path)
    return [(f"tables stage on {d['documents']} corpus PDFs with layout done ({d['pages']} pages, "
             f"{d['pages_with_table_regions']} with a table region): born-digital pages/s; region pages/s; tables, "
             "cells; bytes of the two tables per page",
             f"{d['born_digital_pages_per_s']}; {d['region_pages_per_s']}; {d['tables']}, {d['cells']:,}; "
             f"{d['tables_bytes_per_page']:,}")]


def _stall_headline(path: Path) -> list[tuple[str, str]]:
    data = _json(path)
    p99 = max(r["p99_stall_ms"] for r in data["runs"])
    return [(f"app: longest GUI-thread stall while indexing the corpus ({data['config']}), target {data['target_ms']} ms",
             f"{data['longest_stall_ms']:.0f} ms (p99 ≤ {p99:.0f} ms; {data['runs_meeting_target']}/"
             f"{len(data['runs'])} runs within target)")]


def _first_text_headline(path: Path) -> list[tuple[str, str]]:
    data = _json(path)
    rows = []
    for method in dict.fromkeys(r["method"] for r in data["runs"]):
        runs = [r for r in data["runs"] if r["method"] == method]
        rows.append((f"app, ferry question, {method} on the built-in models: first visible answer text / whole "
                     f"answer s (first question loads the model; then the next)",
                     "; ".join(f"{r['first_text_s']:.1f} / {r['answer_s']:.1f}" for r in runs)))
    return rows


def _fts_headline(path: Path) -> list[tuple[str, str]]:
    return [(f"keyword index at {d['pages']:,} pages (DuckDB FTS, rebuilt on every change): rebuild s; BM25 p50 / "
             f"p90 ms; add / remove one 20-page document s; peak RSS MB; database MB",
             f"{d['fts_rebuild_s']:.1f}; {d['bm25_p50_ms']:.0f} / {d['bm25_p90_ms']:.0f}; {d['add_document_s']:.1f} / "
             f"{d['remove_document_s']:.1f}; {d['rss_mb']:.0f}; {d['db_mb']:.0f}", d["_file"])
            for d in _by_pages(path, "fts_rebuild")]


def _scale_headline(path: Path) -> list[tuple[str, str]]:
    rows = []
    for d in _by_pages(path, "library_scale"):
        rows.append((f"library_scale at {d['pages']:,} pages ({d['indexed_pages']:,} indexed for real into "
                     f"{d['synthetic_pages']:,} synthetic): a fresh {d['searchable_pages']:,}-page library keyword-searchable s; enrichment pages/s; BM25 / dense / hybrid "
                     f"p50 ms; dense recall@10; add one 20-page document searchable s / remove s; RSS searching MB; "
                     f"database MB",
                     f"{d['searchable_s']:.1f}; {d['enrich_pages_per_s']:.2f}; {d['bm25_p50_ms']:.0f} / "
                     f"{d['dense_p50_ms']:.0f} / {d['hybrid_p50_ms']:.0f}; {d['dense_recall_at_10']:.3f}; "
                     f"{d['add_document_s']:.1f} / {d['remove_document_s']:.2f}; {d['rss_mb']:.0f}; {d['db_mb']:.0f}",
                     d["_file"]))
    return rows


def _by_pages(path: Path, prefix: str) -> list[dict]:
    """The results of every library size measured: <prefix>-N.json beside `path`, smallest N first."""
    found = sorted(path.parent.glob(f"{prefix}-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    return [{**_json(f), "_file": f} for f in found]  # a row's own source: its size's file


def _maxsim_headline(path: Path) -> list[tuple[str, str]]:
    rows = []
    for d in _by_pages(path, "maxsim_search"):
        rows.append((f"visual search, {d['pages']:,} synthetic pages (768 x 128 each): p50 / p90, recall@10 vs "
                     f"exact, RAM, disk per page; exact float32 p50; floor",
                     f"{d['p50_ms']} / {d['p90_ms']} ms, {d['recall_at_10']}, {d['rss_mb']} MB, "
                     f"{d['bytes_per_page'] / 1000:.0f} KB; {d['exact_p50_ms']:,.0f} ms; {d['floor_ms']} ms", d["_file"]))
    return rows


def _bookkeeping_headline(path: Path) -> list[tuple[str, str]]:
    rows = []
    for d in _by_pages(path, "visual_bookkeeping"):
        rows.append((f"visual search, {d['pages']:,} pages: database checks before each search p50 / p90; "
                     f"catch-up after {d['catch_up_pages']:,} pages changed",
                     f"{d['checks_p50_ms']} / {d['checks_p90_ms']} ms; {d['catch_up_ms']:,.0f} ms", d["_file"]))
    return rows


def _embed_headline(path: Path) -> list[tuple[str, str]]:
    rows = []
    for found in sorted(path.parent.glob("visual_embed-*.json")):
        d = _json(found)
        per_budget = ", ".join(f"{r['s_per_page']:g} s @ {r['visual_tokens']}" for r in d["runs"])
        kind = f"{d['size']} ColQwen2.5{' int8' if d.get('int8') else ''} ({d['parameters'] / 1e6:,.1f}M parameters)"
        rows.append((f"page embedding on the CPU, {kind}: seconds per page @ visual tokens", per_budget))
    return rows


def _attention_headline(path: Path) -> list[tuple[str, str]]:
    d = _json(path)
    old, new, real = d["runs"]["per_window"], d["runs"]["auto"], d["real_3b_calls_per_batch"]
    return [(f"vision attention on the CPU, tiny ColQwen2.5, {d['visual_tokens']} tokens: seconds per page (best "
             "pass) and attention calls per page, per window / one call per layer; cosine between their vectors",
             f"{old['s_per_page']:g} / {new['s_per_page']:g} s, {old['sdpa_calls_per_page_forward']} / "
             f"{new['sdpa_calls_per_page_forward']} calls; ≥ {d['cosine_min']}"),
            (f"attention calls per forward of {real['pages']} pages, real ColQwen2.5-3B (from its config): "
             "per window / one per layer", f"{real['per_window']:,} / {real['one_per_layer']}")]


def _gpu_check_headline(path: Path) -> list[tuple[str, str]]:
    """benchmarks/gpu_check's JSON, committed from a lent GPU machine; before any ran, a note saying so."""
    d = _json(path)
    if not d.get("card") or d.get("small"):
        return [("GPU check (benchmarks/gpu_check)", d.get("note", "no GPU was lent: not run on a GPU yet"))]
    card, rows = d["card"], []
    for tokens, r in sorted(d["page_embedder"]["by_visual_tokens"].items(), key=lambda kv: int(kv[0])):
        rows.append((f"{card}: page embedder (ColQwen2.5-3B size, bf16) at {tokens} visual tokens: pages/s, batch, "
                     "peak GiB", f"{r['pages_per_s']:.1f}, {r['batch_size_final']}, {r.get('peak_gpu_allocated_gib')}"))
    rows.append((f"{card}: query embedding p50 ms", f"{d['page_embedder']['query_p50_ms']}"))
    if d.get("visual_stage"):
        rows.append((f"{card}: visual stage (the indexer's loop, pre-rendered pages): pages/s",
                     f"{d['visual_stage']['pages_per_s']:.1f}"))
    attention = d.get("vision_attention")
    if attention:
        rows.append((f"{card}: vision tower per window / one call per layer ({attention['pages']} pages): pages/s, "
                     "attention calls per forward; cosine", f"{attention['per_window']['pages_per_s']} / "
                     f"{attention['auto']['pages_per_s']}, {attention['per_window']['sdpa_calls_per_forward']:,} / "
                     f"{attention['auto']['sdpa_calls_per_forward']}; ≥ {attention['cosine_min']}"
                     + (f", mean {attention['cosine_mean']}" if "cosine_mean" in attention else "")))
    exact = (attention or {}).get("cosine_against_float32") or {}
    if "auto" in exact:
        rows.append((f"{card}: vision tower in bf16 against float32 (per window): cosine least / mean, per window; "
                     "one call per layer", f"{exact['per_window']['min']} / {exact['per_window']['mean']}; "
                     f"{exact['auto']['min']} / {exact['auto']['mean']}"))
    rows += _embedder_paths_rows(card, d)
    chunks = d["chunk_embeddings"].get("runs") or {}
    gpu = max((r["chunks_per_s"] for k, r in chunks.items() if r and k.startswith("cuda")), default=None)
    cpu = (chunks.get("cpu_batch32") or {}).get("chunks_per_s")
    rows.append((f"{card}: MiniLM chunk embeddings per s, CUDA / the CPU cores", f"{gpu} / {cpu}"))
    llama, tps = d["llama"], d["tokens_per_s"]
    build = llama["build"]
    rows.append((f"{card}: llama.cpp CUDA build s; layers offloaded",
                 f"{build['seconds']} ({'ok' if build['ok'] else 'failed'}); {llama.get('offloaded_layers')}"))
    kind = (llama.get("measured_file") or {}).get("type", "?")
    rows.append((f"{card}: Qwen2.5-7B-size {kind}, full offload: prompt / generation tokens/s",
                 f"{tps['prompt']} / {tps['generation']}"))
    images = llama.get("page_images")
    if images:
        rows.append((f"{card}: a question about one page image, random Qwen2.5-VL-7B + projector through libmtmd "
                     f"({kind}): s with the page / without; prompt tokens with / without",
                     f"{images['seconds_per_page_question']} / {images['seconds_text_only_question']}; "
                     f"{images['prompt_tokens_with_page']} / {images['prompt_tokens_text_only']}"))
    per = llama.get("seconds_per_question") or {}
    if per:
        rows.append((f"{card}: seconds per question at the 1.5B records' token counts (7B {kind})",
                     ", ".join(f"{name} {m['seconds_per_question']:g}" for name, m in per.items()
                               if isinstance(m, dict))))
    return rows


def _embedder_paths_rows(card: str, d: dict) -> list[tuple[str, str]]:
    """The page embedder's ways of running at 768 visual tokens (embed_check.py's paths) and where one batch's
    forward spends its GPU time (its profile)."""
    rows, paths = [], d.get("embedder_paths") or {}
    ways = {name: p for name, p in paths.items() if isinstance(p, dict) and "pages_per_s" in p}
    if ways:
        rows.append((f"{card}: page embedder at 768 visual tokens, {paths['pages']} pages, by way of running: pages/s "
                     "(one batch's patching s + forward s)", "; ".join(
                         f"{name} {p['pages_per_s']} ({p['one_batch_patching_s']} + {p['one_batch_forward_s']})"
                         for name, p in ways.items())))
        first = next(iter(ways))
        rows.append((f"{card}: page embedder, each way's vectors against {first}'s: cosine least / mean", "; ".join(
            f"{name} {c['min']} / {c['mean']}" for name, c in paths.get(f"cosine_to_{first}", {}).items())))
    profile = d.get("embedder_profile") or {}
    if "forward_ms" in profile:
        rows.append((f"{card}: one {profile['pages']}-page forward at 768 visual tokens: ms, vision tower / the rest",
                     f"{profile['forward_ms']}, {profile['tower_ms']} / {profile['after_tower_ms']}"))
    return rows


def _gpu_embedder_paths_headline(path: Path) -> list[tuple[str, str]]:
    d = _json(path)
    return _embedder_paths_rows(d["card"], d)


def _gpu_check_run(name: str, parts: str) -> Callable[[argparse.Namespace], list[str]]:
    """The GPU check's `parts`, only where there is a GPU: elsewhere the committed result (from a lent GPU machine)
    stays. Its JSON becomes benchmarks/results/<name>.json."""
    def command(args) -> list[str]:
        return ["bash", "-c", f"command -v nvidia-smi > /dev/null || {{ echo '{name}: no GPU here; "
                f"benchmarks/results/{name}.json kept'; exit 0; }}; "
                f"{PYTHON} benchmarks/gpu_check/prepare.py .gpu-pack && OUT=benchmarks/out/{name} PARTS='{parts}' "
                f"bash benchmarks/gpu_check/run.sh .gpu-pack && cp benchmarks/out/{name}/gpu_check.json "
                f"benchmarks/results/{name}.json"]
    return command


def _fuzz_headline(path: Path) -> list[tuple[str, str]]:
    data = _json(path)
    r = data["summary"]
    state = "" if data.get("finished") else f" (run stopped early: {r['files']:,} of {data['count']:,})"
    return [(f"{r['files']:,} mutated PDFs{state}: indexed / clear errors", f"{r['indexed']:,} / {r['errors']:,}"),
            ("crashes / hangs / unclassified errors", f"{r['crashes']} / {r['hangs']} / {r['unclassified']}"),
            ("peak RSS MB, hours", f"{r['peak_rss_mb']:.0f}, {r['seconds'] / 3600:.1f}")]


def _kill_headline(path: Path) -> list[tuple[str, str]]:
    r = _json(path)
    return [(f"{r['kills']} kill -9 ({', '.join(r['modes'])}): db open failures / lost documents / mismatches / "
             "orphan rows / orphan workers",
             f"{r['db_open_failures']} / {r['lost_documents']} / {r['mismatches']} / {r['orphans']} / "
             f"{r.get('orphaned_workers', 0)}")]


def _churn_headline(path: Path) -> list[tuple[str, str]]:
    r = _json(path)
    return [(f"{r['files']:,} files, {r['operations']:,} operations in {r['bursts']} bursts: missing / stale / "
             "wrong content", f"{r['missing']} / {r['stale']} / {r['wrong_content']}"),
            ("seconds to settle after the last burst", f"{r['seconds_to_settle']:.1f}")]


def _network_headline(path: Path) -> list[tuple[str, str]]:
    rows = []
    for label, run in _json(path)["runs"].items():
        rows.append((f"{label}: outbound attempts, index / ask (samples)",
                     f"{run['index']['outbound_attempts']} / {run['ask']['outbound_attempts']}"))
    return rows


def _open_check_headline(path: Path) -> list[tuple[str, str]]:
    r = _json(path)
    return [(f"open with damage check, {r['documents']:,} documents: p50 ms (check ms)",
             f"{r['open_p50_ms']:.0f} ({r['quick_check_p50_ms']:.0f})")]


def _prefix_headline(path: Path) -> list[tuple[str, str]]:
    r = _json(path)
    return [(f"second question over the same {r['pages']} pages ({r['prompt_tokens']:,} prompt tokens, "
             f"{r['threads']} thread): question first / evidence first s (saved)",
             f"{r['median']['question_first']:.1f} / {r['median']['evidence_first']:.1f} ({100 * r['saving']:.0f} %)")]


def _navigator_headline(path: Path) -> list[tuple[str, str]]:
    curve = _json(path)["curve"]
    if not curve:
        return []
    return [(f"doclens navigator, union of the first j samples (j = 1 … {len(curve)}, {curve[0]['questions']} "
             "questions with evidence): page recall % / all-hit % / pages",
             " → ".join(f"{100 * r['recall']:.1f} / {100 * r['all_hit']:.1f} / {r['pages']:.1f}" for r in curve))]


def _choice_headline(path: Path) -> list[tuple[str, str]]:
    r = _json(path)
    if not r["search_rounds"]:
        return []
    return [(f"Doc-React, {r['questions']} questions: Search rounds whose choice by gain / entropy differs from the "
             "gain alone; of those with evidence, the entropy's pick / the gain's pick held an evidence page",
             f"{r['changed']} of {r['search_rounds']} ({100 * r['changed_share']:.0f} %); "
             f"{r.get('entropy pick is evidence', 0)} / {r.get('gain pick is evidence', 0)} of "
             f"{r.get('changed with evidence', 0)}"),
            ("Doc-React actions (Search / Lookup / Finish) and rounds a question",
             " / ".join(str(r["actions"].get(a, 0)) for a in ("Search", "Lookup", "Finish"))
             + f"; {r['rounds_per_question']:.1f}")]


def _segment_headline(path: Path) -> list[tuple[str, str]]:
    r = _json(path)
    units = r["units"]
    return [(f"MDocAgent text unit, {r['questions']} dev questions with evidence: page recall % / all-hit % of the "
             "top-1 / 4 / 8 passages' pages vs the top-1 / 4 / 8 pages",
             " · ".join(f"{unit} " + ", ".join(f"{100 * units[f'{unit}@{k}']['recall']:.1f} / "
                                                  f"{100 * units[f'{unit}@{k}']['all_hit']:.1f}" for k in (1, 4, 8))
                        for unit in ("chunk", "page")))]


def _tree_headline(path: Path) -> list[tuple[str, str]]:
    r = _json(path)
    return [(f"MMRAG summary tree with {r['model']}: {d['doc'][:32]} ({d['pages']} pages, {d['chunks']} chunks)",
             f"{d['seconds']:.0f} s{' (resumed: the rest estimated)' if d.get('resumed') else ''}, "
             f"{d['seconds_per_page']:.1f} s/page, {d['nodes']} nodes "
             f"({'/'.join(map(str, d['per_layer']))} by layer), {d['seconds_per_summary']:.1f} s/summary")
            for d in r["documents"]]


TREE_DOCS = ["germanwingsdigitalcrisisanalysis-150403064828-conversion-gate01_95.pdf",
             "PIP_Seniors-and-Tech-Use_040314.pdf", "2023.acl-long.386.pdf"]


def _tree_command():
    return lambda a: [PYTHON, str(BENCH / "tree_build.py"), "--home", str(a.home),
                      *[x for doc in TREE_DOCS for x in ("--doc", doc)]]


def _real_model_command(script: str, *more: str):
    """A benchmark that needs the real 1.5B GGUF (DOCQA_BENCH_GGUF; see benchmarks/eval_real.py)."""
    return lambda a: [PYTHON, str(BENCH / script), "--model", os.environ.get("DOCQA_BENCH_GGUF", ""), *more]


def _eval_command(args) -> list[str]:
    out = BENCH / ("results/eval-quick" if args.quick else "eval-dev")
    return ([DOCQA, "--home", str(args.home), "eval", str(_common.EVAL_FILE), "--corpus", str(_common.CORPUS),
             "--method", "simpledoc", "--method", "m3docrag", "--method", "quoted", "--judge", "--out", str(out)]
            + (["--limit", "4"] if args.quick else []))


BENCHMARKS = [
    # the 20-question sample (every third dev question from the second) that issue 15 measured on
    Benchmark("eval_real_quick", _real_model_command("eval_real.py", "--budget", "quick", "--every", "3", "--first", "1"),
              BENCH / "eval-dev-1.5b/quick", _eval_headline),
    Benchmark("eval_real_default", _real_model_command("eval_real.py", "--budget", "default", "--every", "3",
                                                       "--first", "1"),
              BENCH / "eval-dev-1.5b/default", _eval_headline),
    # DocLens (issue 16) on the same sample and budget; RESULTS.md reads the one report holding all three methods
    # (combined-issue16: DocLens's two partial runs, doclens-issue16 and doclens-issue16-b, with the others)
    Benchmark("eval_real_doclens", _real_model_command("eval_real.py", "--budget", "quick", "--every", "3", "--first",
                                                       "1", "--method", "doclens", "--out",
                                                       str(BENCH / "eval-dev-1.5b/doclens-issue16")),
              BENCH / "eval-dev-1.5b/combined-issue16/quick", _eval_headline),
    Benchmark("navigator_sampling", lambda a: [PYTHON, str(BENCH / "navigator_sampling.py"),
                                               str(BENCH / "eval-dev-1.5b/combined-issue16/quick")],
              BENCH / "results/navigator_sampling.json", _navigator_headline),
    # MDocAgent (issue 17) on the same sample and budget, in one report with the other methods (combined-issue17)
    Benchmark("eval_real_mdocagent", _real_model_command("eval_real.py", "--budget", "quick", "--every", "3",
                                                         "--first", "1", "--method", "mdocagent", "--out",
                                                         str(BENCH / "eval-dev-1.5b/mdocagent-issue17")),
              BENCH / "eval-dev-1.5b/combined-issue17/quick", _eval_headline),
    # MMRAG-DocQA (issue 18): the summary tree's build time with both models, and the 1.5B dev rows with and without
    # the tree on the questions over the documents whose 1.5B tree was built (combined-issue18)
    Benchmark("tree_build_smollm2", _tree_command(), BENCH / "results/tree_build-smollm2-135m-instruct.json",
              _tree_headline),
    Benchmark("tree_build_1.5b", _tree_command(), BENCH / "results/tree_build-qwen2.5-coder-1.5b.json",
              _tree_headline, {"DOCQA_LLM_TEXT_MODEL": "qwen2.5-coder-1.5b", "DOCQA_ASK_PRESET": "cpu"}),
    Benchmark("eval_real_mmrag", _real_model_command("eval_real.py", "--budget", "quick", "--method", "mmrag",
                                                     "--out", str(BENCH / "eval-dev-1.5b/mmrag-issue18")),
              BENCH / "eval-dev-1.5b/combined-issue18/quick", _eval_headline),
    # Doc-React (issue 19) on the 20-question sample, in one report with the other methods (combined-issue19), and
    # how often its entropy term changed the choice the gain alone would make
    Benchmark("eval_real_docreact", _real_model_command("eval_real.py", "--budget", "quick", "--every", "3",
                                                        "--first", "1", "--method", "docreact", "--out",
                                                        str(BENCH / "eval-dev-1.5b/docreact-issue19")),
              BENCH / "eval-dev-1.5b/combined-issue19/quick", _eval_headline),
    Benchmark("docreact_choice", lambda a: [PYTHON, str(BENCH / "docreact_choice.py"),
                                            str(BENCH / "eval-dev-1.5b/combined-issue19/quick")],
              BENCH / "results/docreact_choice.json", _choice_headline),
    Benchmark("segment_recall", lambda a: [PYTHON, str(BENCH / "segment_recall.py"), "--home", str(a.home)],
              BENCH / "results/segment_recall.json", _segment_headline),
    Benchmark("prefix_reuse", _real_model_command("prefix_reuse.py"), BENCH / "results/prefix_reuse.json",
              _prefix_headline),
    Benchmark("index_throughput", lambda a: [PYTHON, str(BENCH / "index_throughput.py")] + (["--quick"] if a.quick else []),
              BENCH / "results/index_throughput.json", _index_headline),
    Benchmark("index_throughput_born_digital",
              lambda a: [PYTHON, str(BENCH / "index_throughput.py"), "--born-digital", "--configs", "full_default",
                         "--out", str(BENCH / "results/index_throughput-born-digital.json")] + (["--quick"] if a.quick else []),
              BENCH / "results/index_throughput-born-digital.json", _born_digital_headline),
    Benchmark("retrieval_eval", lambda a: [PYTHON, str(BENCH / "retrieval_eval.py"), "--home", str(a.home)],
              BENCH / "results/retrieval_eval.json", _retrieval_headline),
    Benchmark("llm_speed", lambda a: [PYTHON, str(BENCH / "llm_speed.py")] + (["--repeats", "2"] if a.quick else []),
              BENCH / "results/llm_speed.json", _llm_headline),
    Benchmark("gui_stall", lambda a: [PYTHON, str(BENCH / "gui_stall.py")] + (["--runs", "1"] if a.quick else []),
              BENCH / "results/gui_stall.json", _stall_headline, {"QT_QPA_PLATFORM": "offscreen"}),
    Benchmark("first_text", lambda a: [PYTHON, str(BENCH / "first_text.py")] + (["--runs", "1"] if a.quick else []),
              BENCH / "results/first_text.json", _first_text_headline, {"QT_QPA_PLATFORM": "offscreen"}),
    Benchmark("fts_rebuild", lambda a: [PYTHON, str(BENCH / "fts_rebuild.py"), "--pages", "1000" if a.quick else "10000"],
              BENCH / "results/fts_rebuild-10000.json", _fts_headline),
    Benchmark("library_scale", lambda a: [PYTHON, str(BENCH / "library_scale.py"), "--pages",
                                          "2000" if a.quick else "10000"],
              BENCH / "results/library_scale-10000.json", _scale_headline),
    Benchmark("maxsim_search", lambda a: [PYTHON, str(BENCH / "maxsim_search.py"), "--pages", "10000"],
              BENCH / "results/maxsim_search-10000.json", _maxsim_headline),
    Benchmark("visual_bookkeeping", lambda a: [PYTHON, str(BENCH / "visual_bookkeeping.py"), "--pages", "10000"],
              BENCH / "results/visual_bookkeeping-10000.json", _bookkeeping_headline),
    Benchmark("visual_embed", lambda a: [PYTHON, str(BENCH / "visual_embed.py"), "--size", "tiny"],
              BENCH / "results/visual_embed-tiny.json", _embed_headline),
    Benchmark("page_embedder_attention", lambda a: [PYTHON, str(BENCH / "page_embedder_attention.py")],
              BENCH / "results/page_embedder_attention.json", _attention_headline),
    Benchmark("gpu_check", _gpu_check_run("gpu_check", "embed text llama"), BENCH / "results/gpu_check.json",
              _gpu_check_headline),
    Benchmark("gpu_embedder_paths", _gpu_check_run("gpu_embedder_paths", "embed"),
              BENCH / "results/gpu_embedder_paths.json", _gpu_embedder_paths_headline),
    Benchmark("eval_dev", _eval_command, BENCH / "eval-dev", _eval_headline, EVAL_BUDGET),
    Benchmark("quoted_trust", lambda a: [PYTHON, str(BENCH / "quoted_trust.py"), "--home", str(a.home)],
              BENCH / "results/quoted_trust.json", _quoted_trust_headline),
    # from the committed candidates file (benchmarks/reader/extract.py makes it: ~40 min on 2 cores)
    Benchmark("reader", lambda a: [PYTHON, str(BENCH / "reader.py")], BENCH / "results/reader.json",
              _reader_headline),
    Benchmark("minilm_bulk", lambda a: [PYTHON, str(BENCH / "minilm_bulk.py")] + (["--chunks", "128"] if a.quick else []),
              BENCH / "results/minilm_bulk.json", _minilm_bulk_headline),
    Benchmark("package", lambda a: [PYTHON, str(BENCH / "package.py")], BENCH / "results/package.json",
              _package_headline),
    # issue 56 item 8: what the package would lose without OpenCV (~10 min on 2 cores) and without pyarrow
    Benchmark("ocr_without_opencv", lambda a: [PYTHON, str(BENCH / "ocr_without_opencv.py"), "--icdar", "4"]
              + (["--quick"] if a.quick else []), BENCH / "results/ocr_without_opencv.json",
              _ocr_without_opencv_headline),
    Benchmark("insert_without_pyarrow", lambda a: [PYTHON, str(BENCH / "insert_without_pyarrow.py")],
              BENCH / "results/insert_without_pyarrow.json", _insert_without_pyarrow_headline),
    Benchmark("visual_index_size", lambda a: [PYTHON, str(BENCH / "visual_index_size.py")],
              BENCH / "results/visual_index_size.json", _visual_index_size_headline),
    Benchmark("cli_beside_app", lambda a: [PYTHON, str(BENCH / "cli_beside_app.py")] + (["--runs", "1"] if a.quick
                                                                                       else []),
              BENCH / "results/cli_beside_app.json", _cli_beside_app_headline),
    # the peers (Camelot, pdfplumber, PyMuPDF) where their virtualenv is (benchmarks/requirements-peers.txt)
    Benchmark("icdar2013", lambda a: [PYTHON, str(BENCH / "icdar2013.py"), *_peers()],
              BENCH / "results/icdar2013.json", _icdar2013_headline),
    Benchmark("icdar2013_regions", lambda a: [PYTHON, str(BENCH / "icdar2013.py"), "--regions", *_peers()],
              BENCH / "results/icdar2013-regions.json", _icdar2013_headline),
    # the OCR of the 128 pages with tables takes ~1 h on 2 cores the first time (kept in benchmarks/out/icdar-ocr)
    Benchmark("icdar2013_scanned_regions", lambda a: [PYTHON, str(BENCH / "icdar2013.py"), "--scanned", "--regions"],
              BENCH / "results/icdar2013-scanned-regions.json", _icdar2013_headline),
    # generates its charts in a temporary folder first (~1.5 min for 320 on 2 cores; needs requirements-charts.txt)
    Benchmark("charts", lambda a: [PYTHON, str(BENCH / "charts.py")] + (["--count", "60"] if a.quick else ["--stage"]),
              BENCH / "results/charts.json", _charts_headline),
    # from the committed checks file (benchmarks/reader/model_reader.py makes it with the 1.5B: ~45 min on 2 cores)
    Benchmark("model_reader", lambda a: [PYTHON, str(BENCH / "reader" / "model_reader.py"), "--report"],
              BENCH / "results/model_reader.json", _model_reader_headline),
    # the quoted method before issue 43 (0b1446f) on the grown facts.jsonl (less its library questions, which it
    # could not be asked: doc "*") and dev.jsonl: its results are kept; this only recomputes their figures
    Benchmark("quoted_trust_before_43", lambda a: [PYTHON, str(BENCH / "quoted_trust.py"), "--report-only",
                                                   "--out-dir", str(BENCH / "quoted-trust/before-43"), "--result",
                                                   str(BENCH / "results/quoted_trust-before-43.json")],
              BENCH / "results/quoted_trust-before-43.json", _quoted_trust_headline),
    # needs a home indexed with layout by a build before the tables stage (see tables_stage.py)
    Benchmark("tables_stage", lambda a: [PYTHON, str(BENCH / "tables_stage.py"), "--home", str(a.home)],
              BENCH / "results/tables_stage.json", _tables_stage_headline),
    # the quoted method before issue 32 (d81cb27): its results are kept; this only recomputes their figures
    Benchmark("quoted_trust_before", lambda a: [PYTHON, str(BENCH / "quoted_trust.py"), "--report-only", "--out-dir",
                                                str(BENCH / "quoted-trust/before"), "--result",
                                                str(BENCH / "results/quoted_trust-before.json")],
              BENCH / "results/quoted_trust-before.json", _quoted_trust_headline),
    # needs the 1.5B (../shared/recipes/qwen15b_gguf.sh) in a home with the questions' documents indexed: the
    # figures are rebuilt from the results kept in benchmarks/proof-trust (see proof_trust.py for a new run)
    Benchmark("proof_trust", lambda a: [PYTHON, str(BENCH / "proof_trust.py"), "--report-only", "--before",
                                        "dev20=" + str(BENCH / "proof-trust-before/dev20")],
              BENCH / "results/proof_trust.json", _proof_trust_headline),
    Benchmark("network_guard", lambda a: [PYTHON, str(BENCH / "network_guard.py")],
              BENCH / "results/network_guard.json", _network_headline, reliability=True),
    Benchmark("fuzz_pdfs", lambda a: [PYTHON, str(BENCH / "fuzz_pdfs.py"), "--count", "300" if a.quick else "10000"],
              BENCH / "results/fuzz_pdfs.json", _fuzz_headline, reliability=True),
    # the same seed's cases from 450 on, run when the first run was cut short (2026-11-23)
    Benchmark("fuzz_pdfs_from450", lambda a: [PYTHON, str(BENCH / "fuzz_pdfs.py"), "--count", "1350", "--start", "450",
                                               "--out", str(BENCH / "results/fuzz_pdfs-from450.json")],
              BENCH / "results/fuzz_pdfs-from450.json", _fuzz_headline, reliability=True),
    Benchmark("kill9_index", lambda a: [PYTHON, str(BENCH / "kill9_index.py"), "--kills", "4" if a.quick else "50"],
              BENCH / "results/kill9_index.json", _kill_headline, reliability=True),
    # a second seed, run when the first was cut short at 29 kills (2026-11-23)
    Benchmark("kill9_index_seed14", lambda a: [PYTHON, str(BENCH / "kill9_index.py"), "--kills", "21", "--seed", "14",
                                                "--out", str(BENCH / "results/kill9_index-seed14.json")],
              BENCH / "results/kill9_index-seed14.json", _kill_headline, reliability=True),
    Benchmark("watch_churn", lambda a: [PYTHON, str(BENCH / "watch_churn.py"), "--files", "100" if a.quick else "1000"],
              BENCH / "results/watch_churn.json", _churn_headline, reliability=True),
    Benchmark("db_open_check", lambda a: [PYTHON, str(BENCH / "db_open_check.py"), "--documents", "20000"],
              BENCH / "results/db_open_check-20000.json", _open_check_headline, reliability=True),
]


def run(bench: Benchmark, args) -> bool:
    command = bench.command(args)
    print(f"== {bench.name}: {' '.join(command)}", flush=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", **(bench.env or {})}
    return subprocess.run(command, cwd=_common.REPO, env=env).returncode == 0


def measured_on(path: Path) -> str:
    """The date the result file records (a git checkout resets file times)."""
    data = _json(path / "run.json" if path.is_dir() else path)
    date = data.get("date") or data.get("updated") or data.get("environment", {}).get("date")
    return date[:10] if date else "?"


def write_results(failed: list[str]) -> Path:
    lines = ["# Benchmark results", "",
             "Collected by `benchmarks/run_all.py` from the result files of each benchmark (see "
             "`benchmarks/README.md` for what each measures). Machine: 2 CPU cores, no GPU.", ""]
    lines += _table([b for b in BENCHMARKS if not b.reliability])
    lines += ["", "## Reliability", "",
              "Nothing leaves the machine, nothing is lost: outbound connection attempts watched with strace, mutated "
              "PDFs through the real indexer, kill -9 at random moments, watched folders under churn, damage "
              "checks on open. Failure counts must be 0; the network guard's control row is what the same watch "
              "sees with onnxruntime's telemetry switched back on (the product before this was fixed).", ""]
    lines += _table([b for b in BENCHMARKS if b.reliability])
    if failed:
        lines += ["", f"Failed in the last run_all.py run (older figures shown): {', '.join(failed)}."]
    path = BENCH / "RESULTS.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _table(benchmarks: list[Benchmark]) -> list[str]:
    """One row per figure: a run folder shared by several benchmarks (the combined eval runs hold M3DocRAG's
    answers beside the method each was run for) gives its figures once, under the first benchmark that reads it."""
    lines = ["| Benchmark | Figure | Value | Measured | Source |", "|---|---|---|---|---|"]
    shown: set[tuple[str, str]] = set()  # (figure, value)
    for bench in benchmarks:
        source = bench.result.relative_to(_common.REPO)
        if not bench.result.exists():
            lines.append(f"| {bench.name} | not measured yet | – | – | `{source}` |")
            continue
        for figure, value, *own in bench.headline(bench.result):  # a row may name its own result file
            result = own[0] if own else bench.result
            if (figure, value) in shown:
                continue
            shown.add((figure, value))
            lines.append(f"| {bench.name} | {figure} | {value} | {measured_on(result)} | "
                         f"`{result.relative_to(_common.REPO)}` |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke-sized runs (results of full runs are kept)")
    ap.add_argument("--collect-only", action="store_true", help="only rebuild RESULTS.md")
    ap.add_argument("--only", help="comma-separated subset of " + ",".join(b.name for b in BENCHMARKS))
    ap.add_argument("--home", type=Path, default=Path("/tmp/docqa-bench-home"),
                    help="DOCQA home reused by the retrieval and answer benchmarks (indexing is paid once)")
    args = ap.parse_args()
    chosen = [b for b in BENCHMARKS if not args.only or b.name in args.only.split(",")]
    failed = [] if args.collect_only else [b.name for b in chosen if not run(b, args)]
    print(f"written {write_results(failed)}" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
