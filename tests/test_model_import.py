"""Models that stay (issue 56, item 4): an imported GGUF is copied into the app's model folder (free space checked
first, progress, cancel) and survives its drive going, or — only when the user chooses — linked where it lies and
listed so, then listed as missing, not crashed on, while the file is away; the licence and the size come from the
file's own metadata; the import dialog asks for a vision model's projector with a plain choice (offscreen)."""
from __future__ import annotations

import shutil
import threading
from collections import namedtuple
from pathlib import Path

import pytest

from docqa_desktop.cli import main
from docqa_desktop.errors import ModelError
from docqa_desktop.llm import model_copy
from docqa_desktop.llm.manager import ModelManager
from docqa_desktop.progress import Cancelled
from tiny_gguf import write_vlm

Usage = namedtuple("Usage", "total used free")


@pytest.fixture
def stick(tmp_path) -> tuple[Path, Path]:
    """A tiny random-weight Qwen2-VL and its projector on a "USB stick", the model's licence stated in its file."""
    return write_vlm(tmp_path / "usb-stick", size_label="1.5B", licence="apache-2.0")


@pytest.fixture
def manager(tmp_path) -> ModelManager:
    return ModelManager(tmp_path / "home" / "models.json")


def _status(manager: ModelManager, name: str):
    return next(s for s in manager.statuses() if s.name == name)


def test_an_import_is_copied_and_stays_when_the_stick_goes(manager, stick):
    model, projector = stick
    seen = []
    installed = manager.import_file(model, projector, name="stick-vl", progress=lambda done, total: seen.append(
        (done, total)))
    folder = manager.folder / "stick-vl"
    assert (Path(installed.model_path), Path(installed.projector_path)) == (folder / model.name, folder / projector.name)
    assert installed.copied and not installed.linked
    total = model.stat().st_size + projector.stat().st_size
    assert seen[-1] == (total, total) and [d for d, _ in seen] == sorted(d for d, _ in seen)  # progress, to the end
    status = _status(manager, "stick-vl")
    assert status.licence_text == "free for commercial use (apache-2.0)"  # from general.license
    assert (status.parameters_label, status.title) == ("1.5B", "tiny-random-qwen2vl")
    assert (status.state, status.location) == ("installed", "")
    shutil.rmtree(model.parent)  # the stick is gone
    assert manager.resolve("vision").name == "stick-vl" and _status(manager, "stick-vl").state == "installed"
    assert all(result.ok for result in manager.verify("stick-vl"))
    assert not list(folder.glob("*.partial"))


def test_a_linked_model_is_listed_as_linked_and_as_missing_once_its_file_is_away(tmp_path, stick, capsys):
    model, _ = stick
    home = str(tmp_path / "home")
    assert main(["models", "import", str(model), "--name", "on-stick", "--link", "--home", home]) == 0
    said = capsys.readouterr().out
    assert said.startswith("imported on-stick (text, 1.5B parameters, free for commercial use (apache-2.0)): linked: ")
    assert main(["models", "list", "--home", home]) == 0
    listing = capsys.readouterr().out.splitlines()
    row = next(i for i, line in enumerate(listing) if " on-stick " in line)
    assert " linked " in listing[row] and "free for commercial use (apache-2.0)" in listing[row]
    status = _status(ModelManager(tmp_path / "home" / "data" / "models.json"), "on-stick")
    assert status.state_text == f"linked: {model.resolve()}"  # the dialog's State cell
    assert listing[row + 1].strip() == f"linked: {model.resolve()}"
    assert not (tmp_path / "home" / "data" / "models" / "on-stick").exists()  # nothing copied

    shutil.rmtree(model.parent)  # the stick is unplugged
    assert main(["models", "list", "--home", home]) == 0
    listing = capsys.readouterr().out.splitlines()
    row = next(i for i, line in enumerate(listing) if " on-stick " in line)
    assert " missing " in listing[row] and listing[row + 1].strip().startswith(f"linked: {model.resolve()} (missing")
    assert main(["models", "default", "text", "on-stick", "--home", home]) == 2
    err = capsys.readouterr().err
    assert f"on-stick is linked to {model.resolve()}, which is missing: reconnect the drive" in err
    assert main(["models", "remove", "on-stick", "--home", home]) == 0  # the user's file is never deleted


def test_the_free_space_is_checked_before_a_byte_is_copied(manager, stick, monkeypatch):
    model, projector = stick
    needed = model.stat().st_size + projector.stat().st_size
    monkeypatch.setattr(model_copy.shutil, "disk_usage", lambda path: Usage(10 * needed, 9 * needed, needed - 1))
    with pytest.raises(ModelError) as refused:
        manager.import_file(model, projector, name="too-big")
    said = str(refused.value)
    assert said.startswith(f"cannot copy {model.name} into {manager.folder / 'too-big'}: it needs ")
    assert f"{model_copy.gb(needed)} of free space" in said and "import it with `--link`" in said
    from docqa_desktop.ui.remedies import KEEP_WHERE_IT_IS, in_app_words

    assert f"import it with “{KEEP_WHERE_IT_IS}” ticked" in in_app_words(refused.value)  # the app's words
    assert manager.registry.all() == {} and not (manager.folder / "too-big").exists()
    linked = manager.import_file(model, projector, name="too-big", link=True)  # linking needs no room
    assert linked.linked and linked.model_path == str(model.resolve())


