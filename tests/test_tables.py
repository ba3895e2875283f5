"""Tables read as tables: grids from PyMuPDF, each cell re-read from its words, header paths, numbers; the tables
stage over a real library; answers read off a cell whose row and column name what is asked."""
from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest

from docqa_desktop.answers import PageRef
from docqa_desktop.cli import main
from docqa_desktop.index.layout import layout_elements
from docqa_desktop.index.tables import parse_number, tables_on
from docqa_desktop.methods.extractive.question import parse_question
from docqa_desktop.methods.extractive.table_answers import read_tables
from docqa_desktop.service import Service
from docqa_desktop.settings import save

from conftest import make_settings
from table_pdf import write_table_pdf

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
BESTBUY = CORPUS / "BESTBUY_2023_10K.pdf"
STEPBACK = CORPUS / "STEPBACK.pdf"


@pytest.fixture(scope="module")
def table_pdf(tmp_path_factory) -> Path:
    return write_table_pdf(tmp_path_factory.mktemp("tables") / "statements.pdf")


def _tables(path: Path, page: int):
    """The page's tables as the stage reads them: inside the layout model's table regions."""
    with pymupdf.open(path) as doc:
        regions = [e.bbox for e in layout_elements(doc, [page]).get(page, []) if e.kind == "table"]
        return tables_on(doc[page - 1], regions)


def _cell(table, row_label: str, header_part: str):
    """The figure of a row under a column (a "$" cell beside it shares the header)."""
    return next(c for c in table.cells if c.row_path == row_label and header_part in c.column_path and
                c.number is not None)


@pytest.mark.parametrize("text, value", [("46,298", 46298.0), ("(34)", -34.0), ("$6.31", 6.31), ("77%", 77.0),
                                         ("66.4% (0.8%)", 66.4), ("45.2 ± 0.3", 45.2), ("—", None), ("$", None),
                                         ("1,2", None), ("$ (5)", -5.0), ("-", None)])
def test_a_cells_figure_is_read_as_printed(text, value):
    assert parse_number(text) == value


@pytest.mark.skipif(not BESTBUY.exists(), reason="needs ../shared/corpus")
def test_the_real_income_statement_keeps_every_number_its_extract_mangles():
    """BESTBUY_2023_10K.pdf page 40: Table.extract() gives "46298\\n,", "631.", "2248.", "Costofsales"; the words
    inside each cell's box give the numbers as printed, under the spanning period header."""
    (table,) = _tables(BESTBUY, 40)
    assert table.scale == 1e6  # "$ and shares in millions, except per share amounts", above the table
    revenue = _cell(table, "Revenue", "January 28, 2023")
    assert (revenue.text, revenue.number) == ("46,298", 46298.0)
    assert "Fiscal Years Ended" in revenue.column_path
    assert _cell(table, "Basic earnings per share", "January 28, 2023").text == "6.31"
    assert _cell(table, "Weighted-average common shares outstanding: Basic", "January 28, 2023").text == "224.8"
    assert _cell(table, "Cost of sales", "January 29, 2022").number == 40121.0
    assert _cell(table, "Restructuring charges", "January 29, 2022").number == -34.0
    assert _cell(table, "Other income (expense): Interest expense", "January 28, 2023").number == -35.0
    # a total row at the section's own indent is not inside the section
    assert any(c.row_path.startswith("Earnings before income tax") for c in table.cells)


@pytest.mark.slow  # three grid strategies over two real pages: ~3 s
@pytest.mark.skipif(not STEPBACK.exists(), reason="needs ../shared/corpus")
def test_a_papers_table_ruled_only_above_and_below_is_split_into_its_rows():
    """STEPBACK.pdf page 6: one grid row holds eight methods stacked; each becomes a row of its own."""
    (table,) = _tables(STEPBACK, 6)
    assert _cell(table, "PaLM-2L + Step-Back (ours)", "TQA Hard").text == "61.6%"
    assert _cell(table, "PaLM-2L + RAG", "TimeQA").number == 57.4
    (stem_table,) = _tables(STEPBACK, 5)
    assert _cell(stem_table, "GPT-4", "MMLU Chemistry").number == 79.9  # "79.9% (1.0%)"


def _ask(tables, question: str, subjects=frozenset()):
    return read_tables(parse_question(question), [(PageRef(1, "statements.pdf", "/x", page, str(page)), t, "")
                                                  for page, t in tables], subjects)


def test_a_cell_answers_when_its_row_and_column_name_what_is_asked(table_pdf):
    statement, repurchases, results = (_tables(table_pdf, n)[0] for n in (1, 2, 3))
    every = [(1, statement), (2, repurchases), (3, results)]
    revenue = _ask(every, "What were total revenues in fiscal 2023?")
    assert revenue.answer is not None and revenue.answer.value == "$46,298 million"
    assert revenue.answer.cell.bbox[0] > 72 and "Revenue" in revenue.answer.quote
    per_share = _ask(every, "What were diluted earnings per share in fiscal 2022?").answer
    assert per_share is not None and per_share.value == "$9.84"  # per share: never "million"
    assert _ask(every, "What accuracy does PaLM-2L + Step-Back achieve on TQA Hard?").answer.value == "61.6%"


def test_a_cell_whose_labels_do_not_name_the_measure_asked_does_not_answer(table_pdf):
    """The 10-K's share-repurchase table: "Total fiscal 2023 fourth quarter" names the year and "total", not
    revenue: asked about revenue, it stays silent (issue 43's wrong answer "7,138,475")."""
    repurchases = _tables(table_pdf, 2)[0]
    reading = _ask([(2, repurchases)], "What were total revenues in fiscal 2023?")
    assert reading.answer is None and not reading.tied


