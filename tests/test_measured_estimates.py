"""Estimates that hold (issue 44, items 5 and 7): the time a question takes, as the method picker and the Models
dialog show it, is the median of this machine's own answers with that method and model from the first one on, and
before it the estimate of that method's work: the cascade's one short call for the default method, not SimpleDoc's
several."""
from __future__ import annotations

import pytest

from conftest import make_settings
from docqa_desktop.answers import Answer, AnswerStatus, LlmCall
from docqa_desktop.llm.catalog import load_catalog
from docqa_desktop.llm.catalog_choice import DEFAULT_METHOD, estimate, workload
from docqa_desktop.llm.hardware import CASCADE, SIMPLEDOC, Gpu, Hardware
from docqa_desktop.llm.manager import ModelManager
from docqa_desktop.llm.runtime import ModelRuntimes
from docqa_desktop.service import Resources, Service
from docqa_desktop.service.question_time import PerQuestion
from docqa_desktop.store import answers as answers_store

BUILTIN = "smollm2-135m-instruct"
SMALL = "qwen2.5-1.5b-instruct"  # the 1.5B Q4_K_M the cascade was measured with
CATALOG = load_catalog()


@pytest.fixture
def service(home):
    """A service on a 2-core machine with 8 GB (nothing loaded): the built-in model serves text tasks."""
    settings = make_settings(home, layout=False, dense=False)
    models = ModelManager(settings.locations.installed_models)
    runtimes = ModelRuntimes(settings.llm, models, hardware=Hardware(2, 8))
    service = Service(settings, resources=Resources(settings, models=models, runtimes=runtimes))
    yield service
    service.close()


def _save(service: Service, method: str, seconds: float, models: tuple[str, ...] = (BUILTIN,),
          status: AnswerStatus = AnswerStatus.ANSWERED, serving: str = "") -> None:
    """An answer as kept: the models it called, and `serving` the model serving text tasks when it was asked
    ("": an answer kept before that was recorded)."""
    number = answers_store.count_answers(service.resources.db.cursor())
    answer = Answer(f"a{number}", "q", method, "text", status, seconds=seconds, text_model=serving,
                    calls=[LlmCall("choose", model, 1200, 8, seconds / 2) for model in models])
    with service.resources.db.transaction() as cur:
        answers_store.save_answer(cur, answer)


# -- the estimate: each method's own work ----------------------------------------------------------------------

def test_the_cascade_is_estimated_as_its_one_short_call_not_simpledocs_several():
    small, two_cores = CATALOG.get(SMALL), Hardware(2, 8)
    # the measurement it rests on: the 1.5B on 2 cores read 1,205 prompt tokens and wrote 8 in 13.6 s
    assert estimate(small, two_cores, work=CASCADE) == pytest.approx(13.6, abs=0.1)
    assert estimate(small, two_cores) == estimate(small, two_cores, work=SIMPLEDOC) > 10 * 13.6
    assert estimate(small, Hardware(4, 16), work=CASCADE) == pytest.approx(13.6 / 2, abs=0.1)  # cores share it
    assert workload(DEFAULT_METHOD) is CASCADE and workload("docreact") is SIMPLEDOC
    # a vision model's image encoder does no work in the cascade's text call; it does in SimpleDoc's
    vision = CATALOG.get("qwen3.5-4b-vision")
    assert estimate(vision, two_cores, work=CASCADE) == estimate(CATALOG.get("qwen3.5-4b"), two_cores, work=CASCADE)
    assert estimate(vision, two_cores) > estimate(CATALOG.get("qwen3.5-4b"), two_cores)
    # on a GPU: the cascade's tokens, far fewer than SimpleDoc's, at the same rates
    gpu = Hardware(8, 32, (Gpu("H200", 141, 140, "nvidia"),), True)
    ratio = estimate(small, gpu, work=CASCADE) / estimate(small, gpu)
    assert 0.05 < ratio < 0.3


def test_the_recommendation_says_the_default_methods_time_and_simpledocs():
    from docqa_desktop.llm.catalog_choice import recommend

    choice = recommend(CATALOG, Hardware(2, 8))
    assert choice.name == SMALL and choice.why.startswith("~14 s a question on 2 CPU cores, ~3 min with SimpleDoc, "
                                                          "estimated from size;")


# -- the store: what questions took here -----------------------------------------------------------------------

def test_the_store_gives_the_median_of_each_methods_newest_finished_answers_by_model(service):
    _save(service, "simpledoc", 10, (SMALL,))
    _save(service, "simpledoc", 30, (SMALL, SMALL))
    _save(service, "simpledoc", 900, (SMALL,), AnswerStatus.FAILED)  # cut short: not a question's time
    _save(service, "simpledoc", 900, (SMALL,), AnswerStatus.CANCELLED)
    _save(service, "simpledoc", 50, (BUILTIN,))  # another model's
    _save(service, "quoted", 2, ())
    _save(service, DEFAULT_METHOD, 4, ())  # kept before the serving model was: whose time it was is not known
    _save(service, DEFAULT_METHOD, 1, (), serving=SMALL)  # a sure quote while the 1.5B served: the 1.5B's time
    _save(service, DEFAULT_METHOD, 14, (SMALL,), serving=SMALL)
    cur = service.resources.db.cursor()
    timings = answers_store.question_timings(cur, ["quoted"])
    assert timings == {("simpledoc", SMALL): (20.0, 2), ("simpledoc", BUILTIN): (50.0, 1), ("quoted", ""): (2.0, 1),
                       (DEFAULT_METHOD, SMALL): (7.5, 2)}
    assert answers_store.question_timings(cur, ["quoted"], last=1)[("simpledoc", SMALL)] == (30.0, 1)  # the newest


