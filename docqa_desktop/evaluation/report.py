"""Figures per method from results.jsonl, written as a Markdown report beside two PNG charts and the same
figures as JSON (figures.json)."""
from __future__ import annotations

import datetime as dt
import json
import statistics
from pathlib import Path

import numpy as np

from . import charts
from .questions import LIBRARY, MULTI, SINGLE, UNANSWERABLE
from .runner import RUN_FILE, score_record
from .scoring import accuracy_and_f1, contains_gold
from .trust import COVERAGE_LEVELS, STATUS_COUNTED, is_answerable, ratio, status_counts, trust_figures

REPORT_FILE = "report.md"
FIGURES_FILE = "figures.json"  # every figure of report.md per method, for scripts
KINDS = (SINGLE, MULTI, LIBRARY, UNANSWERABLE)


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def _accuracy(records: list[dict]) -> float | None:
    return _mean(r["score"] for r in records) if records else None


def method_figures(records: list[dict]) -> dict:
    """Everything the report says about one method's records."""
    pages = [r["page_metrics"] for r in records if r["page_metrics"] is not None]
    seconds = [r["seconds"] for r in records]
    judged = [(r["judge"]["correct"], r["score"]) for r in records if "correct" in (r.get("judge") or {})]
    accuracy, f1 = accuracy_and_f1([(r["gold"], r["extracted"], r["score"]) for r in records])
    sources = sorted({s for r in records for s in r["evidence_sources"]})
    formats = sorted({r["answer_format"] for r in records})
    return {
        "questions": len(records), "accuracy": accuracy, "f1": f1,
        "answerable_accuracy": _accuracy([r for r in records if is_answerable(r)]),
        "answerable": sum(map(is_answerable, records)),
        "contains_gold": _mean(float(r["status"] == "answered" and contains_gold(r["gold"], r["prediction"]))
                               for r in records if is_answerable(r)),
        "trust": trust_figures(records),
        "judge_accuracy": _mean(j for j, _ in judged), "judged": len(judged),
        # how often the judge agrees with the rules (score >= 0.5 counts as correct): a judge that
        # approves everything shows up here, not in its own accuracy
        "judge_agreement": _mean(float(j == (s >= 0.5)) for j, s in judged),
        "status": status_counts(records),
        "page_recall": _mean(p["recall"] for p in pages), "page_precision": _mean(p["precision"] for p in pages),
        "page_f1": _mean(p["f1"] for p in pages), "all_hit": _mean(p["all_hit"] for p in pages),
        "with_evidence_pages": len(pages),
        "stages": _stage_figures(records),
        "pages_per_question": _mean(len(r["pages_used"]) for r in records),
        "llm_calls": _mean(r["llm_calls"] for r in records),
        "prompt_tokens": _mean(r["prompt_tokens"] for r in records),
        # share of prompt tokens llama.cpp took from its cache (older records did not count them)
        "cached_share": ratio(sum(r["cached_tokens"] for r in records if "cached_tokens" in r),
                              sum(r["prompt_tokens"] for r in records if "cached_tokens" in r)),
        "output_tokens": _mean(r["output_tokens"] for r in records),
        "seconds_p50": float(np.percentile(seconds, 50)) if seconds else None,
        "seconds_p90": float(np.percentile(seconds, 90)) if seconds else None,
        "seconds_total": sum(seconds),
        "by_source": _groups(records, sources, lambda r, s: s in r["evidence_sources"]),
        "by_kind": _groups(records, KINDS, lambda r, k: r["kind"] == k),
        "by_format": _groups(records, formats, lambda r, f: r["answer_format"] == f),
    }


def _stage_figures(records: list[dict]) -> dict[str, tuple[float, float, float, float]]:
    """Per stage of the method (first-seen order), over questions with evidence pages: mean page recall,
    all-hit, precision, and pages at that stage."""
    stages = list(dict.fromkeys(s for r in records for s in r.get("stage_metrics", {})))
    figures = {}
    for stage in stages:
        with_metrics = [(r, m) for r in records if (m := r.get("stage_metrics", {}).get(stage)) is not None]
        if with_metrics:
            figures[stage] = (_mean(m["recall"] for _, m in with_metrics), _mean(m["all_hit"] for _, m in with_metrics),
                              _mean(m["precision"] for _, m in with_metrics),
                              _mean(len(r["stage_pages"][stage]) for r, _ in with_metrics))
    return figures


def _groups(records: list[dict], groups, member) -> dict[str, tuple[float | None, int]]:
    """(accuracy, questions) per group; a question can be in several (it may have several evidence sources)."""
    chosen = {g: [r for r in records if member(r, g)] for g in groups}
    return {g: (_accuracy(rs), len(rs)) for g, rs in chosen.items()}


def figures_by_method(records: list[dict]) -> dict[str, dict]:
    methods = sorted({r["method"] for r in records})
    return {m: method_figures([score_record(r) for r in records if r["method"] == m]) for m in methods}


def _pct(value) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _num(value, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(row) + " |" for row in rows] + [""])


