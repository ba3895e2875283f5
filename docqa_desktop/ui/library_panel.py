"""Watched folders and their documents: title, authors, year, pages, file name and status in sortable columns
(long text elided, in full on hover), errors on hover; add, remove, re-index; a document's context menu exports its
tables. The search box over them (library_search.py) shows its results in the list's place."""
from __future__ import annotations

import os

from PySide6.QtCore import QByteArray, QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QFont, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..domain import FileEntry, FileStatus, StageStatus
from ..service import is_document
from .library_search import LibrarySearch

COLUMNS = ("Title", "Authors", "Year", "Pages", "File", "Status")
TITLE, AUTHORS, YEAR, PAGES, FILE, STATUS = range(len(COLUMNS))
# A narrow panel leaves columns out, unless the user picked them in the header's menu, so that the status stays in
# view without scrolling sideways and the title keeps TITLE_ROOM: at a laptop's 1,366 px the panel is ~300 px
WIDTHS = {AUTHORS: 120, YEAR: 48, PAGES: 48, FILE: 120, STATUS: 80}
TITLE_ROOM = 150  # pixels, about 22 characters: a title shrunk to five is no title
GIVEN_UP = (AUTHORS, FILE, PAGES, YEAR)  # the columns a narrow panel leaves out, first given up first
SORT_KEY = Qt.ItemDataRole.UserRole + 1  # what a column sorts by: numbers as numbers, blanks last
NO_TITLE = "No title in the PDF's metadata or on its first page: listed by its file name"
STATUS_MARK = {FileStatus.INDEXED: "✓", FileStatus.PENDING: "…", FileStatus.ERROR: "⚠"}
OTHER_FILES = "Single files"
INDEXING = "⟳ indexing"
EXPORT_TABLES = "Export tables…"
EMPTY_LIBRARY = ("<p style='font-size:large'>No documents yet</p>"
                 "<p>Add a folder of PDFs with <b>Add folder…</b> (Ctrl+O),<br>or drop folders or PDFs here.</p>"
                 "<p>The folder is indexed on this computer and watched<br>for new, changed and deleted PDFs.</p>")


def group_by_library(roots: list[str], entries: list[FileEntry]) -> dict[str, list[FileEntry]]:
    """Each file under the deepest watched folder holding it; files added one by one in their own group."""
    groups: dict[str, list[FileEntry]] = {root: [] for root in sorted(roots)}
    by_depth = sorted(roots, key=len, reverse=True)
    for entry in sorted(entries, key=lambda e: e.path.lower()):
        root = next((r for r in by_depth if entry.path.startswith(r.rstrip(os.sep) + os.sep)), OTHER_FILES)
        groups.setdefault(root, []).append(entry)
    return groups


class _Row(QTreeWidgetItem):
    """A row that sorts by SORT_KEY (years and pages as numbers) rather than by the text shown."""

    def __lt__(self, other: QTreeWidgetItem) -> bool:
        column = self.treeWidget().sortColumn() if self.treeWidget() else 0
        mine, theirs = self.data(column, SORT_KEY), other.data(column, SORT_KEY)
        if mine is None or theirs is None:
            return super().__lt__(other)
        return mine < theirs


def _sort_key(value) -> tuple:
    """Blanks after every value; text without case."""
    if value in (None, ""):
        return (1, "")
    return (0, value.lower() if isinstance(value, str) else value)


def document_row(entry: FileEntry) -> QTreeWidgetItem:
    """A document's row: its title (or, in italics, its file name), authors, year, pages, file name, status."""
    info = entry.info
    texts = [info.title or entry.name, info.authors, "" if info.year is None else str(info.year),
             "" if entry.pages is None else str(entry.pages), entry.name,
             f"{STATUS_MARK[entry.status]} {entry.status.value}"]
    keys = [info.title or entry.name, info.authors, info.year, entry.pages, entry.name, entry.status.value]
    item = _Row(texts)
    for column, (text, key) in enumerate(zip(texts, keys)):
        item.setData(column, SORT_KEY, _sort_key(key))
        item.setToolTip(column, text)  # the whole text of an elided cell
    item.setToolTip(TITLE, "\n".join(t for t in (texts[TITLE], info.authors, entry.name) if t))  # hidden columns too
    for column in (YEAR, PAGES):
        item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    item.setData(0, Qt.ItemDataRole.UserRole, entry.path)
    item.setToolTip(FILE, entry.path)
    if not info.title:
        font = QFont(item.font(TITLE))
        font.setItalic(True)
        item.setFont(TITLE, font)
        item.setToolTip(TITLE, f"{entry.name}\n{NO_TITLE}")
    if entry.error:  # the reason, wherever the pointer rests on the row
        for column in range(len(COLUMNS)):
            item.setToolTip(column, f"{item.toolTip(column)}\n{entry.error}")
    return item


