"""The picture description cache (methods/toolkit/descriptions.py): a vision model describes a picture once
per model, text-only runs read the latest description instead, and the words inside the picture's box stand in
when no description was ever written."""
import pymupdf
import pytest

from conftest import LAYOUT_INDEX, add_layout_report
from layout_pdf import CHART_WORDS
from docqa_desktop.answers import PageRef
from docqa_desktop.llm import Completion, ModelInfo, Usage
from docqa_desktop.retrieval.page_source import PageSource
from docqa_desktop.methods.toolkit.descriptions import (DESCRIBE_MAX_PIXELS, ELEMENT_DESCRIPTION, Description,
                                                        Descriptions)
from docqa_desktop.methods.toolkit.page_content import PageElement, elements
from docqa_desktop.store import artifacts
from docqa_desktop.store.artifacts import ArtifactStore


class ScriptedVision:
    """A vision runtime that answers every call with a fixed description and keeps what it was sent."""

    def __init__(self, name: str, reply: str):
        self.info = ModelInfo(name, "local", 8192, True)
        self.reply = reply
        self.received = []  # (messages, options) per call

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def chat(self, messages, options, cancel=None):
        self.received.append((messages, options))
        return Completion(self.reply, "stop", Usage(100, len(self.reply.split()), 0.01))

    def close(self):
        pass


class Trace:
    """Plays MethodContext.call: every call goes through it and is recorded."""

    def __init__(self):
        self.steps = []

    def __call__(self, step, runtime, messages, options, pages=()):
        self.steps.append((step, runtime.info.name, [p.page for p in pages]))
        return runtime.chat(messages, options)


@pytest.fixture(scope="module")
def indexed(index_templates, tmp_path_factory):
    base = tmp_path_factory.mktemp("descriptions")
    with index_templates.open_copy(base, add_layout_report, "library", LAYOUT_INDEX) as service:
        ref = PageRef(service.library.status()[0].doc_id, "report.pdf", str(base / "library" / "report.pdf"), 1, "1")
        yield service.resources.db, ref


@pytest.fixture
def setup(indexed):
    """(descriptions, page ref, the picture element) with no description stored yet."""
    db, ref = indexed
    with db.transaction() as cur:
        cur.execute("DELETE FROM artifacts")
    picture = elements(PageSource(db), ref, {"picture"})[0]
    return Descriptions(ArtifactStore(db), PageSource(db)), ref, picture


def stored(db) -> list[tuple]:
    return db.cursor().execute(
        "SELECT kind, doc_id, page, item, model, value FROM artifacts ORDER BY created_at").fetchall()


def test_a_miss_asks_the_vision_model_once_with_the_crop_and_stores_it(setup, indexed):
    (descriptions, ref, picture), db = setup, indexed[0]
    vision, trace = ScriptedVision("qwen2-vl", "A colour gradient labelled Megawatt hours per month."), Trace()
    got = descriptions.describe(ref, picture, vision, trace)
    assert got == Description("A colour gradient labelled Megawatt hours per month.", "vision", "qwen2-vl")
    assert trace.steps == [(f"describe picture p.1 #{picture.seq}", "qwen2-vl", [1])]
    (message,), options = vision.received[0]
    assert message.role == "user" and "page 1" in message.text and "every value" in message.text
    assert len(message.images) == 1 and options.max_tokens > 0
    image = pymupdf.Pixmap(message.images[0])  # the picture's region, sharp but within the pixel budget
    assert image.width * image.height <= DESCRIBE_MAX_PIXELS
    assert image.width / image.height == pytest.approx(300 / 187, rel=0.02)
    assert stored(db) == [(ELEMENT_DESCRIPTION, ref.doc_id, 1, picture.seq, "qwen2-vl",
                                     "A colour gradient labelled Megawatt hours per month.")]


def test_a_hit_makes_no_call_and_another_vision_model_writes_its_own(setup, indexed):
    (descriptions, ref, picture), db = setup, indexed[0]
    first, trace = ScriptedVision("qwen2-vl", "First description."), Trace()
    descriptions.describe(ref, picture, first, trace)
    again = Descriptions(descriptions.artifacts, descriptions.pages).describe(ref, picture, first, trace)
    assert again == Description("First description.", "vision", "qwen2-vl")
    assert len(trace.steps) == 1 and len(first.received) == 1  # served from the store
    other = ScriptedVision("smolvlm", "Second description.")
    assert descriptions.describe(ref, picture, other, trace).text == "Second description."
    assert len(trace.steps) == 2 and len(other.received) == 1
    assert [row[4:] for row in stored(db)] == [("smolvlm", "Second description.")]  # one per element


def test_a_text_only_run_reads_the_latest_description(setup):
    descriptions, ref, picture = setup
    descriptions.describe(ref, picture, ScriptedVision("qwen2-vl", "Monthly output, 20 to 60 MWh."), Trace())
    trace = Trace()
    got = descriptions.describe(ref, picture, None, trace)
    assert got == Description("Monthly output, 20 to 60 MWh.", "cached", "qwen2-vl")
    assert trace.steps == []


def test_without_any_description_the_words_inside_the_box_stand_in(setup, indexed):
    (descriptions, ref, picture), db = setup, indexed[0]
    trace = Trace()
    got = descriptions.describe(ref, picture, None, trace)
    assert got == Description(" ".join(CHART_WORDS), "ocr")  # the caption just below the box is left out
    assert "Figure" not in got.text and trace.steps == [] and stored(db) == []
    empty = PageElement(99, "picture", (400, 600, 500, 700), "")  # a region without words
    assert descriptions.describe(ref, empty, None, trace) == Description("", "ocr")


def test_for_page_describes_every_picture_of_the_page(setup, indexed):
    (descriptions, ref, picture), db = setup, indexed[0]
    vision, trace = ScriptedVision("qwen2-vl", "A chart."), Trace()
    assert descriptions.for_page(ref, vision, trace) == {picture.seq: Description("A chart.", "vision", "qwen2-vl")}
    assert artifacts.count(db.cursor(), ELEMENT_DESCRIPTION, [ref.doc_id], "qwen2-vl") == 1