def _breakdown(figures: dict[str, dict], key: str, title: str) -> list[str]:
    methods = list(figures)
    groups = KINDS if key == "by_kind" else sorted({g for f in figures.values() for g in f[key]})
    rows = []
    for group in groups:
        n = max(f[key].get(group, (None, 0))[1] for f in figures.values())
        if n == 0:
            continue  # a kind no question has (most sets have no library questions)
        rows.append([group, str(n)] + [_pct(figures[m][key].get(group, (None, 0))[0]) for m in methods])
    return [f"### {title}", ""] + _table([title.split(" by ")[-1].capitalize(), "n"] + methods, rows)


def _by_method(figures: dict[str, dict], label: str, cell) -> list[str]:
    """A table row: the label, then `cell` of each method's figures."""
    return [label] + [cell(f) for f in figures.values()]


def trust_rows(figures: dict[str, dict]) -> list[list[str]]:
    """Precision of answered, coverage, answered but wrong, declined, and the verdicts (trust.trust_figures)."""
    def row(label, cell):
        return _by_method(figures, label, lambda f: cell(f["trust"]))
    return [
        row("precision of answered %", lambda t: f"{_pct(t['precision'])} ({t['answered_right']} of {t['answered']})"),
        row("coverage: answered / answerable %", lambda t: f"{_pct(t['coverage'])} (n={t['answerable']})"),
        row("answered right / answerable %", lambda t: _pct(t["answered_right_share"])),
        row("answered but wrong", lambda t: str(t["answered_wrong"])),
        row("declined on unanswerable %",
            lambda t: f"{_pct(t['declined_share'])} ({t['declined']} of {t['unanswerable']})"),
        _by_method(figures, "answered / unverified / passages / not found / failed",
                   lambda f: " / ".join(str(f["status"][s.value]) for s in STATUS_COUNTED)),
    ]


def risk_coverage_lines(figures: dict[str, dict]) -> list[str]:
    """The risk–coverage table of the methods whose answers carry a confidence, or one line saying none do."""
    rated = {m: f["trust"]["risk_coverage"] for m, f in figures.items() if f["trust"]["risk_coverage"]}
    if not rated:
        return ["Risk–coverage: omitted — no answered result carries a confidence (only methods that rate their "
                "answers record one).", ""]
    rows = [[f"{100 * level:.0f} %"] + [_risk_cell(levels[i]) for levels in rated.values()]
            for i, level in enumerate(COVERAGE_LEVELS)]
    unrated = [m for m in figures if m not in rated]
    return (["### Risk–coverage: precision of the surest answers", "",
             "Answered results sorted by confidence, surest first; coverage c keeps the top round(c × answered) "
             "(half up). Each cell: precision % of those (how many; the share of answerable questions they are %).",
             ""]
            + _table(["coverage of answered", *rated], rows)
            + ([f"No confidence on record for: {', '.join(unrated)}.", ""] if unrated else []))


def _risk_cell(level: dict) -> str:
    return f"{_pct(level['precision'])} ({level['answers']}; {_pct(level['answerable_share'])})"


def overall_rows(figures: dict[str, dict]) -> list[list[str]]:
    def row(label, cell):
        return _by_method(figures, label, cell)
    rows = [
        row("questions", lambda f: str(f["questions"])),
        row("generalized accuracy %", lambda f: _pct(f["accuracy"])),
        row("F1 %", lambda f: _pct(f["f1"])),
        row("accuracy on answerable questions %", lambda f: f"{_pct(f['answerable_accuracy'])} (n={f['answerable']})"),
        row("answer contains the gold answer (answerable) %",
            lambda f: f"{_pct(f['contains_gold'])} (n={f['answerable']})"),
        *trust_rows(figures),
    ]
    if any(f["judged"] for f in figures.values()):
        rows.append(row("judge accuracy %", lambda f: f"{_pct(f['judge_accuracy'])} (n={f['judged']})"))
        rows.append(row("judge agrees with rules %", lambda f: _pct(f["judge_agreement"])))
    rows += [
        row("page recall %", lambda f: _pct(f["page_recall"])),
        row("page precision %", lambda f: _pct(f["page_precision"])),
        row("page F1 %", lambda f: _pct(f["page_f1"])),
        row("all-hit %", lambda f: _pct(f["all_hit"])),
        row("page recall / all-hit % by stage", _stage_cell),
        row("page precision % / pages by stage", _stage_precision_cell),
        row("pages per question", lambda f: _num(f["pages_per_question"], 2)),
        row("model calls per question", lambda f: _num(f["llm_calls"])),
        row("prompt tokens per question", lambda f: _num(f["prompt_tokens"], 0)),
        row("prompt tokens from the cache %", lambda f: _pct(f["cached_share"])),
        row("output tokens per question", lambda f: _num(f["output_tokens"], 0)),
        row("latency p50 s", lambda f: _num(f["seconds_p50"])),
        row("latency p90 s", lambda f: _num(f["seconds_p90"])),
        row("total time h", lambda f: _num(f["seconds_total"] / 3600, 2)),
    ]
    return rows