def stage_text(stage: StageStatus) -> str:
    """'Layout: 70 / 79 pages — 9 pending', 'Page images: off (no GPU)' for a stage that does not run, or what a
    running question does for it ('Summaries: SimpleDoc is writing them for this question (12 / 40 pages)')."""
    name = stage.stage.capitalize()
    if stage.now:
        return f"{name}: {stage.now}"
    if stage.off:
        return f"{name}: {stage.note}" + (f" — {stage.counts} done" if stage.done else "")
    return f"{name}: {stage.counts}" + (f" — {stage.pending:,} pending" if stage.pending else "")


class LibraryPanel(QWidget):
    add_requested = Signal()
    paths_dropped = Signal(list)
    remove_requested = Signal(str)
    reindex_requested = Signal()
    document_activated = Signal(str)  # path: open its first page (a double click, Enter)
    document_clicked = Signal(str)  # path: show it (a plain click; a click that extends the selection does not)
    export_tables_requested = Signal(str)  # path: its tables as CSV files into a folder (its context menu)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.setSortingEnabled(True)
        self.tree.sortByColumn(FILE, Qt.SortOrder.AscendingOrder)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionsClickable(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(TITLE, QHeaderView.ResizeMode.Stretch)
        for column, width in WIDTHS.items():
            header.resizeSection(column, width)
        self.chosen_columns: dict[int, bool] = {}  # shown or hidden by the user, whatever the panel's width
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._column_menu)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._document_menu)
        self.tree.itemActivated.connect(self._activated)
        self.tree.itemClicked.connect(self._clicked)
        self.add_button = QPushButton("Add folder…")
        self.add_button.setToolTip("Add a folder of PDFs to the library (Ctrl+O); you can also drop folders here")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Forget the selected folder or file (files on disk are kept)")
        self.reindex_button = QPushButton("Re-index")
        self.add_button.clicked.connect(self.add_requested)
        self.remove_button.clicked.connect(self._remove_selected)
        self.reindex_button.clicked.connect(self.reindex_requested)
        buttons = QHBoxLayout()
        for b in (self.add_button, self.remove_button, self.reindex_button):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.search = LibrarySearch()  # its results take the list's place while there is a query
        self.search.search_requested.connect(lambda *_: self.stack.setCurrentWidget(self.search.results))
        self.search.cleared.connect(self._show_list)
        layout.addWidget(self.search)
        self.empty = QLabel(EMPTY_LIBRARY)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget()  # the hint until there is something to list
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.tree)
        self.stack.addWidget(self.search.results)
        layout.addWidget(self.stack)
        self.stages = QLabel()  # how far the background passes have got; hidden until there are pages
        self.stages.setWordWrap(True)
        self.stages.setVisible(False)
        layout.addWidget(self.stages)
        layout.addLayout(buttons)
        self.setAcceptDrops(True)
        self.indexed: set[str] = set()  # paths of the documents listed as indexed

    def show_library(self, roots: list[str], entries: list[FileEntry]) -> None:
        """List `entries` under their `roots`, keeping what the reader had: expanded folders, the selection (the
        documents chosen to ask about), the current row and the scroll position. The list is re-read whenever
        the library changes, even while the reader is choosing."""
        expanded = {self.tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole)
                    for i in range(self.tree.topLevelItemCount()) if self.tree.topLevelItem(i).isExpanded()}
        selected = {_row_key(item) for item in self.tree.selectedItems()}
        current = _row_key(self.tree.currentItem()) if self.tree.currentItem() else None
        scrolled = self.tree.verticalScrollBar().value()
        self.tree.setSortingEnabled(False)  # filled first, sorted once
        self.tree.clear()
        for root, files in group_by_library(roots, entries).items():
            name = os.path.basename(root.rstrip(os.sep)) or root
            pages = sum(f.pages or 0 for f in files)
            folder = _Row([name, "", "", str(pages), "", f"{len(files)} files"])
            for column, key in ((TITLE, name), (FILE, name), (PAGES, pages)):
                folder.setData(column, SORT_KEY, _sort_key(key))
            folder.setData(0, Qt.ItemDataRole.UserRole, root)
            folder.setToolTip(TITLE, root)
            folder.addChildren([document_row(entry) for entry in files])
            self.tree.addTopLevelItem(folder)
            folder.setExpanded(root in expanded or len(expanded) == 0)
        self.tree.setSortingEnabled(True)
        self._reselect(selected, current)
        self.tree.verticalScrollBar().setValue(scrolled)
        self.search.titles = {e.path: e.info.title for e in entries if e.info.title}
        self.indexed = {e.path for e in entries if e.status is FileStatus.INDEXED}  # what a search can cover
        self.search.set_folders(sorted(roots))
        if self.stack.currentWidget() is not self.search.results:
            self._show_list()

    def _show_list(self) -> None:
        self.stack.setCurrentWidget(self.tree if self.tree.topLevelItemCount() else self.empty)

    def _reselect(self, keys: set[tuple[bool, str]], current: tuple[bool, str] | None) -> None:
        """Select the rows of `keys` (folders and documents still listed) and make `current`'s row current again,
        without a click's effects: nothing opens."""
        for item in _all_rows(self.tree):
            key = _row_key(item)
            if key == current:
                self.tree.setCurrentItem(item, 0, QItemSelectionModel.SelectionFlag.NoUpdate)
            item.setSelected(key in keys)

    def show_stages(self, stages: list[StageStatus]) -> None:
        """One line per stage: done / total and what is pending, or that it is off and why."""
        pages = next((s.done for s in stages if s.stage == "keywords"), 0)
        self.stages.setText("\n".join(stage_text(s) for s in stages))
        self.stages.setToolTip("\n".join(f"{s.stage}: " + " — ".join(part for part in (s.note, s.hint) if part)
                                         for s in stages if s.note or s.hint) or
                               "Documents are searchable by keywords as soon as they are read; layout, embeddings "
                               "and page images follow in the background, most recently added and asked-about first.")
        self.stages.setVisible(pages > 0)

    def mark_indexing(self, path: str | None) -> None:
        """Show which document the indexer is working on (until the next refresh of the list)."""
        for item in _all_rows(self.tree):
            if path and item.parent() is not None and item.data(0, Qt.ItemDataRole.UserRole) == path \
                    and "indexed" not in item.text(STATUS):
                item.setText(STATUS, INDEXING)

    def selected_documents(self) -> list[str]:
        """Paths of the selected documents (a selected folder stands for all of its documents)."""
        paths = []
        for item in self.tree.selectedItems():
            children = [item.child(i) for i in range(item.childCount())] or [item]
            paths += [c.data(0, Qt.ItemDataRole.UserRole) for c in children]
        return list(dict.fromkeys(paths))

    def _remove_selected(self) -> None:
        for item in self.tree.selectedItems():
            self.remove_requested.emit(item.data(0, Qt.ItemDataRole.UserRole))

    def _activated(self, item: QTreeWidgetItem) -> None:
        if item.childCount() == 0 and item.parent() is not None:
            self.document_activated.emit(item.data(0, Qt.ItemDataRole.UserRole))

    def _clicked(self, item: QTreeWidgetItem) -> None:
        selecting = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
        if item.childCount() == 0 and item.parent() is not None \
                and not QGuiApplication.keyboardModifiers() & selecting:  # Ctrl / Shift: choosing documents to ask
            self.document_clicked.emit(item.data(0, Qt.ItemDataRole.UserRole))

    def column_state(self) -> QByteArray:
        """The columns' widths, order and sorting, for the next run (ui/window_state.py)."""
        return self.tree.header().saveState()

    def restore_columns(self, state: QByteArray) -> None:
        header = self.tree.header()
        header.restoreState(state)
        self.tree.sortByColumn(header.sortIndicatorSection(), header.sortIndicatorOrder())  # sorted as it was
        self._fit_columns()  # which columns show still follows the panel's width and the user's picks

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Show the columns the panel has room for beside TITLE_ROOM of title and the status, the last given up
        first; a column the user picked stays as picked."""
        header = self.tree.header()
        room = self.width() - TITLE_ROOM - self.tree.indentation() - (header.sectionSize(STATUS) or WIDTHS[STATUS])
        for column in reversed(GIVEN_UP):
            width = header.sectionSize(column) or WIDTHS[column]  # a hidden column's size reads 0
            shown = self.chosen_columns.get(column, room >= width)
            room -= width if shown else 0
            self.tree.setColumnHidden(column, not shown)

    def _column_menu(self, position) -> QMenu:
        """The header's menu: show or hide any column but the title."""
        menu = QMenu(self)
        for column, name in enumerate(COLUMNS[1:], start=1):
            action = QAction(name, menu, checkable=True, checked=not self.tree.isColumnHidden(column))
            action.toggled.connect(lambda shown, c=column: self.choose_column(c, shown))
            menu.addAction(action)
        menu.popup(self.tree.header().mapToGlobal(position))
        return menu

    def _document_menu(self, position) -> QMenu | None:
        """A document row's menu: export its tables (a folder's row has none)."""
        item = self.tree.itemAt(position)
        if item is None or item.childCount() or item.parent() is None:
            return None
        path = item.data(0, Qt.ItemDataRole.UserRole)
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.addAction(EXPORT_TABLES, lambda: self.export_tables_requested.emit(path))
        menu.popup(self.tree.viewport().mapToGlobal(position))
        return menu

    def choose_column(self, column: int, shown: bool) -> None:
        self.chosen_columns[column] = shown
        self.tree.setColumnHidden(column, not shown)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        wanted = [p for p in paths if os.path.isdir(p) or is_document(p)]
        if wanted:
            self.paths_dropped.emit(wanted)
            event.acceptProposedAction()


def _row_key(item: QTreeWidgetItem) -> tuple[bool, str]:
    """(is a folder row, its path): a file added on its own is both a folder row and its one document row."""
    return item.parent() is None, item.data(0, Qt.ItemDataRole.UserRole)


def _all_rows(tree: QTreeWidget):
    """Every folder row of `tree` and, after each, its document rows."""
    for i in range(tree.topLevelItemCount()):
        folder = tree.topLevelItem(i)
        yield folder
        yield from (folder.child(j) for j in range(folder.childCount()))
