"""The file-type seam (documents.py): which files are documents, and how each is opened, is one table of openers.
A row added to it is followed by the scanner, the watcher, the evaluation's corpus, the exports, the library
panel's drops and the page viewer without other code changes; a file of another kind is refused with its name."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from watchdog.events import FileCreatedEvent

from docqa_desktop.answers import Citation
from docqa_desktop.documents import (DOCUMENT_OPENERS, UnsupportedDocument, document_kind, document_suffixes,
                                     is_document, open_document)
from docqa_desktop.errors import DocQAError
from docqa_desktop.evaluation.runner import EvalRunner
from docqa_desktop.export import cited_region
from docqa_desktop.index.scan import find_documents, is_candidate
from docqa_desktop.index.watcher import _Collector
from docqa_desktop.pdf.document import open_pdf

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "samples" / "harbour-solar-report.pdf"


@pytest.fixture
def notes(monkeypatch):
    """A kind the library does not read, registered for one test (monkeypatch takes the row out afterwards): a
    ".note" file opens as the sample PDF, so whoever opens it gets a real pymupdf.Document."""
    opened: list[str] = []

    def open_note(path: str):
        opened.append(path)
        return open_pdf(str(SAMPLE))

    monkeypatch.setitem(DOCUMENT_OPENERS, ".note", open_note)
    return opened


def test_pdf_is_the_one_kind_today():
    assert document_suffixes() == (".pdf",)
    assert DOCUMENT_OPENERS[".pdf"] is open_pdf
    assert is_document("a/Report.PDF") and is_document(Path("b.pdf")) and not is_document("b.docx")
    assert document_kind("a/Report.PDF") == "PDF"


def test_a_row_added_to_the_table_is_followed_everywhere(notes, tmp_path):
    for name in ("a.pdf", "b.note", "c.docx", "~$d.note"):
        (tmp_path / name).write_bytes(SAMPLE.read_bytes())
    assert is_document("x/B.NOTE") and document_suffixes() == (".pdf", ".note")
    assert is_candidate("b.note") and not is_candidate("~$d.note")  # the scanner's temp-file rules still apply
    assert find_documents(str(tmp_path)) == ([str(tmp_path / "a.pdf"), str(tmp_path / "b.note")], [])
    collector = _Collector()
    for name in ("b.note", "c.docx"):
        collector.on_any_event(FileCreatedEvent(str(tmp_path / name)))
    assert list(collector.dirty) == [str(tmp_path / "b.note")]
    # an evaluation's corpus takes every document in its folder (no temp-file rules there, as before)
    assert EvalRunner._library(tmp_path) == [str(tmp_path / n) for n in ("a.pdf", "b.note", "~$d.note")]
    with open_document(tmp_path / "b.note") as doc:
        assert doc.page_count >= 1
    assert document_kind("b.note") == "NOTE"
    png = cited_region(Citation("b.note", str(tmp_path / "b.note"), 1, "1", ""))
    assert png and png.startswith(b"\x89PNG")
    assert notes == [str(tmp_path / "b.note")] * 2  # open_document's and the export's, both through the row


def test_the_row_is_gone_after_the_test():
    assert ".note" not in DOCUMENT_OPENERS and not is_candidate("b.note")


def test_an_unsupported_file_is_refused_naming_it(tmp_path):
    docx = tmp_path / "minutes.docx"
    docx.write_bytes(b"PK\x03\x04")
    with pytest.raises(UnsupportedDocument) as refused:
        open_document(docx)
    assert str(refused.value) == f"cannot open {docx}: .docx files are not read; the library reads .pdf files"
    assert isinstance(refused.value, DocQAError)  # a front end shows it as it is
    with pytest.raises(UnsupportedDocument, match="README: a file without a suffix is not read"):
        document_kind("README")
    # an export's cited region from a file of no known kind is missing, as for a file that is gone
    assert cited_region(Citation("minutes.docx", str(docx), 1, "1", "")) is None


def test_a_pdf_it_cannot_read_keeps_the_pdf_openers_reason(tmp_path):
    fake = tmp_path / "fake.pdf"
    fake.write_text("not a pdf")
    with pytest.raises(DocQAError, match="not a PDF: the file does not start with a %PDF- header"):
        open_document(fake)


def test_the_library_panel_and_the_viewer_follow_the_table(notes, request, tmp_path):
    pytest.importorskip("pytestqt")
    qtbot = request.getfixturevalue("qtbot")
    from PySide6.QtCore import QUrl

    from docqa_desktop.ui.library_panel import LibraryPanel
    from docqa_desktop.ui.page_viewer import PageViewer

    panel = LibraryPanel()
    qtbot.addWidget(panel)
    dropped = []
    panel.paths_dropped.connect(dropped.append)
    urls = [QUrl.fromLocalFile(str(tmp_path / name)) for name in ("a.pdf", "b.note", "c.docx")]
    panel.dropEvent(SimpleNamespace(mimeData=lambda: SimpleNamespace(urls=lambda: urls),
                                    acceptProposedAction=lambda: None))
    assert dropped == [[str(tmp_path / "a.pdf"), str(tmp_path / "b.note")]]

    viewer = PageViewer()
    qtbot.addWidget(viewer)
    assert viewer.open_button.text() == "Open PDF"  # before any document is shown, as it always said
    viewer.path = str(tmp_path / "b.note")
    viewer._update_buttons()
    assert viewer.open_button.text() == "Open NOTE"
    assert viewer.open_button.toolTip() == "Open the document in the system's NOTE viewer"
