"""Vector PDF charts from random data, with the numbers they draw: benchmarks/charts.py's generated set (issue 55).

    .venv/bin/python benchmarks/charts/make_charts.py [--out DIR] [--count 320] [--seed 55]

Writes PDFs of one to three pages, one or two charts a page, into DIR (default: a fresh temporary folder; never the
repository) and DIR/truth.jsonl, a line a chart:

    {"file", "page" (1-based), "bbox" [x0, y0, x1, y1] (PDF points, origin top-left: the marks, their labels, the
     axes, the legend; the title lines and the notes are outside it), "kind" (index/charts.py's), "variant" (how it
     was drawn: vbar, grouped_h, diverging_stacked …), "title", "subtitle", "notes", "unit", "series", "categories",
     "values": [{"series", "category", "value", "labelled"}], "axis": [lo, hi] (value axis; null for pies),
     "value_axis_printed", "tool" ("matplotlib" | "reportlab"), "horizontal"}

A printed value's "value" is the number as printed (rounded to 0 or 1 decimals, parsed back from the label); an
unprinted one's is the number drawn (read it off the axis). A single series is named by the chart's title. Charts are
drawn by matplotlib (pdf backend, TrueType fonts so text is extractable) and by reportlab.graphics.charts
(benchmarks/requirements-charts.txt); a page is one tool's.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE_W, PAGE_H = 612.0, 792.0  # US letter, points
MARGIN_X = 60.0
SEED = 55

BAR, STACKED, PIE, LINE, DOT = "bar chart", "stacked bar chart", "pie chart", "line chart", "dot plot"
# variant -> (kind, horizontal)
VARIANTS = {
    "vbar": (BAR, False), "hbar": (BAR, True), "grouped_v": (BAR, False), "grouped_h": (BAR, True),
    "stacked_v": (STACKED, False), "stacked_h": (STACKED, True), "diverging_v": (BAR, False),
    "diverging_h": (BAR, True), "diverging_stacked": (STACKED, True), "dot": (DOT, True), "line": (LINE, False),
    "pie": (PIE, False), "donut": (PIE, False),
}
TOOLS = ("matplotlib", "reportlab")
LABELLED_SHARE = 0.66  # some are turned off again (bars too thin, 3+ lines): about 60% of charts end labelled

# well apart from each other: a reader tells the series by their fill
PALETTE = ["#1f4e79", "#e69f00", "#56b4e9", "#009e73", "#cc79a7", "#d55e00", "#7f7f7f", "#8c564b", "#bcbd22",
           "#9467bd", "#332288"]

# category pools: realistic words, some with digits and dashes (a reader must not take "18-29" for a value)
COUNTRIES = ["Germany", "France", "United Kingdom", "Italy", "Spain", "Poland", "Sweden", "Netherlands", "Greece",
             "Hungary", "Japan", "South Korea", "India", "Brazil", "Mexico", "Canada", "Australia", "Nigeria",
             "Kenya", "South Africa", "Israel", "Turkey", "Indonesia", "Argentina"]
AGES = ["Ages 18-24", "25-34", "35-44", "45-54", "55-64", "65+"]
AGE_GROUPS = ["18-29", "30-49", "50-64", "65+"]
PRODUCTS = ["Laptops", "Tablets", "Smartphones", "Headphones", "Smartwatches", "Cameras", "Printers", "Monitors",
            "Routers", "Speakers", "Keyboards", "E-readers", "Game consoles", "Drones", "Projectors"]
SECTORS = ["Health care", "Education", "Retail", "Manufacturing", "Finance", "Energy", "Transport", "Agriculture",
           "Construction", "Tourism", "Media", "Public sector"]
STATES = ["California", "Texas", "Florida", "New York", "Ohio", "Georgia", "Michigan", "Arizona", "Oregon",
          "Virginia", "Colorado", "Nevada", "Iowa", "Maine"]
EDUCATION = ["HS or less", "Some college", "College grad", "Postgrad"]
INCOME = ["Under $30K", "$30K-$74,999", "$75K-$149,999", "$150K+"]
YEARS = [str(y) for y in range(2008, 2025)]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
CATEGORY_POOLS = {"country": COUNTRIES, "age": AGES, "age group": AGE_GROUPS, "product": PRODUCTS,
                  "sector": SECTORS, "state": STATES, "education": EDUCATION, "income": INCOME}
ORDERED_POOLS = {"year": YEARS, "month": MONTHS}  # line charts run along time

SERIES_POOLS = [["Democrats", "Republicans", "Independents", "Other party", "No party"],
                ["Men", "Women"],
                ["Online", "In store", "By phone", "By mail", "Mobile app"],
                ["North", "South", "East", "West", "Central"],
                ["Very satisfied", "Somewhat satisfied", "Neutral", "Somewhat dissatisfied", "Very dissatisfied"],
                ["Urban", "Suburban", "Rural"],
                ["Full-time", "Part-time", "Self-employed", "Unemployed", "Retired"],
                ["Plan A", "Plan B", "Plan C", "Plan D", "Plan E"]]
YEAR_SERIES = ["2019", "2021", "2023"]  # dot plots: one year a series (never with year categories)
DIVERGING_SERIES = [["Unfavorable", "Favorable"],
                    ["Strongly oppose", "Somewhat oppose", "Somewhat favor", "Strongly favor"],
                    ["Worse", "Better"]]

MEASURES = {
    "%": ["Share of adults who shop online", "Support for a four-day work week", "Approval of the government",
          "Households with broadband at home", "Share who trust the news media", "Adults who own a smartphone",
          "Share of workers who telework"],
    "$": ["Median household spending", "Average price paid", "Revenue per customer", "Average monthly rent"],
    "$ M": ["Revenue", "Operating costs", "Research spending", "Net sales"],
    "": ["New stores opened", "Patents filed", "Visitors per day", "Trains per week", "Complaints received"],
}
CHANGE_MEASURES = {"%": "Change in sales from the previous year", "$ M": "Operating profit",
                   "": "Net change in jobs (thousands)"}
SUBTITLES = {"%": ["% of adults who say so", "% of respondents", "Percent, 2023"],
             "$": ["U.S. dollars, 2023", "In U.S. dollars", "Dollars per household"],
             "$ M": ["In $ millions", "$ millions, fiscal year 2023"],
             "": ["Number, 2023", "Counts per year", "Totals"]}
SOURCES = ["Source: Survey of {n:,} adults conducted March 3-15, 2023.", "Source: Company annual reports, {y}.",
           "Note: Figures may not add to 100% due to rounding. Source: National statistics office, {y}.",
           "Source: Analysis of {n:,} records, {y}.", "Note: Respondents who did not give an answer not shown."]


@dataclass
class ChartSpec:
    """One chart to draw, and the numbers it draws."""
    variant: str
    tool: str
    title: str
    subtitle: str
    notes: str
    unit: str  # "%", "$", "$ M", ""
    decimals: int  # of its printed labels
    series: list[str]
    categories: list[str]
    data: list[list[float]]  # data[series][category], as drawn (negative: left of / below zero)
    labelled: bool
    label_min: float = 0.0  # a stacked segment shorter than this gets no label (it would not fit)
    axis: tuple[float, float, float] | None = None  # lo, hi, step of the value axis; None for pies
    value_axis_printed: bool = True
    rotation: int = 0  # of the category tick labels (bars up and lines)
    gridlines: bool = False
    names_beside: bool = True  # pies: category names beside the wedges (else a legend)
    colors: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return VARIANTS[self.variant][0]

    @property
    def horizontal(self) -> bool:
        return VARIANTS[self.variant][1]

    @property
    def stacked(self) -> bool:
        return self.kind == STACKED

    @property
    def legend(self) -> bool:
        return len(self.series) > 1 or (self.kind == PIE and not self.names_beside)

    def printed(self, s: int, c: int) -> str | None:
        """The label printed for data[s][c], or None."""
        value = self.data[s][c]
        if not self.labelled or abs(value) < self.label_min:
            return None
        return format_value(value, self.unit, self.decimals)

    def tick(self, value: float, unicode_minus: bool = False) -> str:
        """A value axis tick label: as the labels print, with the step's decimals."""
        step = self.axis[2] if self.axis else 1.0
        decimals = 0 if float(step).is_integer() else 1
        text = format_value(value, self.unit, decimals)
        return text.replace("-", "\u2212", 1) if unicode_minus and value < 0 else text


