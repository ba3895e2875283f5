"""The app on a laptop screen and its page viewer (pytest-qt, offscreen): the window fits 1366 × 768 with a long
file name open, a citation is scrolled into view at any zoom, a stopped answer leaves nothing highlighted, "Open
PDF" says when no application opens it, and the Settings dialog sets the data folder and shows auto's settings."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")  # the test extra installs it

from PySide6.QtCore import QPoint, QUrl  # noqa: E402

from conftest import ask_in_window, SLIDES_OCR, as_shown, corpus_pdf, open_window  # noqa: E402
from docqa_desktop.settings import Settings, save  # noqa: E402

LAPTOP = (1280, 700)  # a 1366 × 768 screen less the window's frame and a taskbar
QUESTION = "When does the reading room open?"
SENTENCE = "The reading room opens at 09:30 on weekdays."


def _wait_for_render(window, qtbot, path: str, page: int) -> None:
    qtbot.waitUntil(lambda: window.viewer.shown == (path, page) and "rendering" not in window.viewer.title.text(),
                    timeout=60_000)


def _within(widget, window) -> bool:
    """Whether `widget` is shown wholly inside the window (reachable without resizing it)."""
    top_left = widget.mapTo(window, QPoint(0, 0))
    return (widget.isVisible() and top_left.x() >= 0 and top_left.y() >= 0
            and top_left.x() + widget.width() <= window.width() and top_left.y() + widget.height() <= window.height())


def test_the_window_fits_a_laptop_screen_with_the_longest_file_name_open(qtbot, tmp_path, indexed_service):
    """The longest-named corpus PDF (an image-only deck: indexed without OCR, which only its text would need)
    opened in the viewer: the window's minimum stays within a 1366 × 768 screen, the window does not widen, the
    name is elided with the whole of it in the tooltip, and every control of the viewer and the question box is
    inside the window."""
    def add_deck(folder: Path) -> None:
        (folder / SLIDES_OCR).symlink_to(corpus_pdf(SLIDES_OCR))

    service = indexed_service(add_deck, "deck", ocr=False)
    window = open_window(qtbot, service)
    window.resize(*LAPTOP)
    qtbot.waitUntil(lambda: window.size().toTuple() == LAPTOP, timeout=10_000)
    path = str(tmp_path / "deck" / SLIDES_OCR)
    window.library.document_activated.emit(path)  # as a double click on it in the library does
    _wait_for_render(window, qtbot, path, 1)
    window.viewer.next_button.click()
    _wait_for_render(window, qtbot, path, 2)
    qtbot.wait(300)  # let a deferred layout pass settle
    hint = window.minimumSizeHint()
    assert hint.width() <= LAPTOP[0] and hint.height() <= LAPTOP[1], hint
    assert window.size().toTuple() == LAPTOP
    title = window.viewer.title
    assert title.text() == f"{SLIDES_OCR} — page 2 of 23"
    shown = title.elided()
    assert shown != title.text() and "…" in shown and shown.endswith(".pdf — page 2 of 23")  # the page stays whole
    assert as_shown(title.toolTip()) == title.text()
    viewer, ask = window.viewer, window.ask_panel
    viewer.start_find()  # the find bar's row too
    qtbot.wait(100)
    assert window.size().toTuple() == LAPTOP and window.minimumSizeHint().width() <= LAPTOP[0]
    bar = viewer.find_bar
    for control in (viewer.previous_button, viewer.page_box, viewer.next_button, viewer.zoom_out_button,
                    viewer.zoom_in_button, viewer.zoom_label, viewer.whole_button, viewer.find_button,
                    viewer.open_button, bar.field,
                    bar.count, bar.previous_button, bar.next_button, bar.close_button,
                    ask.question, ask.ask_button, ask.stop_button,
                    ask.method, ask.scope, ask.follow_up, ask.new_thread, window.library.add_button,
                    window.library.reindex_button):
        assert _within(control, window), control
    # a long status message is elided too, not a reason for the window to widen
    window.status_text.setText(f"Exported to {tmp_path / ('long-folder-name-' * 12)}/answer.pdf")
    qtbot.wait(100)
    assert window.minimumSizeHint().width() <= LAPTOP[0]
    assert as_shown(window.status_text.toolTip()).startswith("Exported")
    window.close()


def write_low_citation(path: Path) -> Path:
    """A page whose answer sentence stands small at the bottom right: off screen at 200 % unless scrolled to."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()  # A4, 595 × 842 points
    page.insert_text((60, 90), "Library opening hours", fontsize=18)
    page.insert_text((60, 130), "The archive holds 12,000 maps and is closed on Mondays.", fontsize=11)
    page.insert_text((350, 800), SENTENCE, fontsize=9)
    doc.save(path)
    doc.close()
    return path


