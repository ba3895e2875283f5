"""The desktop app (pytest-qt, offscreen): library, indexing, errors, asking, citations, export."""
from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")  # the test extra installs it

from PySide6.QtCore import Qt  # noqa: E402

from conftest import ask_in_window  # noqa: E402
from docqa_desktop.service import Service  # noqa: E402
from docqa_desktop.ui.library_panel import FILE, PAGES, STATUS  # noqa: E402

PACKAGE = Path(__file__).resolve().parent.parent / "docqa_desktop"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_ui_package_imports_qt_and_the_ui_imports_no_engines():
    for path in PACKAGE.rglob("*.py"):
        imports = _imports(path)
        if "ui" in path.relative_to(PACKAGE).parts:
            assert not imports & {"duckdb", "llama_cpp", "torch"}, path
        else:
            assert "PySide6" not in imports, path


def _pages(win) -> list[str]:
    tree = win.library.tree
    return [tree.topLevelItem(i).child(j).text(PAGES) for i in range(tree.topLevelItemCount())
            for j in range(tree.topLevelItem(i).childCount())]


def _documents(win) -> dict[str, str]:
    tree = win.library.tree
    found = {}
    for i in range(tree.topLevelItemCount()):
        folder = tree.topLevelItem(i)
        for j in range(folder.childCount()):
            found[folder.child(j).text(FILE)] = folder.child(j).text(STATUS)
    return found


def test_adding_a_folder_indexes_it_and_lists_its_documents(window, qtbot, library, record_property):
    from docqa_desktop.ui.stall_meter import StallMeter
    assert window.library.stack.currentWidget() is window.library.empty  # the first-run hint
    meter = StallMeter()
    meter.start()
    window.add_paths([str(library)])
    qtbot.waitUntil(lambda: window.cancel_button.isVisible(), timeout=30_000)
    seen = set()  # documents listed while indexing runs, not only at the end
    window.library.tree.model().rowsInserted.connect(
        lambda *a: window.cancel_button.isVisible() and seen.update(_documents(window)))
    qtbot.waitUntil(lambda: "Library up to date" in window.status_text.text(), timeout=180_000)
    meter.stop()
    assert "Library up to date: 3 added" in window.status_text.text()
    assert len(seen) == 3
    qtbot.waitUntil(lambda: len(_documents(window)) == 3 and all("indexed" in s for s in _documents(window).values()),
                    timeout=30_000)
    assert not window.cancel_button.isVisible() and not window.progress.isVisible()
    assert window.library.stack.currentWidget() is window.library.tree
    # the background passes' state under the list (this window's service has layout and embeddings off)
    qtbot.waitUntil(lambda: window.library.stages.isVisible(), timeout=30_000)
    stages = window.library.stages.text()
    pages = sum(int(p or 0) for p in _pages(window))
    assert f"Keywords: {pages:,} / {pages:,} pages" in stages and "Layout: switched off (index.layout)" in stages
    assert "switched off" in window.library.stages.toolTip()
    # recorded, not asserted (tests do not judge wall-clock time): benchmarks/gui_stall.py measures the corpus
    for key, value in meter.summary().items():
        record_property(key, value)


def test_the_stall_meter_sees_a_blocked_gui_thread(qtbot):
    import time

    from PySide6.QtCore import QTimer

    from docqa_desktop.ui.stall_meter import StallMeter
    meter = StallMeter()
    meter.start()
    QTimer.singleShot(50, lambda: time.sleep(0.3))  # the GUI thread busy for 300 ms
    qtbot.wait(600)
    meter.stop()
    summary = meter.summary()
    assert summary["longest_stall_ms"] >= 250 and summary["ticks"] > 10


def test_the_window_follows_a_dark_colour_scheme(qapp):
    from docqa_desktop.ui.app import apply_theme
    try:
        apply_theme(qapp, Qt.ColorScheme.Dark)
        assert qapp.palette().window().color().lightness() < 80
        assert qapp.palette().text().color().lightness() > 180
    finally:
        apply_theme(qapp, Qt.ColorScheme.Light)
    assert qapp.palette().window().color().lightness() > 180


