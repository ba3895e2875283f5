"""Estimates per model (issue 56, item 3): the time a question takes is measured per model and per method — a quote
that needed no model while the built-in model served is not the 9B's time — and a model never run here shows an
estimate from its size at this machine's measured speed, said to be one; the Models dialog, `docqa models list` and
the first-run panel's recommendation take it from one place (service/question_time.py)."""
from __future__ import annotations

import json

import pytest

from conftest import make_settings
from docqa_desktop.answers import Answer, AnswerStatus, LlmCall
from docqa_desktop.llm.catalog import load_catalog
from docqa_desktop.llm.catalog_choice import DEFAULT_METHOD, estimate
from docqa_desktop.llm.hardware import CASCADE, Hardware
from docqa_desktop.llm.manager import ModelManager
from docqa_desktop.llm.runtime import ModelRuntimes
from docqa_desktop.service import Resources, Service
from docqa_desktop.store import answers as answers_store

BUILTIN = "smollm2-135m-instruct"
SMALL = "qwen2.5-1.5b-instruct"  # 1,066 MB of weights: the cascade's reference call was measured with it
LARGE = "qwen3.5-9b"
CATALOG = load_catalog()
TWO_CORES = Hardware(2, 8)


@pytest.fixture
def service(home):
    settings = make_settings(home, layout=False, dense=False)
    models = ModelManager(settings.locations.installed_models)
    runtimes = ModelRuntimes(settings.llm, models, hardware=TWO_CORES)
    with Service(settings, resources=Resources(settings, models=models, runtimes=runtimes)) as service:
        yield service


def _save(service: Service, method: str, seconds: float, serving: str, calls: list[LlmCall] = ()) -> None:
    number = answers_store.count_answers(service.resources.db.cursor())
    answer = Answer(f"a{number}", "q", method, "text", AnswerStatus.ANSWERED, seconds=seconds, text_model=serving,
                    calls=list(calls))
    with service.resources.db.transaction() as cur:
        answers_store.save_answer(cur, answer)


def _rows(service: Service, method: str = DEFAULT_METHOD) -> dict:
    return {row.model.name: row for row in service.models.overview(method)}


def test_a_models_measured_time_is_never_shown_as_anothers(service):
    for _ in range(20):  # the no-model answers of the report: quotes while only the built-in model was there
        _save(service, DEFAULT_METHOD, 1.0, BUILTIN)
    _save(service, DEFAULT_METHOD, 1.0, "")  # an answer kept before the serving model was: nobody's time
    rows = _rows(service)
    assert rows[BUILTIN].timing.short == "~1 s, measured over 20 questions"
    for name in (SMALL, LARGE):  # what they never ran: estimates, marked as such, each its own
        assert rows[name].timing.measured == 0 and rows[name].timing.short.endswith(", estimated from size"), name
    assert rows[LARGE].seconds_per_question > rows[SMALL].seconds_per_question > 1
    # the 1.5B's own answers: its own figure, and still not the 9B's
    _save(service, DEFAULT_METHOD, 20.0, SMALL, [LlmCall("choose", SMALL, 1205, 10, 19.0)])
    _save(service, DEFAULT_METHOD, 55.0, SMALL, [LlmCall("choose", SMALL, 1205, 10, 54.0)])
    rows = _rows(service)
    assert rows[SMALL].timing.short == "~38 s, measured over 2 questions"
    assert rows[LARGE].timing.measured == 0 and rows[BUILTIN].timing.measured == 20
    # per method too: SimpleDoc with the 1.5B has not run; its cascade figure does not stand for it
    assert not _rows(service, "simpledoc")[SMALL].timing.measured


def test_an_unrun_model_is_estimated_from_its_size_at_this_machines_measured_speed(service):
    rows = _rows(service)
    reference = estimate(CATALOG.get(LARGE), TWO_CORES, work=CASCADE)
    assert rows[LARGE].timing.seconds == pytest.approx(reference)
    assert "at the reference figures for this hardware (no model has run here yet)" in rows[LARGE].timing.basis
    # the built-in model's calls do not measure the machine: its time is mostly the work around a call
    _save(service, "simpledoc", 30.0, BUILTIN, [LlmCall("read", BUILTIN, 2000, 100, 29.0)])
    assert _rows(service)[LARGE].timing.seconds == pytest.approx(reference)
    # the 1.5B's call took twice what the reference figures say for its tokens: this machine is half as quick
    _save(service, DEFAULT_METHOD, 28.0, SMALL, [LlmCall("choose", SMALL, 1205, 10, 2 * 13.6)])
    speed = service.models.question_times().speed
    assert speed.factor == pytest.approx(2.0, rel=0.01) and speed.models == (SMALL,) and speed.calls == 1
    large = _rows(service)[LARGE].timing
    assert large.seconds == pytest.approx(2 * reference, rel=0.01) and large.measured == 0
    assert large.short.endswith(", estimated from size")
    assert large.basis == ("Estimated from its size (9B parameters, 5.5 GB) at this machine's speed, measured over "
                           "1 call of qwen2.5-1.5b-instruct (2× the reference figures).")
    # cached prompt tokens were not read again: they do not count as work the machine did
    _save(service, DEFAULT_METHOD, 28.0, SMALL, [LlmCall("choose", SMALL, 2410, 10, 13.6, cached_tokens=1205)])
    assert service.models.question_times().speed.factor < 2.0


def test_the_recommendation_and_the_list_say_the_same_estimate(service, capsys):
    from docqa_desktop.cli import main

    before = service.models.recommendation()
    assert before.name == SMALL and ", estimated from size;" in before.why
    _save(service, "simpledoc", 60.0, SMALL, [LlmCall("read", SMALL, 5047, 648, 3 * 208.2)])  # 3× slower here
    after = service.models.recommendation()
    assert after.seconds_per_question == pytest.approx(3 * before.seconds_per_question, rel=0.01)
    # the first-run panel's list and the Models dialog's: the same figures, from the same place
    recommended = {row.model.name: row for row in service.models.recommended()}
    assert recommended[LARGE].timing == _rows(service)[LARGE].timing

    home = str(service.settings.locations.data_dir.parent)
    service.close()
    assert main(["models", "list", "--home", home]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if f" {LARGE} " in line)
    assert ", estimated from size" in line and "measured" not in line
    assert main(["models", "list", "--json", "--home", home]) == 0
    listed = {m["name"]: m for m in json.loads(capsys.readouterr().out)["models"]}
    assert listed[SMALL]["per_question"].endswith(", estimated from size")  # simpledoc ran, not the cascade
    assert listed[LARGE]["measured"] == 0


def test_an_answer_records_the_model_serving_when_it_was_asked(service):
    answer = service.answers.ask("When does the last ferry leave?", method=DEFAULT_METHOD)  # an empty library
    assert answer.status.value in answers_store.FINISHED
    assert answer.text_model == BUILTIN and answer.models == []  # the cascade quoted: no model called
    assert service.answers.answer(answer.id).text_model == BUILTIN  # kept with the answer
    timings = answers_store.question_timings(service.resources.db.cursor(), ["quoted"])
    assert set(timings) == {(DEFAULT_METHOD, BUILTIN)}  # its time is the built-in model's, no other's