def _stage_cell(figures: dict) -> str:
    """"retrieved 90/80 → selected 60/40 → read 70/60": where each method loses the evidence pages."""
    return " → ".join(f"{stage} {_pct(recall)}/{_pct(all_hit)}"
                      for stage, (recall, all_hit, _, _) in figures["stages"].items()) or "–"


def _stage_precision_cell(figures: dict) -> str:
    """"retrieved 12.0/10.0 → read 35.0/3.0": how much of each stage's pages is evidence, and how many."""
    return " → ".join(f"{stage} {_pct(precision)}/{_num(pages)}"
                      for stage, (_, _, precision, pages) in figures["stages"].items()) or "–"


def per_question_rows(records: list[dict], methods: list[str]) -> list[list[str]]:
    by_key = {(r["qid"], r["method"]): r for r in records}
    rows = []
    for qid in dict.fromkeys(r["qid"] for r in records):
        first = next(by_key[(qid, m)] for m in methods if (qid, m) in by_key)
        cells = [_cell(first["doc"], 24), _cell(first["question"], 70), _cell(json.dumps(first["gold"]), 30)]
        for m in methods:
            r = by_key.get((qid, m))
            cells.append("–" if r is None else f"{_cell(json.dumps(r['extracted']), 30)} ({r['score']:.2f})")
        rows.append(cells)
    return rows


def _cell(text: str, width: int) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def write_report(out_dir: str | Path, records: list[dict], title: str = "Evaluation report") -> Path:
    out_dir = Path(out_dir)
    figures = figures_by_method(records)
    methods = list(figures)
    run_path = out_dir / RUN_FILE
    run = json.loads(run_path.read_text(encoding="utf-8")) if run_path.exists() else {}
    chart_files = charts.write_charts(out_dir, figures)
    generated = dt.datetime.now().isoformat(timespec="minutes")
    _write_figures(out_dir / FIGURES_FILE, figures, generated, len(records))
    lines = [f"# {title}", "",
             f"Generated {generated} from `{out_dir.name}/results.jsonl` "
             f"({len(records)} results, {len({r['qid'] for r in records})} questions, methods: {', '.join(methods)}); "
             f"the same figures as JSON in `{FIGURES_FILE}`.",
             ""]
    if records:
        lines += _result_sections(records, figures, run, chart_files)
    else:
        lines += ["No results yet: run the evaluation (an interrupted run is resumed).", ""]
    path = out_dir / REPORT_FILE
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _write_figures(path: Path, figures: dict[str, dict], generated: str, results: int) -> None:
    path.write_text(json.dumps({"generated": generated, "results": results, "methods": figures}, indent=2,
                               ensure_ascii=False) + "\n", encoding="utf-8")


def _result_sections(records: list[dict], figures: dict, run: dict, chart_files: list[str]) -> list[str]:
    methods = list(figures)
    lines: list[str] = []
    if run:
        models = ", ".join(f"{role}: {name or 'none'}" for role, name in run.get("models", {}).items())
        settings = ", ".join(f"{k}={v}" for k, v in run.get("settings", {}).items())
        lines += [f"Models — {models}. Settings — {settings}.", ""]
        for method, values in sorted(run.get("method_settings", {}).items()):
            lines += [f"- {method}: " + ", ".join(f"{k}={v}" for k, v in values.items())]
        lines += [""] if run.get("method_settings") else []
    lines += ["Scoring: MMLongBench-Doc's rules on a short answer extracted from each prediction (accuracy is the "
              "mean score, F1 treats \"Not answerable\" as the negative class); page metrics per SimpleDoc A.3 "
              "over questions with evidence pages; latency is the method's wall time per question.", ""]
    lines += _trust_section(figures)
    lines += ["## Overall", ""]
    lines += _table(["", *methods], overall_rows(figures))
    lines += ["## Breakdowns (generalized accuracy %)", ""]
    lines += _breakdown(figures, "by_source", "Accuracy by evidence source")
    lines += _breakdown(figures, "by_kind", "Accuracy by evidence pages")
    lines += _breakdown(figures, "by_format", "Accuracy by answer format")
    missing = charts.charts_missing()
    drawn = [f"![{name}]({name})" for name in chart_files] or [f"No charts: {missing}." if missing else "No charts."]
    lines += ["## Charts", ""] + drawn + [""]
    lines += ["## Per question (extracted answer and score)", ""]
    lines += _table(["doc", "question", "gold", *methods], per_question_rows(records, methods))
    return lines


def _trust_section(figures: dict[str, dict]) -> list[str]:
    return (["## Trust: precision of answered, coverage, declined", "",
             "An \"answered\" verdict is right when it scores ≥ 0.5 on an answerable question and always wrong on an "
             "unanswerable one. Precision = answered and right / answered; coverage = answerable questions "
             "answered / answerable questions; declined = not marked answered (an unverified draft, closest "
             "passages or not found) on an unanswerable question.", ""]
            + _table(["", *figures], trust_rows(figures))
            + risk_coverage_lines(figures))
