"""A document's tables out of the app (service.tables), off the GUI thread: a file not indexed as it is now is read
on the spot, which takes seconds. A page's tables for the viewer, and every table of a document written into a
folder the user picks, one CSV file per table, as `docqa tables FILE -o DIR` writes them."""
from __future__ import annotations

import os
from typing import Callable

from PySide6.QtWidgets import QFileDialog, QWidget

from ..domain import TableOnPage
from ..service import FileTables, Service, write_tables
from .tasks import Task, TaskRunner
from .window_state import WindowState

FORMAT = "csv"  # what a spreadsheet opens: one file per table


def export_said(found: FileTables, written: list[str], folder: str) -> str:
    """The status line after an export: how many files went where, or that no table was read and why."""
    name = os.path.basename(found.path)
    if written:
        files = "1 CSV file" if len(written) == 1 else f"{len(written)} CSV files (one per table)"
        said = f"Exported the tables of {name}: {files} in {folder}"
    else:
        said = f"No table was read from {name}: nothing was written"
    return "; ".join([said, *found.notes, *([found.error] if found.error else [])])


class TablesOut:
    def __init__(self, service: Service, tasks: TaskRunner, parent: QWidget, say: Callable[[str], None],
                 window_state: WindowState):
        self.service, self.tasks, self.parent, self.say, self.window_state = service, tasks, parent, say, window_state

    def read_page(self, path: str, page: int, show: Callable[[str, int, list[TableOnPage]], None]) -> Task:
        """The tables of `page` of `path`, handed to `show(path, page, tables)` (none when they cannot be read: the
        status bar says why)."""
        def read(progress, cancel):
            return [table for _, table in self.service.tables.of_file(path, [page]).tables]

        def failed(message: str) -> None:
            show(path, page, [])
            self.say(message)

        return self.tasks.start(f"Reading the tables of page {page} of {os.path.basename(path)}", read,
                                lambda tables: show(path, page, tables), on_failed=failed)

    def choose_export(self, path: str) -> Task | None:
        """Ask for a folder, then export the document's tables into it."""
        folder = QFileDialog.getExistingDirectory(self.parent, f"Export the tables of {os.path.basename(path)} "
                                                  "into a folder", self.window_state.export_folder())
        return self.export(path, folder) if folder else None

    def export(self, path: str, folder: str) -> Task:
        name = os.path.basename(path)

        def write(progress, cancel):
            found = self.service.tables.of_file(path)
            return found, [str(p) for p in write_tables(found.tables, FORMAT, folder, name)]

        def written(result) -> None:
            found, paths = result
            if paths:
                self.window_state.exported_to(paths[0])  # the next export starts in this folder
            self.say(export_said(found, paths, folder))

        self.say(f"Reading the tables of {name}…")
        return self.tasks.start(f"Exporting the tables of {name}", write, written, on_failed=self.say)