def test_a_broken_pdf_shows_its_error(window, qtbot, tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "truncated.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>")
    window.add_paths([str(folder)])
    qtbot.waitUntil(lambda: "error" in _documents(window).get("truncated.pdf", ""), timeout=60_000)
    item = window.library.tree.topLevelItem(0).child(0)
    assert "truncated.pdf" in item.toolTip(0) and len(item.toolTip(STATUS)) > 5  # the reason, on hover


ASK_BUDGET = {"DOCQA_ASK_K": "3", "DOCQA_ASK_MAX_PAGES": "2", "DOCQA_ASK_PAGE_TOKENS": "150",
              "DOCQA_ASK_SUMMARY_TOKENS": "24", "DOCQA_ASK_ITERATIONS": "1", "DOCQA_LLM_THREADS": "1"}


def test_ask_cite_view_export_and_history(window, qtbot, library, tmp_path, monkeypatch):
    """The whole asking path in the window, with the real built-in model: steps while it runs, the answer,
    a citation (or a page read) opening the page viewer on that page, export, history."""
    from docqa_desktop.settings import Settings
    for key, value in ASK_BUDGET.items():
        monkeypatch.setenv(key, value)
    window.service.apply_settings(Settings.load(window.service.settings.locations.database.parent.parent))
    window.add_paths([str(library)])
    qtbot.waitUntil(lambda: "Library up to date" in window.status_text.text(), timeout=180_000)

    steps = []
    show_step = window.answer_view.show_step
    window.answer_view.show_step = lambda message: (steps.append(message), show_step(message))
    window.ask_panel.question.setText("Which pivot language is used for translation?")
    window.ask_panel.method.setCurrentText("m3docrag")
    window.ask_panel.ask_button.click()
    assert window.ask_panel.stop_button.isEnabled()
    qtbot.waitUntil(lambda: window.answer_view.answer is not None, timeout=300_000)
    answer = window.answer_view.answer
    # the built-in 135M model is below m3docrag's floor: a draft, never "answered"
    assert answer.status.value in ("unverified", "passages", "not_found") and answer.pages_used
    assert not window.ask_panel.stop_button.isEnabled()
    assert any("reading pages" in step.phase for step in steps)  # live steps reached the window

    first = answer.citations[0] if answer.citations else answer.pages_used[0]
    _wait_for_page(window, qtbot, first.path, first.page)  # the answer opens its first citation
    window.viewer.whole_button.click()  # zoomed until the cited words read: the whole page is one click away
    qtbot.waitUntil(lambda: window.viewer.image.width() <= window.viewer.scroll.viewport().width(), timeout=60_000)
    viewport, shown = window.viewer.scroll.viewport().size(), window.viewer.image.size()
    assert shown.width() <= viewport.width() and shown.height() <= viewport.height()  # the whole page at 100 %
    window.viewer.zoom_in_button.click()
    qtbot.waitUntil(lambda: window.viewer.image.width() > shown.width(), timeout=60_000)

    # clicking a thumbnail, and a citation chip when the model cited, opens that page
    pages = window.answer_view.pages
    last = pages.item(pages.count() - 1)
    pages.itemClicked.emit(last)
    _wait_for_page(window, qtbot, *last.data(Qt.ItemDataRole.UserRole))
    if answer.citations:
        from PySide6.QtCore import QUrl
        n = len(answer.citations)
        window.answer_view.text.anchorClicked.emit(QUrl(f"cite:{n}"))
        # the same page may already be shown (the last thumbnail): wait for the render that draws the region
        qtbot.waitUntil(lambda: "cited region highlighted" in window.viewer.title.text(), timeout=60_000)
        assert window.viewer.shown == (answer.citations[-1].path, answer.citations[-1].page)

    out = tmp_path / "answer.html"
    window.export_answer(answer, str(out), "html")
    qtbot.waitUntil(out.exists, timeout=60_000)
    assert answer.question in out.read_text(encoding="utf-8")

    qtbot.waitUntil(lambda: window.history.count() >= 1, timeout=30_000)
    assert window.history.item(0).data(Qt.ItemDataRole.UserRole) == answer.id