def _index(window, qtbot, folder: Path) -> None:
    window.add_paths([str(folder)])
    qtbot.waitUntil(lambda: "Library up to date" in window.status_text.text(), timeout=180_000)


def test_clicking_a_citation_scrolls_the_cited_box_into_view_at_any_zoom(window, qtbot, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    path = str(write_low_citation(folder / "hours.pdf"))
    window.resize(*LAPTOP)
    _index(window, qtbot, folder)
    ask_in_window(window, qtbot, QUESTION)
    answer = window.answer_view.answer
    assert answer.short_answer == "09:30" and answer.citations[0].bbox
    viewer = window.viewer
    _wait_for_render(window, qtbot, path, 1)
    # the citation opens zoomed until its 9 pt sentence reads (tests/test_gui_viewer_evidence.py), the box in view
    qtbot.waitUntil(lambda: viewer.zooming is None and viewer.zoom > 1.5 and viewer.cited_in_view(), timeout=60_000)
    readable = viewer.zoom
    viewer.whole_button.click()  # the whole page, the box on it
    qtbot.waitUntil(lambda: viewer.image.width() <= viewer.scroll.viewport().width() and viewer.cited_in_view(),
                    timeout=60_000)
    assert viewer.zoom == 1.0

    for _ in range(3):  # 125, 150, 200 %
        viewer.zoom_in_button.click()
    assert viewer.zoom == 2.0
    qtbot.waitUntil(lambda: viewer.image.width() > 1.8 * viewer.scroll.viewport().width()
                    and viewer.cited_in_view(), timeout=60_000)  # the zoomed page opens on the box
    viewport = viewer.scroll.viewport().rect()
    assert viewer.cited.bottom() > viewport.height()  # at the top of the page the box would be out of sight
    viewer.scroll.verticalScrollBar().setValue(0)  # the reader scrolls back up
    viewer.scroll.horizontalScrollBar().setValue(0)
    assert not viewer.cited_in_view()
    window.answer_view.text.anchorClicked.emit(QUrl("cite:1"))  # and clicks the citation
    qtbot.waitUntil(lambda: viewer.zooming is None and viewer.cited_in_view(), timeout=60_000)
    on_screen = viewer.cited.translated(viewer.image.mapTo(viewer.scroll.viewport(), QPoint(0, 0)))
    assert viewport.contains(on_screen), (on_screen, viewport)
    # the reader's zoom holds, or the sentence's if that is larger
    assert abs(viewer.zoom - max(2.0, readable)) < 0.01 and "cited region highlighted" in viewer.title.text()

    viewer.zoom_in_button.click()  # 300 % (the next step up): still in view after the re-render
    qtbot.waitUntil(lambda: viewer.image.width() > 2.7 * viewport.width() and viewer.cited_in_view(),
                    timeout=60_000)

    # the next answer forgets the reader's zoom: its citation opens at the zoom its sentence reads at, in view
    ask_in_window(window, qtbot, QUESTION)
    qtbot.waitUntil(lambda: viewer.zooming is None and abs(viewer.zoom - readable) < 0.01 and viewer.cited_in_view(),
                    timeout=60_000)
    assert viewer.zoom_label.text() == f"{viewer.zoom:.0%}"


def test_a_stopped_answer_leaves_no_region_highlighted(window, qtbot, tmp_path):
    from scripted_model import FixedRuntimes, StreamingModel, reasoning
    folder = tmp_path / "docs"
    folder.mkdir()
    path = str(write_low_citation(folder / "hours.pdf"))
    _index(window, qtbot, folder)
    ask_in_window(window, qtbot, QUESTION)
    _wait_for_render(window, qtbot, path, 1)
    assert "cited region highlighted" in window.viewer.title.text()

    reply = reasoning("answer", "At half past nine on weekdays.", [{"page": 1, "quote": SENTENCE}])
    text = json.dumps(reply)
    model = StreamingModel([reply], pieces=len(text))
    model.select = {"document_summary": "Opening hours.", "selected_pages": [1]}  # the document has one page
    model.stop_after = text.index("At half") + 8
    window.service.resources.use_runtimes(FixedRuntimes(model))
    original_ask = window.service.answers.ask
    window.service.answers.ask = lambda *a, **kw: original_ask(*a, **{**kw, "cancel": model.cancel})  # Stop
    window.ask_panel.method.setCurrentText("simpledoc")
    ask_in_window(window, qtbot, "At what time does the reading room open?")
    assert window.answer_view.answer.status.value == "cancelled", window.answer_view.answer.error
    assert not window.answer_view.answer.citations
    qtbot.waitUntil(lambda: "stopped, nothing cited" in window.viewer.title.text(), timeout=60_000)
    assert "cited region highlighted" not in window.viewer.title.text()
    assert window.viewer.box is None and window.viewer.cited is None


class FakeDesktop:
    """QDesktopServices where no application is registered for some URLs: openUrl says False for them."""

    def __init__(self, failing: set[str]):
        self.failing, self.opened = failing, []

    def openUrl(self, url: QUrl) -> bool:  # noqa: N802 (Qt's name)
        self.opened.append(url)
        return url.toLocalFile() not in self.failing


def _viewer_on(qtbot, pdf: Path):
    from docqa_desktop.ui.page_viewer import PageViewer
    viewer = PageViewer()
    qtbot.addWidget(viewer)
    viewer.show()
    viewer.open_page(str(pdf), 3)
    return viewer


def test_open_pdf_without_a_pdf_viewer_says_so_and_opens_the_folder(qtbot, tmp_path, monkeypatch):
    from conftest import write_pdf
    from docqa_desktop.ui import page_viewer
    pdf = write_pdf(tmp_path / "contract.pdf", ["one", "two", "three"])
    desktop = FakeDesktop({str(pdf)})
    monkeypatch.setattr(page_viewer, "QDesktopServices", desktop)
    viewer = _viewer_on(qtbot, pdf)
    viewer.open_externally()
    assert desktop.opened[0].toLocalFile() == str(pdf) and desktop.opened[0].fragment() == "page=3"
    notice = viewer.open_failed
    assert notice is not None and notice.isVisible()
    assert "No application" in notice.text() and "contract.pdf" in notice.text() and str(tmp_path) in notice.text()
    [button] = [b for b in notice.buttons() if b.text() == "Open the folder"]
    button.click()
    assert desktop.opened[-1].toLocalFile() == str(tmp_path)  # the folder, in the file manager
    assert not notice.isVisible()


def test_open_pdf_with_no_file_manager_either_copies_the_path(qtbot, tmp_path, monkeypatch):
    from PySide6.QtGui import QGuiApplication

    from conftest import write_pdf
    from docqa_desktop.ui import page_viewer
    pdf = write_pdf(tmp_path / "contract.pdf", ["one", "two", "three"])
    monkeypatch.setattr(page_viewer, "QDesktopServices", FakeDesktop({str(pdf), str(tmp_path)}))
    viewer = _viewer_on(qtbot, pdf)
    viewer.open_externally()
    [button] = [b for b in viewer.open_failed.buttons() if b.text() == "Open the folder"]
    button.click()
    assert viewer.open_failed.isVisible() and str(pdf) in viewer.open_failed.text()
    assert QGuiApplication.clipboard().text() == str(pdf)


def test_the_settings_dialog_sets_the_data_folder_for_the_next_start(window, qtbot, tmp_path):
    home = window.service.settings.locations.config_dir.parent
    in_use = window.service.settings.locations.data_dir
    dialog = window.open_settings()
    assert dialog.data_folder.text() == str(in_use) and not dialog.data_note.isVisible()
    elsewhere = tmp_path / "elsewhere"
    dialog.set_data_folder(str(elsewhere))
    assert dialog.data_note.isVisible() and "next start" in dialog.data_note.text()
    assert str(in_use) in dialog.data_note.text()  # where the current library stays
    dialog.accept()
    qtbot.waitUntil(lambda: "Settings saved" in window.status_text.text(), timeout=30_000)
    assert "new data folder is used when DocQA next starts" in window.status_text.text()
    assert window.service.settings.locations.data_dir == in_use  # the running app keeps its open database
    reloaded = Settings.load(home)
    assert reloaded.locations.data_dir == elsewhere.resolve()
    assert reloaded.locations.database == elsewhere.resolve() / "library.duckdb"
    again = window.open_settings()  # the folder chosen for the next start is what the dialog shows
    assert again.data_folder.text() == str(elsewhere.resolve()) and again.data_note.isVisible()
    again.reject()


def test_the_data_folder_in_the_settings_file_is_where_the_next_start_keeps_the_library(tmp_path):
    """[locations] data, written as the dialog writes it, is where the next Service (the app's or the CLI's)
    keeps the library; settings, caches and logs stay in the home."""
    import dataclasses

    from docqa_desktop.service import Service
    home = tmp_path / "home"
    settings = Settings.load(home)
    save(dataclasses.replace(settings, tables={**settings.tables, "locations": {"data": str(tmp_path / "data2")}}))
    reloaded = Settings.load(home)
    with Service(reloaded) as service:
        assert service.library.status() == []
    assert (tmp_path / "data2" / "library.duckdb").exists() and not (home / "data" / "library.duckdb").exists()
    assert reloaded.locations.config_dir == home.resolve() / "config"
    assert reloaded.locations.cache_dir == home.resolve() / "cache"
    save(reloaded)  # saved again (the dialog's Save with nothing changed): the folder stays chosen
    assert Settings.load(home).locations.data_dir == (tmp_path / "data2").resolve()


def test_settings_with_auto_show_the_settings_of_the_method_auto_uses(window, qtbot):
    dialog = window.open_settings()
    assert dialog.method.currentText() == "auto" and window.service.answers.default_method == "cascade"
    cascade = window.service.answers.method_settings("cascade")
    assert set(dialog.method_fields) == set(cascade) and dialog.shown_method == "cascade"
    texts = [label.text() for label in dialog.method_area.widget().findChildren(type(dialog.data_note))]
    assert "auto uses Answer (quoted, then the model reads) now; its settings:" in texts
    assert "Answer (quoted, then the model reads): min coverage" in texts
    dialog.method_fields["passages"].setValue(cascade["passages"] + 1)
    dialog.accept()
    qtbot.waitUntil(lambda: "Settings saved" in window.status_text.text(), timeout=30_000)
    assert window.service.answers.method_settings("cascade")["passages"] == cascade["passages"] + 1
    assert window.service.settings.ask.method == "auto"


def test_the_settings_dialog_fits_the_screen_with_the_longest_method_form(window, qtbot):
    dialog = window.open_settings()
    longest = max(dialog.specs, key=lambda name: len(dialog.specs[name].defaults("paper")))
    dialog.method.setCurrentText(longest)  # DocLens: 21 settings
    assert len(dialog.method_fields) > 15
    assert dialog.minimumSizeHint().height() <= LAPTOP[1]  # its settings scroll
    dialog.reject()


def test_an_elided_label_keeps_what_is_said_about_the_name(qtbot):
    from docqa_desktop.ui.elided import ElidedLabel
    label = ElidedLabel()
    qtbot.addWidget(label)
    label.set_text(SLIDES_OCR, " — page 19 of 23  · cited region highlighted")
    label.resize(420, label.sizeHint().height())
    label.show()
    assert label.minimumSizeHint().width() < 100 and label.sizeHint().width() > 420
    shown = label.elided()
    assert shown.startswith("germanwing") and "…" in shown and shown.endswith("page 19 of 23  · cited region highlighted")
    assert label.fontMetrics().horizontalAdvance(shown) <= 420 and as_shown(label.toolTip()) == label.text()
    label.resize(2000, label.height())
    assert label.elided() == label.text() and label.toolTip() == ""
    assert os.path.basename(label.text().split(" — ")[0]) == SLIDES_OCR