def test_cells_that_fit_equally_are_shown_never_chosen(table_pdf):
    statement = _tables(table_pdf, 1)[0]
    reading = _ask([(1, statement)], "What was the revenue?")  # no year: one column a year
    assert reading.answer is None
    assert {a.cell.text for a in reading.tied} == {"46,298", "51,761"}
    other_row = _ask([(1, statement)], "What was the gross margin in fiscal 2023?")  # no row says margin
    assert other_row.answer is None


@pytest.fixture(scope="module")
def tables_home(tmp_path_factory, table_pdf):
    folder = tmp_path_factory.mktemp("tables-library") / "docs"
    folder.mkdir()
    (folder / "statements.pdf").write_bytes(table_pdf.read_bytes())
    home = folder.parent / "home"
    settings = make_settings(home, ocr=False, dense=False)
    save(settings)
    with Service(settings) as service:
        report = service.library.index([str(folder)])
    return home, report


@pytest.mark.slow  # layout analysis of three pages
def test_the_tables_stage_stores_cells_with_boxes_and_reports_itself(tables_home, capsys):
    home, report = tables_home
    assert report.stages["tables"].done == 3 and not report.errors
    assert main(["status", "--json", "--home", str(home)]) == 0
    stages = {s["stage"]: s for s in json.loads(capsys.readouterr().out)["stages"]}
    assert stages["tables"]["state"] == "done" and stages["tables"]["done"] == 3


@pytest.mark.slow  # layout analysis of three pages
def test_a_table_question_is_answered_from_the_cell_with_its_box_cited(tables_home, capsys):
    home, _ = tables_home
    assert main(["ask", "What were total revenues in fiscal 2023?", "--json", "--home", str(home)]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["status"] == "answered" and answer["short_answer"] == "$46,298 million"
    assert "Read from the table on statements.pdf, page 1" in answer["answer"]
    cited = answer["citations"][0]
    assert cited["page"] == 1 and cited["bbox"] is not None and cited["bbox"][0] > 250  # the figure's column
    assert main(["ask", "What was the revenue?", "--json", "--home", str(home)]) == 0
    tied = json.loads(capsys.readouterr().out)
    assert tied["status"] == "passages" and "46,298" in tied["answer"] and "51,761" in tied["answer"]
    listed = [line for line in tied["answer"].splitlines() if ", table cell: “" in line]  # the tie, shown as cells
    assert len(listed) == 2 and {"46,298", "51,761"} <= {n for line in listed for n in ("46,298", "51,761") if n in line}
    assert sum(1 for c in tied["citations"] if c["bbox"] is not None) >= 2  # each cited at its box


def test_a_difference_of_two_cells_the_question_names_is_computed_by_the_app(table_pdf):
    from docqa_desktop.methods.extractive.cell_arithmetic import compute

    statement, results = _tables(table_pdf, 1)[0], _tables(table_pdf, 3)[0]
    every = [(PageRef(1, "statements.pdf", "/x", n, str(n)), t, "") for n, t in ((1, statement), (3, results))]
    ask = lambda text: compute(parse_question(text), lambda q: read_tables(q, every))  # noqa: E731
    fall = ask("By how much did revenue fall from fiscal 2022 ($51,761 million) to fiscal 2023, in millions?")
    assert fall is not None and fall.shown == "5,463" and fall.expression == "46,298 − 51,761 = -5,463"
    assert {c.cell.text for c in fall.operands} == {"46,298", "51,761"}
    higher = ask("On TQA Hard, how many percentage points higher is PaLM-2L + Step-Back (61.6%) than GPT-4?")
    assert higher is not None and higher.shown == "19"
    assert ask("By how much did revenue fall in fiscal 2023?") is None  # one operand named: nothing to compute
    assert ask("What is the difference between revenue and cost of sales in fiscal 2023?").shown == "9,912"
    assert ask("What is the difference between revenue and margin in fiscal 2023?") is None  # no row says margin


@pytest.mark.slow  # layout analysis of a page
def test_a_question_names_a_header_by_its_initials_and_leaves_out_what_it_excludes(table_pdf):
    results = _tables(table_pdf, 3)[0]
    hard = _ask([(3, results)], "What accuracy does PaLM-2L + Step-Back achieve on TimeQA Hard?")
    assert hard.answer is not None and hard.answer.value == "61.6%"  # headed "TQA Hard": TimeQA's capitals
    rag = _ask([(3, results)], "What accuracy does PaLM-2L + RAG (without Step-Back) achieve on TimeQA Easy?")
    assert rag.answer is not None and rag.answer.value == "67.8%"
    statement = _tables(table_pdf, 1)[0]
    net = _ask([(1, statement)], "What were net earnings excluding restructuring charges in fiscal 2023?")
    assert net.answer is not None and net.answer.cell.row_path == "Net earnings"


@pytest.mark.slow  # layout analysis of three pages
def test_pages_are_found_by_their_tables_row_labels_beside_retrieval(tables_home):
    """What the reader reads besides the retrieved pages: the pages whose row labels hold the question's words,
    the most words first, then the shortest matching label; in scope only."""
    from docqa_desktop.store.tables import pages_labelling

    home, _ = tables_home
    with Service(make_settings(home, ocr=False, dense=False)) as service:
        cur = service.resources.db.cursor()
        (doc_id,) = cur.execute("SELECT DISTINCT doc_id FROM table_cells").fetchone()
        assert pages_labelling(cur, ["revenu"], None, 5) == [(doc_id, 1)]
        assert pages_labelling(cur, ["palm", "rag"], [doc_id], 5) == [(doc_id, 3)]
        assert [p for _, p in pages_labelling(cur, ["total", "palm"], None, 5)] == [3, 2]  # "PaLM-2L" is shorter
        assert pages_labelling(cur, ["revenu"], [doc_id + 1], 5) == []
