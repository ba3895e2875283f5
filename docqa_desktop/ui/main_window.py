"""The main window: library and history on the left, question and answer in the middle, the page on
the right; indexing progress in the status bar. Every service call runs as a task off the GUI thread."""
from __future__ import annotations

import enum
import os
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from .. import settings as settings_file
from ..answers import Answer, AnswerStatus, Citation
from ..domain import IndexReport
from ..progress import Progress, describe
from ..presentation import cited_line, shown_text
from ..service import CASCADE, EXPORT_FORMATS, QUOTED, Service, export_file_name
from .about_dialog import AboutDialog
from .answer_view import AnswerView
from .ask_panel import AskPanel
from .coalesced import CoalescedRead
from .elided import ElidedLabel
from .first_run import FirstRunPanel
from .history_panel import HistoryPanel
from .library_panel import LibraryPanel
from .library_searching import LibrarySearching
from .models_dialog import ModelsDialog
from .page_feed import PageFeed
from .page_viewer import PageViewer
from .remedies import IN_THE_APP
from .served_commands import CommandsLabel
from .settings_dialog import SettingsDialog
from .tables_out import TablesOut
from .tasks import Task, TaskRunner
from .window_state import WindowState

COMMAND_STAGES_MS = 2000  # how often the stage lines are read while a command-line command runs in the app
FIRST_RUN_NOTE = ("Answers are quoted from your documents: the built-in SmolLM2-135M model is too small to write "
                  "them well (it stays in the method list). A recommended model (Models…) writes answers "
                  "that combine pages; a vision model also reads page images — charts, tables and scans.")
INDEXING_STOPPED = "Indexing stopped; what was indexed is kept. Re-index to resume watching."
WINDOW_SIZE = (1400, 860)  # on a larger screen; a smaller one gets the window at most SCREEN_SHARE of it
SCREEN_SHARE = 0.92  # leaves room for the window's frame and a taskbar
PANEL_SHARES = (0.24, 0.40, 0.36)  # library, question and answer, page
NOT_CITED = {AnswerStatus.CANCELLED: "stopped, nothing cited",
             AnswerStatus.FAILED: "failed, nothing cited"}


def progress_text(p: Progress, stages) -> str:
    """The status bar's line for an indexing snapshot; `stages`: service.library.stages, whose phases it names."""
    name = os.path.basename(p.item or "")
    if p.task == "prepare":
        return f"Preparing: {describe(p)}"
    if p.phase == "scanning":
        return f"Checking {name or 'the library'} for changes — {p.docs_done}/{p.docs_total} files"
    if p.phase == "finishing":
        return "Indexing: building the search index…"
    eta = f", about {p.eta_seconds:.0f} s left" if p.eta_seconds is not None else ""
    stage = next((s for s in stages if s.phase == p.phase), stages[0])  # any other phase reads as the parse's
    return p.text(stage.phase_text, name=name, eta=eta)


class Changed(enum.Flag):
    """What an operation changed; MainWindow.changed has the views that show it read it again."""
    LIBRARY = enum.auto()  # documents added, indexed or removed: the list and its stage lines
    HISTORY = enum.auto()  # an answer kept: the history list
    MODELS = enum.auto()  # models or settings: the first-run note, the method picker's notes and times
    ALL = LIBRARY | HISTORY | MODELS


