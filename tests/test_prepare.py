"""A method's prepare step (SimpleDoc's page summaries) from the CLI, the watcher and the app, with a scripted
model standing in for the summarising model."""
from __future__ import annotations

import dataclasses
import re
import threading
import time

import pytest

from conftest import make_settings, write_pdf
from scripted_model import FixedRuntimes, ScriptedModel
from docqa_desktop.cli import main
from docqa_desktop.methods.toolkit.page_summaries import PAGE_SUMMARY
from docqa_desktop.service import Service
from docqa_desktop.store import artifacts
from docqa_desktop.store.summary_trees import SummaryTrees


def summarised_pages(settings) -> int:
    with Service(settings) as reader:  # the watcher closes its database between bursts
        return artifacts.count(reader.resources.db.cursor(), PAGE_SUMMARY, None, "scripted")


def wait_for(condition, timeout=180.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.3)
    raise AssertionError("condition not reached within the deadline")


def test_cli_prepare_names_a_method_with_nothing_to_prepare(home, capsys):
    assert main(["prepare", "--method", "m3docrag", "--home", str(home)]) == 0
    assert "m3docrag has nothing to prepare" in capsys.readouterr().out


@pytest.mark.slow
def test_the_watcher_prepares_new_documents(home, tmp_path):
    folder = tmp_path / "watched"
    folder.mkdir()
    write_pdf(folder / "first.pdf", ["Herons nest in reeds.", "Egrets feed in shallow water."])
    settings = make_settings(home, layout=False, dense=False, settle_seconds=0.5, workers=1)
    # SimpleDoc chosen: on the built-in models alone the default (auto) is quoted answers, with nothing to prepare
    settings = dataclasses.replace(settings, ask=dataclasses.replace(settings.ask, prepare_after_index=True,
                                                                     method="simpledoc"))
    service = Service(settings)
    service.resources.use_runtimes(FixedRuntimes(ScriptedModel([])))
    stop = threading.Event()
    thread = threading.Thread(target=service.library.watch, args=([str(folder)],), kwargs={"stop": stop}, daemon=True)
    thread.start()
    try:
        wait_for(lambda: summarised_pages(settings) == 2)
        write_pdf(folder / "second.pdf", ["Storks migrate in autumn."])
        wait_for(lambda: summarised_pages(settings) == 3)  # only the new document's page is summarised
    finally:
        stop.set()
        thread.join(timeout=60)
        service.close()
    assert not thread.is_alive()


@pytest.mark.gui
def test_the_app_prepares_documents_in_the_background(window, qtbot, paper):
    window.add_paths([str(paper)])
    qtbot.waitUntil(lambda: "Library up to date" in window.status_text.text(), timeout=180_000)
    window.service.resources.use_runtimes(FixedRuntimes(ScriptedModel([])))
    window.ask_panel.method.setCurrentText("simpledoc")
    window.prepare_documents()
    assert window.cancel_button.isVisible() or "prepared" in window.status_text.text()
    qtbot.waitUntil(lambda: "page summaries prepared" in window.status_text.text(), timeout=180_000)
    assert "simpledoc: 8 page summaries prepared" in window.status_text.text()  # the paper's 8 pages
    assert not window.cancel_button.isVisible()


@pytest.mark.gui
def test_the_app_builds_mmrag_summary_trees_with_progress_and_cancel_keeps_what_is_written(window, qtbot, paper):
    from scripted_model import MMRAGScript

    window.add_paths([str(paper)])
    qtbot.waitUntil(lambda: "Library up to date" in window.status_text.text(), timeout=180_000)
    shown = []
    set_text = window.status_text.setText
    window.status_text.setText = lambda text: (shown.append(text), set_text(text))
    window.ask_panel.method.setCurrentText("mmrag")

    class CancelledMidway(MMRAGScript):  # the user presses Cancel while the third summary is written
        def chat(self, messages, options, cancel=None):
            if len(self.calls("summary")) == 2:
                window.prepare_task.cancel.set()
            return super().chat(messages, options, cancel)

    window.service.resources.use_runtimes(FixedRuntimes(CancelledMidway()))
    window.prepare_documents()
    qtbot.waitUntil(lambda: "prepared" in window.status_text.text(), timeout=180_000)
    assert "mmrag: 3 summary-tree nodes prepared (cancelled; run again to resume)" in window.status_text.text()
    assert any(re.match(r"Preparing for mmrag: summary tree, layer 1 \d+/\d+", t) for t in shown), shown

    window.service.resources.use_runtimes(FixedRuntimes(MMRAGScript()))
    window.prepare_documents()
    qtbot.waitUntil(lambda: "prepared" in window.status_text.text() and "cancelled" not in
                    window.status_text.text(), timeout=180_000)
    written = int(window.status_text.text().split(": ")[1].split()[0])
    with Service(window.service.settings) as reader:
        doc_id = reader.library.status()[0].doc_id
        nodes = SummaryTrees(reader.resources.db).nodes(doc_id, "scripted")
    assert written == len(nodes) - 3 and all(n.text for n in nodes)  # resumed: the first three were kept
    assert not window.cancel_button.isVisible()
