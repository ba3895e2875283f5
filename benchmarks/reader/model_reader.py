"""The text model as reader and as evidence (issue 53, item 6): the default answer (the cascade) asked with a real
1.5B model installed, each value the model checked kept with its probability of "yes" and whether it is right.

    bash ../shared/recipes/qwen15b_gguf.sh /work/models/qwen15b.gguf
    cp -a benchmarks/out/reader-home benchmarks/out/reader-home-15b
    .venv/bin/docqa --home benchmarks/out/reader-home-15b models import /work/models/qwen15b.gguf --name qwen2.5-coder-1.5b --link
    .venv/bin/python benchmarks/reader/model_reader.py [--per-document 3] [--only dev ...] [--limit N]
    .venv/bin/python benchmarks/reader/model_reader.py --report

Asks a sample (at most `--per-document` questions of each document, chosen by a hash of their ids, so the same
sample every run) and dev.jsonl, and writes data/model_checks.jsonl (one line per question). `--report` chooses
min_yes in grouped cross-validation by document (the one under which the model's own answers stayed ≥ 93 % right
on the other folds, the issue's target) and writes the figures to benchmarks/results/model_reader.json.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE.parent))
import _common  # noqa: E402
import data  # noqa: E402
from docqa_desktop.methods.extractive.scorer import value_key  # noqa: E402
from extract import is_right  # noqa: E402

CHECKS = HERE / "data" / "model_checks.jsonl"
RESULT = HERE.parent / "results" / "model_reader.json"
FOLDS = 5
TARGET_PRECISION = 0.93
THRESHOLDS = [round(0.3 + 0.01 * i, 2) for i in range(70)]  # min_yes tried


def sample(questions: list[dict], per_document: int) -> list[dict]:
    by_doc = defaultdict(list)
    for q in questions:
        by_doc[q["doc"]].append(q)
    chosen = []
    for doc in sorted(by_doc):
        rows = sorted(by_doc[doc], key=lambda q: zlib.crc32(q["qid"].encode()))
        chosen += rows if by_doc[doc][0]["set"] == "dev" else rows[:per_document]
    return chosen


def ask_all(questions: list[dict], home: str) -> None:
    from docqa_desktop.service import Service
    from docqa_desktop.settings import Settings
    kept = {r["qid"]: r for r in _read()} if CHECKS.exists() else {}
    with Service(Settings.load(Path(home))) as service:
        assert service.answers.chooser() is not None, "no text model at or above the floor in " + home
        service.library.index(sorted({q["path"] for q in questions}))
        for n, q in enumerate(questions, 1):
            if q["qid"] in kept:
                continue
            started = time.perf_counter()
            answer = service.answers.ask(q["question"], docs=[q["path"]], method="cascade", save=False)
            seconds = time.perf_counter() - started
            gold, fmt = q["answer"], q["answer_format"]
            kept[q["qid"]] = {
                "qid": q["qid"], "set": q["set"], "doc": q["doc"], "kind": q.get("kind", ""),
                "answerable": fmt != "None", "seconds": round(seconds, 2), "status": answer.status.value,
                "short_answer": answer.short_answer, "right": is_right(gold, answer.short_answer, fmt),
                "model_read": bool(answer.checked), "calls": len(answer.calls),
                "checked": [{"value": c.value, "origin": c.origin, "yes": c.yes, "right": is_right(gold, c.value, fmt)}
                            for c in answer.checked],
            }
            row = kept[q["qid"]]
            print(f"[{n}/{len(questions)}] {q['qid']} {row['status']} right={row['right']} {seconds:.1f}s "
                  + " ".join(f"{c['origin']}:{c['value'][:30]!r}={c['yes']:.2f}{'+' if c['right'] else ''}"
                             for c in row["checked"]), flush=True)
            _write(kept.values())


def _read() -> list[dict]:
    return [json.loads(line) for line in CHECKS.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(rows) -> None:
    CHECKS.parent.mkdir(parents=True, exist_ok=True)
    CHECKS.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in sorted(rows, key=lambda r: r["qid"])),
                      encoding="utf-8")


SPAN_ONLY = ("span",)  # the model's own words alone checked: does checking the scorer's values add?


def verdict(row: dict, min_yes: float, origins: tuple[str, ...] = ()) -> tuple[bool, bool]:
    """(answered, right) for a row under `min_yes`, as methods/cascade decides with model_answers on: the quoted
    answer when it answered without the model, else the one value whose check reaches min_yes (two different ones
    answer nothing); `origins`: only the values of these origins count."""
    if not row["model_read"]:
        return row["status"] == "answered", row["right"]
    sure = [c for c in row["checked"] if c["yes"] >= min_yes and (not origins or c["origin"] in origins)]
    if len({value_key(c["value"]) for c in sure}) != 1:
        return False, False
    return True, any(c["right"] for c in sure)


def tally(decided: list[tuple[dict, bool, bool]]) -> dict:
    """The figures of (row, answered, right) triples: over every answer, and over the model's own (where the
    quoted reader gave passages)."""
    answerable = sum(1 for r, _, _ in decided if r["answerable"])
    answered = [(r, right) for r, ok, right in decided if ok]
    by_model = [right for r, right in answered if r["model_read"]]
    return {"answerable_right": round(sum(1 for r, ok in answered if ok and r["answerable"]) / max(1, answerable), 3),
            "answered": len(answered),
            "precision": round(sum(1 for _, ok in answered if ok) / max(1, len(answered)), 3),
            "model_answered": len(by_model), "model_precision": round(sum(by_model) / max(1, len(by_model)), 3),
            "unanswerable_declined": round(sum(1 for r, ok, _ in decided if not r["answerable"] and not ok) /
                                           max(1, len(decided) - answerable), 3)}


def figures(rows: list[dict], min_yes: float, origins: tuple[str, ...] = ()) -> dict:
    seconds = sorted(r["seconds"] for r in rows)
    return {"questions": len(rows), "documents": len({r["doc"] for r in rows}), "min_yes": min_yes,
            **tally([(r, *verdict(r, min_yes, origins)) for r in rows]),
            "p50_s": seconds[len(seconds) // 2] if seconds else None,
            "p90_s": seconds[int(len(seconds) * 0.9)] if seconds else None}


def chosen_threshold(rows: list[dict], origins: tuple[str, ...] = ()) -> float:
    """The min_yes under which the model answers most while its own answers keep TARGET_PRECISION on `rows` (at
    least 5 of them); the strictest when none does."""
    best, most = THRESHOLDS[-1], 0
    for threshold in THRESHOLDS:
        f = figures(rows, threshold, origins)
        if f["model_precision"] >= TARGET_PRECISION and f["model_answered"] >= 5 and f["model_answered"] > most:
            best, most = threshold, f["model_answered"]
    return best


def cross_validated(rows: list[dict], origins: tuple[str, ...] = ()) -> dict:
    """Each fold's questions decided with the threshold chosen on the other folds (folds by document)."""
    fold = {r["qid"]: zlib.crc32(r["doc"].encode()) % FOLDS for r in rows}
    decided, chosen = [], []
    for k in range(FOLDS):
        chosen.append(chosen_threshold([r for r in rows if fold[r["qid"]] != k], origins))
        decided += [(r, *verdict(r, chosen[-1], origins)) for r in rows if fold[r["qid"]] == k]
    return {"thresholds_per_fold": chosen, **tally(decided)}