# -- the service: measured from the first answer on, else the estimate -------------------------------------------

def test_a_method_is_measured_from_its_first_answer_with_the_model_and_estimated_before(service):
    before = service.models.per_question(["simpledoc", DEFAULT_METHOD, "quoted"])
    builtin = CATALOG.get(BUILTIN)
    assert before["simpledoc"].seconds == estimate(builtin, Hardware(2, 8)) and not before["simpledoc"].measured
    assert before[DEFAULT_METHOD].seconds == estimate(builtin, Hardware(2, 8), work=CASCADE)
    assert before["simpledoc"].text == "about 19 s per question, estimated from size"
    assert before["quoted"] == PerQuestion(None) and before["quoted"].text == ""  # no model: nothing to estimate
    _save(service, "simpledoc", 96)
    _save(service, "simpledoc", 135)
    _save(service, "docreact", 700)
    _save(service, "simpledoc", 40, (SMALL,))  # another model's answer: not this one's time
    _save(service, "quoted", 3, ())
    after = service.models.per_question(["simpledoc", "docreact", DEFAULT_METHOD, "quoted"])
    assert after["simpledoc"] == PerQuestion(115.5, 2)
    assert after["simpledoc"].text == "about 116 s per question, measured over 2 questions"
    assert after["docreact"].text == "about 12 min per question, measured over 1 question"
    assert after[DEFAULT_METHOD].text.endswith(", estimated from size")  # not run yet
    assert after["quoted"].text == "about 3 s per question, measured over 1 question"
    assert service.models.per_question(["simpledoc"], model=SMALL)["simpledoc"] == PerQuestion(40.0, 1)


def test_the_models_overview_shows_the_default_methods_time_measured_or_estimated(service):
    rows = {row.model.name: row for row in service.models.overview()}
    hw = Hardware(2, 8)
    small = rows[SMALL]
    assert small.timing.measured == 0
    assert small.seconds_per_question == round(estimate(CATALOG.get(SMALL), hw, work=CASCADE))
    assert rows["colqwen2.5-v0.2"].seconds_per_question is None
    _save(service, DEFAULT_METHOD, 10, (SMALL,))
    _save(service, DEFAULT_METHOD, 30, (SMALL,))
    _save(service, "simpledoc", 200, (SMALL,))  # another method: not the dialog's figure
    rows = {row.model.name: row for row in service.models.overview()}
    assert (rows[SMALL].seconds_per_question, rows[SMALL].timing.measured) == (20, 2)
    assert rows[BUILTIN].timing.measured == 0  # its own estimate still
    by_simpledoc = {row.model.name: row for row in service.models.overview("simpledoc")}
    assert (by_simpledoc[SMALL].seconds_per_question, by_simpledoc[SMALL].timing.measured) == (200, 1)


# -- the front ends ------------------------------------------------------------------------------------------------

def test_the_picker_and_the_models_dialog_show_the_measured_time(qtbot, service):
    pytest.importorskip("pytestqt")
    from docqa_desktop.ui.ask_panel import AskPanel
    from docqa_desktop.ui.models_dialog import COLUMNS, ModelsDialog, per_question_text
    from docqa_desktop.ui.tasks import TaskRunner

    _save(service, "simpledoc", 10)
    _save(service, "simpledoc", 30)
    panel = AskPanel(service.answers.methods(), "simpledoc")
    qtbot.addWidget(panel)
    panel.set_timings({name: timing.text for name, timing in service.models.per_question().items()})
    assert "Here: about 20 s per question, measured over 2 questions." in panel.about.text()
    panel.method.setCurrentText("mdocagent")
    assert "Here: about 19 s per question, estimated from size." in panel.about.text()
    panel.method.setCurrentText("quoted")
    assert "Here:" not in panel.about.text()

    _save(service, DEFAULT_METHOD, 12, (SMALL,))
    rows = {row.model.name: row for row in service.models.overview()}
    assert per_question_text(rows[SMALL]) == "~12 s, measured over 1 question"
    assert per_question_text(rows["qwen3.5-2b"]).endswith(", estimated from size")
    assert per_question_text(rows["colqwen2.5-v0.2"]) == "–"
    tasks = TaskRunner()
    dialog = ModelsDialog(service, tasks)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.table.rowCount() > 0, timeout=30_000)
    names = [dialog.table.item(i, 1).text() for i in range(dialog.table.rowCount())]
    assert dialog.table.item(names.index(SMALL), COLUMNS.index("About per question")).text() == \
        "~12 s, measured over 1 question"
    tasks.shutdown()


# -- the 2026 families -------------------------------------------------------------------------------------------

def test_the_2026_families_are_in_the_catalog_free_for_commercial_use():
    added = {"qwen3.5-2b": ("text", 2.0), "qwen3.5-4b": ("text", 4.0), "qwen3.5-9b": ("text", 9.0),
             "qwen3.5-2b-vision": ("vision", 2.0), "qwen3.5-4b-vision": ("vision", 4.0),
             "qwen3.5-9b-vision": ("vision", 9.0), "gemma-4-e2b-it": ("vision", 2.0),
             "gemma-4-e4b-it": ("vision", 4.0)}
    for name, (role, parameters) in added.items():
        entry = CATALOG.get(name)
        assert (entry.role, entry.parameters) == (role, parameters), name
        assert entry.licence == "Apache-2.0" and entry.licence_words == "free for commercial use", name
        assert entry.architecture == ("gemma4" if name.startswith("gemma") else "qwen35"), name
        if role == "vision":
            assert entry.projector and entry.projector_type in ("gemma4v", "qwen3vl_merger"), name
    # a text entry and its vision twin download the same weights
    assert CATALOG.get("qwen3.5-4b").variant().file == CATALOG.get("qwen3.5-4b-vision").variant().file
