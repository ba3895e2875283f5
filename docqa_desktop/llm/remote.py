"""Remote backend: any OpenAI-compatible chat server on the LAN (llama.cpp's server, vLLM, …).

Streams every call so a Stop press closes the connection (and the server stops generating) instead of
waiting for the whole answer. Only the standard library talks HTTP: nothing new to install.
"""
from __future__ import annotations

import json
import math
import random
import threading
import time
import urllib.error
import urllib.request

from .backend import Backend
from .jsonout import parse_samples, with_room_for_schema
from .wire import as_chat
from .types import Completion, Message, ModelError, ModelInfo, Options, PromptTooLong, Usage

CHARS_PER_TOKEN = 3.5  # the API has no tokenizer endpoint; a conservative estimate for English text
TOP_LOGPROBS = 5  # entropy is estimated from the top candidates plus the remaining mass


class RemoteBackend(Backend):
    def __init__(self, base_url: str, model: str = "", api_key: str = "", timeout: float = 300.0,
                 context: int = 8192, vision: bool = False):
        if not base_url.startswith(("http://", "https://")):
            raise ModelError(f"remote model URL {base_url!r} must start with http:// or https://")
        self._base = base_url.rstrip("/")
        if not self._base.endswith("/v1"):
            self._base += "/v1"
        self._model = model
        self._headers = {"Content-Type": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._timeout = timeout
        self._schema_format = "json_schema"  # OpenAI's form; servers that reject it get "json_object" + schema
        self.info = ModelInfo(name=model or "remote", backend="remote", context=context, vision=vision,
                              path=self._base)

    def close(self) -> None:
        pass

    def count_tokens(self, text: str) -> int:
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    def models(self) -> list[str]:
        """Model ids the server offers."""
        with self._open("GET", "/models", None) as response:
            return [m["id"] for m in json.load(response).get("data", [])]

    def _sample(self, messages: list[Message], options: Options, n: int,
                cancel: threading.Event | None) -> list[Completion]:
        """n calls with consecutive seeds: llama.cpp's server reuses the cached prompt between them."""
        options = with_room_for_schema(options)
        if any(m.images for m in messages) and not self.info.vision:
            raise ModelError(f"the remote model {self.info.name} is not configured as a vision model")
        base = options.seed if options.seed is not None else random.randrange(2**31)
        completions = []
        for i in range(n):
            if cancel is not None and cancel.is_set():
                break
            seed = base + i if (options.seed is not None or n > 1) else None
            completions.append(self._call(messages, options, seed, cancel))
            if options.on_sample is not None:
                options.on_sample(len(completions))
        if options.schema is not None:
            parse_samples(completions, options.schema)
        return completions or [Completion("", "cancelled", Usage())]

    # -- one streamed call -------------------------------------------------------------------------

    def _call(self, messages, options: Options, seed, cancel) -> Completion:
        body = {"messages": [as_chat(m) for m in messages], "max_tokens": options.max_tokens,
                "temperature": options.temperature, "stream": True,
                "stream_options": {"include_usage": True}}
        if self._model:
            body["model"] = self._model
        if seed is not None:
            body["seed"] = seed
        if options.repeat_penalty != 1.0:
            body["repeat_penalty"] = options.repeat_penalty  # llama.cpp and vLLM extension
        if options.logprobs:
            body.update(logprobs=True, top_logprobs=TOP_LOGPROBS)
        if options.grammar:
            body["grammar"] = options.grammar  # llama.cpp's server extension; others ignore it (the reply is checked)
        started = time.perf_counter()
        if options.schema is None:
            response = self._open("POST", "/chat/completions", body)
        else:
            response = self._open_with_schema(body, options.schema)
        with response:
            text, finish, usage, logprobs, entropies, chunks = self._read_stream(response, cancel, options.on_text)
        prompt_tokens = usage.get("prompt_tokens") or sum(self.count_tokens(m.text) for m in messages)
        return Completion(text=text, finish_reason=finish,
                          usage=Usage(prompt_tokens, usage.get("completion_tokens") or chunks,
                                      time.perf_counter() - started),
                          token_logprobs=logprobs, token_entropies=entropies)

    def _open_with_schema(self, body: dict, schema: dict):
        for attempt in (self._schema_format, "json_object" if self._schema_format == "json_schema" else None):
            if attempt is None:
                break
            body["response_format"] = (
                {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}
                if attempt == "json_schema" else {"type": "json_object", "schema": schema})
            try:
                response = self._open("POST", "/chat/completions", body)
            except _Rejected:
                continue
            self._schema_format = attempt
            return response
        raise ModelError(f"the model server at {self._base} rejects JSON-schema output requests")

    def _read_stream(self, response, cancel, on_text=None):
        parts, logprobs, entropies = [], [], []
        finish, usage, chunks = "stop", {}, 0
        for raw in response:
            if cancel is not None and cancel.is_set():
                return "".join(parts), "cancelled", usage, logprobs, entropies, chunks
            line = raw.decode("utf-8", "replace").strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            event = json.loads(data)
            usage = event.get("usage") or usage
            for choice in event.get("choices", []):
                content = (choice.get("delta") or {}).get("content")
                if content:
                    parts.append(content)
                    chunks += 1
                    if on_text is not None:
                        on_text("".join(parts))
                finish = choice.get("finish_reason") or finish
                for token in ((choice.get("logprobs") or {}).get("content") or []):
                    logprobs.append(token["logprob"])
                    entropies.append(_entropy_of_top(token.get("top_logprobs") or []))
        return "".join(parts), finish, usage, logprobs, entropies, chunks

    # -- HTTP --------------------------------------------------------------------------------------

    def _open(self, method: str, path: str, body: dict | None):
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(self._base + path, data=data, method=method, headers=self._headers)
        try:
            return urllib.request.urlopen(request, timeout=self._timeout)
        except urllib.error.HTTPError as exc:
            detail = _error_detail(exc)
            asked_schema = (body or {}).get("response_format", {}).get("type") == "json_schema"
            if asked_schema and (exc.code in (400, 422) or "response_format" in detail):  # some answer 500
                raise _Rejected(detail) from exc
            if "context" in detail.lower() and ("exceed" in detail.lower() or "too long" in detail.lower()):
                raise PromptTooLong(f"the model server at {self._base} says: {detail}") from exc
            raise ModelError(f"the model server at {self._base} answered {exc.code}: {detail}") from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ModelError(f"cannot reach the model server at {self._base}: {reason}") from exc


class _Rejected(Exception):
    """The server refused the request's response_format; try the other dialect."""


def _error_detail(exc: urllib.error.HTTPError) -> str:
    try:
        payload = json.loads(exc.read().decode("utf-8", "replace"))
    except (ValueError, OSError):
        return exc.reason or ""
    error = payload.get("error", payload.get("detail", payload))
    if isinstance(error, dict):
        error = error.get("message", error)
    return str(error)[:500]


def _entropy_of_top(top: list[dict]) -> float:
    """Entropy (nats) of the top-k candidates plus one bucket for the unseen rest: a lower bound."""
    probs = [math.exp(t["logprob"]) for t in top]
    rest = max(0.0, 1.0 - sum(probs))
    return -sum(p * math.log(p) for p in probs + [rest] if p > 0)
