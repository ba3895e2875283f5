"""The learned reader on documents it never trained on (issue 53): grouped cross-validation by document over the
candidates file (benchmarks/reader/extract.py), figures per set and per kind, and the risk-coverage curve.

    .venv/bin/python benchmarks/reader.py [--result FILE]

Every question is scored by a ranker trained on the other folds' documents (benchmarks/reader/train.py's folds),
its probability by the shipped calibration and threshold. Per set (the written questions, facts.jsonl's seen and
unseen parts, dev.jsonl, the ICDAR 2013 generated questions) and per kind: candidate recall (the gold value among
the candidates, of the answerable), answerable right (answered and right, of the answerable), precision of answered,
unanswerable declined, answered but wrong, p50 / p90 seconds of the product's reading (extract.py's timing: the
quoted method end to end, retrieval included). Written to benchmarks/results/reader.json; run_all.py makes the
RESULTS.md rows.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "reader"))
sys.path.insert(0, str(HERE))
import _common  # noqa: E402
import data  # noqa: E402
import train  # noqa: E402

RESULT = HERE / "results" / "reader.json"
CURVE = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95)  # thresholds of the risk-coverage curve


def figures(rows: list[dict], best: dict[str, dict], probability: dict[str, float], threshold: float) -> dict:
    answerable = [r for r in rows if r["answer_format"] != "None"]
    unanswerable = [r for r in rows if r["answer_format"] == "None"]
    answered = [r for r in rows if probability[r["qid"]] >= threshold]
    right = [r for r in answered if best[r["qid"]]["right"]]
    seconds = sorted(r["seconds"] for r in rows)
    return {
        "questions": len(rows), "answerable": len(answerable), "unanswerable": len(unanswerable),
        "candidate_recall": _share(sum(any(c["right"] for c in r["candidates"]) for r in answerable), len(answerable)),
        "best_right": _share(sum(best[r["qid"]]["right"] for r in answerable), len(answerable)),
        "answered": len(answered), "answered_right": len(right), "answered_wrong": len(answered) - len(right),
        "answerable_right": _share(len(right), len(answerable)),
        "precision_of_answered": _share(len(right), len(answered)),
        "unanswerable_declined": _share(sum(probability[r["qid"]] < threshold for r in unanswerable),
                                        len(unanswerable)),
        "p50_s": round(statistics.median(seconds), 2) if seconds else None,
        "p90_s": round(seconds[int(0.9 * (len(seconds) - 1))], 2) if seconds else None,
    }


def risk_coverage(rows: list[dict], best: dict[str, dict], probability: dict[str, float]) -> list[dict]:
    answerable = sum(r["answer_format"] != "None" for r in rows)
    curve = []
    for t in CURVE:
        answered = [r for r in rows if probability[r["qid"]] >= t]
        right = sum(best[r["qid"]]["right"] for r in answered)
        curve.append({"threshold": t, "answered": len(answered), "coverage": _share(right, answerable),
                      "precision": _share(right, len(answered))})
    return curve


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def parts(rows: list[dict]) -> dict[str, list[dict]]:
    """The sets reported: every trained-on question (cross-validated), each written set, facts seen / unseen, and
    the measured-only sets."""
    trained = train.training_rows(rows)
    by_set: dict[str, list[dict]] = {"all_written_and_facts": trained,
                                     "written": [r for r in trained if r["set"] != "facts"]}
    by_set["facts_seen"] = [r for r in rows if r["set"] == "facts" and r["subset"] != "unseen"]
    by_set["facts_unseen"] = [r for r in rows if r["set"] == "facts" and r["subset"] == "unseen"]
    for name in sorted({r["set"] for r in rows}):
        by_set.setdefault(name, [r for r in rows if r["set"] == name])
    return by_set


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--result", default=str(RESULT))
    ap.add_argument("--candidates", type=Path, default=data.CANDIDATES,
                    help="another candidates file (extract.py --out), e.g. after a change to the index")
    args = ap.parse_args()
    rows = data.read_candidates(args.candidates)
    trained = train.training_rows(rows)
    measured = [r for r in rows if r["set"] in data.MEASURED_ONLY]
    held = train.held_out(trained, measured)
    calibration = train.calibrate(held[:len(trained)])
    p = train.probabilities(held, calibration)
    threshold = train.threshold_for(p[:len(trained)], np.array([b["right"] for b in held[:len(trained)]], float))
    best = {b["qid"]: b for b in held}
    probability = {b["qid"]: float(x) for b, x in zip(held, p)}
    result = {"environment": _common.environment(), "candidates": data.digest(args.candidates), "folds": train.FOLDS,
              "threshold": round(threshold, 4), "sets": {}}
    for name, part in parts(rows).items():
        kinds: dict[str, list[dict]] = defaultdict(list)
        for r in part:
            kinds[r["kind"] or (r.get("evidence_sources") or ["other"])[0]].append(r)
        result["sets"][name] = {**figures(part, best, probability, threshold),
                                "documents": len({r["doc"] for r in part}),
                                "risk_coverage": risk_coverage(part, best, probability),
                                "by_kind": {k: figures(v, best, probability, threshold) for k, v in sorted(kinds.items())}}
    path = _common.write_json(result, args.result, RESULT.name)
    for name, s in result["sets"].items():
        print(f"{name:24} q={s['questions']:4} docs={s['documents']:3} recall={s['candidate_recall']} "
              f"best={s['best_right']} right={s['answerable_right']} precision={s['precision_of_answered']} "
              f"declined={s['unanswerable_declined']} p50={s['p50_s']}")
    print(f"threshold {threshold:.3f}; written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
