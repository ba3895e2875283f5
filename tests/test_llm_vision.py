"""The vision path (libmtmd) with a tiny random Qwen2-VL and projector built by the tests, and bad model files."""
from __future__ import annotations

import shutil

import pymupdf
import pytest

from conftest import SMALL_PAPER, local_config, rendered_page
from docqa_desktop.llm import Message, ModelError, Options
from docqa_desktop.llm.images import fit_image, image_size
from docqa_desktop.llm.local import LocalBackend
from tiny_gguf import write_vlm

SELECTION = {"type": "object",
             "properties": {"selected_pages": {"type": "array", "items": {"type": "integer", "enum": [1, 2, 3]},
                                               "maxItems": 3},
                            "summary": {"type": "string", "maxLength": 40}},
             "required": ["selected_pages", "summary"], "additionalProperties": False}


def test_rendered_corpus_page_reaches_the_vision_model(tiny_vlm):
    page = rendered_page(SMALL_PAPER)
    completion = tiny_vlm.chat([Message("user", "Describe the page.", (page,))], Options(max_tokens=12))
    assert tiny_vlm.info.vision
    assert completion.usage.output_tokens > 0 and completion.text
    # the prompt count includes the image's tokens (~28 x 28 pixels each), not just the words
    width, height = image_size(fit_image(page, 200_000))
    assert completion.usage.prompt_tokens > (width // 28) * (height // 28)


def test_a_page_image_prompt_streams_its_reply(tiny_vlm):
    seen: list[str] = []
    completion = tiny_vlm.chat([Message("user", "Which pages matter?", (rendered_page(SMALL_PAPER, 1),))],
                               Options(max_tokens=40, schema=SELECTION, on_text=seen.append))
    assert len(seen) >= 3 and all(later.startswith(earlier) for earlier, later in zip(seen, seen[1:]))
    assert completion.text.startswith(seen[-1]) and seen[0].startswith("{")  # the reply as generated, not the prompt


def test_vision_json_and_samples(tiny_vlm):
    page = rendered_page(SMALL_PAPER, 1)
    samples = tiny_vlm.sample([Message("user", "Which pages matter?", (page,))],
                              Options(max_tokens=60, temperature=0.8, seed=5, schema=SELECTION), n=3)
    assert len(samples) == 3
    assert all(isinstance(s.parsed, dict) and set(s.parsed) == {"selected_pages", "summary"} for s in samples)
    assert samples[1].usage.prompt_tokens == 0  # image encoded once for all samples


def test_large_page_images_are_scaled_to_the_pixel_budget():
    with pymupdf.open() as doc:
        page = doc.new_page(width=1224, height=1584)
        page.insert_text((72, 72), "A very large scan")
        big = page.get_pixmap(dpi=144).tobytes("png")
    width, height = image_size(big)
    assert width * height > 1_000_000
    small = fit_image(big, 200_000)
    w2, h2 = image_size(small)
    assert w2 * h2 <= 200_000
    assert abs(w2 / h2 - width / height) < 0.02  # aspect kept
    assert fit_image(small, 200_000) == small  # already within budget: untouched


def test_undecodable_image_is_a_clear_error(tiny_vlm):
    with pytest.raises(ModelError, match="cannot be decoded"):
        tiny_vlm.chat([Message("user", "What is this?", (b"not an image at all",))])


@pytest.mark.model
def test_projector_that_does_not_match_the_model_is_refused(tiny_vlm_files, tmp_path):
    model, _ = tiny_vlm_files
    _, wrong = write_vlm(tmp_path, projector_width=96)
    with pytest.raises(ModelError, match="does not match"):
        LocalBackend("mismatch", model, local_config(), wrong)


def test_language_model_given_as_projector_is_refused(tiny_vlm_files, smollm2_path):
    with pytest.raises(ModelError, match="not a vision projector"):
        LocalBackend("wrong", tiny_vlm_files[0], local_config(), smollm2_path)


@pytest.mark.parametrize("damage, reason", [
    ("truncate", "truncated"),
    ("header", "damaged"),
    ("not_gguf", "not a GGUF"),
    ("empty", "not a GGUF"),
    ("missing", "does not exist"),
])
def test_bad_model_files_fail_with_the_file_and_the_reason(smollm2_path, tmp_path, damage, reason):
    path = tmp_path / "model.gguf"
    data = smollm2_path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) * 2 // 3])
    elif damage == "header":
        path.write_bytes(data[:4] + b"\xff" * 60 + data[64:])
    elif damage == "not_gguf":
        path.write_bytes(b"<html>404 Not Found</html>" * 50)
    elif damage == "empty":
        path.write_bytes(b"")
    with pytest.raises(ModelError, match=reason) as caught:
        LocalBackend("broken", path, local_config())
    assert str(path) in str(caught.value)


@pytest.mark.model
def test_truncated_projector_is_named(tiny_vlm_files, tmp_path):
    model, projector = tiny_vlm_files
    cut = tmp_path / "mmproj.gguf"
    shutil.copy(projector, cut)
    cut.write_bytes(cut.read_bytes()[:-5000])
    with pytest.raises(ModelError, match="truncated") as caught:
        LocalBackend("cut", model, local_config(), cut)
    assert "mmproj.gguf" in str(caught.value)