def test_a_cancelled_copy_keeps_nothing(manager, stick):
    model, projector = stick
    cancel = threading.Event()
    with pytest.raises(Cancelled):  # what a task runner reads as cancelled
        manager.import_file(model, projector, name="stopped", progress=lambda done, total: cancel.set(),
                            cancel=cancel)
    assert manager.registry.all() == {} and not (manager.folder / "stopped").exists()  # nor the folder it made


def test_partial_copies_a_crash_left_are_swept_before_the_next_copy(manager, stick):
    from docqa_desktop.llm.model_copy import PARTIAL

    model, projector = stick
    folder = manager.folder / "again"
    folder.mkdir(parents=True)
    left = folder / (model.name + PARTIAL)
    left.write_bytes(b"half a model")  # the app died mid-copy
    manager.import_file(model, projector, name="again")
    assert not left.exists() and (folder / model.name).read_bytes() == model.read_bytes()


def test_the_licence_is_said_as_the_file_states_it(manager, tmp_path):
    from tiny_gguf import write_header_only

    for licence, shown in (("llama3.1", "check its terms (llama3.1)"), ("", "licence unknown: check the model's card"),
                           ("MIT", "free for commercial use (MIT)")):
        path = write_header_only(tmp_path / f"m-{licence or 'none'}.gguf", 64_000, size_label="8B", licence=licence)
        manager.import_file(path, name=f"m-{licence or 'none'}")
        status = _status(manager, f"m-{licence or 'none'}")
        assert (status.licence_text, status.parameters_label) == (shown, "8B")


# -- the import dialog (offscreen) --------------------------------------------------------------------------------

def test_the_import_dialog_asks_for_the_projector_with_a_plain_choice(qtbot, tmp_path, stick, monkeypatch):
    pytest.importorskip("pytestqt")
    from PySide6.QtWidgets import QFileDialog

    from conftest import make_settings
    from docqa_desktop.service import Service
    from docqa_desktop.ui.import_dialog import TEXT_MODEL, VISION_MODEL, ImportChoice, ImportDialog
    from docqa_desktop.ui.tasks import TaskRunner

    model, projector = stick
    tasks = TaskRunner()
    with Service(make_settings(tmp_path / "home")) as service:
        dialog = ImportDialog(service, tasks, str(model))
        qtbot.addWidget(dialog)
        dialog.show()
        assert (dialog.text_choice.text(), dialog.vision_choice.text()) == (TEXT_MODEL, VISION_MODEL)
        assert VISION_MODEL == "This is a vision model: choose its projector file (mmproj…)"
        qtbot.waitUntil(lambda: dialog.readable, timeout=10_000)  # the header, read off the GUI thread
        assert dialog.about.text() == ("tiny-random-qwen2vl: 1.5B parameters, "
                                       f"{model.stat().st_size / 2**20:.0f} MB; free for commercial use (apache-2.0)")
        # a text model until said otherwise; the projector beside it offered, its row off until vision is chosen
        assert dialog.text_choice.isChecked() and dialog.projector.text() == str(projector)
        assert not dialog.projector.isEnabled() and not dialog.projector_button.isEnabled()
        assert dialog.import_button.isEnabled() and not dialog.link.isChecked()  # copied unless linked
        assert dialog.choice() == ImportChoice(str(model), "", False)
        dialog.vision_choice.click()
        assert dialog.projector.isEnabled() and dialog.choice() == ImportChoice(str(model), str(projector), False)
        dialog.projector.clear()
        assert not dialog.import_button.isEnabled()  # a vision model needs its projector
        other = tmp_path / "elsewhere" / "mmproj-other.gguf"
        monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a: (str(other), a[-1])))
        dialog.projector_button.click()
        assert dialog.import_button.isEnabled() and dialog.choice().projector == str(other)
        dialog.link.click()
        assert dialog.choice() == ImportChoice(str(model), str(other), True)

        wrong = ImportDialog(service, tasks, str(projector))  # the projector chosen as the model
        qtbot.addWidget(wrong)
        qtbot.waitUntil(lambda: "is a vision projector, not a model" in wrong.about.text(), timeout=10_000)
        assert not wrong.import_button.isEnabled()
    tasks.shutdown()


def test_the_models_dialog_lists_a_linked_model_with_its_file_and_a_missing_one_as_missing(qtbot, tmp_path, stick):
    pytest.importorskip("pytestqt")
    from conftest import make_settings
    from docqa_desktop.service import Service
    from docqa_desktop.ui.models_dialog import COLUMNS, ModelsDialog
    from docqa_desktop.ui.tasks import TaskRunner

    model, _ = stick
    away = tmp_path / "other-stick" / "away.gguf"
    away.parent.mkdir()
    shutil.copy(model, away)
    tasks = TaskRunner()
    with Service(make_settings(tmp_path / "home")) as service:
        service.models.import_file(model, name="on-stick", link=True)
        service.models.import_file(away, name="was-here", link=True)
        shutil.rmtree(away.parent)  # that stick is unplugged
        dialog = ModelsDialog(service, tasks)
        qtbot.addWidget(dialog)
        qtbot.waitUntil(lambda: dialog.table.rowCount() > 0, timeout=30_000)
        cells = {dialog.table.item(i, COLUMNS.index("Name")).text(): i for i in range(dialog.table.rowCount())}
        state = COLUMNS.index("State")
        assert dialog.table.item(cells["on-stick"], state).text() == f"linked: {model.resolve()}"
        assert dialog.table.item(cells["was-here"], state).text() == f"missing: {away.resolve()}"
        assert dialog.table.item(cells["on-stick"], COLUMNS.index("Licence")).text() == \
            "free for commercial use (apache-2.0)"
    tasks.shutdown()
