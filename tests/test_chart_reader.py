"""The chart reader (index/charts.py) on charts drawn as reports draw them: stacked bars up with the stacks' totals
and the series named beside the last stack (Pew's "Net" row), a dot plot whose rows stand far apart with its legend
entries years, a line chart high on its axis with its category labels far below, and pies with and without their
figures printed. Each page is drawn here with PyMuPDF: vector marks and words, as a born-digital report has them."""
from __future__ import annotations

import math

import pymupdf
import pytest

from docqa_desktop.index.charts import charts_on

DARK, LIGHT = (0.12, 0.29, 0.49), (0.33, 0.56, 0.83)
GREEN, ORANGE = (0.2, 0.6, 0.3), (0.85, 0.45, 0.1)


@pytest.fixture
def page():
    doc = pymupdf.open()
    yield doc.new_page(width=612, height=792)
    doc.close()


def found(page) -> list[tuple[str, str, str, bool]]:
    """(category, series, value as shown, read from the axis) of every value of the page's one chart."""
    charts = charts_on(page)
    assert len(charts) == 1, charts
    return sorted((v.category, v.series, v.text, v.from_axis) for v in charts[0].values)


def test_stacked_bars_up_with_totals_and_names_beside(page):
    page.insert_text((300, 80), "Most go online daily", fontsize=12)
    stacks = [("18-29", 88, 6), ("30-49", 84, 8), ("65+", 71, 11)]
    base = 400
    for i, (name, daily, weekly) in enumerate(stacks):
        x = 300 + 40 * i
        page.draw_rect((x, base - 2 * daily, x + 30, base), color=None, fill=DARK)
        page.draw_rect((x, base - 2 * (daily + weekly), x + 30, base - 2 * daily), color=None, fill=LIGHT)
        page.insert_text((x + 8, base - daily), str(daily), fontsize=9, color=(1, 1, 1))
        page.insert_text((x + 10, base - 2 * daily - 2), str(weekly), fontsize=8)
        page.insert_text((x + 8, base - 2 * (daily + weekly) - 6), str(daily + weekly), fontsize=9)
        page.insert_text((x + 2, base + 12), name, fontsize=9)
    page.insert_text((425, base - 2 * (71 + 11) - 6), "Net", fontsize=9)
    page.insert_text((425, base - 2 * 71 - 5), "Weekly", fontsize=8)
    page.insert_text((425, base - 71), "Daily", fontsize=8)
    values = found(page)
    assert ("18-29", "Daily", "88", False) in values and ("65+", "Weekly", "11", False) in values
    assert ("30-49", "Net", "92", False) in values  # the stack's total, under its header
    assert len(values) == 9


def test_dot_plot_rows_far_apart_named_by_a_legend_of_years(page):
    page.insert_text((72, 60), "Share who shop online", fontsize=12)
    for n, (year, colour) in enumerate((("2019", GREEN), ("2023", ORANGE))):
        page.draw_circle((80 + 60 * n, 80), 3, color=None, fill=colour)
        page.insert_text((88 + 60 * n, 83), year, fontsize=8)
    rows = [("Ages 18-24", 25, 40), ("25-34", 51, 63), ("65+", 13, 30)]
    for i, (name, first, second) in enumerate(rows):
        y = 130 + 70 * i  # rows further apart than the points of a line chart
        page.insert_text((72, y + 3), name, fontsize=8)
        for value, colour in ((first, GREEN), (second, ORANGE)):
            x = 200 + 4 * value
            page.draw_circle((x, y), 3, color=None, fill=colour)
            page.insert_text((x - 6, y - 6), f"{value}%", fontsize=7)
    values = found(page)
    assert ("25-34", "2019", "51%", False) in values and ("65+", "2023", "30%", False) in values
    assert len(values) == 6


def test_line_chart_high_on_its_axis_with_labels_far_below(page):
    page.insert_text((72, 190), "Adults online", fontsize=12)
    years, shares = ["2010", "2013", "2016", "2019"], [72, 80, 86, 90]
    points = [(120 + 80 * i, 400 - 2 * share) for i, share in enumerate(shares)]
    page.draw_polyline(points, color=DARK, width=2)
    for (x, y), share in zip(points, shares):
        page.insert_text((x - 6, y - 6), str(share), fontsize=8)
    for i, year in enumerate(years):
        page.insert_text((120 + 80 * i - 10, 412), year, fontsize=8)  # 140 points under the lowest point
    values = found(page)
    assert [v[:3] for v in values] == [("2010", "Adults online", "72"), ("2013", "Adults online", "80"),
                                       ("2016", "Adults online", "86"), ("2019", "Adults online", "90")]


def draw_pie(page, shares: list[tuple[str, float]], printed: bool) -> None:
    centre, radius, start = pymupdf.Point(300, 300), 80, -90.0
    colours = [DARK, LIGHT, GREEN, ORANGE]
    for (name, share), colour in zip(shares, colours):
        sweep = 3.6 * share
        begin = pymupdf.Point(centre.x + radius * math.cos(math.radians(start)),
                              centre.y + radius * math.sin(math.radians(start)))
        page.draw_sector(centre, begin, -sweep, fullSector=True, color=None, fill=colour)  # clockwise
        middle = math.radians(start + sweep / 2)
        x, y = centre.x + 0.6 * radius * math.cos(middle), centre.y + 0.6 * radius * math.sin(middle)
        page.insert_text((x - 15, y - 4), name, fontsize=8)
        if printed:
            page.insert_text((x - 8, y + 8), f"{share:g}%", fontsize=8)
        start += sweep


def test_pie_with_its_figures_printed(page):
    page.insert_text((220, 190), "How seniors use the internet", fontsize=12)
    draw_pie(page, [("Offline", 41), ("No SNS", 32), ("SNS", 27)], printed=True)
    values = found(page)
    series = "How seniors use the internet"
    assert values == [("No SNS", series, "32%", False), ("Offline", series, "41%", False), ("SNS", series, "27%", False)]


def test_pie_without_figures_is_read_from_its_angles(page):
    page.insert_text((220, 190), "Revenue by segment", fontsize=12)
    draw_pie(page, [("Products", 60), ("Services", 25), ("Other", 15)], printed=False)
    values = {v[0]: v for v in found(page)}
    assert set(values) == {"Products", "Services", "Other"}
    assert all(v[3] for v in values.values())  # read from the wedge's angle: about
    assert abs(float(values["Services"][2].rstrip("%")) - 25) < 1
