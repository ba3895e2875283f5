"""The first-run panel and the Models dialog (pytest-qt, offscreen) on machines of several tiers: the same model
recommended in both, with a licence that allows commercial use, every licence in plain words, the time a question
takes, and a dialog that can be closed."""
from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")  # the test extra installs it

from conftest import make_settings  # noqa: E402
from docqa_desktop.llm.catalog import load_catalog  # noqa: E402
from docqa_desktop.llm.hardware import Gpu, Hardware  # noqa: E402
from docqa_desktop.llm.manager import ModelManager  # noqa: E402
from docqa_desktop.llm.runtime import ModelRuntimes  # noqa: E402
from docqa_desktop.service import Resources, Service  # noqa: E402
from docqa_desktop.ui.first_run import COLUMNS as PANEL_COLUMNS  # noqa: E402
from docqa_desktop.ui.first_run import FirstRunPanel  # noqa: E402
from docqa_desktop.ui.models_dialog import COLUMNS, ModelsDialog  # noqa: E402
from docqa_desktop.ui.tasks import TaskRunner  # noqa: E402

TIERS = {
    "2 CPU cores": Hardware(2, 8),
    "8 CPU cores": Hardware(8, 32),
    "GPU 12 GB": Hardware(8, 32, (Gpu("RTX 4070", 12, 11, "nvidia"),), True),
}
COMMERCIAL = ("free for commercial use", "commercial use with conditions")
PANEL = {name: i for i, name in enumerate(PANEL_COLUMNS)}  # "": the recommended marker
DIALOG = {name: i for i, name in enumerate(COLUMNS)}


@pytest.fixture(params=list(TIERS))
def tier_service(request, home):
    """A service on a machine of the tier (the hardware handed to the model runtimes, nothing loaded)."""
    settings = make_settings(home, layout=False, dense=False)
    models = ModelManager(settings.locations.installed_models)
    runtimes = ModelRuntimes(settings.llm, models, hardware=TIERS[request.param])
    service = Service(settings, resources=Resources(settings, models=models, runtimes=runtimes))
    yield service
    service.close()


def _cells(table, column: int) -> list[str]:
    return [table.item(i, column).text() for i in range(table.rowCount())]


def test_first_run_panel_recommends_a_model_a_firm_may_use_with_licences_in_plain_words(qtbot, tier_service):
    tasks = TaskRunner()
    panel = FirstRunPanel(tier_service, tasks)
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.table.rowCount() > 0, timeout=30_000)
    choice = tier_service.models.recommendation()
    assert f"Recommended here: {choice.name} " in panel.hardware.text()
    first = panel.table.item(0, PANEL["Model"]).text()
    assert first.startswith(f"{choice.name} (") and _cells(panel.table, PANEL[""])[0] == "★ Recommended"
    assert choice.why in panel.table.item(0, PANEL["Model"]).toolTip()
    licences = _cells(panel.table, PANEL["Licence"])
    assert licences[0].startswith(COMMERCIAL)  # the recommended model's licence allows commercial use
    names = [text.split(" (")[0] for text in _cells(panel.table, PANEL["Model"])]
    assert licences[names.index("qwen2.5-vl-3b-instruct")] == "research only (Qwen Research License)"
    assert licences[names.index("qwen2.5-vl-7b-instruct")] == "free for commercial use (Apache-2.0)"
    assert sum(text.startswith("★") for text in _cells(panel.table, PANEL[""])) == 1
    panel.skip_button.click()
    tasks.shutdown()


def test_models_dialog_marks_the_same_model_shows_time_and_plain_licences_and_closes(qtbot, tier_service):
    tasks = TaskRunner()
    panel = FirstRunPanel(tier_service, tasks)
    qtbot.addWidget(panel)
    dialog = ModelsDialog(tier_service, tasks)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.table.rowCount() > 0 and panel.table.rowCount() > 0, timeout=30_000)
    column = DIALOG
    names = _cells(dialog.table, column["Name"])
    marked = [names[i] for i, text in enumerate(_cells(dialog.table, column[""])) if text]
    recommended = panel.table.item(0, PANEL["Model"]).text().split(" (")[0]
    assert marked == [recommended] == [tier_service.models.recommendation().name]  # one choice, in both places
    assert dialog.selected_name() == recommended  # what Download fetches unless another row is chosen
    row = names.index(recommended)
    # the time per question is the first-run panel's own figure for the model
    assert dialog.table.item(row, column["About per question"]).text() == \
        panel.table.item(0, PANEL["About per question"]).text()
    assert dialog.table.item(row, column["About per question"]).text().startswith("~")
    assert dialog.table.item(names.index("colqwen2.5-v0.2"), column["About per question"]).text() == "–"  # no answers
    licences = dict(zip(names, _cells(dialog.table, column["Licence"])))
    assert licences[recommended].startswith(COMMERCIAL)
    assert licences["qwen2.5-3b-instruct"] == "research only (Qwen Research License)"
    assert licences["smollm2-135m-instruct"] == "free for commercial use (Apache-2.0)"
    assert "Meta's permission" in dialog.table.item(names.index("llama-3.2-3b-instruct"), 0).toolTip()  # conditions
    assert all(entry.licence_words in licences[entry.name] for entry in load_catalog().entries)

    close = dialog.close_buttons.buttons()[0]
    assert close.text().replace("&", "") == "Close"
    close.click()
    assert not dialog.isVisible()
    panel.skip_button.click()
    tasks.shutdown()