def _wait_for_page(window, qtbot, path: str, page: int) -> None:
    qtbot.waitUntil(lambda: window.viewer.shown == (path, page), timeout=60_000)
    assert not window.viewer.image.pixmap().isNull()
    assert f"{os.path.basename(path)} — page {page} of" in window.viewer.title.text()


def test_cancelling_indexing_keeps_a_consistent_library(window, qtbot, tmp_path):
    from conftest import CORPUS
    folder = tmp_path / "corpus"
    folder.mkdir()
    for pdf in sorted(CORPUS.glob("*.pdf"))[:6]:
        (folder / pdf.name).symlink_to(pdf)
    window.add_paths([str(folder)])
    qtbot.waitUntil(lambda: window.cancel_button.isVisible() and "Indexing" in window.status_text.text(),
                    timeout=60_000)
    window.cancel_button.click()
    qtbot.waitUntil(lambda: not window.cancel_button.isVisible(), timeout=120_000)
    with Service(window.service.settings) as reader:
        entries = reader.library.status()
        # every document listed as indexed has all of its pages; nothing is half written
        for e in entries:
            if e.status.value == "indexed":
                count = reader.resources.db.cursor().execute("SELECT count(*) FROM pages WHERE doc_id = ?", [e.doc_id]).fetchone()[0]
                assert count == e.pages
    assert window.watch_task.cancel.is_set() and "stopped" in window.status_text.text()

    # Re-index picks up where it stopped (the cancelled watcher has ended, so the new one starts at once)
    window.library.reindex_button.click()
    qtbot.waitUntil(lambda: "Library up to date" in window.status_text.text(), timeout=600_000)
    assert all("indexed" in status for status in _documents(window).values()) and len(_documents(window)) == 6


def test_settings_dialog_saves_and_applies_the_asking_defaults(window, qtbot):
    from docqa_desktop.settings import Settings
    assert window.ask_panel.method.currentText() == "cascade"  # the default; with the built-in model it only quotes
    dialog = window.open_settings()
    assert dialog.method.currentText() == "auto" and dialog.shown_method == "cascade"  # what auto uses
    dialog.method.setCurrentText("m3docrag")  # the form below shows the chosen method's own settings
    assert set(dialog.method_fields) == {"k", "page_tokens", "answer_tokens"}
    dialog.method_fields["k"].setValue(7)
    dialog.search_mode.setCurrentText("Text and page images")
    dialog.visual.setCurrentText("Always (slow on a CPU)")
    dialog.visual_tokens.setCurrentText("512")
    dialog.accept()
    path = window.service.settings.locations.settings_file
    qtbot.waitUntil(lambda: "Settings saved" in window.status_text.text(), timeout=30_000)
    reloaded = Settings.load(path.parent.parent)
    assert (reloaded.tables["methods"]["m3docrag"], reloaded.ask.method) == ({"k": 7}, "m3docrag")
    assert (reloaded.search.mode, reloaded.index.visual, reloaded.index.visual_tokens) == ("hybrid", "on", 512)
    assert window.service.answers.method_settings("m3docrag")["k"] == 7
    assert window.ask_panel.method.currentText() == "m3docrag"


