"""Offline, the first-run panel still leads somewhere (pytest-qt, offscreen): "Import a model file…" beside Download
registers a GGUF already on the machine (with its vision projector), the Models dialog's import being the same one;
a download that cannot reach the hub sends the app's user to that button, the command line's to its command."""
from __future__ import annotations

import socket

import pytest

pytest.importorskip("pytestqt")  # the test extra installs it

from PySide6.QtWidgets import QDialog, QFileDialog  # noqa: E402

from conftest import make_settings, open_window  # noqa: E402
from docqa_desktop.llm.manager import ModelManager  # noqa: E402
from docqa_desktop.service import Resources, Service  # noqa: E402
from docqa_desktop.ui.first_run import FirstRunPanel  # noqa: E402
from docqa_desktop.ui.import_dialog import ImportDialog  # noqa: E402
from docqa_desktop.ui.models_dialog import ModelsDialog  # noqa: E402
from docqa_desktop.ui.remedies import IMPORT_BUTTON  # noqa: E402
from docqa_desktop.ui.tasks import TaskRunner  # noqa: E402

CATALOG_MODEL = "qwen2.5-vl-3b-instruct"


def choosing(monkeypatch, model, projector="", link: bool = False) -> list[str]:
    """The file dialog answers with `model` ("" = cancelled), then the import dialog with a text model, or a vision
    model and its `projector`, copied or linked; returns the file dialogs' titles as they are asked."""
    titles = []

    def chosen(parent, title, folder, filters):
        titles.append(title)
        return (str(model), filters)

    def answered(dialog) -> int:
        (dialog.vision_choice if projector else dialog.text_choice).setChecked(True)
        dialog.projector.setText(str(projector))
        dialog.link.setChecked(link)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(chosen))
    monkeypatch.setattr(ImportDialog, "exec", answered)
    return titles