# --- numbers ----------------------------------------------------------------------------------------------------

def format_value(value: float, unit: str, decimals: int) -> str:
    """As a report prints it: "34%", "-12.5%", "$1,234", "12.5" ($ M), "1,020"."""
    sign = "-" if value < 0 and round(abs(value), decimals) != 0 else ""
    number = f"{abs(value):,.{decimals}f}"
    if unit == "%":
        return f"{sign}{number}%"
    if unit == "$":
        return f"{sign}${number}"
    return f"{sign}{number}"


def parse_number(text: str) -> float:
    """The number a label prints ("−$1,234" → -1234, "34%" → 34)."""
    cleaned = text.replace("\u2212", "-").replace("$", "").replace(",", "").replace("%", "").strip()
    return float(cleaned)


def nice_axis(lo: float, hi: float, ticks: int = 5) -> tuple[float, float, float]:
    """An axis a person would draw: a 1/2/2.5/5 × 10^k step, zero included, room past the longest marks."""
    lo, hi = min(lo, 0.0) * 1.08, max(hi, 0.0) * 1.08
    raw = (hi - lo) / ticks
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    return math.floor(lo / step) * step + 0.0, math.ceil(hi / step) * step + 0.0, step


# --- random charts ------------------------------------------------------------------------------------------------

def random_spec(rng: random.Random, variant: str, tool: str) -> ChartSpec:
    kind, horizontal = VARIANTS[variant]
    unit = _unit_for(rng, variant)
    decimals = _decimals_for(rng, unit)
    labelled = rng.random() < (0.8 if kind == PIE else LABELLED_SHARE)
    series, categories, dimension = _names_for(rng, variant, labelled)
    if variant == "line" and len(series) > 2:
        labelled = False  # labels on 3+ crossing lines overprint each other
    if kind == PIE and unit != "%":
        labelled = True  # a wedge's share is readable without a label, an amount is not
    data = _data_for(rng, variant, unit, len(series), len(categories), labelled)
    if labelled and kind == BAR and not _labels_fit(data, unit, decimals, horizontal):
        labelled = False  # a report leaves labels off bars too thin to carry them
    title = _title_for(rng, variant, unit, dimension)
    spec = ChartSpec(variant=variant, tool=tool, title=title, subtitle="", notes="", unit=unit, decimals=decimals,
                     series=series or [title], categories=categories, data=data, labelled=labelled)
    if unit == "$ M" or rng.random() < 0.5:  # "$ M" is printed nowhere else
        spec.subtitle = rng.choice(SUBTITLES[unit])
    if rng.random() < 0.5:
        spec.notes = rng.choice(SOURCES).format(n=rng.randint(800, 12000), y=rng.randint(2019, 2024))
    spec.colors = _colors_for(rng, variant, len(spec.series), len(categories))
    if kind == PIE:
        spec.names_beside = rng.random() < 0.6
        return spec
    spec.axis = _axis_for(spec)
    if spec.stacked and labelled:
        spec.label_min = 0.06 * (spec.axis[1] - spec.axis[0])
    spec.value_axis_printed = not labelled or rng.random() < 0.5
    spec.gridlines = rng.random() < 0.4
    if not horizontal and (_names_collide(categories) or rng.random() < 0.2):
        spec.rotation = rng.choice((45, 90))
    return spec


def _labels_fit(data: list[list[float]], unit: str, decimals: int, horizontal: bool) -> bool:
    """Whether each bar's label fits its bar: across it (bars up: about 4.6 points a character at 7.5 points, a
    plot 430 wide, a bar 0.8 of its slot) or its text height (bars across, a plot at least 220 high)."""
    bars = len(data) * len(data[0])
    if horizontal:
        return 220 / bars >= 8.5
    widest = max(len(format_value(v, unit, decimals)) for row in data for v in row)
    return widest * 4.6 <= 0.8 * 430 / bars


def _names_collide(categories: list[str]) -> bool:
    """Whether the category names, level under a plot about 430 points wide, would run into each other (8-point
    text: about 5 points a character)."""
    return max(map(len, categories)) * 5.0 > 0.9 * 430 / len(categories)


