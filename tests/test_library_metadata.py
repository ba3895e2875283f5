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
from docqa_desktop.index.describe import INFO_VERSION
from docqa_desktop.pdf.metadata import names_a_kind_only, document_info, person_names, usable_title
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
                                  "0000764478-23-000006", "tidal-study", "Help Guide", "User's Manual",
                                  "905_Precinct_NoOU", "Final_report v2", "S2MNCE01", "RPTQ", "Statistics 2012-13..psd",
                                  "Pricing Model 2%_Elec - approved.xlsm"])
def test_placeholder_titles_are_junk(junk):
    assert usable_title(junk, "tidal-study.pdf") == ""


@pytest.mark.parametrize("title", ["Tidal Energy in the North Sea", "COVID-19 and the Tides", "Hamlet"])
def test_titles_are_not_taken_for_codes(title):
    assert usable_title(title, "tidal-study.pdf") == title


def test_a_file_like_metadata_title_gives_way_to_the_largest_type(tmp_path):
    """The issue's "905_Precinct_NoOU": a name as a spreadsheet's export gave it, over a page headed in large type."""
    pdf = make_pdf(tmp_path / "results.pdf", {"title": "905_Precinct_NoOU"}, title="Precinct 905 Election Results")
    assert document_info(str(pdf)).title == "Precinct 905 Election Results"


PAPER_BODY = ("Abstract. This paper gives an overview of the ways machine learning has been used to make art, "
              "music and text, and of how creativity can be measured. ") * 4


@pytest.mark.parametrize("metadata_title, printed, expected", [
    # a draft's title left in the file, related to the heading but printed nowhere on the page: the heading
    ("Art in Machine Learning", (), "Creativity in Machine Learning"),
    # printed on the page (a running header) though smaller than the heading: the metadata title stands
    ("Art in Machine Learning", ("Art in Machine Learning",), "Art in Machine Learning"),
    # the heading is the metadata title shortened ("- Wikipedia" left off): the metadata title stands
    ("Creativity in Machine Learning - arXiv", (), "Creativity in Machine Learning - arXiv"),
    # shares no word with the heading (a product's name over a page headed by model numbers): it stands
    ("Generative Systems Survey", (), "Generative Systems Survey"),
])
def test_a_metadata_title_the_page_contradicts_gives_way_to_its_heading(tmp_path, metadata_title, printed,
                                                                      expected):
    pdf = tmp_path / "paper.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        for line in printed:
            page.insert_text((72, 40), line, fontsize=8)
        page.insert_text((72, 100), "Creativity in Machine Learning", fontsize=24)
        page.insert_text((72, 130), "Martin Thoma", fontsize=12)
        page.insert_textbox(pymupdf.Rect(72, 160, 523, 800), PAPER_BODY, fontsize=10)
        doc.set_metadata({"title": metadata_title})
        doc.save(pdf)
    info = document_info(str(pdf))
    assert info.title == expected
    assert info.authors == ("Martin Thoma" if expected == "Creativity in Machine Learning" else "")


def test_a_metadata_title_printed_under_a_larger_caption_stands(tmp_path):
    """A statistical abstract's table: "Arrests by Sex and Age" in the metadata, printed inside the larger
    caption "Table 324. Arrests by Sex and Age: 2009"."""
    pdf = make_pdf(tmp_path / "12s0324.pdf", {"title": "Arrests by Sex and Age"},
                   title="Table 324. Arrests by Sex and Age: 2009")
    assert document_info(str(pdf)).title == "Arrests by Sex and Age"


def test_a_document_kind_is_no_title_but_a_product_name_with_it_is():
    for kind in ("Help Guide", "User Manual", "Owner’s Manual", "Reference Guide", "Quick Start Guide",
                 "Operating Instructions", "INSTRUCTION MANUAL"):
        assert names_a_kind_only(kind), kind
    for title in ("4K UHD Display User Manual", "WH-1000XM4", "Guide to Tidal Energy", "Help", "Getting started"):
        assert not names_a_kind_only(title), title


PRODUCT_BODY = ("Use this guide if you have any problems or questions. Charge the speaker before using it for the "
                "first time, and keep its software up to date. ") * 3


