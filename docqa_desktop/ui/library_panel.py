"""Watched folders and their documents: status, page counts, errors on hover; add, remove, re-index."""
from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..domain import FileEntry, FileStatus, StageStatus

STATUS_MARK = {FileStatus.INDEXED: "✓", FileStatus.PENDING: "…", FileStatus.ERROR: "⚠"}
OTHER_FILES = "Single files"
INDEXING = "⟳ indexing"
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


class LibraryPanel(QWidget):
    add_requested = Signal()
    paths_dropped = Signal(list)
    remove_requested = Signal(str)
    reindex_requested = Signal()
    document_activated = Signal(str)  # path: open its first page

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Document", "Pages", "Status"])
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemActivated.connect(self._activated)
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
        self.empty = QLabel(EMPTY_LIBRARY)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget()  # the hint until there is something to list
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.tree)
        layout.addWidget(self.stack)
        self.stages = QLabel()  # how far the background passes have got; hidden until there are pages
        self.stages.setWordWrap(True)
        self.stages.setVisible(False)
        layout.addWidget(self.stages)
        layout.addLayout(buttons)
        self.setAcceptDrops(True)

    def show_library(self, roots: list[str], entries: list[FileEntry]) -> None:
        expanded = {self.tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole)
                    for i in range(self.tree.topLevelItemCount()) if self.tree.topLevelItem(i).isExpanded()}
        self.tree.clear()
        for root, files in group_by_library(roots, entries).items():
            folder = QTreeWidgetItem([os.path.basename(root.rstrip(os.sep)) or root, str(sum(f.pages or 0 for f in files)),
                                      f"{len(files)} files"])
            folder.setData(0, Qt.ItemDataRole.UserRole, root)
            folder.setToolTip(0, root)
            for entry in files:
                item = QTreeWidgetItem([entry.name, "" if entry.pages is None else str(entry.pages),
                                        f"{STATUS_MARK[entry.status]} {entry.status.value}"])
                item.setData(0, Qt.ItemDataRole.UserRole, entry.path)
                item.setToolTip(0, entry.path)
                if entry.error:
                    item.setToolTip(2, entry.error)
                    item.setToolTip(0, f"{entry.path}\n{entry.error}")
                folder.addChild(item)
            self.tree.addTopLevelItem(folder)
            folder.setExpanded(root in expanded or len(expanded) == 0)
        self.stack.setCurrentWidget(self.tree if self.tree.topLevelItemCount() else self.empty)

    def show_stages(self, stages: list[StageStatus]) -> None:
        """One line per stage: done / total, and what is pending (why, when a stage does not run)."""
        pages = next((s.done for s in stages if s.stage == "keywords"), 0)
        lines = [f"{s.stage.capitalize()}: {s.counts}" + (f" — {s.pending:,} pending" if s.pending else "")
                 for s in stages]
        self.stages.setText("\n".join(lines))
        self.stages.setToolTip("\n".join(f"{s.stage}: {s.note}" for s in stages if s.note) or
                               "Documents are searchable by keywords as soon as they are read; layout, embeddings "
                               "and page images follow in the background, most recently added and asked-about first.")
        self.stages.setVisible(pages > 0)

    def mark_indexing(self, path: str | None) -> None:
        """Show which document the indexer is working on (until the next refresh of the list)."""
        for i in range(self.tree.topLevelItemCount()):
            folder = self.tree.topLevelItem(i)
            for j in range(folder.childCount()):
                item = folder.child(j)
                if path and item.data(0, Qt.ItemDataRole.UserRole) == path and "indexed" not in item.text(2):
                    item.setText(2, INDEXING)

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

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        wanted = [p for p in paths if os.path.isdir(p) or p.lower().endswith(".pdf")]
        if wanted:
            self.paths_dropped.emit(wanted)
            event.acceptProposedAction()
