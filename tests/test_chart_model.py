"""Raster charts read by the vision model (index/chart_model.py): its reply read as DePlot's linearised table, only
the values the picture prints kept, the model asked only where index.chart_model and the machine let it; and the
plumbing with the tiny random vision model on the CPU."""
from __future__ import annotations

import pytest

from docqa_desktop.domain import Word
from docqa_desktop.index.chart_model import (NO_GPU, NO_VISION_MODEL, PROMPT, SWITCHED_OFF, Picture,
                                             chart_from_reply, parse_reply, why_off)
from docqa_desktop.settings import ChartModel, TablesGate

BOX = (72.0, 100.0, 376.0, 246.0)


def picture(*printed: str) -> Picture:
    """A picture at BOX whose words are `printed`, a line each, down its left side."""
    return Picture(BOX, b"", tuple(Word(text, (80.0, 110.0 + 12 * i, 110.0, 120.0 + 12 * i), i)
                                   for i, text in enumerate(printed)))


REPLY = """TITLE | Share who say relations are good
TYPE | Bar chart
Country | 2019 | 2020
Germany | 34% | 40%
France | 51% | 99%
"""


def test_a_linearised_table_is_read_as_a_chart_with_only_the_values_the_picture_prints():
    printed = picture("2019", "2020", "Germany", "34%", "40%", "France", "51%")
    chart = chart_from_reply(REPLY, printed)
    assert chart is not None and chart.by_model and chart.chart == "bar chart"
    assert chart.caption == "Share who say relations are good" and chart.bbox == BOX
    assert [c.text for c in chart.cells if c.header] == ["2019", "2020"]
    values = {(c.row_path, c.column_path): c.number for c in chart.body if c.number is not None}
    assert values == {("Germany", "2019"): 34.0, ("Germany", "2020"): 40.0, ("France", "2019"): 51.0}  # 99 dropped
    germany = next(c for c in chart.body if c.text == "34%")
    assert germany.bbox == printed.words[3].bbox and not germany.from_axis  # cited where it is printed


@pytest.mark.parametrize("reply", [
    "TITLE | Seats <0x0A> Party | Seats <0x0A> Labour | 412 <0x0A> Conservative | 121",  # DePlot's own line breaks
    "| Party | Seats |\n|---|---|\n| Labour | 412 |\n| Conservative | 121 |",  # a Markdown table
    "Here is the table:\nParty | Seats\nLabour | 412\nConservative | 121\nThat is all.",  # words around it
])
def test_the_forms_a_model_writes_a_table_in_are_read_alike(reply):
    chart = chart_from_reply(reply, picture("Labour", "412", "Conservative", "121"))
    assert chart is not None
    assert {c.row_path: c.number for c in chart.body if c.number is not None} == {"Labour": 412.0,
                                                                                   "Conservative": 121.0}
    assert [c.text for c in chart.cells if c.header] == ["Seats"]


@pytest.mark.parametrize("reply", ["", "The chart shows that relations improved over the decade.", "Country | Share",
                                   "TITLE | Relations\nTYPE | bar chart", "ĠĠ<|im_end|> !!|", "| | |\n|---|"])
def test_a_reply_that_is_no_table_is_read_as_nothing(reply):
    assert chart_from_reply(reply, picture("Germany", "34%")) is None


def test_a_chart_that_prints_no_numbers_keeps_none():
    """Its values would be the model's estimates off the axis: never an answer."""
    assert parse_reply(REPLY) is not None
    assert chart_from_reply(REPLY, picture("Germany", "France", "Share who say relations are good")) is None
    assert chart_from_reply(REPLY, picture()) is None


def test_a_number_the_model_uses_as_a_label_proves_no_value():
    reply = "Year | Visitors\n2019 | 2019\n2020 | 1,250"
    chart = chart_from_reply(reply, picture("2019", "2020", "1,250"))
    assert {c.row_path: c.number for c in chart.body if c.number is not None} == {"2020": 1250.0}
    assert [c.text for c in chart.body if c.column == 0] == ["2020"]  # a category left without a value goes too


class Reader:
    def __init__(self, installed: bool, quick: bool):
        self._installed, self._quick = installed, quick

    def installed(self) -> bool:
        return self._installed

    def quick(self) -> bool:
        return self._quick

    def read(self, image, prompt, cancel=None) -> str:
        raise AssertionError("not asked here")


@pytest.mark.parametrize("setting, reader, why", [
    (ChartModel.AUTO, Reader(True, True), None),
    (ChartModel.AUTO, Reader(True, False), NO_GPU),
    (ChartModel.AUTO, Reader(False, True), NO_VISION_MODEL),
    (ChartModel.AUTO, None, NO_VISION_MODEL),
    (ChartModel.ON, Reader(True, False), None),  # slowly, on the CPU
    (ChartModel.ON, Reader(False, False), NO_VISION_MODEL),
    (ChartModel.OFF, Reader(True, True), SWITCHED_OFF),
])
def test_the_model_reads_raster_charts_where_the_setting_and_the_machine_let_it(setting, reader, why):
    assert why_off(setting, reader) == why
    assert NO_GPU.startswith("no GPU: raster charts are not read (index.chart_model = \"on\"")


@pytest.mark.model  # loads the tiny random Qwen2-VL in llama.cpp (its files alone are no model run: marked here)
def test_the_tiny_vision_model_is_asked_once_per_picture_on_the_cpu_when_on(tiny_vlm_files, tmp_path):
    from chart_pdf import write_raster_chart_pdf
    from conftest import tiny_vlm_settings
    from docqa_desktop.service import Service
    from docqa_desktop.store import enrichment
    from docqa_desktop.store.tables import CHARTS_BY_MODEL

    folder, home = tmp_path / "docs", tmp_path / "home"
    folder.mkdir()
    _, box = write_raster_chart_pdf(folder / "deck.pdf")
    quick = {"layout": False, "ocr": False, "dense": False, "tables_gate": TablesGate.NONE}
    with Service(tiny_vlm_settings(home, charts=False, **quick)) as service:
        service.library.index([str(folder)])
        doc_id = service.library.status()[0].doc_id
        with service.resources.db.transaction() as write:  # the layout stage's picture (it is off here)
            write.execute("INSERT INTO elements VALUES (?, 1, 0, 'picture', ?, ?, ?, ?, '')", [doc_id, *box])
    with Service(tiny_vlm_settings(home, chart_model=ChartModel.ON, **quick)) as service:
        service.models.import_file(*tiny_vlm_files, name="tiny-vl")
        runtime = service.resources.runtimes.vision()
        asked, chat = [], runtime.chat

        def recording(messages, options, cancel=None):
            asked.append(messages)
            completion = chat(messages, options, cancel)
            asked.append(completion.text)
            return completion

        runtime.chat = recording
        report = service.library.index([str(folder)])
        assert report.stages["charts"].done == 1 and not report.errors
        (message,), reply = asked
        assert message.text == PROMPT and len(message.images) == 1 and message.images[0].startswith(b"\x89PNG")
        # the picture prints no number (no text over it, no OCR): whatever the random model wrote, nothing stands
        cur = service.resources.db.cursor()
        assert cur.execute("SELECT count(*) FROM page_tables").fetchone()[0] == 0
        assert enrichment.finished(cur, doc_id, CHARTS_BY_MODEL)
        row = next(s for s in service.library.enrichment() if s.stage == "charts")
        assert (row.done, row.pending, row.hint) == (1, 0, "")  # on: it reads them, so its line has nothing to add