def make_help_guide(path: Path, header: str) -> Path:
    """A manual printed from its web help in 2022: `header` in the largest type at the top, the product's name
    under it (a description in small type, the model number), body text, and "Copyright 2020 Aurora Audio" in
    the footer of page 3."""
    doc = pymupdf.open()
    for number in range(1, 4):
        page = doc.new_page(width=595, height=842)
        if number == 1:
            page.insert_text((40, 60), header, fontsize=14)
            page.insert_text((40, 90), "Portable Wireless Speaker", fontsize=8)
            page.insert_text((40, 103), "AX-300S", fontsize=10.5)
            page.insert_textbox(pymupdf.Rect(40, 300, 555, 700), PRODUCT_BODY, fontsize=10)
        else:
            page.insert_textbox(pymupdf.Rect(40, 60, 555, 700), PRODUCT_BODY, fontsize=10)
    page.insert_text((40, 800), "5-013-731-11(7) Copyright 2020 Aurora Audio", fontsize=8)
    doc.set_metadata({"creationDate": "D:20220202073631Z"})
    doc.save(path)
    doc.close()
    return path


@pytest.mark.parametrize("header", ["Help Guide", "User Manual", "Owner's Manual", "Reference Guide"])
def test_a_manuals_product_name_beats_its_generic_header_and_its_footer_copyright_its_print_date(tmp_path, header):
    """The generic header is the largest type on the cover; the product is named under it, smaller; the year is
    on no cover but in the page footers (the print date is 2022)."""
    pdf = make_help_guide(tmp_path / "help.pdf", header)
    assert document_info(str(pdf)) == DocumentInfo("Portable Wireless Speaker AX-300S", "", 2020)


def test_a_generic_metadata_title_gives_way_to_the_covers_largest_line(tmp_path):
    """The browser's title "Help Guide" in the metadata and at the top of the cover; the cover's largest line is
    the product name, with "© 2020" under it; printed in 2022."""
    pdf = tmp_path / "help.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((40, 40), "Help Guide", fontsize=12)
        page.insert_text((40, 200), "Aurora AX-300S Wireless Speaker", fontsize=28)
        page.insert_text((40, 225), "© 2020 Aurora Audio", fontsize=8)
        page.insert_textbox(pymupdf.Rect(40, 300, 555, 700), PRODUCT_BODY, fontsize=10)
        doc.set_metadata({"title": "Help Guide", "creationDate": "D:20220202073631Z"})
        doc.save(pdf)
    assert document_info(str(pdf)) == DocumentInfo("Aurora AX-300S Wireless Speaker", "", 2020)


def test_a_paragraph_in_large_type_is_no_title_and_a_span_of_years_no_date(tmp_path):
    """A page cut from a report's middle: a pull quote set large over a figure's caption, a little smaller; the
    caption covers a century and dates nothing (the PDF was made in 2013)."""
    pdf = tmp_path / "us-028.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_textbox(pymupdf.Rect(40, 40, 572, 140), "Incidents also occurred throughout the calendar "
                            "year. Figure 2 shows that although there was a decrease in the frequency, incidents "
                            "happened even during the summer months.", fontsize=16)
        page.insert_text((40, 180), "Student Enrollment and Assaults Reported, 1909-2009", fontsize=13)
        page.insert_textbox(pymupdf.Rect(40, 220, 572, 700), BODY, fontsize=10)
        doc.set_metadata({"creationDate": "D:20130301000000Z"})
        doc.save(pdf)
    assert document_info(str(pdf)) == DocumentInfo("Student Enrollment and Assaults Reported, 1909-2009", "", 2013)


def test_a_papers_revision_history_is_not_its_date(tmp_path):
    """A journal's "Received …; revised …" history dates the paper's review, not the paper: its copyright does."""
    pdf = make_pdf(tmp_path / "paper.pdf", {"creationDate": "D:20200101000000Z"},
                   title="Tidal Arrays in Shallow Estuaries",
                   dateline="Received 3 March 2018; revised 5 June 2018; accepted 1 July 2018. © 2019 Elsevier Ltd.")
    assert document_info(str(pdf)).year == 2019


