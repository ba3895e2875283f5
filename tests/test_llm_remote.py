"""The remote backend against a real OpenAI-compatible server: llama-cpp-python's own, on 127.0.0.1."""
from __future__ import annotations

import threading

import pytest

from conftest import free_port
from docqa_desktop.llm import Message, ModelError, Options
from docqa_desktop.llm.remote import RemoteBackend

QUESTION = [Message("user", "What is the capital of France?")]
ANSWER = {"type": "object", "properties": {"answer": {"type": "string", "maxLength": 40}},
          "required": ["answer"], "additionalProperties": False}


@pytest.fixture
def remote(llama_server):
    return RemoteBackend(llama_server, timeout=120)


def test_lists_models_and_chats(remote):
    assert any("SmolLM2" in m for m in remote.models())
    completion = remote.chat(QUESTION, Options(max_tokens=16, seed=1))
    assert completion.text.strip()
    assert completion.usage.output_tokens > 0 and completion.usage.prompt_tokens > 0
    assert completion.finish_reason in ("stop", "length")


def test_schema_output_parses_on_a_server_without_json_schema_support(remote):
    # llama-cpp-python's server refuses OpenAI's json_schema form; the backend falls back to json_object+schema
    for seed in range(3):
        completion = remote.chat(QUESTION, Options(max_tokens=40, temperature=0.7, seed=seed, schema=ANSWER))
        assert isinstance(completion.parsed, dict) and isinstance(completion.parsed["answer"], str)


def test_seeded_samples_and_logprobs(remote):
    samples = remote.sample(QUESTION, Options(max_tokens=12, temperature=1.0, seed=11, logprobs=True), n=3)
    assert len(samples) == 3
    assert all(s.token_logprobs and len(s.token_entropies) == len(s.token_logprobs) for s in samples)
    assert all(lp <= 0 for s in samples for lp in s.token_logprobs)
    assert remote.chat(QUESTION, Options(max_tokens=12, temperature=1.0, seed=11)).text == samples[0].text


def test_the_text_is_handed_on_as_it_streams(remote):
    seen: list[str] = []
    completion = remote.chat([Message("user", "Count from one to ten in words.")],
                             Options(max_tokens=30, seed=1, on_text=seen.append))
    assert len(seen) >= 5 and all(later.startswith(earlier) for earlier, later in zip(seen, seen[1:]))
    assert seen[-1] == completion.text


def test_cancel_closes_the_stream(remote):
    cancel = threading.Event()
    timer = threading.Timer(0.5, cancel.set)
    timer.start()
    completion = remote.chat([Message("user", "Tell a very long story about a lighthouse keeper.")],
                             Options(max_tokens=1500), cancel=cancel)
    timer.cancel()
    assert completion.finish_reason == "cancelled"
    assert completion.usage.output_tokens < 1500


def test_unreachable_server_is_a_clear_error():
    backend = RemoteBackend(f"http://127.0.0.1:{free_port()}", timeout=5)
    with pytest.raises(ModelError, match="cannot reach the model server at http://127.0.0.1"):
        backend.chat(QUESTION)


def test_bad_url_is_refused():
    with pytest.raises(ModelError, match="must start with http"):
        RemoteBackend("gpu-box:8080")
