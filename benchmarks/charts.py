"""How well index/charts.py reads a chart's numbers from its geometry: generated charts with known values, and
hand-labelled real ones (issue 55).

    .venv/bin/python benchmarks/charts.py                          # 320 generated charts in a temporary folder
    .venv/bin/python benchmarks/charts.py --generated /tmp/charts  # that folder's set (made there the first time)
    .venv/bin/python benchmarks/charts.py --generated /tmp/charts --limit 40 --show "stacked bar chart"

The generated set is benchmarks/charts/make_charts.py's (matplotlib and reportlab charts, its truth.jsonl). Each page
is read by `charts_on(page)` (timed); the charts found are matched to the page's true charts by their boxes (the
share of the smaller box inside the other, at least MATCH_OVERLAP) or, boxes apart, by title. A true value is right
when a value of its matched chart has its category (normalised: case, spaces, dashes and punctuation at the ends
aside), its series (any, for a chart of one series) and its number: as printed (to 1e-6 relative) for a printed
value, within 0.5% of the value axis's range (a pie's: 100) for one read off the axis. A found value that is right
for no true value is a false value. Reported by kind, tool and variant, and for printed against axis-read values;
the targets: printed values ≥ 95% right, axis-read ≥ 90%, ≥ 5 pages/s.

`--real` (benchmarks/charts/real.jsonl, skipped when absent): values read by hand off charts in ../shared
documents, a line each {"doc" (relative to /work/shared), "page", "chart_title", "series", "category", "value",
"unit", "printed"}. A line is right when a value found on its page has its category, a series either side contains
(or either is empty) and a number within 0.5 of it (a value not printed: within 5% of it, at least 0.5).

`--show KIND` prints, for each chart of that kind (or variant, or tool, or "all") not read perfectly, its true
values that were missed with what was found instead, and its false values. Writes benchmarks/results/charts.json
(`--limit N`, the first N pages, writes benchmarks/out/charts.json unless --out).
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "charts"))
import _common  # noqa: E402
import make_charts  # noqa: E402
from docqa_desktop.index.charts import Chart, ChartValue, charts_on  # noqa: E402

BENCH = _common.REPO / "benchmarks"
REAL = BENCH / "charts" / "real.jsonl"
SHARED = Path("/work/shared")
QUICK_RESULT = BENCH / "out" / "charts.json"
MATCH_OVERLAP = 0.5  # of the smaller box inside the other
LABEL_TOLERANCE = 1e-6  # relative: a printed value is read exactly
AXIS_TOLERANCE = 0.005  # of the value axis's range
REAL_PRINTED_TOLERANCE = 0.5
REAL_ESTIMATED_SHARE = 0.05
TARGETS = {"printed_accuracy": 0.95, "axis_accuracy": 0.90, "pages_per_s": 5.0}
SHOW_LINES = 25  # missed values shown per chart

_DASHES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-", "\u2010": "-", "\u2011": "-"})
_ENDS = re.compile(r"^[\W_]+|[\W_]+$")


def normalise(text: str) -> str:
    """Casefolded, spaces collapsed, dashes made one, punctuation at the ends stripped ("Ages 18–29:" → "ages
    18-29")."""
    return _ENDS.sub("", " ".join(text.translate(_DASHES).casefold().split()))


# --- matching -----------------------------------------------------------------------------------------------------

def overlap(a, b) -> float:
    """The share of the smaller box inside the other."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return width * height / smaller if smaller > 0 else 0.0


def match_charts(truths: list[dict], found: list[Chart]) -> list[Chart | None]:
    """The found chart of each true chart (None: not found): the best box overlaps first, then titles."""
    pairs = sorted(((overlap(t["bbox"], f.bbox), i, j) for i, t in enumerate(truths) for j, f in enumerate(found)),
                   reverse=True)
    matched: list[Chart | None] = [None] * len(truths)
    used: set[int] = set()
    for score, i, j in pairs:
        if score >= MATCH_OVERLAP and matched[i] is None and j not in used:
            matched[i] = found[j]
            used.add(j)
    for i, t in enumerate(truths):
        title = normalise(t["title"])
        for j, f in enumerate(found):
            if matched[i] is None and j not in used and title and _same_title(title, normalise(f.title)):
                matched[i] = f
                used.add(j)
    return matched


def _same_title(truth: str, found: str) -> bool:
    return bool(found) and (truth in found or found in truth)


# --- scoring one chart --------------------------------------------------------------------------------------------

@dataclass
class ValueOutcome:
    truth: dict
    right: bool
    number_found: bool  # some found value has its number
    category_right: bool  # ... and its category
    series_right: bool  # ... and its series
    candidate: str  # what was found instead, for --show


@dataclass
class ChartScore:
    truth: dict
    found: Chart | None
    seconds: float  # its page's reading time
    outcomes: list[ValueOutcome] = field(default_factory=list)
    false_values: list[ChartValue] = field(default_factory=list)
    unmatched: list[Chart] = field(default_factory=list)  # charts found on its page that matched no true chart

    @property
    def perfect(self) -> bool:
        return self.found is not None and all(o.right for o in self.outcomes) and not self.false_values


def tolerance(truth: dict, value: dict) -> float:
    if value["labelled"]:
        return LABEL_TOLERANCE * max(1.0, abs(value["value"]))
    lo, hi = truth["axis"] if truth["axis"] else (0.0, 100.0)  # an unlabelled pie: shares of 100
    return AXIS_TOLERANCE * (hi - lo)


def score_chart(truth: dict, found: Chart | None, seconds: float) -> ChartScore:
    score = ChartScore(truth, found, seconds)
    values = list(found.values) if found else []
    one_series = len(truth["series"]) == 1
    hits: set[int] = set()
    for value in truth["values"]:
        limit = tolerance(truth, value)
        number = [k for k, v in enumerate(values) if abs(v.number - value["value"]) <= limit]
        category = [k for k in number if normalise(values[k].category) == normalise(value["category"])]
        series = [k for k in number if one_series or normalise(values[k].series) == normalise(value["series"])]
        right = set(category) & set(series)
        hits |= right
        score.outcomes.append(ValueOutcome(value, bool(right), bool(number), bool(category), bool(series),
                                           "" if right else _candidate(value, values, number, one_series)))
    score.false_values = [v for k, v in enumerate(values) if k not in hits]
    return score


def _candidate(value: dict, values: list[ChartValue], number: list[int], one_series: bool) -> str:
    """What was found in a missed value's place: its cell with another number, or its number in another cell."""
    for v in values:
        if normalise(v.category) == normalise(value["category"]) and \
                (one_series or normalise(v.series) == normalise(value["series"])):
            return f"found {_number_text(v)}"
    if number:
        v = values[number[0]]
        return f"its number under {v.category or '∅'} · {v.series or '∅'}"
    return "found –"


def _number_text(v: ChartValue) -> str:
    return f"{v.number:g}" + (f" ({v.text!r}, axis)" if v.from_axis else f" ({v.text!r})")


# --- tallies ------------------------------------------------------------------------------------------------------

@dataclass
class Tally:
    charts: int = 0
    charts_found: int = 0
    values: int = 0
    values_right: int = 0
    number_found: int = 0
    category_right: int = 0
    series_right: int = 0
    false_values: int = 0
    pages: set = field(default_factory=set)
    seconds: dict = field(default_factory=dict)  # page -> seconds

    def add_chart(self, score: ChartScore, outcomes: list[ValueOutcome], false_values: int) -> None:
        page = (score.truth["file"], score.truth["page"])
        self.charts += 1
        self.charts_found += score.found is not None
        self.values += len(outcomes)
        self.values_right += sum(o.right for o in outcomes)
        self.number_found += sum(o.number_found for o in outcomes)
        self.category_right += sum(o.category_right for o in outcomes)
        self.series_right += sum(o.series_right for o in outcomes)
        self.false_values += false_values
        self.pages.add(page)
        self.seconds[page] = score.seconds

    def as_dict(self) -> dict:
        return {"charts": self.charts, "charts_found": self.charts_found, "values": self.values,
                "values_right": self.values_right, "right_share": _share(self.values_right, self.values),
                "number_found": self.number_found, "category_attached_right": self.category_right,
                "series_attached_right": self.series_right, "false_values": self.false_values,
                "seconds_per_page": round(sum(self.seconds.values()) / len(self.pages), 4) if self.pages else None}


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def tallies(scores: list[ChartScore]) -> dict[str, dict[str, Tally]]:
    """By kind, tool, variant, and by value: printed against read off the axis (false values go to the chart's
    groups, not to a value group)."""
    groups: dict[str, dict[str, Tally]] = {name: defaultdict(Tally) for name in ("kind", "tool", "variant", "value")}
    for score in scores:
        t = score.truth
        for name, key in (("kind", t["kind"]), ("tool", t["tool"]), ("variant", t["variant"])):
            groups[name][key].add_chart(score, score.outcomes, len(score.false_values))
        for key, printed in (("printed", True), ("axis", False)):
            outcomes = [o for o in score.outcomes if o.truth["labelled"] == printed]
            if outcomes:
                groups["value"][key].add_chart(score, outcomes, 0)
    return groups


# --- the generated set --------------------------------------------------------------------------------------------

def load_truth(folder: Path) -> dict[tuple[str, int], list[dict]]:
    pages: dict[tuple[str, int], list[dict]] = defaultdict(list)
    with open(folder / "truth.jsonl", encoding="utf-8") as handle:
        for line in handle:
            truth = json.loads(line)
            pages[(truth["file"], truth["page"])].append(truth)
    return dict(sorted(pages.items()))


def read_generated(folder: Path, limit: int | None) -> tuple[list[ChartScore], int, float]:
    """Every page read and scored: (the true charts' scores, false charts (found, matching none), seconds)."""
    import pymupdf
    pages = load_truth(folder)
    if limit:
        pages = dict(list(pages.items())[:limit])
    scores: list[ChartScore] = []
    false_charts, total = 0, 0.0
    documents: dict[str, object] = {}
    for (file, number), truths in pages.items():
        document = documents.setdefault(file, pymupdf.open(folder / file))
        started = time.perf_counter()
        found = charts_on(document[number - 1])
        seconds = time.perf_counter() - started
        total += seconds
        matched = match_charts(truths, found)
        unmatched = [chart for chart in found if all(chart is not m for m in matched)]
        false_charts += len(unmatched)
        for truth, chart in zip(truths, matched):
            scores.append(score_chart(truth, chart, seconds))
            scores[-1].unmatched = unmatched
    for document in documents.values():
        document.close()
    return scores, false_charts, total


def generated_summary(scores: list[ChartScore], false_charts: int, seconds: float) -> dict:
    groups = tallies(scores)
    overall = Tally()
    for score in scores:
        overall.add_chart(score, score.outcomes, len(score.false_values))
    pages = len(overall.pages)
    printed, axis = groups["value"].get("printed", Tally()), groups["value"].get("axis", Tally())
    return {"pages": pages, **overall.as_dict(), "false_charts": false_charts,
            "printed_accuracy": _share(printed.values_right, printed.values),
            "axis_accuracy": _share(axis.values_right, axis.values),
            "pages_per_s": round(pages / seconds, 2) if seconds else None,
            **{f"by_{name}": {key: tally.as_dict() for key, tally in sorted(group.items())}
               for name, group in groups.items()},
            "per_chart": [_chart_row(score) for score in scores]}


def _chart_row(score: ChartScore) -> dict:
    t = score.truth
    return {"file": t["file"], "page": t["page"], "variant": t["variant"], "tool": t["tool"],
            "values": len(score.outcomes), "right": sum(o.right for o in score.outcomes),
            "found": score.found is not None, "false": len(score.false_values)}


# --- --show -------------------------------------------------------------------------------------------------------

def show(scores: list[ChartScore], which: str, folder: Path) -> None:
    """The charts of one kind (variant, tool, "all") not read perfectly: truth against what was found."""
    chosen = [s for s in scores if which in ("all", s.truth["kind"], s.truth["variant"], s.truth["tool"])]
    wrong = [s for s in chosen if not s.perfect]
    print(f"--- {which}: {len(wrong)} of {len(chosen)} charts not read perfectly (files in {folder})")
    for score in wrong:
        print(_show_chart(score))


def _show_chart(score: ChartScore) -> str:
    t = score.truth
    printed = sum(v["labelled"] for v in t["values"])
    axis = f"axis {t['axis'][0]:g}..{t['axis'][1]:g}" if t["axis"] else "no axis"
    lines = [f"{t['file']} p{t['page']} · {t['kind']} ({t['variant']}, {t['tool']}, {printed}/{len(t['values'])} "
             f"printed, {axis}, unit {t['unit'] or '–'}) · \"{t['title']}\" bbox {_box(t['bbox'])}"]
    found = score.found
    if found is None:
        others = "; ".join(f"{c.kind} bbox {_box(c.bbox)} \"{c.title[:40]}\"" for c in score.unmatched)
        where = f"on the page, matching no chart: {others}" if others else "nothing else on the page"
        lines.append(f"  NOT FOUND ({where})")
        return "\n".join(lines)
    right = sum(o.right for o in score.outcomes)
    lines.append(f"  found: {found.kind}, {len(found.series)} series × {len(found.categories)} categories, "
                 f"{len(found.values)} values, bbox {_box(found.bbox)}; {right}/{len(score.outcomes)} right"
                 + ("" if found.kind == t["kind"] else f"  [KIND {found.kind!r} ≠ {t['kind']!r}]"))
    missed = [o for o in score.outcomes if not o.right]
    for o in missed[:SHOW_LINES]:
        v = o.truth
        cell = v["category"] if len(t["series"]) == 1 else f"{v['category']} · {v['series']}"
        lines.append(f"  ✗ {cell:<38} truth {v['value']:<10g} {'printed' if v['labelled'] else 'axis':<7} "
                     f"{o.candidate}")
    if len(missed) > SHOW_LINES:
        lines.append(f"  … {len(missed) - SHOW_LINES} more missed")
    for v in score.false_values[:SHOW_LINES]:
        lines.append(f"  + false: {v.category or '∅'} · {v.series or '∅'} = {_number_text(v)}")
    if len(score.false_values) > SHOW_LINES:
        lines.append(f"  … {len(score.false_values) - SHOW_LINES} more false values")
    return "\n".join(lines)


def _box(box) -> str:
    return "[" + ", ".join(f"{v:.0f}" for v in box) + "]"


# --- the real set -------------------------------------------------------------------------------------------------

def read_real(path: Path) -> dict:
    """The hand-labelled real charts' values: right ones overall, printed and not, and per document."""
    if not path.is_file():
        return {"skipped": f"{path} not there"}
    import pymupdf
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_page: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for line in lines:
        by_page[(line["doc"], int(line["page"]))].append(line)
    per_doc: dict[str, dict] = defaultdict(lambda: {"values": 0, "right": 0})
    missing, seconds, right_printed, right_estimated = set(), 0.0, 0, 0
    for (doc, number), wanted in sorted(by_page.items()):
        if not (SHARED / doc).is_file():
            missing.add(doc)
            continue
        with pymupdf.open(SHARED / doc) as document:
            started = time.perf_counter()
            found = [v for chart in charts_on(document[number - 1]) for v in chart.values]
            seconds += time.perf_counter() - started
        for line in wanted:
            right = any(_real_right(line, v) for v in found)
            per_doc[doc]["values"] += 1
            per_doc[doc]["right"] += right
            right_printed += right and bool(line.get("printed"))
            right_estimated += right and not line.get("printed")
    scored = [line for line in lines if line["doc"] not in missing]
    printed = sum(bool(line.get("printed")) for line in scored)
    pages = len({(line["doc"], int(line["page"])) for line in scored})
    return {"values": len(scored), "right": right_printed + right_estimated,
            "right_share": _share(right_printed + right_estimated, len(scored)),
            "printed": printed, "printed_right": right_printed, "printed_share": _share(right_printed, printed),
            "not_printed": len(scored) - printed, "not_printed_right": right_estimated,
            "docs": len(per_doc), "pages": pages, "pages_per_s": round(pages / seconds, 2) if seconds else None,
            "missing_docs": sorted(missing),
            "per_doc": {doc: {**tally, "right_share": _share(tally["right"], tally["values"])}
                        for doc, tally in sorted(per_doc.items())}}


def _real_right(line: dict, value: ChartValue) -> bool:
    if normalise(value.category) != normalise(str(line["category"])):
        return False
    want, got = normalise(str(line.get("series") or "")), normalise(value.series)
    if want and got and want not in got and got not in want:
        return False
    target = float(line["value"])
    limit = REAL_PRINTED_TOLERANCE if line.get("printed") else max(REAL_PRINTED_TOLERANCE,
                                                                   REAL_ESTIMATED_SHARE * abs(target))
    return abs(value.number - target) <= limit


# --- the stage -----------------------------------------------------------------------------------------------------

STAGE_DOCUMENTS = ("05-03-18-political-release.pdf", "PG_2020.03.09_US-Germany_FINAL.pdf",
                   "PIP_Seniors-and-Tech-Use_040314.pdf", "BESTBUY_2023_10K.pdf", "2312.10997v5.pdf", "STEPBACK.pdf",
                   "ADI_2009.pdf")  # chart-heavy reports, a 10-K and two papers


def stage_speed() -> dict:
    """The charts stage as the app runs it (its worker processes, the store) over STAGE_DOCUMENTS, the other
    enrichment stages off: pages per second of the stage's own wall time, and the charts it stored."""
    import dataclasses

    from docqa_desktop.service import Service
    from docqa_desktop.settings import Settings
    with tempfile.TemporaryDirectory(prefix="docqa-charts-stage-") as tmp:
        library = Path(tmp) / "library"
        library.mkdir()
        for name in STAGE_DOCUMENTS:
            shutil.copy(SHARED / "corpus" / name, library / name)
        settings = Settings.load(Path(tmp) / "home")
        settings = dataclasses.replace(settings, index=dataclasses.replace(
            settings.index, layout=False, dense=False, ocr=False, tables=False))
        ticks: list[tuple[float, int]] = []

        def progress(p) -> None:
            if p.phase == "charts":
                ticks.append((time.monotonic(), p.done))

        with Service(settings) as service:
            service.library.index([str(library)], progress)
            charts = service.resources.db.cursor().execute(
                "SELECT count(*) FROM page_tables WHERE chart <> ''").fetchone()[0]
    seconds, pages = ticks[-1][0] - ticks[0][0], ticks[-1][1]
    return {"documents": len(STAGE_DOCUMENTS), "pages": pages, "seconds": round(seconds, 2), "charts": charts,
            "pages_per_s": round(pages / seconds, 2) if seconds else None}


# --- main ---------------------------------------------------------------------------------------------------------

def generated_folder(args) -> tuple[Path, bool]:
    """The generated set's folder (made there when it holds no truth.jsonl) and whether it is a temporary one."""
    if args.generated:
        folder = args.generated
        if not (folder / "truth.jsonl").is_file():
            make_charts.generate(folder, args.count, args.seed)
        return folder, False
    folder = Path(tempfile.mkdtemp(prefix="docqa-charts-"))
    make_charts.generate(folder, args.count, args.seed)
    return folder, True


def _line(result: dict) -> str:
    g = result["generated"]
    pct = lambda v: "–" if v is None else f"{100 * v:.1f}%"  # noqa: E731
    text = (f"generated: {g['charts_found']}/{g['charts']} charts found, {g['values_right']}/{g['values']} values "
            f"right; printed {pct(g['printed_accuracy'])} (target 95%), axis-read {pct(g['axis_accuracy'])} "
            f"(target 90%); {g['false_values']} false values, {g['false_charts']} false charts; "
            f"{g['pages_per_s']} pages/s read (the reader alone)")
    stage = result["stage"]
    if "skipped" not in stage:
        text += (f"\nstage: {stage['pages']} pages of {stage['documents']} documents in {stage['seconds']} s, "
                 f"{stage['pages_per_s']} pages/s (target 5), {stage['charts']} charts")
    real = result["real"]
    if "skipped" in real:
        return text + f"\nreal: skipped ({real['skipped']})"
    return text + (f"\nreal: {real['right']}/{real['values']} values right ({pct(real['right_share'])}; printed "
                   f"{real['printed_right']}/{real['printed']}) in {real['docs']} documents")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generated", type=Path, metavar="DIR",
                    help="the generated set's folder, made there when it has no truth.jsonl (default: a temporary one)")
    ap.add_argument("--count", type=int, default=320, help="charts to generate")
    ap.add_argument("--seed", type=int, default=make_charts.SEED)
    ap.add_argument("--real", type=Path, default=REAL, help="hand-labelled real chart values (skipped if absent)")
    ap.add_argument("--out", help="result file (default benchmarks/results/charts.json; with --limit "
                                  "benchmarks/out/charts.json)")
    ap.add_argument("--limit", type=int, help="only the first N generated pages")
    ap.add_argument("--show", metavar="KIND", help='print the charts of this kind, variant or tool ("all") that were '
                                                   "not read perfectly: truth against found")
    ap.add_argument("--stage", action="store_true", help="also time the charts stage over STAGE_DOCUMENTS (a minute)")
    args = ap.parse_args()
    folder, temporary = generated_folder(args)
    try:
        scores, false_charts, seconds = read_generated(folder, args.limit)
        if args.show:
            show(scores, args.show, folder)
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)
    truths = [score.truth for score in scores]
    result = {"environment": _common.environment(),
              "generated_set": {"folder": None if temporary else str(folder), "seed": args.seed,
                                "count": args.count, "limit": args.limit,
                                "files": len({t["file"] for t in truths})},
              "targets": TARGETS,
              "generated": generated_summary(scores, false_charts, seconds),
              "real": read_real(args.real),
              "stage": stage_speed() if args.stage else {"skipped": "--stage not given"}}
    default = QUICK_RESULT if args.limit else _common.RESULTS / "charts.json"
    path = _common.write_json(result, args.out or str(default), default.name)
    print(f"{_line(result)}\nwritten to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
