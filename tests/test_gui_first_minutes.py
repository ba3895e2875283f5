"""The app's first minutes (pytest-qt, offscreen): the answer streams into the window, Stop keeps it, a
follow-up continues the thread (history and export keep it), and the first-run panel offers models and
downloads one from a fake hub."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("pytestqt")  # the test extra installs it

from PySide6.QtCore import Qt, QUrl  # noqa: E402

from conftest import ask_in_window, make_settings, open_window  # noqa: E402
from scripted_model import FixedRuntimes, StreamingModel, reasoning  # noqa: E402
from docqa_desktop.service import Resources, Service  # noqa: E402

ANSWER = "English is the pivot language between the source and the target."


def _index(window, qtbot, folder) -> None:
    window.add_paths([str(folder)])
    qtbot.waitUntil(lambda: "Library up to date" in window.status_text.text(), timeout=180_000)


def test_the_answer_streams_into_the_window_and_a_follow_up_continues_the_thread(window, qtbot, paper, tmp_path):
    _index(window, qtbot, paper)
    window.ask_panel.method.setCurrentText("simpledoc")
    model = StreamingModel([reasoning("answer", ANSWER, [{"page": 1, "quote": "pivot"}])], pieces=12)
    window.service.resources.use_runtimes(FixedRuntimes(model))
    shown: list[str] = []
    show_partial = window.answer_view.show_partial

    def recorded(question, text, earlier=()):
        show_partial(question, text, earlier)
        shown.append(window.answer_view.text.toPlainText())  # what the window shows at that moment

    window.answer_view.show_partial = recorded
    ask_in_window(window, qtbot, "Which languages are used as pivot?")
    first = window.answer_view.answer
    assert len(shown) >= 3 and "Writing…" in shown[0] and ANSWER[:5] in shown[0]  # partial text, shown early
    assert ANSWER not in shown[0]
    assert ANSWER in window.answer_view.text.toPlainText() and "Writing…" not in window.answer_view.text.toPlainText()
    assert window.ask_panel.follow_up.isChecked() and window.ask_panel.follow_up.isEnabled()

    # the follow-up: asked with the first turn as memory, shown under it, each with its own citations
    model = StreamingModel([reasoning("answer", "It has the most parallel data.", [{"page": 1, "quote": "English"}])])
    window.service.resources.use_runtimes(FixedRuntimes(model))
    ask_in_window(window, qtbot, "Why was it chosen?")
    second = window.answer_view.answer
    assert second.thread == first.id
    assert "Which languages are used as pivot?" in [p for kind, p in model.prompts if kind == "reason"][0]
    page = window.answer_view.text.toPlainText()
    assert page.index("Which languages are used as pivot?") < page.index("Why was it chosen?")
    assert [a.id for a in window.thread] == [first.id, second.id]
    cited = []
    window.answer_view.citation_clicked.connect(cited.append)
    window.answer_view.text.anchorClicked.emit(QUrl("cite:1-1"))  # the first answer's own citation
    window.answer_view.text.anchorClicked.emit(QUrl("cite:1"))
    assert cited == [first.citations[0], second.citations[0]]
    qtbot.waitUntil(lambda: window.history.count() == 2, timeout=30_000)
    assert window.history.item(0).data(Qt.ItemDataRole.UserRole) == first.id  # the thread, oldest first
    assert window.history.item(1).text().startswith("↳ Why was it chosen?")
    window.answer_view.answer = None
    window.history.itemClicked.emit(window.history.item(0))  # reopening the first answer of the thread
    qtbot.waitUntil(lambda: window.answer_view.answer is not None, timeout=30_000)
    assert window.answer_view.answer.id == first.id and [a.id for a in window.thread] == [first.id, second.id]
    out = tmp_path / "thread.json"
    task = window.export_answer(second, str(out), "json", whole_thread=True)
    qtbot.waitUntil(task.ended.is_set, timeout=30_000)
    assert [a["question"] for a in json.loads(out.read_text())["answers"]] == [
        "Which languages are used as pivot?", "Why was it chosen?"]

    # New thread: the next question goes alone
    window.ask_panel.new_thread.click()
    assert not window.ask_panel.follow_up.isChecked() and window.thread == []


def test_stop_keeps_the_streamed_text_in_the_window(window, qtbot, paper):
    _index(window, qtbot, paper)
    window.ask_panel.method.setCurrentText("simpledoc")
    reply = reasoning("answer", ANSWER, [{"page": 1, "quote": "pivot"}])
    text = json.dumps(reply)
    model = StreamingModel([reply], pieces=len(text))
    model.stop_after = text.index(ANSWER) + 25
    window.service.resources.use_runtimes(FixedRuntimes(model))
    original_ask = window.service.answers.ask
    window.service.answers.ask = lambda *a, **kw: original_ask(*a, **{**kw, "cancel": model.cancel})  # Stop mid-answer
    ask_in_window(window, qtbot, "Which languages are used as pivot?")
    answer = window.answer_view.answer
    assert answer.status.value == "cancelled" and answer.text == ANSWER[:25]
    shown = window.answer_view.text.toPlainText()
    assert ANSWER[:25] in shown and "Stopped" in shown


def test_the_first_run_panel_offers_models_and_downloads_one(qtbot, home, tmp_path):
    from hf_server import FakeHub
    from tiny_gguf import write_vlm
    from docqa_desktop.llm.catalog import Catalog, CatalogEntry, RemoteFile, Variant, load_catalog
    from docqa_desktop.llm.manager import ModelManager

    # labelled 3B like the catalog model it stands in for: above the floor of the methods that need a model
    model, projector = write_vlm(tmp_path / "labelled", size_label="3B")
    with FakeHub() as hub:
        hub.add("acme/Tiny-VL-GGUF", "tiny-vl-Q4_K_M.gguf", model.read_bytes())
        hub.add("acme/Tiny-VL-GGUF", "mmproj-tiny-vl-f16.gguf", projector.read_bytes())
        entry = CatalogEntry(name="tiny-vl", role="vision", title="Tiny VL", licence="MIT",
                             default_variant="Q4_K_M", repo="acme/Tiny-VL-GGUF",
                             variants={"Q4_K_M": Variant("Q4_K_M", "tiny-vl-Q4_K_M.gguf", 0.3, 0.1)},
                             projector=RemoteFile("mmproj-tiny-vl-f16.gguf"))
        settings = make_settings(home, layout=False, dense=False)
        models = ModelManager(settings.locations.installed_models, Catalog(load_catalog().entries + (entry,)),
                              hub_cache=tmp_path / "hf", endpoint=hub.endpoint)
        service = Service(settings, resources=Resources(settings, models=models))
        window = open_window(qtbot, service)
        assert service.models.first_run_needed()
        panel = window.open_first_run()
        qtbot.waitUntil(lambda: panel.table.rowCount() > 0, timeout=30_000)
        assert "CPU cores" in panel.hardware.text() and "llama.cpp GPU support" in panel.hardware.text()
        names = [panel.table.item(i, 0).text() for i in range(panel.table.rowCount())]
        assert not any(name.startswith("smollm2") for name in names)  # the built-in one needs no offer
        recommended_here = service.models.recommendation().name
        assert f"Recommended here: {recommended_here}" in panel.hardware.text()
        if not service.resources.models.is_builtin(recommended_here):  # machines with little RAM: the built-in one
            assert panel.table.item(0, 0).text().startswith(recommended_here)
            assert "Recommended" in panel.table.item(0, 1).text()  # this machine's recommendation comes first
        assert all(panel.table.item(i, 4).text().startswith("~") for i in range(len(names)))  # time per question
        recommended = load_catalog().get(names[0].split(" (")[0])
        assert panel.table.item(0, 5).text() == f"{recommended.licence_words} ({recommended.licence})"
        panel.table.selectRow(names.index("tiny-vl (Q4_K_M)"))
        panel.download_button.click()
        qtbot.waitUntil(lambda: "Installed tiny-vl" in panel.message.text(), timeout=60_000)
    assert service.models.roles()["text"] == "tiny-vl" and service.answers.chooser() is not None
    assert not service.models.first_run_needed()  # a model of one's own: no welcome panel again
    qtbot.waitUntil(lambda: window.ask_panel.method.currentText() == "cascade", timeout=10_000)
    assert "tiny-vl answers your questions now" in window.status_text.text()
    panel.reject()  # closed with Esc or the window's X: shown once all the same
    assert service.settings.locations.first_run_done.exists()
    window.close()
    service.close()


def test_skipping_the_first_run_keeps_quoted_answers_and_does_not_ask_again(window, qtbot):
    service = window.service
    panel = window.open_first_run()
    panel.skip_button.click()
    assert not panel.isVisible() and service.settings.locations.first_run_done.exists()
    assert not service.models.first_run_needed() and service.answers.chooser() is None  # quoting only