def test_the_app_quotes_the_answer_by_default_and_says_what_a_model_adds(window, qtbot, tmp_path):
    """A new user's first question in the app, with only the built-in model: the memo's sentence, quoted and
    cited (the viewer opens the memo), and the status line names the model that would write answers."""
    import shutil
    from conftest import SAMPLES
    folder = tmp_path / "samples"
    shutil.copytree(SAMPLES, folder)
    window.add_paths([str(folder)])
    qtbot.waitUntil(lambda: "Library up to date" in window.status_text.text(), timeout=180_000)
    answer = ask_in_window(window, qtbot, "When does the last ferry to Gull Island leave?", timeout_ms=60_000)
    assert (answer.method, answer.short_answer, answer.citations[0].doc) == ("cascade", "18:40",
                                                                             "ferry-memo-scanned.pdf")
    _wait_for_page(window, qtbot, answer.citations[0].path, 1)
    assert "no language model wrote this" in window.status_text.text()
    assert "docqa models pull" in window.status_text.text()


def test_the_app_names_the_three_verdicts_and_shows_passages_as_passages(window, qtbot, tmp_path):
    """With only the built-in model: a value is answered (large), a yes/no question gets the closest passages
    (said first, in normal size, cited), a question about nothing in the library is not found."""
    from conftest import write_pdf
    folder = tmp_path / "docs"
    folder.mkdir()
    write_pdf(folder / "opening.pdf", ["Library opening hours.\nThe reading room opens at 09:30 on weekdays.\n"
                                       "The archive is closed on Mondays and holds 12,000 maps."])
    window.add_paths([str(folder)])
    qtbot.waitUntil(lambda: "Library up to date" in window.status_text.text(), timeout=180_000)
    shown = {}
    for question in ("When does the reading room open?", "Is the archive open on Mondays?",
                     "What is the capital city of Mars?"):
        answer = ask_in_window(window, qtbot, question, timeout_ms=180_000)
        shown[answer.status.value] = (answer, window.answer_view.text.toPlainText(),
                                      window.answer_view.text.toHtml())
    assert set(shown) == {"answered", "passages", "not_found"}
    answered, passages, not_found = shown["answered"], shown["passages"], shown["not_found"]
    assert answered[0].short_answer == "09:30" and "Answered · cascade" in answered[1] and "quoted; " in answered[1]
    assert passages[1].index("Closest passages, not an answer") < passages[1].index("The closest passages")
    assert passages[0].citations and "Closest passages · cascade" in passages[1]
    assert "Not found in the documents" in not_found[1] and not not_found[0].citations
    from docqa_desktop.ui.answer_view import answer_html
    assert '<p style="font-size:large">09:30' in answer_html(answered[0])  # only an answer is set large
    passages_html = answer_html(passages[0])  # led by the likeliest value, said to be uncertain, when there is one
    assert '<p style="font-size:medium">The closest passages' in passages_html or \
        ('<p style="font-size:medium">Likeliest: ' in passages_html and "not sure enough to answer" in passages_html
         and "The closest passages" in passages_html)


def _shown_runs(view) -> list[tuple[str, bool, str, int]]:
    """The answer view's text as runs: (text, bold, colour, size step: 1 for 'large', 0 normal, -1 small)."""
    from PySide6.QtGui import QFont, QTextFormat
    runs, block = [], view.text.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            runs.append((it.fragment().text(), fmt.fontWeight() >= QFont.Weight.Bold,
                         fmt.foreground().color().name(), fmt.intProperty(QTextFormat.Property.FontSizeAdjustment)))
            it += 1
        block = block.next()
    return runs


def test_the_answer_view_shows_the_proof_of_a_computed_answer(qtbot):
    """Answered with a computation: the answer large, then 'Computed: … = value' with the quoted numbers bold
    and coloured (not the constant 100), then the check line small and grey, then the cited quote."""
    from proof_answers import CHECK, computed_answer
    from docqa_desktop.presentation import QUOTED_NUMBER_COLOUR
    from docqa_desktop.ui.answer_view import AnswerView

    view = AnswerView()
    qtbot.addWidget(view)
    view.show_answer(computed_answer())
    shown = view.text.toPlainText()
    assert "Computed: (56.8 - 51.5) / 51.5 * 100 = 10.29" in shown
    assert shown.index("Sales grew by 10.29%") < shown.index("Computed:") < shown.index(CHECK) \
        < shown.index("[1]") < shown.index("Answered · simpledoc")
    runs = _shown_runs(view)
    quoted = [text for text, bold, colour, _ in runs if bold and colour == QUOTED_NUMBER_COLOUR]
    assert quoted == ["56.8", "51.5", "51.5"]
    assert any(" * 100 = 10.29" in text and not bold for text, bold, _, _ in runs)  # 100 is in no quote
    [check] = [run for run in runs if run[0] == CHECK]
    assert check[1:] == (False, "#808080", -1)  # small and grey
    [answer] = [run for run in runs if run[0].startswith("Sales grew")]
    assert answer[3] == 1  # set large: the answer
    assert "Unverified" not in shown and "not checked" not in shown


