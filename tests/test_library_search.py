"""Searching the library from the window and from `docqa search`: filters by author, year and folder over
real indexed PDFs, the query's words boxed on the page, and the window's search box driven by the keyboard alone
(Ctrl+K, type, ↓, Enter: the page opens with the words highlighted; Esc back and out)."""
from __future__ import annotations

import json

import pymupdf
import pytest

from docqa_desktop.cli.main import main
from docqa_desktop.domain import DocumentFilter, DocumentInfo, FileEntry, FileStatus, parse_years
from docqa_desktop.errors import UnknownDocument
from docqa_desktop.service import Service

from conftest import make_settings

pytestmark = pytest.mark.slow  # the two folders are indexed by a worker pool (~6 s)

# Three documents in two folders: each has its author in its metadata and its year on a copyright line
DOCUMENTS = {
    ("harbour", "ferries.pdf"): ("Ann Lee", 2019, "Ferry timetable",
                                 "The last ferry leaves the harbour at 23:40 on weekdays."),
    ("harbour", "tides.pdf"): ("Bo Chen", 2021, "Tide tables",
                               "High tide reaches the harbour wall twice a day; the ferry waits for it."),
    ("museum", "hours.pdf"): ("Ann Lee", 2023, "Museum opening hours",
                              "The museum opens at nine; the harbour ferry stops at its door."),
}


def write_document(path, author: str, year: int, title: str, body: str) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), title, fontsize=22)
    page.insert_text((72, 140), body, fontsize=11)
    page.insert_text((72, 760), f"Copyright {year} Harbour Press", fontsize=8)
    doc.set_metadata({"title": title, "author": author})
    doc.save(path)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A home indexing the two folders (text only: what search reads), and the folders."""
    root = tmp_path_factory.mktemp("search")
    for (folder, name), (author, year, title, body) in DOCUMENTS.items():
        (root / folder).mkdir(exist_ok=True)
        write_document(root / folder / name, author, year, title, body)
    service = Service(make_settings(root / "home", layout=False, dense=False, ocr=False, tables=False, charts=False))
    service.library.index([str(root / "harbour"), str(root / "museum")])
    yield root, service
    service.close()


def found(service: Service, query: str, where: DocumentFilter | None = None, docs=None) -> set[str]:
    return {hit.doc for hit in service.pages.search(query, docs, 10, "bm25", where)}


def test_the_filters_narrow_a_search_to_the_documents_they_admit(indexed):
    root, service = indexed
    entries = {e.name: e for e in service.library.status()}
    assert {n: (e.info.authors, e.info.year) for n, e in entries.items()} == {
        name: (author, year) for (_, name), (author, year, _, _) in DOCUMENTS.items()}
    assert found(service, "harbour ferry") == {"ferries.pdf", "tides.pdf", "hours.pdf"}
    assert found(service, "harbour ferry", DocumentFilter(author="ann")) == {"ferries.pdf", "hours.pdf"}
    assert found(service, "harbour ferry", DocumentFilter(years=(2020, None))) == {"tides.pdf", "hours.pdf"}
    assert found(service, "harbour ferry", DocumentFilter(folder=str(root / "harbour"))) == {"ferries.pdf",
                                                                                            "tides.pdf"}
    both = DocumentFilter(author="Ann Lee", years=(2019, 2019), folder=str(root / "harbour"))
    assert found(service, "harbour ferry", both) == {"ferries.pdf"}
    # a folder is a folder: /…/harbour does not admit /…/harbourside
    assert not DocumentFilter(folder=str(root / "harbour")).admits(
        FileEntry(str(root / "harbourside" / "x.pdf"), "x.pdf", FileStatus.INDEXED, 1, None, 9))
    # with documents chosen too, the filter narrows the choice
    assert found(service, "harbour ferry", DocumentFilter(author="Ann"), docs=["tides.pdf", "hours.pdf"]) == {
        "hours.pdf"}
    with pytest.raises(UnknownDocument, match="author “nobody”"):
        found(service, "harbour", DocumentFilter(author="nobody"))


def test_the_query_words_are_boxed_where_they_stand_on_the_page(indexed):
    root, service = indexed
    hit = service.pages.search("ferry leaves", None, 1, "bm25")[0]
    assert hit.doc == "ferries.pdf" and {"ferry", "leaves"} <= hit.matched and "the" not in hit.matched
    boxes = service.pages.query_words(hit.path, hit.page, "When does the ferry leave?")
    page = pymupdf.open(root / "harbour" / "ferries.pdf")[0]
    # the title's "Ferry" and the line's "ferry leaves" ("leave" matches "leaves"); "when", "does", "the": stopwords
    expected = [w[:4] for w in page.get_text("words") if w[4].lower() in ("ferry", "leaves")]
    assert len(boxes) == len(expected) == 3 and all(max(abs(a - b) for a, b in zip(box, want)) < 1.0
                                                    for box, want in zip(sorted(boxes), sorted(expected)))


def test_years_are_read_as_a_year_or_a_range():
    assert parse_years("2019") == (2019, 2019)
    assert parse_years(" 2015 – 2020 ") == (2015, 2020)
    assert parse_years("2015-") == (2015, None) and parse_years("-2020") == (None, 2020)
    assert parse_years("") == (None, None)
    for bad in ("last year", "2020-2015"):
        with pytest.raises(ValueError, match=repr(bad)):
            parse_years(bad)
    undated = FileEntry("/a/x.pdf", "x.pdf", FileStatus.INDEXED, 1, None, 1, DocumentInfo("x", "", None))
    assert not DocumentFilter(years=(2019, 2019)).admits(undated) and DocumentFilter().admits(undated)


def test_docqa_search_takes_the_same_filters(indexed, capsys, monkeypatch):
    root, service = indexed
    monkeypatch.setenv("DOCQA_HOME", str(root / "home"))
    code = main(["search", "harbour ferry", "--mode", "bm25", "--author", "lee", "--year", "2020-", "--json"])
    assert code == 0
    assert [hit["doc"] for hit in json.loads(capsys.readouterr().out)] == ["hours.pdf"]
    with pytest.raises(SystemExit):
        main(["search", "harbour", "--year", "soon"])
    assert "'soon' is not a year" in capsys.readouterr().err
