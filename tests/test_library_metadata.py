"""Title, authors and year as the library lists them (pdf/metadata.py, store/document_info.py, index/describe.py):
from the PDF's metadata where it is usable, from page 1 where it is empty or junk, blank where neither says —
on real corpus PDFs and on PDFs made here with and without metadata; kept in the index, filled for documents
indexed before the table existed, and shown by `docqa status`."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pymupdf
import pytest

from conftest import FAST_INDEX, corpus_pdf, make_settings
from docqa_desktop.domain import DocumentInfo
from docqa_desktop.pdf.metadata import document_info, person_names, usable_title
from docqa_desktop.service import Service

BODY = ("The tidal range of the outer estuary was measured at four stations over two spring seasons, and the "
        "readings were compared with the model's predictions for each station. ") * 4


def make_pdf(path: Path, metadata: dict | None = None, title: str | None = None, byline: str | None = None,
             dateline: str | None = None) -> Path:
    """One A4 page: an optional dateline and a large title with names under it, then body text in 10 pt."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 60
    if dateline:
        page.insert_text((72, y), dateline, fontsize=9)
        y += 40
    if title:
        page.insert_text((72, y), title, fontsize=24)
        y += 30
    if byline:
        page.insert_text((72, y), byline, fontsize=12)
        y += 30
    page.insert_textbox(pymupdf.Rect(72, y + 20, 523, 800), BODY, fontsize=10)
    doc.set_metadata(metadata or {})
    doc.save(path)
    doc.close()
    return path


def test_usable_metadata_is_taken_as_it_is(tmp_path):
    pdf = make_pdf(tmp_path / "q3.pdf", {"title": "Quarterly Grid Report", "author": "Ann Lee; Bo Chen",
                                         "creationDate": "D:20190412093000Z"})
    assert document_info(str(pdf)) == DocumentInfo("Quarterly Grid Report", "Ann Lee, Bo Chen", 2019)


def test_junk_metadata_gives_way_to_the_first_page(tmp_path):
    pdf = make_pdf(tmp_path / "draft.pdf", {"title": "Microsoft Word - draft_v3.docx", "author": "jsmith"},
                   title="Tidal Energy in the North Sea", byline="Mara Olsen and Tom Berg",
                   dateline="Published 3 March 2021")
    assert document_info(str(pdf)) == DocumentInfo("Tidal Energy in the North Sea", "Mara Olsen, Tom Berg", 2021)


@pytest.mark.parametrize("junk", ["", "untitled", "Microsoft PowerPoint - deck.pptx", "report_final.docx",
                                  "0000764478-23-000006", "tidal-study"])
def test_placeholder_titles_are_junk(junk):
    assert usable_title(junk, "tidal-study.pdf") == ""


def test_nothing_is_invented_when_neither_metadata_nor_page_says(tmp_path):
    """No metadata, and page 1 all in the body's type: no title, no authors, no year."""
    pdf = make_pdf(tmp_path / "scan-0042.pdf", {"author": "WIN7", "title": "scan-0042"})
    assert document_info(str(pdf)) == DocumentInfo()


def test_person_names_accepts_names_and_refuses_the_rest():
    assert person_names("Baijun Ji, Zhirui Zhang, Boxing Chen and Weihua Luo") == [
        "Baijun Ji", "Zhirui Zhang", "Boxing Chen", "Weihua Luo"]
    assert person_names("Liangming Pan1,2 Xiaobao Wu3") == ["Liangming Pan", "Xiaobao Wu"]
    for not_names in ("whitest", "WIN7", "EDGAR Online, a division of Donnelley Financial Solutions",
                      "Google DeepMind", "Wireless Noise Canceling Stereo Headset"):
        assert person_names(not_names) == [], not_names


