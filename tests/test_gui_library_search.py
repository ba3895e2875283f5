"""The window's library search, used as a reader would with the keyboard alone: Ctrl+K, type, the results as they
come (document, page, the snippet's words in bold), ↓ and Enter open the page with the query's words highlighted,
Esc back to the box and out to the library list; scoped to the selected documents, with a way back to the whole
library; the filters narrow it."""
from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from test_library_search import DOCUMENTS, write_document  # noqa: E402
from docqa_desktop.ui.library_search import marked_snippet  # noqa: E402


@pytest.fixture
def folders(tmp_path):
    for (folder, name), (author, year, title, body) in DOCUMENTS.items():
        (tmp_path / folder).mkdir(exist_ok=True)
        write_document(tmp_path / folder / name, author, year, title, body)
    return [tmp_path / "harbour", tmp_path / "museum"]


def _searched(search, query: str) -> bool:
    return search.searched == query and "ranking" not in search.scope.text() and "Searching" not in search.scope.text()


def test_a_search_typed_and_a_result_opened_by_keyboard(window, qtbot, folders):
    window.add_paths([str(f) for f in folders])
    qtbot.waitUntil(lambda: "Library up to date: 3 added" in window.status_text.text(), timeout=120_000)
    window.activateWindow()
    search, library = window.library.search, window.library
    window.left_tabs.setCurrentWidget(window.history)
    qtbot.keyClick(window.answer_view, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert window.left_tabs.currentWidget() is library and QApplication.focusWidget() is search.box

    qtbot.keyClicks(search.box, "harbour ferry")
    qtbot.waitUntil(lambda: _searched(search, "harbour ferry"), timeout=30_000)
    assert library.stack.currentWidget() is search.results
    assert {hit.doc for hit in search.hits} == {"ferries.pdf", "tides.pdf", "hours.pdf"}
    first = search.results.itemWidget(search.results.item(0)).text()
    assert "<b>" in first and "p. 1" in first and search.scope.text().startswith("3 pages")
    assert search.results.item(0).sizeHint().height() >= 2 * search.fontMetrics().height()  # title line + snippet

    qtbot.keyClick(search.box, Qt.Key.Key_Down)  # into the results, on the first
    assert QApplication.focusWidget() is search.results
    qtbot.keyClick(search.results, Qt.Key.Key_Down)
    chosen = search.hits[1]
    qtbot.keyClick(search.results, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.viewer.shown == (chosen.path, chosen.page) and bool(window.viewer.marked), timeout=30_000)
    assert len(window.viewer.marked) >= 2  # "harbour" and "ferry" on that page, boxed
    assert window.viewer.match_in_view()

    qtbot.keyClick(search.results, Qt.Key.Key_Escape)  # back to the box, the results kept
    assert QApplication.focusWidget() is search.box and search.hits
    qtbot.keyClick(search.box, Qt.Key.Key_Escape)  # out: the box empty, the library list back
    assert search.box.text() == "" and library.stack.currentWidget() is library.tree


def test_a_search_covers_the_selection_and_the_filters(window, qtbot, folders):
    (folders[1] / "broken.pdf").write_bytes(b"%PDF-1.4 cut short")  # a failed file in the folder selected below
    window.add_paths([str(f) for f in folders])
    qtbot.waitUntil(lambda: "Library up to date: 3 added" in window.status_text.text(), timeout=120_000)
    assert "1 failed" in window.status_text.text()
    search, library = window.library.search, window.library
    qtbot.waitUntil(lambda: library.tree.topLevelItemCount() == 2, timeout=30_000)
    museum = next(library.tree.topLevelItem(i) for i in range(2) if library.tree.topLevelItem(i).text(0) == "museum")
    museum.setSelected(True)
    search.focus()
    qtbot.keyClicks(search.box, "harbour")
    qtbot.waitUntil(lambda: _searched(search, "harbour"), timeout=30_000)
    assert [hit.doc for hit in search.hits] == ["hours.pdf"] and "in 1 selected document" in search.scope.text()
    search.widen_requested.emit()  # the scope line's "search the whole library"
    qtbot.waitUntil(lambda: len(search.hits) == 3 and _searched(search, "harbour"), timeout=30_000)
    assert not library.tree.selectedItems() and "selected" not in search.scope.text()

    search.filters_button.click()
    qtbot.keyClicks(search.author, "Ann")
    qtbot.keyClicks(search.year, "2020-")
    qtbot.waitUntil(lambda: [hit.doc for hit in search.hits] == ["hours.pdf"], timeout=30_000)
    search.year.setText("soon")
    qtbot.waitUntil(lambda: "'soon' is not a year" in search.scope.text(), timeout=5_000)
    search.year.setText("1990")
    qtbot.waitUntil(lambda: "no indexed document matches" in search.scope.text(), timeout=30_000)
    search.filters_button.click()  # hidden filters narrow nothing
    assert (search.author.text(), search.year.text()) == ("", "")
    qtbot.waitUntil(lambda: len(search.hits) == 3, timeout=30_000)


def test_a_snippet_is_escaped_and_its_matched_words_bold():
    shown = marked_snippet("Ferry <fares> & the ferry's time", frozenset({"ferry", "fares"}))
    assert shown == "<b>Ferry</b> &lt;<b>fares</b>&gt; &amp; the <b>ferry</b>&#x27;s time"


def test_only_the_newest_task_of_a_kind_is_heard(qtbot):
    import threading

    from docqa_desktop.ui.tasks import Newest, TaskRunner

    runner, heard, release = TaskRunner(threads=2), [], threading.Event()
    newest = Newest(runner)
    older = newest.start("older", lambda progress, cancel: (release.wait(10), "older")[1], heard.append)
    newer = newest.start("newer", lambda progress, cancel: "newer", heard.append)
    qtbot.waitUntil(lambda: heard == ["newer"], timeout=10_000)
    assert older.cancel.is_set() and not newer.cancel.is_set()
    release.set()  # the older one finishes after the newer: what it sends is dropped
    qtbot.waitUntil(older.ended.is_set, timeout=10_000)
    qtbot.wait(200)
    assert heard == ["newer"]
    runner.shutdown()


def test_more_results_than_the_list_shows_each_get_their_wrapped_height(qtbot):
    from docqa_desktop.domain import SearchHit
    from docqa_desktop.ui.library_search import LibrarySearch

    search = LibrarySearch()
    qtbot.addWidget(search)
    search.resize(300, 400)
    search.show()
    search.box.setText("harbour ferry")
    search.layout().addWidget(search.results)
    snippet = "The harbour ferry leaves at dawn and returns at dusk, " * 3
    hits = [SearchHit(i, f"doc-{i}.pdf", f"/lib/doc-{i}.pdf", 1, 1.0 / (i + 1), snippet, None,
                      frozenset({"harbour", "ferry"})) for i in range(20)]
    search.show_hits("harbour ferry", hits, "", False)  # BM25's ranking: the list fills and scrolls
    qtbot.waitUntil(search.results.verticalScrollBar().isVisible, timeout=5_000)
    search.show_hits("harbour ferry", hits[::-1], "", True)  # the fused one: rows added as the scroll bar goes and comes
    qtbot.waitUntil(search.results.verticalScrollBar().isVisible, timeout=5_000)
    assert search.results.count() == 20
    line = search.fontMetrics().height()
    assert all(search.results.item(i).sizeHint().height() >= 3 * line for i in range(20))  # title + wrapped snippet