class MainWindow(QMainWindow):
    def __init__(self, service: Service, watch_service: Service | None = None):
        super().__init__()
        self.service = service
        self.watch_service = watch_service or Service(service.settings)  # watch closes its own database
        self.tasks = TaskRunner(self, threads=4)
        self.watch_task: Task | None = None
        self.ask_task: Task | None = None
        self.prepare_task: Task | None = None
        self.thread: list[Answer] = []  # the conversation shown: a question and its follow-ups, oldest first
        self.roots: list[str] = []
        self._docs_done = -1  # documents finished in the running indexing pass, for refreshing the list
        self.setWindowTitle("DocQA Desktop")
        self._fit_to_screen()

        self.library = LibraryPanel()
        self.history = HistoryPanel()
        self.ask_panel = AskPanel(service.answers.methods(), service.answers.default_method)
        self.answer_view = AnswerView()
        self.viewer = PageViewer()
        self.first_run = QLabel(FIRST_RUN_NOTE)
        self.first_run.setWordWrap(True)
        self.first_run.setObjectName("firstRun")
        self.first_run.setVisible(False)

        left = QTabWidget()
        left.addTab(self.library, "Library")
        left.addTab(self.history, "History")
        self.left_tabs = left
        middle = QWidget()
        column = QVBoxLayout(middle)
        column.addWidget(self.first_run)
        column.addWidget(self.ask_panel)
        column.addWidget(self.answer_view, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        # a panel dragged narrow stops at the least its controls need (its minimum size hint), then pushes the next
        # one: none collapses another (dragging the library wider used to hide the question panel)
        splitter.setChildrenCollapsible(False)
        for widget, stretch in ((left, 2), (middle, 4), (self.viewer, 4)):
            splitter.addWidget(widget)
            splitter.setStretchFactor(splitter.count() - 1, stretch)
        splitter.setSizes([int(share * self.width()) for share in PANEL_SHARES])
        self.setCentralWidget(splitter)
        self.panels = splitter
        self.window_state = WindowState(service.settings.locations.config_dir)
        # as the user left it, from the second run on
        self.window_state.restore(self, splitter, self.library, self.answer_view.trace_panel)

        self.status_text = ElidedLabel("Ready")  # long messages (paths, errors) are elided, whole on hover
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop indexing (what is already indexed stays)")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel_indexing)
        self.commands_label = CommandsLabel()  # the docqa commands this app runs for the command line
        self.command_stages = QTimer(self)  # while they run, the stage lines follow what they do (an index, a prepare)
        self.command_stages.setInterval(COMMAND_STAGES_MS)
        # the stage lines read again (one read at a time, the latest request kept): by this timer, by each step of
        # a question or a preparation (SimpleDoc writing summaries), and at their ends
        self.read_stages = CoalescedRead(self.tasks, "stages", service.library.enrichment,
                                         self.library.show_stages).request
        self.command_stages.timeout.connect(self.read_stages)
        self.tables_out = TablesOut(service, self.tasks, self, self.status_text.setText, self.window_state)
        self.statusBar().addWidget(self.status_text, 1)
        self.statusBar().addPermanentWidget(self.commands_label)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.cancel_button)

        self.page_feed = PageFeed(service, self.tasks, self.viewer, self.answer_view)
        self.searching = LibrarySearching(service, self.tasks, self.library, self.viewer)
        self._connect()
        self.library.document_clicked.connect(self.viewer.open_document)
        self._menus()
        self.changed(Changed.ALL)

    def changed(self, what: Changed) -> None:
        """The views that show what an operation changed read it again (each off the GUI thread)."""
        if Changed.LIBRARY in what:
            self.refresh_library()
        if Changed.HISTORY in what:
            self.refresh_history()
        if Changed.MODELS in what:
            self._check_models()

    def _fit_to_screen(self) -> None:
        """The window's usual size, or what a small screen (a 1366 × 768 laptop) has room for."""
        screen = self.screen().availableGeometry()
        self.resize(min(WINDOW_SIZE[0], int(screen.width() * SCREEN_SHARE)),
                    min(WINDOW_SIZE[1], int(screen.height() * SCREEN_SHARE)))

    # -- wiring ---------------------------------------------------------------------------

    def _connect(self) -> None:
        self.library.add_requested.connect(self.choose_folder)
        self.library.paths_dropped.connect(self.add_paths)
        self.library.remove_requested.connect(self.remove_path)
        self.library.reindex_requested.connect(self.start_watching)
        self.library.document_activated.connect(lambda path: self.viewer.open_page(path, 1))
        self.ask_panel.ask_requested.connect(self.ask)
        self.ask_panel.stop_requested.connect(self.stop_answer)
        self.ask_panel.new_thread_requested.connect(self.new_thread)
        self.answer_view.citation_clicked.connect(self.show_citation)
        self.answer_view.page_clicked.connect(lambda path, page: self.viewer.open_page(path, page))
        self.viewer.tables_requested.connect(
            lambda path, page: self.tables_out.read_page(path, page, self.viewer.tables.show_tables))
        self.viewer.tables.said.connect(self.status_text.setText)
        self.viewer.tables.export_requested.connect(self.tables_out.choose_export)
        self.library.export_tables_requested.connect(self.tables_out.choose_export)
        self.history.answer_chosen.connect(self.open_answer)

    def _menus(self) -> None:
        def action(menu, text, slot, shortcut=None):
            act = QAction(text, self)
            if shortcut:
                act.setShortcut(QKeySequence(shortcut))
            act.triggered.connect(slot)
            menu.addAction(act)
            return act

        file_menu = self.menuBar().addMenu("&File")
        action(file_menu, "Add folder…", self.choose_folder, "Ctrl+O")
        # Ctrl+S, not Ctrl+E: a text field (the question box) takes Ctrl+E as "end of line" on Linux
        self.export_action = action(file_menu, "Export answer…", lambda: self.choose_export(), "Ctrl+S")
        self.export_thread_action = action(file_menu, "Export thread…", lambda: self.choose_export(whole_thread=True),
                                           "Ctrl+Shift+S")
        file_menu.addSeparator()
        action(file_menu, "Quit", self.close, "Ctrl+Q")
        edit_menu = self.menuBar().addMenu("&Edit")
        action(edit_menu, "Ask a question", self.focus_question, "Ctrl+L")
        search = action(edit_menu, "Search the library", self.focus_search, "Ctrl+K")
        search.setShortcuts([QKeySequence("Ctrl+K"), QKeySequence("Ctrl+Shift+F")])
        action(edit_menu, "Copy answer", self.copy_answer, "Ctrl+Shift+C")
        edit_menu.addAction(self.viewer.find_action)  # the viewer's own (Ctrl+F), listed where readers look for it
        action(edit_menu, "Stop", self.stop_answer, "Esc")
        tools_menu = self.menuBar().addMenu("&Tools")
        action(tools_menu, "Models…", self.open_models)
        action(tools_menu, "Settings…", self.open_settings, "Ctrl+,")
        action(tools_menu, "Prepare documents for the method", self.prepare_documents)
        help_menu = self.menuBar().addMenu("&Help")
        action(help_menu, "About DocQA Desktop", self.open_about)

    # -- library --------------------------------------------------------------------------

    def refresh_library(self) -> None:
        def read(progress, cancel):
            return self.service.library.libraries(), self.service.library.status(), self.service.library.enrichment()

        def show(result):
            roots, entries, stages = result
            self.library.show_stages(stages)
            first_time = not self.roots and roots and self.watch_task is None
            self.roots = roots
            self.library.show_library(roots, entries)
            if first_time:
                self.start_watching()

        self.tasks.start("read library", read, show, on_failed=self.show_error)

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of PDFs")
        if folder:
            self.add_paths([folder])

    def add_paths(self, paths: list[str]) -> None:
        self.roots = list(dict.fromkeys(self.roots + [os.path.abspath(p) for p in paths]))
        self.start_watching()

    def start_watching(self) -> None:
        """(Re)start the in-process watcher over every library: it indexes now, then follows changes."""
        if not self.roots:
            return
        previous = self.watch_task
        if previous is not None:
            previous.cancel.set()
        roots = list(self.roots)

        def watch(progress, cancel):
            if previous is not None:
                previous.ended.wait(60)  # let the old watcher roll back its document first
            self.watch_service.library.watch(roots, progress=lambda p: progress(p), stop=cancel,
                                     on_report=lambda r: progress(r), on_error=lambda e: progress(e))

        self.watch_task = self.tasks.start("watch", watch, on_progress=self._watch_event, on_failed=self.show_error,
                                           on_finished=self._watch_ended)
        self._set_indexing(True, "Checking the library for new and changed PDFs…")

    def _watch_event(self, event) -> None:
        if isinstance(event, Progress):
            if event.phase in ("done", "cancelled"):
                return
            self._set_indexing(True, progress_text(event, self.service.library.stages))
            if event.docs_done != self._docs_done:  # a document finished (or indexing began): show it
                self._docs_done = event.docs_done
                self.changed(Changed.LIBRARY)
            self.library.mark_indexing(event.item)
            if event.total:
                self.progress.setRange(0, event.total)
                self.progress.setValue(event.done)
        elif isinstance(event, IndexReport):
            self._docs_done = -1
            self._set_indexing(False, self._report_text(event))
            self.changed(Changed.LIBRARY)
        elif isinstance(event, Exception):
            self.status_text.setText(f"Watching: {event} (will retry)")

    def _watch_ended(self) -> None:
        if self.watch_task is not None and self.watch_task.cancel.is_set():
            self._set_indexing(False, INDEXING_STOPPED)
            self.changed(Changed.LIBRARY)

    @staticmethod
    def _report_text(r: IndexReport) -> str:
        if r.cancelled:
            return INDEXING_STOPPED
        changed = f"{r.added} added, {r.updated} updated, {r.removed} removed"
        failed = f", {r.failed} failed (hover the ⚠ for the reason)" if r.failed else ""
        return f"Library up to date: {changed}{failed}. Watching for changes."

    def _set_indexing(self, busy: bool, message: str) -> None:
        self.status_text.setText(message)
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        if busy and self.progress.maximum() == 0:
            self.progress.setRange(0, 0)  # busy indicator until the first counts arrive

    def prepare_documents(self) -> None:
        """The chosen method's work ahead of questions (SimpleDoc: page summaries), for the selected documents
        or the whole library, in the background; Cancel keeps what is done."""
        method = self.ask_panel.method.currentText()
        docs = self.library.selected_documents() or None

        def prepare(progress, cancel):
            return self.service.answers.prepare(method, docs, progress, cancel)

        def shown(p) -> None:
            self.progress.setRange(0, max(1, p.total))
            self.progress.setValue(p.done)
            self.status_text.setText(f"Preparing for {method}: {describe(p)}")
            self.read_stages()  # "Summaries: SimpleDoc is writing them ahead of questions (3 / 8 pages)"

        def finished(report) -> None:
            self._set_indexing(False, f"{report.method}: {report.done} {report.what} prepared"
                               + (" (cancelled; run again to resume)" if report.cancelled else "")
                               if report.what else f"{report.method} has nothing to prepare")

        self._set_indexing(True, f"Preparing documents for {method}…")
        self.prepare_task = self.tasks.start("prepare", prepare, finished, shown, self.show_error,
                                             on_finished=self.read_stages)  # the lines as they are after it

    def cancel_indexing(self) -> None:
        if self.prepare_task is not None:
            self.prepare_task.cancel.set()
        if self.watch_task is not None:
            self.watch_task.cancel.set()
            self.status_text.setText("Cancelling… the current document is rolled back")

    def remove_path(self, path: str) -> None:
        def remove(progress, cancel):
            return self.service.library.remove(path)

        def removed(count):
            if path in self.roots:
                self.roots.remove(path)
                self.start_watching()
            self.status_text.setText(f"Removed {count} file(s) from the library (files on disk are kept)")
            self.changed(Changed.LIBRARY)

        self.tasks.start("remove", remove, removed, on_failed=self.show_error)

    # -- asking ---------------------------------------------------------------------------

    def focus_search(self) -> None:
        self.left_tabs.setCurrentWidget(self.library)
        self.library.search.focus()

    def focus_question(self) -> None:
        self.ask_panel.question.setFocus()
        self.ask_panel.question.selectAll()

    def ask(self, question: str, method: str, selected_only: bool) -> None:
        docs = self.library.selected_documents() if selected_only else None
        if selected_only and not docs:
            self.status_text.setText("Select documents in the library first, or ask the whole library")
            return
        earlier = list(self.thread) if self.ask_panel.follow_up.isChecked() else []
        follow_up = earlier[-1].id if earlier else None

        def run(progress, cancel):
            answer = self.service.answers.ask(question, docs, method, progress=progress, cancel=cancel,
                                      stream=progress, follow_up=follow_up)  # text so far, as a str event
            return answer, self.service.models.upgrade_hint() if answer.method in (QUOTED, CASCADE) and not answer.calls \
                else ""

        def event(value) -> None:
            if isinstance(value, str):
                self.answer_view.show_partial(question, value, earlier)
            else:
                self.answer_view.show_step(value)
                self.read_stages()  # the lines follow the method (SimpleDoc writing summaries for this question)

        def ended() -> None:
            self.ask_panel.set_running(False)
            self.read_stages()  # the question's work is done: the lines as they are without it

        def answered(result) -> None:
            answer, hint = result
            self.thread = earlier + [answer]
            self.show_answer(answer, earlier)
            self.changed(Changed.HISTORY | Changed.MODELS)  # the picker's measured time now counts this answer
            if hint:  # what a recommended model would add to a quoted answer
                self.status_text.setText(hint)

        self.ask_panel.set_running(True)
        self.answer_view.show_question(question, earlier)  # at once: the previous answer is not this question's
        self.viewer.show_uncited("the new question's citations show here when it is answered")  # nor its highlight
        self.ask_task = self.tasks.start("ask", run, answered, event, self._ask_failed, on_finished=ended)

    def new_thread(self) -> None:
        self.thread = []
        self.ask_panel.set_thread(0)
        self.focus_question()

    def stop_answer(self) -> None:
        if self.ask_task is not None:
            self.ask_task.cancel.set()
            self.answer_view.show_stopping()

    def _ask_failed(self, message: str) -> None:
        self.show_error(message)
        self.answer_view.show_failure(message)  # under the question, in place of what was streamed

    def show_answer(self, answer: Answer, earlier: list[Answer] = ()) -> None:
        self.answer_view.show_answer(answer, earlier)
        self.ask_panel.set_thread(len(earlier) + 1)
        self.export_action.setEnabled(True)
        # a new answer forgets the reader's zoom: its first citation opens highlighted, in view and zoomed until its
        # words read; a zoom the reader then chooses holds while it is larger than a citation's own
        self.viewer.fit()
        self.viewer.set_citations(answer.citations)  # Next / Previous citation step through them
        if answer.citations:
            self.show_citation(answer.citations[0])
        elif answer.pages_used:
            self.viewer.open_page(answer.pages_used[0].path, answer.pages_used[0].page,
                                  note=NOT_CITED.get(answer.status, "nothing cited"))
        else:  # the page of an earlier answer may be on screen: it keeps no highlight of that answer's
            self.viewer.show_uncited(NOT_CITED.get(answer.status, "nothing cited"))
        for ref in answer.pages_used:
            self.page_feed.load_thumbnail(ref.path, ref.page)

    def show_citation(self, citation: Citation) -> None:
        self.viewer.show_citation(citation)

    # -- history, export ------------------------------------------------------------------

    def refresh_history(self) -> None:
        self.tasks.start("history", lambda progress, cancel: self.service.answers.history(200), self.history.show_history,
                         on_failed=self.show_error)

    def open_answer(self, answer_id: str) -> None:
        """Show an answer of the history with its whole thread; a next question follows the thread up."""
        def opened(thread: list[Answer]) -> None:
            self.thread = thread  # a next question follows the whole thread up
            chosen = next(i for i, a in enumerate(thread) if a.id == answer_id)
            self.show_answer(thread[chosen], thread[:chosen])

        self.tasks.start("open answer", lambda progress, cancel: self.service.answers.thread(answer_id), opened,
                         on_failed=self.show_error)

    def choose_export(self, whole_thread: bool = False) -> None:
        answer = self.answer_view.answer
        if answer is None:
            self.status_text.setText("Ask a question first: there is no answer to export")
            return
        filters = ";;".join(f"{fmt.upper()} (*.{fmt})" for fmt in EXPORT_FORMATS)
        name = export_file_name(answer, "md", whole_thread)
        # in the folder last exported to, else the documents folder: not the folder the app was started from
        start = os.path.join(self.window_state.export_folder(), name)
        path, chosen = QFileDialog.getSaveFileName(self, "Export thread" if whole_thread else "Export answer",
                                                   start, filters)
        if path:
            self.window_state.exported_to(path)
            fmt = Path(path).suffix.lstrip(".").lower()
            self.export_answer(answer, path, fmt if fmt in EXPORT_FORMATS else chosen.split()[0].lower(),
                               whole_thread)

    def export_answer(self, answer: Answer, path: str, fmt: str, whole_thread: bool = False) -> Task:
        def write(progress, cancel):
            if whole_thread:
                return self.service.answers.export_thread(answer.id, fmt, path)
            return self.service.answers.export(answer, fmt, path)

        return self.tasks.start("export", write, lambda out: self.status_text.setText(f"Exported to {out}"),
                                on_failed=self.show_error)

    def copy_answer(self) -> None:
        answer = self.answer_view.answer
        if answer is not None:
            cites = "\n".join(cited_line(n, c) for n, c in enumerate(answer.citations, 1))
            QGuiApplication.clipboard().setText(f"{shown_text(answer)}\n\n{cites}".strip())
            self.status_text.setText("Answer copied with its citations")

    # -- models, settings, errors, closing ------------------------------------------------

    def open_models(self) -> ModelsDialog:
        dialog = ModelsDialog(self.service, self.tasks, self)
        dialog.finished.connect(lambda _: self.changed(Changed.MODELS))
        dialog.open()
        return dialog

    def open_about(self) -> AboutDialog:
        dialog = AboutDialog(self.service, self.tasks, self)
        dialog.open()
        return dialog

    def offer_models(self) -> None:
        """On the first run with only the built-in models: the first-run panel (hardware, recommended models,
        download or skip)."""
        self.tasks.start("first run", lambda progress, cancel: self.service.models.first_run_needed(),
                         lambda needed: self.open_first_run() if needed else None)

    def open_first_run(self) -> FirstRunPanel:
        panel = FirstRunPanel(self.service, self.tasks, self)
        panel.installed.connect(self._model_installed)
        panel.open()
        self.first_run_panel = panel
        return panel

    def _model_installed(self, serving: str) -> None:
        self.ask_panel.method.setCurrentText(self.service.answers.default_method)  # auto: SimpleDoc now
        self.status_text.setText(f"{serving} answers your questions now (method {self.service.answers.default_method})")
        self.changed(Changed.MODELS)

    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self.service.settings, self.service.answers.methods(),
                                self.service.answers.default_method, self)
        dialog.accepted.connect(lambda: self.apply_settings(dialog.chosen(), dialog.data_folder_changed()))
        dialog.open()
        return dialog

    def apply_settings(self, chosen, data_folder_changed: bool = False) -> None:
        def apply(progress, cancel):
            self.service.apply_settings(chosen)
            return settings_file.save(chosen)

        def applied(path) -> None:
            self.ask_panel.method.setCurrentText(self.service.answers.default_method)
            restart = "; the new data folder is used when DocQA next starts" if data_folder_changed else ""
            self.status_text.setText(f"Settings saved to {path}{restart}")
            self.changed(Changed.MODELS)  # another model or server: other methods may now be too big for it

        self.tasks.start("settings", apply, applied, on_failed=self.show_error)

    def _check_models(self) -> None:
        """Which models serve now (off the GUI thread: it reads their files' headers): the first-run note while the
        built-in model is the only one, beside each method whether the text model is large enough for it, and how
        long a question takes here."""
        def models_now(progress, cancel):
            models = self.service.models
            timings = {name: per.text for name, per in models.per_question().items()}
            return models.only_builtin(), models.shortfalls(remedies=IN_THE_APP), timings

        def show(found) -> None:
            builtin_only, shortfalls, timings = found
            self.first_run.setVisible(builtin_only)  # the note says the built-in model is all there is
            self.ask_panel.set_shortfalls(shortfalls)
            self.ask_panel.set_timings(timings)  # this machine's measured time per question, or the estimate

        self.tasks.start("models", models_now, show)

    def show_error(self, message: str) -> None:
        self.status_text.setText(message)

    # -- the command line beside the app (cli/app_link.py runs its commands here) ------------------------

    def command_started(self, command: str) -> None:
        self.commands_label.started(command)
        self.command_stages.start()

    def command_ended(self, command: str, code: int) -> None:
        self.commands_label.ended(command)
        if not self.commands_label.running:
            self.command_stages.stop()
        self.status_text.setText(f"{command}: " + ("done" if code == 0 else f"ended with exit code {code}"))
        self.changed(Changed.LIBRARY | Changed.HISTORY)  # it may have indexed, removed or answered

    def bring_forward(self, paths: list[str]) -> None:
        """`docqa gui [FOLDERS]` while the app is open: the window comes up (and adds the folders)."""
        self.showNormal()
        self.raise_()
        self.activateWindow()
        if paths:
            self.add_paths(paths)

    def closeEvent(self, event) -> None:
        # the next start opens the window as it is now
        self.window_state.save(self, self.panels, self.library, self.answer_view.trace_panel)
        self.tasks.shutdown()
        self.watch_service.close()
        super().closeEvent(event)