@pytest.mark.parametrize("name, expected", [
    # usable metadata
    ("1912.01214.pdf", DocumentInfo("Cross-lingual Pre-training Based Transfer for Zero-shot Neural Machine "
                                    "Translation", "Baijun Ji, Zhirui Zhang, Xiangyu Duan, Min Zhang, Boxing Chen, "
                                    "Weihua Luo", 2019)),
    # an accession number for a title, a filing agent for an author: the registrant and the form instead
    ("BESTBUY_2023_10K.pdf", DocumentInfo("BEST BUY CO., INC. Form 10-K", "", 2023)),
    # no title in the metadata and none in large type: the recommended citation's; the byline's names
    ("PG_2020.03.09_US-Germany_FINAL.pdf", DocumentInfo(
        "Americans and Germans Differ in Their Views of Each Other and the World", "Jacob Poushter, Mara Mordecai",
        2020)),
    # small capitals, a title hyphenated across lines, seven names in three rows, an arXiv stamp
    ("STEPBACK.pdf", DocumentInfo("TAKE A STEP BACK: EVOKING REASONING VIA ABSTRACTION IN LARGE LANGUAGE MODELS",
                                  "Huaixiu Steven Zheng, Swaroop Mishra, Xinyun Chen, Heng-Tze Cheng, Ed H. Chi, "
                                  "Quoc V Le, Denny Zhou", 2023)),
    # names with affiliation superscripts, in columns; the year of the proceedings' copyright line
    ("2023.acl-long.386.pdf", DocumentInfo("Fact-Checking Complex Claims with Program-Guided Reasoning",
                                           "Liangming Pan, Xiaobao Wu, Xinyuan Lu, Anh Tuan Luu, William Yang Wang, "
                                           "Min-Yen Kan, Preslav Nakov", 2023)),
    # a report with no title anywhere on page 1 but its section heading, and a user name as the author
    ("936c0e2c2e6c8e0c07c51bfaf7fd0a83.pdf", DocumentInfo(
        "Exhibit 300: Capital Asset Plan and Business Case Summary", "", 2007)),
])
def test_corpus_documents(name, expected):
    assert document_info(str(corpus_pdf(name))) == expected


def _index(home: Path, folder: Path) -> Service:
    service = Service(make_settings(home, **FAST_INDEX))
    service.library.index([str(folder)])
    return service


def _infos(service: Service) -> dict[str, DocumentInfo]:
    return {entry.name: entry.info for entry in service.library.status()}


@pytest.mark.slow  # two index runs
def test_indexing_keeps_the_info_and_an_older_database_gets_it_at_the_next_run(tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    make_pdf(folder / "q3.pdf", {"title": "Quarterly Grid Report", "creationDate": "D:20190412093000Z"})
    make_pdf(folder / "plain.pdf")
    shutil.copy(corpus_pdf("PG_2020.03.09_US-Germany_FINAL.pdf"), folder / "pew.pdf")
    home = tmp_path / "home"
    with _index(home, folder) as service:
        infos = _infos(service)
        database = service.library.database_path
    assert infos["q3.pdf"] == DocumentInfo("Quarterly Grid Report", "", 2019)
    assert infos["plain.pdf"] == DocumentInfo()
    assert infos["pew.pdf"].authors == "Jacob Poushter, Mara Mordecai"

    # the database as version 6 left it: no document_info table
    with duckdb.connect(str(database)) as con:
        con.execute("DROP TABLE document_info")
        con.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    with Service(make_settings(home, **FAST_INDEX)) as service:
        assert all(info == DocumentInfo() for info in _infos(service).values())  # opens; nothing known yet
        report = service.library.index([str(folder)])
        assert report.unchanged == 3 and report.added == 0  # nothing parsed again ...
        assert _infos(service) == infos  # ... and every document described


@pytest.mark.slow  # an index run and two CLI processes
def test_docqa_status_lists_title_authors_and_year(tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    make_pdf(folder / "q3.pdf", {"title": "Quarterly Grid Report", "author": "Ann Lee",
                                 "creationDate": "D:20190412093000Z"})
    make_pdf(folder / "plain.pdf")
    home = tmp_path / "home"
    _index(home, folder).close()

    def status(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "docqa_desktop", "status", "--home", str(home), *args],
                              capture_output=True, text=True, check=True).stdout

    documents = {d["name"]: d for d in json.loads(status("--json"))["documents"]}
    assert (documents["q3.pdf"]["title"], documents["q3.pdf"]["authors"], documents["q3.pdf"]["year"]) == (
        "Quarterly Grid Report", "Ann Lee", 2019)
    assert (documents["plain.pdf"]["title"], documents["plain.pdf"]["authors"], documents["plain.pdf"]["year"]) == (
        None, None, None)
    printed = status()
    assert "Quarterly Grid Report · Ann Lee · 2019" in printed
    plain = printed[printed.index("plain.pdf"):].splitlines()
    assert len(plain) == 1 or "·" not in plain[1]  # nothing made up for the file without any