def _unit_for(rng: random.Random, variant: str) -> str:
    if variant in ("pie", "donut"):
        return "%" if rng.random() < 0.8 else "$ M"
    if variant.startswith("stacked") or variant == "diverging_stacked":
        return "%" if rng.random() < 0.75 else rng.choice(["$ M", ""])
    if variant.startswith("diverging"):
        return rng.choice(["%", "$ M", ""])
    return rng.choices(["%", "$", "$ M", ""], weights=[4, 2, 2, 2])[0]


def _decimals_for(rng: random.Random, unit: str) -> int:
    return {"%": int(rng.random() < 0.25), "$": 0, "$ M": 1, "": int(rng.random() < 0.3)}[unit]


def _names_for(rng: random.Random, variant: str, labelled: bool) -> tuple[list[str], list[str], str]:
    """(series, categories, what the categories are); series [] for one series (the title names it)."""
    kind = VARIANTS[variant][0]
    n_series = {"grouped_v": rng.randint(2, 5), "grouped_h": rng.randint(2, 5), "stacked_v": rng.randint(2, 5),
                "stacked_h": rng.randint(2, 5), "diverging_v": rng.choice((1, 1, 2)),
                "diverging_h": rng.choice((1, 1, 2)), "dot": rng.randint(1, 3), "line": rng.randint(1, 5)
                }.get(variant, 1)
    if variant == "diverging_stacked":
        series = list(rng.choice(DIVERGING_SERIES))
    else:
        series = list(rng.choice(SERIES_POOLS)[:n_series]) if n_series > 1 else []
        if 1 < n_series and len(series) < n_series:
            series = list(rng.choice([p for p in SERIES_POOLS if len(p) >= n_series])[:n_series])
    if variant == "line":
        dimension = rng.choice(list(ORDERED_POOLS))
        pool = ORDERED_POOLS[dimension]
        n = rng.randint(4, min(15, len(pool)))
        start = rng.randint(0, len(pool) - n)
        return series, pool[start:start + n], dimension
    if variant == "dot" and n_series > 1 and rng.random() < 0.4:
        series = YEAR_SERIES[:n_series]
    most = {PIE: 7, STACKED: 10, DOT: 8 if labelled else 12}.get(kind, 15)  # a dot's labels need its row's room
    if len(series) > 1 and kind == BAR:
        most = min(most, 40 // len(series))
    dimension = rng.choice([d for d, pool in CATEGORY_POOLS.items() if len(pool) >= 3])
    pool = CATEGORY_POOLS[dimension]
    n = rng.randint(3, min(most, len(pool)))
    categories = pool[:n] if dimension in ("age", "age group", "education", "income") else rng.sample(pool, n)
    return series, categories, dimension


def _data_for(rng: random.Random, variant: str, unit: str, n_series: int, n_cat: int,
              labelled: bool) -> list[list[float]]:
    n_series = max(n_series, 1)
    lo, hi = {"%": (3, 95), "$": (200, 9500), "$ M": (0.5, 300), "": (10, 950)}[unit]
    if variant in ("pie", "donut"):
        rows = [_shares(rng, n_cat, 100.0 if unit == "%" else rng.uniform(50, 900), floor=0.4)]
    elif variant in ("stacked_v", "stacked_h"):
        total = 100.0 if unit == "%" else hi * 0.9
        rows = _transpose([_shares(rng, n_series, total * rng.uniform(0.85, 1.0)) for _ in range(n_cat)])
    elif variant == "diverging_stacked":
        half = n_series // 2
        per_category = [[-v for v in _shares(rng, half, rng.uniform(10, 60))] + _shares(rng, half, rng.uniform(10, 60))
                        for _ in range(n_cat)]
        rows = _transpose(per_category)
    elif variant.startswith("diverging"):
        reach = {"%": 40, "$ M": 60, "": 200}[unit]
        rows = [[_away_from_zero(rng, reach) for _ in range(n_cat)] for _ in range(n_series)]
    elif variant == "line":
        rows = _lines(rng, n_series, n_cat, lo, hi, labelled)
    elif variant == "dot":
        rows = _dots(rng, n_series, n_cat, lo, hi)
    else:
        rows = [[rng.uniform(lo, hi) for _ in range(n_cat)] for _ in range(n_series)]
    return [[round(v, 2) for v in row] for row in rows]


def _shares(rng: random.Random, n: int, total: float, floor: float = 0.15) -> list[float]:
    """n parts of total, the smallest at least floor times the largest (a pie's wedges stay wide enough for their
    label)."""
    weights = [rng.uniform(floor, 1.0) for _ in range(n)]
    return [total * w / sum(weights) for w in weights]


def _transpose(rows: list[list[float]]) -> list[list[float]]:
    return [list(column) for column in zip(*rows)]


def _away_from_zero(rng: random.Random, reach: float) -> float:
    """A diverging bar: either sign, never so short its label or end is lost in the zero line."""
    return rng.choice((-1, 1)) * rng.uniform(0.08 * reach, reach)


def _lines(rng: random.Random, n_series: int, n_cat: int, lo: float, hi: float, labelled: bool) -> list[list[float]]:
    span = hi - lo
    if labelled and n_series == 2:  # one line above the other all along, so their labels never collide
        upper = [rng.uniform(lo + 0.45 * span, hi)]
        for _ in range(n_cat - 1):
            upper.append(min(hi, max(lo + 0.45 * span, upper[-1] + rng.uniform(-0.08, 0.08) * span)))
        return [upper, [v - rng.uniform(0.18, 0.35) * span for v in upper]]
    rows = []
    for _ in range(n_series):
        row = [rng.uniform(lo + 0.2 * span, hi - 0.2 * span)]
        for _ in range(n_cat - 1):
            row.append(min(hi, max(lo, row[-1] + rng.uniform(-0.1, 0.1) * span)))
        rows.append(row)
    return rows


def _dots(rng: random.Random, n_series: int, n_cat: int, lo: float, hi: float) -> list[list[float]]:
    """A dot a series on each row, at least a tenth of the range apart (their labels alternate above and below)."""
    columns = []
    for _ in range(n_cat):
        while True:
            values = sorted(rng.uniform(lo, hi) for _ in range(n_series))
            if all(b - a >= 0.1 * (hi - lo) for a, b in zip(values, values[1:])):
                break
        rng.shuffle(values)
        columns.append(values)
    return _transpose(columns)


def _axis_for(spec: ChartSpec) -> tuple[float, float, float]:
    if spec.stacked:
        highs = [sum(max(0.0, row[c]) for row in spec.data) for c in range(len(spec.categories))]
        lows = [sum(min(0.0, row[c]) for row in spec.data) for c in range(len(spec.categories))]
        lo, hi = min(lows), max(highs)
        if spec.unit == "%" and hi > 90 and lo == 0:
            return 0.0, 100.0, 20.0 if len(spec.categories) % 2 else 25.0
    else:
        flat = [v for row in spec.data for v in row]
        lo, hi = min(flat), max(flat)
    lo, hi, step = nice_axis(lo, hi)
    if spec.unit == "%" and hi > 100 >= max(max(row) for row in spec.data):
        hi = 100.0 if (100.0 - lo) / step == round((100.0 - lo) / step) else hi  # shares stop at 100%
    return lo, hi, step


def _title_for(rng: random.Random, variant: str, unit: str, dimension: str) -> str:
    measure = CHANGE_MEASURES[unit] if variant.startswith("diverging") and variant != "diverging_stacked" \
        else rng.choice(MEASURES[unit])
    if variant == "diverging_stacked":
        measure = rng.choice(["Views of the new trade agreement", "Opinion of the United Nations",
                              "Views of the economy", "Support for the building plan"])
    if variant == "line":
        return f"{measure}, {'by year' if dimension == 'year' else 'by month, 2023'}"
    return f"{measure}, by {dimension}"


def _colors_for(rng: random.Random, variant: str, n_series: int, n_cat: int) -> list[str]:
    start = rng.randrange(len(PALETTE))
    palette = PALETTE[start:] + PALETTE[:start]
    if variant == "diverging_stacked":  # reds left of zero, blues right
        return ["#c0504d", "#1f4e79"] if n_series == 2 else ["#c0504d", "#e8a09e", "#9fc5e8", "#1f4e79"]
    count = n_cat if VARIANTS[variant][0] == PIE else n_series
    return palette[:count]


# --- layout -------------------------------------------------------------------------------------------------------

TITLE, SUBTITLE, NOTE = "title", "subtitle", "note"  # the lines around a chart, each tool's styles keyed by them

@dataclass
class Slot:
    """A chart's place on its page (points, origin top-left): title lines, then the chart, then the notes."""
    spec: ChartSpec
    top: float
    bottom: float
    title_lines: list[str] = field(default_factory=list)

    @property
    def chart_top(self) -> float:
        return self.top + 16 * len(self.title_lines) + (14 if self.spec.subtitle else 0) + 6

    @property
    def chart_bottom(self) -> float:
        return self.bottom - (16 if self.spec.notes else 4)

    def chart_box(self) -> tuple[float, float, float, float]:
        return MARGIN_X, self.chart_top, PAGE_W - MARGIN_X, self.chart_bottom

    def text_lines(self) -> list[tuple[float, float, str, str]]:
        """(x, baseline y, text, TITLE | SUBTITLE | NOTE) of the lines around the chart: both tools set them here."""
        lines, y = [], self.top
        for line in self.title_lines:
            y += 16
            lines.append((MARGIN_X, y, line, TITLE))
        if self.spec.subtitle:
            y += 14
            lines.append((MARGIN_X, y, self.spec.subtitle, SUBTITLE))
        if self.spec.notes:
            lines.append((MARGIN_X, self.bottom - 3, self.spec.notes, NOTE))
        return lines


def page_slots(specs: list[ChartSpec]) -> list[Slot]:
    """One chart high on the page, or two one above the other."""
    if len(specs) == 1:
        spans = [(60.0, 470.0)]
    else:
        spans = [(50.0, 400.0), (420.0, 770.0)]
    return [Slot(spec, top, bottom, textwrap.wrap(spec.title, 72)) for spec, (top, bottom) in zip(specs, spans)]


def body_paragraph(rng: random.Random, spec: ChartSpec) -> list[str]:
    """Running text under a lone chart, with numbers of its own (a reader must not take them for the chart's)."""
    n = rng.randint(1200, 9800)
    year = rng.randint(2015, 2024)
    text = (f"The survey was conducted among {n:,} adults between March {rng.randint(1, 9)} and "
            f"{rng.randint(10, 28)}, {year}. About {rng.randint(10, 90)}% of respondents answered online, the rest "
            f"by phone; the margin of sampling error is plus or minus {rng.randint(15, 40) / 10:.1f} percentage "
            f"points. {spec.categories[0]} is shown first because it had the most respondents. Results for other "
            f"groups are in the appendix, Table {rng.randint(2, 14)}.")
    return textwrap.wrap(text, 88)


# --- matplotlib ---------------------------------------------------------------------------------------------------

def write_matplotlib(path: Path, pages) -> list[list[tuple[float, float, float, float]]]:
    """Each page one matplotlib figure the size of the page, saved by the pdf backend; the charts' boxes a page."""
    import matplotlib
    matplotlib.use("Agg")  # text measured with Agg at 72 dpi, so display units are points; saved by the pdf backend
    matplotlib.rcParams["pdf.fonttype"] = 42  # TrueType: the labels stay extractable text
    matplotlib.rcParams["text.parse_math"] = False  # "$30K-$74,999" is text, not TeX
    matplotlib.rcParams["font.size"] = 8
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages
    boxes = []
    with PdfPages(path, metadata={"Creator": "make_charts.py", "CreationDate": None}) as pdf:
        for slots, paragraph in pages:
            fig = plt.figure(figsize=(PAGE_W / 72, PAGE_H / 72), dpi=72)
            boxes.append([_mpl_slot(fig, slot) for slot in slots])
            for i, line in enumerate(paragraph):
                _mpl_text(fig, MARGIN_X, slots[-1].bottom + 30 + 13 * i, line, size=9.5)
            pdf.savefig(fig)
            plt.close(fig)
    return boxes


MPL_STYLES = {TITLE: {"size": 11, "weight": "bold"}, SUBTITLE: {"size": 9, "style": "italic", "color": "#555555"},
              NOTE: {"size": 7.5, "color": "#666666"}}


def _mpl_slot(fig, slot: Slot) -> tuple[float, float, float, float]:
    spec = slot.spec
    for x, y, text, role in slot.text_lines():
        _mpl_text(fig, x, y, text, **MPL_STYLES[role])
    box = slot.chart_box()
    if spec.kind == PIE:
        ax = fig.add_axes(_figure_fraction(_pie_square(spec, box)))
        _mpl_pie(ax, spec)
    else:
        ax = fig.add_axes(_figure_fraction(box))
        {DOT: _mpl_dots, LINE: _mpl_lines}.get(spec.kind, _mpl_bars)(ax, spec)
        _mpl_fit(fig, ax, box)
    tight = ax.get_tightbbox(fig.canvas.get_renderer())
    return tight.x0, PAGE_H - tight.y1, tight.x1, PAGE_H - tight.y0


def _mpl_text(fig, x: float, y: float, text: str, **style) -> None:
    """Text with its baseline at (x, y), page points from the top left."""
    fig.text(x / PAGE_W, 1 - y / PAGE_H, text, ha="left", va="baseline", **style)


def _figure_fraction(box: tuple[float, float, float, float]) -> list[float]:
    x0, y0, x1, y1 = box
    return [x0 / PAGE_W, 1 - y1 / PAGE_H, (x1 - x0) / PAGE_W, (y1 - y0) / PAGE_H]


def _pie_square(spec: ChartSpec, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """A pie's axes: a square, inset so the names beside it stay in the box, a legend to its right."""
    x0, y0, x1, y1 = box
    side = (y1 - y0) * 0.72
    left = x0 + (70 if spec.names_beside else 10)
    top = y0 + ((y1 - y0) - side) / 2
    return left, top, left + side, top + side


def _mpl_fit(fig, ax, box: tuple[float, float, float, float]) -> None:
    """Shrink the axes until they, their tick labels, value labels and legend fill the box."""
    renderer = fig.canvas.get_renderer()
    left_t, bottom_t, right_t, top_t = box[0], PAGE_H - box[3], box[2], PAGE_H - box[1]
    for _ in range(3):
        tight = ax.get_tightbbox(renderer)
        pos = ax.get_position()
        left = pos.x0 * PAGE_W + left_t - tight.x0
        bottom = pos.y0 * PAGE_H + bottom_t - tight.y0
        right = max(pos.x1 * PAGE_W - (tight.x1 - right_t), left + 60)
        top = max(pos.y1 * PAGE_H - (tight.y1 - top_t), bottom + 60)
        ax.set_position([left / PAGE_W, bottom / PAGE_H, (right - left) / PAGE_W, (top - bottom) / PAGE_H])


def _mpl_bars(ax, spec: ChartSpec) -> None:
    """Bars up or across: side by side (grouped), end to end (stacked), either side of zero (diverging)."""
    import numpy as np
    n_series, n_cat = len(spec.series), len(spec.categories)
    slots = np.arange(n_cat)
    grouped = n_series > 1 and not spec.stacked
    width = 0.8 / n_series if grouped else 0.65
    ends_up, ends_down = np.zeros(n_cat), np.zeros(n_cat)
    draw = ax.barh if spec.horizontal else ax.bar
    for s, name in enumerate(spec.series):
        values = np.array(spec.data[s])
        where = slots - 0.4 + width * (s + 0.5) if grouped else slots
        base = np.where(values >= 0, ends_up, ends_down) if spec.stacked else 0.0
        bars = draw(where, values, width, base, color=spec.colors[s], label=name)
        if spec.stacked:
            ends_up, ends_down = ends_up + np.maximum(values, 0), ends_down + np.minimum(values, 0)
        if spec.labelled:
            texts = [spec.printed(s, c) or "" for c in range(n_cat)]
            if spec.stacked:
                ax.bar_label(bars, texts, label_type="center", fontsize=7.5, color=_ink_on(spec.colors[s]))
            else:
                ax.bar_label(bars, texts, padding=2, fontsize=7.5)
    _mpl_category_axis(ax, spec, slots)
    _mpl_value_axis(ax, spec)
    if spec.axis[0] < 0:
        (ax.axvline if spec.horizontal else ax.axhline)(0, color="#333333", lw=0.8)
    _mpl_legend(ax, spec)


def _mpl_dots(ax, spec: ChartSpec) -> None:
    """A row a category, a dot a series on it; labels alternate above and below the dots of a row."""
    import numpy as np
    rows = np.arange(len(spec.categories))
    lo, hi, _ = spec.axis
    ax.hlines(rows, lo, hi, color="#cccccc", lw=0.6)
    for s, name in enumerate(spec.series):
        ax.plot(spec.data[s], rows, "o", ms=6.5, color=spec.colors[s], label=name, linestyle="none")
    for c in range(len(spec.categories)):
        order = sorted(range(len(spec.series)), key=lambda s: spec.data[s][c])
        for rank, s in enumerate(order):
            text = spec.printed(s, c)
            if text:
                above = rank % 2 == 0
                ax.annotate(text, (spec.data[s][c], c), xytext=(0, 5 if above else -5), textcoords="offset points",
                            ha="center", va="bottom" if above else "top", fontsize=7.5, color=spec.colors[s])
    _mpl_category_axis(ax, spec, rows)
    _mpl_value_axis(ax, spec)
    _mpl_legend(ax, spec)


def _mpl_lines(ax, spec: ChartSpec) -> None:
    """A line with a marker a category; with labels (one or two lines, the first above), above or below each."""
    import numpy as np
    xs = np.arange(len(spec.categories))
    for s, name in enumerate(spec.series):
        ax.plot(xs, spec.data[s], marker="o", ms=4, lw=1.6, color=spec.colors[s], label=name)
        for c in range(len(xs)):
            text = spec.printed(s, c)
            if text:
                ax.annotate(text, (c, spec.data[s][c]), xytext=(0, 5 if s == 0 else -5), textcoords="offset points",
                            ha="center", va="bottom" if s == 0 else "top", fontsize=7.5, color=spec.colors[s])
    ax.set_xlim(-0.5, len(xs) - 0.5)
    _mpl_category_axis(ax, spec, xs)
    _mpl_value_axis(ax, spec)
    _mpl_legend(ax, spec)


def _mpl_pie(ax, spec: ChartSpec) -> None:
    """Wedges clockwise from the top; the values printed inside them, the names beside them or in a legend."""
    texts = iter([spec.printed(0, c) or "" for c in range(len(spec.categories))])
    donut = spec.variant == "donut"
    drawn = ax.pie(spec.data[0], labels=spec.categories if spec.names_beside else None,
                   autopct=(lambda _share: next(texts)) if spec.labelled else None, startangle=90,
                   counterclock=False, colors=spec.colors, pctdistance=0.79 if donut else 0.64, labeldistance=1.08,
                   wedgeprops={"width": 0.42, "edgecolor": "white"} if donut else {"edgecolor": "white"},
                   textprops={"fontsize": 8})
    if spec.labelled:
        for text, color in zip(drawn[2], spec.colors):
            text.set_color(_ink_on(color))
    if not spec.names_beside:
        ax.legend(drawn[0], spec.categories, loc="center left", bbox_to_anchor=(1.05, 0.5), frameon=False,
                  fontsize=8)


def _mpl_category_axis(ax, spec: ChartSpec, positions) -> None:
    if spec.horizontal:
        ax.set_yticks(positions, spec.categories)
        ax.invert_yaxis()  # the first category on top, as read
        ax.tick_params(axis="y", length=0)
        return
    ax.set_xticks(positions, spec.categories)
    if spec.rotation:
        for label in ax.get_xticklabels():
            label.set(rotation=spec.rotation, ha="right", rotation_mode="anchor")


def _mpl_value_axis(ax, spec: ChartSpec) -> None:
    import numpy as np
    lo, hi, step = spec.axis
    ticks = np.arange(lo, hi + step / 2, step)
    (ax.set_xlim if spec.horizontal else ax.set_ylim)(lo, hi)
    axis = ax.xaxis if spec.horizontal else ax.yaxis
    axis.set_ticks(ticks, [spec.tick(t, unicode_minus=True) for t in ticks])  # matplotlib's own minus sign
    if spec.gridlines:
        ax.grid(axis="x" if spec.horizontal else "y", color="#dddddd", lw=0.6)
        ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    if not spec.value_axis_printed:
        axis.set_visible(False)
        ax.spines["bottom" if spec.horizontal else "left"].set_visible(False)


def _mpl_legend(ax, spec: ChartSpec) -> None:
    """Multi-series: a legend in rows above the plot (one series: none, the title names it)."""
    if not spec.legend:
        return
    widest = max(len(name) for name in spec.series) * 5 + 25
    columns = max(1, min(len(spec.series), int(400 // widest)))
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.02), ncol=columns, frameon=False, fontsize=8,
              handlelength=1.2, columnspacing=1.2)


def _ink_on(color: str) -> str:
    """Black or white text, whichever reads on the fill."""
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "white"


# --- reportlab ----------------------------------------------------------------------------------------------------

RL_FONT = "Helvetica"
RL_STYLES = {TITLE: ("Helvetica-Bold", 11), SUBTITLE: ("Helvetica-Oblique", 9, "#555555"), NOTE: (RL_FONT, 7.5, "#666666")}


def write_reportlab(path: Path, pages) -> list[list[tuple[float, float, float, float]]]:
    """Each page a canvas: titles as strings, each chart a reportlab.graphics Drawing."""
    from reportlab.pdfgen.canvas import Canvas
    canvas = Canvas(str(path), pagesize=(PAGE_W, PAGE_H), invariant=1)
    boxes = []
    for slots, paragraph in pages:
        boxes.append([_rl_slot(canvas, slot) for slot in slots])
        for i, line in enumerate(paragraph):
            _rl_text(canvas, MARGIN_X, slots[-1].bottom + 30 + 13 * i, line, RL_FONT, 9.5)
        canvas.showPage()
    canvas.save()
    return boxes


def _rl_slot(canvas, slot: Slot) -> tuple[float, float, float, float]:
    from reportlab.graphics import renderPDF
    spec = slot.spec
    for x, y, text, role in slot.text_lines():
        _rl_text(canvas, x, y, text, *RL_STYLES[role])
    x0, y0, x1, y1 = slot.chart_box()
    drawing = _rl_drawing(spec, x1 - x0, y1 - y0)
    renderPDF.draw(drawing, canvas, x0, PAGE_H - y1)
    bx0, by0, bx1, by1 = drawing.getBounds()
    return x0 + bx0, y1 - by1, x0 + bx1, y1 - by0


def _rl_text(canvas, x: float, y: float, text: str, font: str, size: float, color: str = "#000000") -> None:
    """Text with its baseline at (x, y), page points from the top left."""
    from reportlab.lib.colors import HexColor
    canvas.setFont(font, size)
    canvas.setFillColor(HexColor(color))
    canvas.drawString(x, PAGE_H - y, text)


def _rl_drawing(spec: ChartSpec, width: float, height: float):
    from reportlab.graphics.shapes import Drawing
    drawing = Drawing(width, height)
    if spec.kind == PIE:
        _rl_pie(drawing, spec, width, height)
        return drawing
    rows = _rl_legend_rows(spec, width) if spec.legend else 0
    top = 14 * rows + (12 if spec.labelled else 6)
    area = _rl_plot_area(spec, width, height, top)
    chart = {DOT: _rl_dots, LINE: _rl_lines}.get(spec.kind, _rl_bars)(spec, *area)
    drawing.add(chart)
    if rows:
        drawing.add(_rl_legend(spec, [spec.series[i] for i in range(len(spec.series))], area[0], height - 2, rows))
    return drawing


def _rl_plot_area(spec: ChartSpec, width: float, height: float, top: float) -> tuple[float, float, float, float]:
    """(x, y, width, height) of the plot inside the drawing, leaving room for tick, category and value labels."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    lo, hi, step = spec.axis
    ticks = [lo + i * step for i in range(round((hi - lo) / step) + 1)]
    tick_width = max(stringWidth(spec.tick(t), RL_FONT, 8) for t in ticks)
    category_width = max(stringWidth(c, RL_FONT, 8) for c in spec.categories)
    if spec.horizontal:
        left, bottom = category_width + 10, 16
        right = 40 if spec.labelled and not spec.stacked else 14
    else:
        left, right = tick_width + 10, 14
        bottom = 16 if not spec.rotation else category_width * math.sin(math.radians(spec.rotation)) + 14
    return left, bottom, width - left - right, height - bottom - top


def _rl_value_axis(axis, spec: ChartSpec) -> None:
    from reportlab.lib.colors import HexColor
    axis.valueMin, axis.valueMax, axis.valueStep = spec.axis
    axis.labelTextFormat = spec.tick
    axis.labels.fontName, axis.labels.fontSize = RL_FONT, 8
    axis.visible = 1 if spec.value_axis_printed else 0
    if spec.gridlines:
        axis.visibleGrid = 1
        axis.gridStrokeColor, axis.gridStrokeWidth = HexColor("#dddddd"), 0.5


def _rl_category_axis(axis, spec: ChartSpec) -> None:
    axis.categoryNames = list(spec.categories)
    axis.labels.fontName, axis.labels.fontSize = RL_FONT, 8
    axis.visibleTicks = 0
    if spec.horizontal:
        axis.reverseDirection = 1  # the first category on top, as read
        axis.labels.boxAnchor, axis.labels.dx = "e", -4
    elif spec.rotation:
        axis.labels.angle = spec.rotation
        axis.labels.boxAnchor, axis.labels.dy = ("ne" if spec.rotation == 45 else "e"), -4
    if spec.axis[0] < 0:
        axis.labelAxisMode = "low"  # names at the plot's edge, not on the zero line among the bars


def _rl_bars(spec: ChartSpec, x: float, y: float, width: float, height: float):
    from reportlab.graphics.charts.barcharts import HorizontalBarChart, VerticalBarChart
    from reportlab.lib.colors import HexColor
    chart = HorizontalBarChart() if spec.horizontal else VerticalBarChart()
    chart.x, chart.y, chart.width, chart.height = x, y, width, height
    chart.data = [tuple(row) for row in spec.data]
    _rl_category_axis(chart.categoryAxis, spec)
    _rl_value_axis(chart.valueAxis, spec)
    if spec.stacked:
        chart.categoryAxis.style = "stacked"
    chart.bars.strokeColor = None
    chart.barSpacing = 1
    for s, color in enumerate(spec.colors):
        chart.bars[s].fillColor = HexColor(color)
    if spec.labelled:
        chart.barLabelFormat = "values"
        chart.barLabelArray = [[spec.printed(s, c) or "" for c in range(len(spec.categories))]
                               for s in range(len(spec.series))]
        chart.barLabels.fontName, chart.barLabels.fontSize = RL_FONT, 7.5
        if spec.stacked:
            chart.barLabels.boxTarget = "mid"
            for s, color in enumerate(spec.colors):
                for c in range(len(spec.categories)):
                    chart.barLabels[(s, c)].fillColor = HexColor("#ffffff" if _ink_on(color) == "white" else "#000000")
        else:
            chart.barLabels.nudge = 7 if not spec.horizontal else 14
    return chart


def _rl_lines(spec: ChartSpec, x: float, y: float, width: float, height: float):
    from reportlab.graphics.charts.linecharts import HorizontalLineChart
    from reportlab.graphics.widgets.markers import makeMarker
    from reportlab.lib.colors import HexColor
    chart = HorizontalLineChart()
    chart.x, chart.y, chart.width, chart.height = x, y, width, height
    chart.data = [tuple(row) for row in spec.data]
    _rl_category_axis(chart.categoryAxis, spec)
    _rl_value_axis(chart.valueAxis, spec)
    chart.joinedLines = 1
    for s, color in enumerate(spec.colors):
        chart.lines[s].strokeColor, chart.lines[s].strokeWidth = HexColor(color), 1.5
        chart.lines[s].symbol = makeMarker("FilledCircle", size=4, fillColor=HexColor(color), strokeColor=None)
    if spec.labelled:
        _rl_point_labels(chart, spec, below=lambda s, c: s == 1)
    return chart


def _rl_dots(spec: ChartSpec, x: float, y: float, width: float, height: float):
    """A dot plot: reportlab's LinePlot with its lines off, a category a y step (names as the y axis's labels)."""
    from reportlab.graphics.charts.lineplots import LinePlot
    from reportlab.graphics.widgets.markers import makeMarker
    from reportlab.lib.colors import HexColor
    n = len(spec.categories)
    chart = LinePlot()
    chart.x, chart.y, chart.width, chart.height = x, y, width, height
    chart.data = [[(value, n - 1 - c) for c, value in enumerate(row)] for row in spec.data]
    chart.joinedLines = 0
    for s, color in enumerate(spec.colors):
        chart.lines[s].strokeColor = HexColor(color)
        chart.lines[s].symbol = makeMarker("FilledCircle", size=6.5, fillColor=HexColor(color), strokeColor=None)
    _rl_value_axis(chart.xValueAxis, spec)
    rows = chart.yValueAxis
    rows.valueMin, rows.valueMax, rows.valueSteps = -0.6, n - 0.4, list(range(n))
    rows.labelTextFormat = lambda v: spec.categories[n - 1 - int(round(v))]
    rows.labels.fontName, rows.labels.fontSize = RL_FONT, 8
    rows.visibleTicks = rows.visibleAxis = 0
    rows.visibleGrid, rows.gridStrokeColor, rows.gridStrokeWidth = 1, HexColor("#cccccc"), 0.6
    if spec.labelled:
        rank = {(s, c): sorted(range(len(spec.series)), key=lambda t: spec.data[t][c]).index(s)
                for s in range(len(spec.series)) for c in range(n)}
        _rl_point_labels(chart, spec, below=lambda s, c: rank[(s, c)] % 2 == 1)
    return chart


def _rl_point_labels(chart, spec: ChartSpec, below) -> None:
    """Each point's printed value above it, or below where below(s, c)."""
    from reportlab.lib.colors import HexColor
    chart.lineLabelFormat = "values"
    chart.lineLabelArray = [[spec.printed(s, c) or "" for c in range(len(spec.categories))]
                            for s in range(len(spec.series))]
    chart.lineLabelNudge = 7
    chart.lineLabels.fontName, chart.lineLabels.fontSize = RL_FONT, 7.5
    for s, color in enumerate(spec.colors):
        for c in range(len(spec.categories)):
            chart.lineLabels[(s, c)].fillColor = HexColor(color)
            if below(s, c):
                chart.lineLabels[(s, c)].dy = -16


def _rl_pie(drawing, spec: ChartSpec, width: float, height: float) -> None:
    """Wedges clockwise from the top; "name value" beside them, or the value inside and the names in a legend."""
    from reportlab.graphics.charts.doughnut import Doughnut
    from reportlab.graphics.charts.piecharts import Pie
    from reportlab.lib.colors import HexColor, white
    pie = Doughnut() if spec.variant == "donut" else Pie()
    side = height * 0.72
    pie.x, pie.y = (90 if spec.names_beside else 10), (height - side) / 2
    pie.width = pie.height = side
    pie.data = list(spec.data[0])
    pie.startAngle, pie.direction = 90, "clockwise"
    pie.slices.strokeColor, pie.slices.strokeWidth = white, 1
    pie.slices.fontName, pie.slices.fontSize = RL_FONT, 8
    for c, color in enumerate(spec.colors):
        pie.slices[c].fillColor = HexColor(color)
    printed = [spec.printed(0, c) for c in range(len(spec.categories))]
    if spec.names_beside:
        pie.labels = [f"{name} {text}" if text else name for name, text in zip(spec.categories, printed)]
    elif spec.labelled:
        pie.labels = printed
        pie.slices.labelRadius = 0.8 if spec.variant == "donut" else 0.65
        for c, color in enumerate(spec.colors):
            pie.slices[c].fontColor = HexColor("#ffffff" if _ink_on(color) == "white" else "#000000")
    drawing.add(pie)
    if not spec.names_beside:
        drawing.add(_rl_legend(spec, spec.categories, pie.x + side + 30, height / 2 + 7 * len(spec.categories),
                               len(spec.categories)))


def _rl_legend_rows(spec: ChartSpec, width: float) -> int:
    from reportlab.pdfbase.pdfmetrics import stringWidth
    total = sum(stringWidth(name, RL_FONT, 8) + 7 + 4 + 12 + 8 for name in spec.series)  # swatch, gaps, padding
    return math.ceil(total / (width * 0.9))


def _rl_legend(spec: ChartSpec, names: list[str], x: float, top: float, rows: int):
    """A legend of colour swatches: rows × as many columns as it needs, its top left at (x, top)."""
    from reportlab.graphics.charts.legends import Legend
    from reportlab.lib.colors import HexColor
    legend = Legend()
    legend.x, legend.y, legend.boxAnchor = x, top, "nw"
    legend.alignment = "right"
    legend.fontName, legend.fontSize = RL_FONT, 8
    legend.dx = legend.dy = 7
    legend.dxTextSpace, legend.deltay, legend.deltax = 4, 13, 0  # 0: each column as wide as its names
    legend.autoXPadding = 12
    legend.columnMaximum = rows  # items fill a column top down, so `rows` a column makes that many rows
    legend.strokeColor = None
    legend.colorNamePairs = [(HexColor(color), name) for color, name in zip(spec.colors, names)]
    return legend


# --- the set ------------------------------------------------------------------------------------------------------

def plan(rng: random.Random, count: int) -> list[list[list[ChartSpec]]]:
    """count charts, every variant × tool about equally often, as documents of pages of one or two charts (a
    document is one tool's)."""
    combos = [(variant, tool) for variant in VARIANTS for tool in TOOLS]
    chosen = [combos[i % len(combos)] for i in range(count)]
    rng.shuffle(chosen)
    documents = []
    for tool in TOOLS:
        specs = [random_spec(rng, variant, t) for variant, t in chosen if t == tool]
        pages = []
        while specs:
            take = 2 if len(specs) >= 2 and rng.random() < 0.3 else 1
            pages.append(specs[:take])
            specs = specs[take:]
        while pages:
            take = min(len(pages), rng.choice((1, 1, 2, 3)))
            documents.append(pages[:take])
            pages = pages[take:]
    rng.shuffle(documents)
    return documents


def truth_line(spec: ChartSpec, file: str, page: int, bbox: tuple[float, float, float, float]) -> dict:
    values = []
    for s, series in enumerate(spec.series):
        for c, category in enumerate(spec.categories):
            text = spec.printed(s, c)
            value = parse_number(text) if text is not None else spec.data[s][c]
            values.append({"series": series, "category": category, "value": value, "labelled": text is not None})
    return {"file": file, "page": page, "bbox": [round(v, 1) for v in bbox], "kind": spec.kind,
            "variant": spec.variant, "title": spec.title, "subtitle": spec.subtitle, "notes": spec.notes,
            "unit": spec.unit, "series": spec.series, "categories": spec.categories, "values": values,
            "axis": list(spec.axis[:2]) if spec.axis else None, "value_axis_printed": spec.value_axis_printed,
            "tool": spec.tool, "horizontal": spec.horizontal}


def generate(out: Path, count: int = 320, seed: int = SEED) -> list[dict]:
    """Write the set into out (outside the repository) and return its truth lines."""
    out = out.resolve()
    if out == REPO or REPO in out.parents:
        raise ValueError(f"{out}: generated charts are never written inside the repository")
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    truths = []
    for number, pages in enumerate(plan(rng, count), start=1):
        tool = pages[0][0].tool
        name = f"{tool}-{number:03d}.pdf"
        writer = write_matplotlib if tool == "matplotlib" else write_reportlab
        laid_out = [(page_slots(specs), body_paragraph(rng, specs[0]) if len(specs) == 1 and rng.random() < 0.5
                     else []) for specs in pages]
        boxes = writer(out / name, laid_out)
        for page_number, (slots, _), page_boxes in zip(range(1, len(pages) + 1), laid_out, boxes):
            truths += [truth_line(slot.spec, name, page_number, box) for slot, box in zip(slots, page_boxes)]
    with open(out / "truth.jsonl", "w", encoding="utf-8") as handle:
        for line in truths:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    return truths


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="a folder outside the repository (default: a fresh temporary one)")
    ap.add_argument("--count", type=int, default=320, help="charts to draw")
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="docqa-charts-"))
    truths = generate(out, args.count, args.seed)
    files = len({t["file"] for t in truths})
    pages = len({(t["file"], t["page"]) for t in truths})
    print(f"{len(truths)} charts on {pages} pages in {files} PDFs; truth in {out / 'truth.jsonl'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
