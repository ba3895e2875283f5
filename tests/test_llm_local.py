"""The in-process runtime with the real built-in SmolLM2-135M on the CPU."""
from __future__ import annotations

import threading

import pytest

from docqa_desktop.llm import Message, ModelError, Options, PromptTooLong
from docqa_desktop.llm.jsonout import schema_violation

QUESTION = [Message("system", "You answer in one short sentence."),
            Message("user", "What is the capital of France?")]

PAGE_CHOICE = {
    "type": "object",
    "properties": {
        "selected_pages": {"type": "array", "items": {"type": "integer", "enum": list(range(1, 13))}, "maxItems": 4},
        "document_summary": {"type": "string", "maxLength": 120},
        "answerable": {"type": "boolean"},
    },
    "required": ["selected_pages", "document_summary", "answerable"],
    "additionalProperties": False,
}

TOPICS = ["quarterly revenue of a retailer", "a wind farm's turbine output", "a clinical trial's dropout rate",
          "the pricing table of a ferry company", "an airline's crisis communication", "a chip maker's R&D spend",
          "solar panel efficiency by year", "a city's bus timetable", "a bank's capital ratio",
          "the safety instructions of a drill", "a university's enrolment", "a hotel's room rates",
          "the warranty terms of a laptop", "an insurer's claims ratio", "the specifications of a camera",
          "a hospital's waiting times", "a mine's copper grade", "a railway's punctuality",
          "the menu of a restaurant", "a charity's spending on programmes"]


def test_chat_answers_and_reports_usage(smollm2):
    completion = smollm2.chat(QUESTION, Options(max_tokens=24))
    assert completion.text.strip()
    assert completion.finish_reason in ("stop", "length")
    assert completion.usage.prompt_tokens >= smollm2.count_tokens(QUESTION[1].text)
    assert 0 < completion.usage.output_tokens <= 24
    assert completion.usage.seconds > 0


def test_schema_constrained_output_always_parses(smollm2):
    failures = []
    for i, topic in enumerate(TOPICS):
        prompt = [Message("user", f"Pages 1-12 of a report on {topic}. Which pages answer the question "
                                  f"'what changed last year?' Reply in JSON.")]
        completion = smollm2.chat(prompt, Options(max_tokens=160, temperature=0.7, seed=i, schema=PAGE_CHOICE))
        if completion.parsed is None or schema_violation(completion.parsed, PAGE_CHOICE):
            failures.append((topic, completion.text))
        assert completion.finish_reason == "stop", completion.text
    assert not failures


def test_logprobs_and_entropies_describe_each_token(smollm2):
    completion = smollm2.chat(QUESTION, Options(max_tokens=16, logprobs=True))
    n = completion.usage.output_tokens
    assert len(completion.token_entropies) >= n  # one per sampling step, the final stop included
    assert n - 1 <= len(completion.token_logprobs) <= n
    assert all(lp <= 0 for lp in completion.token_logprobs)
    assert all(h >= 0 for h in completion.token_entropies)
    assert completion.mean_entropy > 0
    plain = smollm2.chat(QUESTION, Options(max_tokens=16))
    assert plain.token_entropies == [] and plain.text == completion.text  # measuring does not change decoding


def test_seeded_sampling_is_reproducible(smollm2):
    options = Options(max_tokens=24, temperature=1.0, seed=42)
    first = smollm2.chat(QUESTION, options).text
    smollm2.chat([Message("user", "Something else entirely, to fill the cache.")], Options(max_tokens=8))
    assert smollm2.chat(QUESTION, options).text == first
    texts = {smollm2.chat(QUESTION, Options(max_tokens=24, temperature=1.0, seed=s)).text for s in range(4)}
    assert len(texts) > 1  # the seed matters


def test_n_samples_share_one_prompt(smollm2):
    samples = smollm2.sample(QUESTION, Options(max_tokens=20, temperature=1.0, seed=7), n=4)
    assert len(samples) == 4
    assert len({s.text for s in samples}) > 1
    assert samples[0].usage.prompt_tokens > 0
    assert all(s.usage.prompt_tokens == 0 for s in samples[1:])  # the prompt is evaluated once
    again = smollm2.sample(QUESTION, Options(max_tokens=20, temperature=1.0, seed=7), n=4)
    assert [s.text for s in again] == [s.text for s in samples]


def test_n_samples_of_json_all_parse(smollm2):
    prompt = [Message("user", "Pages 1-12 of a safety manual. Which pages describe the drill's battery?")]
    samples = smollm2.sample(prompt, Options(max_tokens=160, temperature=0.8, seed=3, schema=PAGE_CHOICE), n=3)
    assert all(s.parsed is not None and not schema_violation(s.parsed, PAGE_CHOICE) for s in samples)


def test_cancel_stops_generation(smollm2):
    cancel = threading.Event()
    timer = threading.Timer(0.5, cancel.set)
    timer.start()
    completion = smollm2.chat([Message("user", "Tell a very long story about a lighthouse keeper.")],
                              Options(max_tokens=2000, repeat_penalty=1.1), cancel=cancel)
    timer.cancel()
    assert completion.finish_reason == "cancelled"
    assert completion.usage.output_tokens < 2000
    cancel.set()
    assert smollm2.sample(QUESTION, Options(max_tokens=8), n=3, cancel=cancel)[0].finish_reason == "cancelled"


def test_cancel_interrupts_a_long_prompt_evaluation(smollm2):
    long_page = "The turbine output rose sharply in the third quarter. " * 250  # ~10 s to read on a CPU
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    completion = smollm2.chat([Message("user", long_page)], Options(max_tokens=8), cancel=cancel)
    timer.cancel()
    assert completion.finish_reason == "cancelled"
    assert completion.usage.output_tokens == 0  # stopped inside the prompt, before the first token
    assert smollm2.chat(QUESTION, Options(max_tokens=8)).text  # the model is usable right after


def test_prompt_larger_than_context_is_refused_clearly(smollm2):
    long_page = "The turbine output rose sharply in the third quarter. " * 600
    with pytest.raises(PromptTooLong, match="context"):
        smollm2.chat([Message("user", long_page)], Options(max_tokens=64))
    assert smollm2.chat(QUESTION, Options(max_tokens=8)).text  # the model still works afterwards


def test_text_model_refuses_images(smollm2):
    with pytest.raises(ModelError, match="cannot read images"):
        smollm2.chat([Message("user", "What is on this page?", (b"\x89PNG",))])