def test_the_answer_view_shows_an_unverified_draft_as_a_draft(qtbot):
    """Unverified: the verdict first in the warning colour, then the model's draft labelled, in normal size and
    weight, then why it is unverified, then the passages it read as citation chips; history and a follow-up's
    earlier turn name it too."""
    from PySide6.QtCore import QUrl
    from proof_answers import DRAFT, PASSAGE, QUOTE, WHY, computed_answer, unverified_answer
    from docqa_desktop.answers import VERDICTS, AnswerStatus
    from docqa_desktop.presentation import WARNING_COLOUR
    from docqa_desktop.ui.answer_view import AnswerView
    from docqa_desktop.ui.history_panel import HistoryPanel

    draft = unverified_answer()
    view = AnswerView()
    qtbot.addWidget(view)
    view.show_answer(draft)
    shown = view.text.toPlainText()
    verdict = VERDICTS[AnswerStatus.UNVERIFIED]
    assert shown.index(verdict) < shown.index(f"Model's draft (not checked): {DRAFT}") < shown.index(WHY) \
        < shown.index("[1]") < shown.index(f"report.pdf, page 7 — “{PASSAGE}”") < shown.index("[2]") \
        < shown.index(f"report.pdf, page 9 — “{QUOTE}”") < shown.index("Unverified draft · simpledoc")
    runs = _shown_runs(view)
    [said] = [run for run in runs if run[0] == verdict]
    assert said[1:3] == (True, WARNING_COLOUR)
    [text] = [run for run in runs if DRAFT in run[0]]
    assert text[1:] == (False, "#000000", 0)  # never bold, never large, never coloured like the answer
    assert [run[1:] for run in runs if run[0] == WHY] == [(False, "#808080", -1)]  # the model's '<b>' as text
    assert "Computed" not in shown
    received = []
    view.citation_clicked.connect(received.append)
    view.text.anchorClicked.emit(QUrl("cite:2"))  # the second passage's chip
    assert received[0].page == 9
    # a follow-up after the draft: the earlier turn still says it was a draft
    view.show_answer(computed_answer(), [draft])
    assert f"Model's draft (not checked): {DRAFT}" in view.text.toPlainText()
    history = HistoryPanel()
    qtbot.addWidget(history)
    history.show_history([draft, computed_answer()])
    assert "Unverified draft · " in history.item(0).text() and "Answered · " in history.item(1).text()


def test_models_dialog_lists_the_built_in_and_recommended_models_and_the_roles(window, qtbot):
    dialog = window.open_models()
    qtbot.waitUntil(lambda: dialog.table.rowCount() > 0, timeout=30_000)
    rows = {(dialog.table.item(i, 1).text(), dialog.table.item(i, 2).text()) for i in range(dialog.table.rowCount())}
    assert ("smollm2-135m-instruct", "built in") in rows
    assert any(state == "not installed" for _, state in rows)  # recommended, ready to download
    assert "Text tasks → smollm2-135m-instruct" in dialog.roles.text()
    dialog.close()