def report() -> dict:
    rows = _read()
    trained = [r for r in rows if r["set"] not in data.MEASURED_ONLY]
    dev = [r for r in rows if r["set"] == "dev"]
    read = [r for r in trained if r["model_read"]]
    span_found = [r for r in read if any(c["origin"] == "span" for c in r["checked"])]
    threshold = chosen_threshold(trained)
    result = {
        "environment": _common.environment(),
        "sample": figures(trained, threshold),
        "sample_cross_validated": cross_validated(trained),
        "span_only_cross_validated": cross_validated(trained, SPAN_ONLY),
        "dev_at_sample_threshold": figures(dev, threshold),
        "risk_coverage": [figures(trained, t) for t in (0.5, 0.6, 0.7, 0.8, 0.9)],
        "model_read": len(read), "span_on_a_passage": len(span_found),
        "span_right": sum(1 for r in span_found if any(c["right"] for c in r["checked"] if c["origin"] == "span")),
        "any_checked_right": sum(1 for r in read if any(c["right"] for c in r["checked"])),
        "quoted_alone": figures([dict(r, model_read=False, status="passages" if r["model_read"] else r["status"])
                                 for r in trained], 1.0),
    }
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(json.dumps(result, indent=1))
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", default=str(HERE.parent / "out" / "reader-home-15b"))
    ap.add_argument("--per-document", type=int, default=3)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--report", action="store_true")
    args = ap.parse_args()
    if args.report:
        report()
        return 0
    questions = [q for q in data.load_questions() if q["set"] != "icdar_generated" and q["doc"] != data.LIBRARY_DOC
                 and (not args.only or q["set"] in args.only)]
    ask_all(sample(questions, args.per_document)[:args.limit], args.home)
    return 0


if __name__ == "__main__":
    sys.exit(main())