def test_a_slide_covers_date_alone_on_its_line_dates_it(tmp_path):
    """A slide deck's cover: the date under the title, mid-page, in no margin; no date in the metadata."""
    pdf = tmp_path / "deck.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page(width=768, height=432)
        page.insert_text((400, 150), "Digital Crisis Analysis", fontsize=28)
        page.insert_text((400, 210), "25-03-2015", fontsize=12)
        page.insert_text((400, 230), "Brendan Hodgson and Ahmed Alshariqi", fontsize=12)
        doc.save(pdf)
    assert document_info(str(pdf)).year == 2015


ARTICLE = ("Tidal power converts the energy of the tides into electricity. Although not yet widely used, it has "
           "potential for future electricity generation, as tides are more predictable than wind or sun. ") * 5
WIKIPEDIA_FOOTER = ("This page was last edited on 12 May 2019, at 10:00 (UTC). Text is available under the Creative "
                    "Commons Attribution-ShareAlike License 4.0; additional terms may apply.")


def make_printout(path: Path, stamp: str, revision: str, revision_page: int) -> Path:
    """A web page printed by a browser on 3 November 2024: its print stamp and title in the header of every page,
    the page's title and text, and its revision statement on page `revision_page` (of two)."""
    doc = pymupdf.open()
    for number in (1, 2):
        page = doc.new_page(width=612, height=792)
        page.insert_text((30, 20), f"{stamp}    Tidal power - Wikipedia", fontsize=8)
        y = 60
        if number == 1:
            page.insert_text((40, 90), "Tidal power", fontsize=24)
            y = 120
        end = page.insert_textbox(pymupdf.Rect(40, y, 572, 700), ARTICLE, fontsize=11)
        if number == revision_page:
            page.insert_textbox(pymupdf.Rect(40, 700 + end if end < 0 else 620, 572, 760), revision, fontsize=11)
        page.insert_text((30, 780), f"https://en.wikipedia.org/wiki/Tidal_power    {number}/2", fontsize=8)
    doc.set_metadata({"title": "Tidal power - Wikipedia", "creator": "Chromium",
                      "creationDate": "D:20241103140500+00'00'"})
    doc.save(path)
    doc.close()
    return path


@pytest.mark.parametrize("stamp, revision, page", [
    ("11/3/24, 2:05 PM", WIKIPEDIA_FOOTER, 2),  # Wikipedia's footer, on the last page
    ("11/3/2024, 2:05 PM", "Last updated: March 5, 2019 by the editors, after the new tidal figures came in.", 1),
    ("11/3/24, 2:05 PM", "This is an old revision of this page, as edited by Tidewatcher (talk | contribs) at "
                         "17:01, 24 April 2019.", 1),
])
def test_a_printed_web_page_is_dated_by_its_revision_not_by_its_print_date(tmp_path, stamp, revision, page):
    pdf = make_printout(tmp_path / "tidal.pdf", stamp, revision, page)
    assert document_info(str(pdf)) == DocumentInfo("Tidal power - Wikipedia", "", 2019)


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
    # a help guide printed from the web in 2022: "Help Guide" over the product's name; "Copyright 2020" in the
    # page footers from page 5 on
    ("stereo_headset.pdf", DocumentInfo("Wireless Noise Canceling Stereo Headset WH-1000XM4", "", 2020)),
    # a Wikipedia printout of December 2024 showing the revision "as edited by … at 17:01, 24 April 2019"
    ("List_of_French_monarchs.pdf", DocumentInfo("List of French monarchs - Wikipedia", "", 2019)),
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

    # titles found by older heuristics (INFO_VERSION before): found again at the next run, nothing parsed again
    with duckdb.connect(str(database)) as con:
        con.execute("UPDATE document_info SET title = '905_Precinct_NoOU', version = ?", [INFO_VERSION - 1])
    with Service(make_settings(home, **FAST_INDEX)) as service:
        report = service.library.index([str(folder)])
        assert report.unchanged == 3 and report.added == 0
        assert _infos(service) == infos


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