def test_the_launcher_opens_this_installation_from_the_applications_menu(tmp_path, monkeypatch):
    import shlex
    import subprocess
    import sys

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    out = subprocess.run([sys.executable, "-m", "docqa_desktop", "--home", str(tmp_path / "home"), "gui",
                          "--install-launcher"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    entry = (tmp_path / "share" / "applications" / "docqa-desktop.desktop").read_text(encoding="utf-8")
    fields = dict(line.split("=", 1) for line in entry.splitlines() if "=" in line)
    command = shlex.split(fields["Exec"])
    assert command == [sys.executable, "-m", "docqa_desktop", "--home", str(tmp_path / "home"), "gui"]
    assert Path(fields["Icon"]).is_file() and fields["Terminal"] == "false"


def ask_with_the_method_picker(window, qtbot, paper, method: str, model):
    """Index `paper` in the app, pick `method` by name, ask the pivot question with `model` (a scripted model:
    these tests are about the app's path, not the model); (the answer, the step phases the window showed)."""
    from scripted_model import FixedRuntimes
    window.add_paths([str(paper)])
    qtbot.waitUntil(lambda: "Library up to date" in window.status_text.text(), timeout=180_000)
    window.service.resources.use_runtimes(FixedRuntimes(model))
    steps = []
    show_step = window.answer_view.show_step
    window.answer_view.show_step = lambda message: (steps.append(message), show_step(message))
    assert window.ask_panel.method.findText(method) >= 0
    window.ask_panel.method.setCurrentText(method)
    window.ask_panel.question.setText("Which languages are used as pivot?")
    window.ask_panel.ask_button.click()
    qtbot.waitUntil(lambda: window.answer_view.answer is not None, timeout=120_000)
    answer = window.answer_view.answer
    assert answer.method == method and answer.status.value == "answered" and answer.short_answer == "English"
    return answer, [step.phase for step in steps]


def test_doclens_from_the_method_picker_answers_with_its_steps_and_trace(window, qtbot, paper):
    """DocLens in the app: its navigator and sampler steps reach the window, the answer cites a page it read."""
    from scripted_model import DocLensScript, navigation, sample
    answer, phases = ask_with_the_method_picker(window, qtbot, paper, "doclens", DocLensScript(
        navigate=[navigation(1)] * 8, answers=[sample(), sample()],
        adjudicate=[{"reasoning": "Agreed.", "answer": "English"}]))
    assert [p.page for p in answer.pages_used] == [1] and answer.citations[0].page == 1
    assert "navigating pages" in phases and "answering from 1 page (2 samples)" in phases
    assert [c.step for c in answer.calls][-1] == "adjudicate"


def test_mdocagent_from_the_method_picker_answers_with_its_agents_steps(window, qtbot, paper):
    """MDocAgent in the app: each agent's step reaches the window, the answer cites a page the agents read."""
    from scripted_model import MDocAgentScript, sample
    answer, phases = ask_with_the_method_picker(window, qtbot, paper, "mdocagent", MDocAgentScript({
        "general agent": sample(), "text agent": sample(), "critical agent": {"text": "the pivot language"},
        "summarize": {"reasoning": "Agreed.", "answer": "English"}}))
    assert answer.citations and answer.citations[0].page in {p.page for p in answer.pages_used}
    assert [p.split(":")[0] for p in phases if ":" in p] == ["general agent", "critical agent", "text agent",
                                                            "summarizing agent"]


def test_docreact_from_the_method_picker_answers_with_its_rounds(window, qtbot, paper):
    """Doc-React in the app: its rounds and candidate readings reach the window, the answer cites the page it
    chose, and the answer names the model that wrote it."""
    from scripted_model import DocReactScript
    answer, phases = ask_with_the_method_picker(window, qtbot, paper, "docreact", DocReactScript(
        [("Search", "the pivot languages"), ("Finish", "English")]))
    assert "· docreact · scripted · 2 round(s)" in window.answer_view.text.toPlainText()
    assert len(answer.pages_used) == 1 and answer.citations[0].page == answer.pages_used[0].page
    assert phases[0] == "round 1: thinking" and phases[-1] == "answering from the observations"
    assert sum(p.startswith("round 1: reading candidate") for p in phases) == 4