@pytest.fixture
def closed_endpoint() -> str:
    """A hub address where nothing listens: a download fails at once, as it does offline."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture
def offline_service(home, tmp_path, closed_endpoint):
    settings = make_settings(home, layout=False, dense=False)
    models = ModelManager(settings.locations.installed_models, hub_cache=tmp_path / "hf", endpoint=closed_endpoint)
    service = Service(settings, resources=Resources(settings, models=models))
    yield service
    service.close()


def test_the_first_run_panel_imports_a_model_file_and_its_projector(qtbot, offline_service, tmp_path, monkeypatch):
    from tiny_gguf import write_vlm

    # labelled 3B like the catalog models: above the floor of the methods that need a model
    model, projector = write_vlm(tmp_path / "usb-stick", size_label="3B")
    window = open_window(qtbot, offline_service)
    assert offline_service.models.first_run_needed()
    panel = window.open_first_run()
    assert panel.import_button.text() == IMPORT_BUTTON and panel.import_button.isVisible()
    titles = choosing(monkeypatch, model, projector)
    panel.import_button.click()
    qtbot.waitUntil(lambda: "Installed" in panel.message.text(), timeout=60_000)
    assert titles == ["Model file (GGUF)"]  # the projector asked for in the import dialog, not a second file dialog
    name = offline_service.models.roles()["vision"]
    assert name and name == offline_service.models.roles()["text"]  # the imported model reads and writes
    installed = offline_service.resources.models.registry.all()[name]
    folder = offline_service.models.folder / name  # copied: the model stays when the stick goes
    assert (installed.source, installed.model_path, installed.projector_path) == (
        "import", str(folder / model.name), str(folder / projector.name))
    assert panel.message.text() == f"Installed {name}: {name} answers your questions from now on."
    assert panel.download_button.isEnabled() and panel.import_button.isEnabled() and not panel.progress.isVisible()
    assert not offline_service.models.first_run_needed()
    qtbot.waitUntil(lambda: f"{name} answers your questions now" in window.status_text.text(), timeout=10_000)
    panel.skip_button.click()
    window.close()


def test_a_cancelled_choice_imports_nothing_and_the_models_dialog_imports_the_same_way(qtbot, offline_service,
                                                                                       tmp_path, monkeypatch):
    from tiny_gguf import write_vlm

    tasks = TaskRunner()
    panel = FirstRunPanel(offline_service, tasks)
    qtbot.addWidget(panel)
    choosing(monkeypatch, "")
    panel.import_button.click()  # the file dialog cancelled: no task, the panel as it was
    assert panel.download_button.isEnabled() and panel.message.text() == ""

    model, _ = write_vlm(tmp_path / "usb-stick")
    dialog = ModelsDialog(offline_service, tasks)
    qtbot.addWidget(dialog)
    assert dialog.import_button.text() == IMPORT_BUTTON  # one name for one action, in both places
    choosing(monkeypatch, model)  # no projector: a text model
    dialog.import_button.click()
    qtbot.waitUntil(lambda: dialog.message.text().startswith("Imported "), timeout=60_000)
    imported, where = dialog.message.text().removeprefix("Imported ").split(" (", 1)
    assert offline_service.resources.models.registry.all()[imported].role == "text"
    assert where.startswith(f"copied to {offline_service.models.folder / imported}")
    panel.skip_button.click()
    tasks.shutdown()


def test_an_offline_download_sends_the_app_to_the_button_and_the_command_line_to_its_command(
        qtbot, offline_service, closed_endpoint, home, tmp_path, monkeypatch, capsys):
    tasks = TaskRunner()
    panel = FirstRunPanel(offline_service, tasks)
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.table.rowCount() > 0, timeout=30_000)
    names = [panel.table.item(i, 0).text().split(" (")[0] for i in range(panel.table.rowCount())]
    panel.table.selectRow(names.index(CATALOG_MODEL))
    panel.download_button.click()
    # the failure's message, then the task's end (two signals: under load the test may look between them)
    qtbot.waitUntil(lambda: "not reachable" in panel.message.text() and not panel.progress.isVisible(),
                    timeout=60_000)
    said = panel.message.text()
    assert f"register it with the “{IMPORT_BUTTON}” button" in said and "docqa models import" not in said
    assert "Download again to resume" not in said  # offline, the import is the way on
    assert panel.download_button.isEnabled() and panel.import_button.isEnabled()
    panel.skip_button.click()
    tasks.shutdown()

    # the same failure from `docqa models pull`: the command to run
    from docqa_desktop.cli import main

    opened = ModelManager.__init__

    def offline(self, *args, **kwargs):
        opened(self, *args, **kwargs)
        self.endpoint, self.hub_cache = closed_endpoint, tmp_path / "hf"

    monkeypatch.setattr(ModelManager, "__init__", offline)
    assert main(["models", "pull", CATALOG_MODEL, "--home", str(home)]) == 2
    err = capsys.readouterr().err
    assert "not reachable" in err and "register it with `docqa models import FILE.gguf" in err
    assert IMPORT_BUTTON not in err


def test_no_language_model_names_the_command_on_the_command_line_and_the_button_in_the_app(tmp_path):
    from docqa_desktop.errors import ModelError
    from docqa_desktop.llm.catalog import Catalog
    from docqa_desktop.llm.runtime import ModelRuntimes
    from docqa_desktop.settings import Settings
    from docqa_desktop.ui.remedies import in_app_words

    nothing = ModelManager(tmp_path / "models.json", Catalog(()))  # not even the built-in model
    with pytest.raises(ModelError) as raised:
        ModelRuntimes(Settings.load(tmp_path / "home").llm, nothing).text()
    assert str(raised.value).endswith("or register a model file with `docqa models import FILE.gguf "
                                      "[--projector MMPROJ.gguf]`")
    assert in_app_words(raised.value).endswith(f"or register a model file with the “{IMPORT_BUTTON}” button "
                                               "(beside Download; Tools → Models)")
    assert in_app_words(OSError("disk full")) == "disk full"  # other errors as they are
