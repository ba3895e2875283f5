"""In-process backend: a GGUF model (and, for vision, its projector) run by llama-cpp-python."""
from __future__ import annotations

import atexit
import contextlib
import logging
import os
import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .backend import Backend
from .gguf_file import check_pair, read_header
from .images import estimated_image_tokens, fit_image
from .jsonout import parse_samples, schema_grammar, with_room_for_schema
from .observer import TextStream, TokenObserver
from .wire import as_chat
from .types import Completion, Message, ModelError, ModelInfo, Options, PromptTooLong, Usage

log = logging.getLogger(__name__)

MESSAGE_OVERHEAD_TOKENS = 8  # role markers and separators the chat template adds per message


@dataclass(frozen=True)
class LocalConfig:
    threads: int
    gpu_layers: int  # -1 = all
    context: int
    image_max_pixels: int


class LocalBackend(Backend):
    """One loaded model; calls are serialised because a llama.cpp context serves one sequence at a time."""

    def __init__(self, name: str, model_path: str | Path, config: LocalConfig,
                 projector_path: str | Path | None = None):
        self._header = read_header(model_path)
        self._projector = read_header(projector_path) if projector_path else None
        if self._projector:
            check_pair(self._header, self._projector)
        elif self._header.is_projector:
            raise ModelError(f"{model_path} is a vision projector, not a language model")
        self._config = config
        context = min(config.context, self._header.context_length or config.context)
        self.info = ModelInfo(name=name, backend="local", context=context, vision=self._projector is not None,
                              path=str(model_path))
        self._llm = None
        self._lock = threading.Lock()
        self._cancel: threading.Event | None = None  # of the call in progress, read by the abort callback
        self._abort_callback = None

    # -- loading -----------------------------------------------------------------------------------

    def _loaded(self):
        if self._llm is None:
            self._llm = self._load()
            # free native memory while the interpreter can still run the projector's cleanup
            atexit.register(self.close)
        return self._llm

    def _load(self):
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import MTMDChatHandler

        started = time.perf_counter()
        handler = None
        try:
            with _quiet_native_stderr():
                if self._projector:
                    handler = MTMDChatHandler(clip_model_path=str(self._projector.path), verbose=False)
                llm = Llama(model_path=str(self._header.path), n_ctx=self.info.context,
                            n_threads=self._config.threads, n_gpu_layers=self._config.gpu_layers,
                            chat_handler=handler, verbose=False)
                if handler is not None:
                    handler._init_mtmd_context(llm)  # now, so a bad projector fails at load, not mid-answer
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"cannot load {self._header.path}: {exc}") from exc
        self._abort_when_cancelled(llm)
        log.info("loaded %s in %.2f s (%d threads, context %d, vision %s)", self.info.name,
                 time.perf_counter() - started, self._config.threads, self.info.context, self.info.vision)
        return llm

    def _abort_when_cancelled(self, llm) -> None:
        """llama.cpp polls this during every decode: Stop interrupts even a long prompt evaluation
        (a page-image prompt can take minutes on a CPU), not only the gaps between tokens."""
        import llama_cpp

        def should_abort(_data) -> bool:
            return self._cancel is not None and self._cancel.is_set()

        self._abort_callback = llama_cpp.ggml_abort_callback(should_abort)  # kept alive with the model
        llama_cpp.llama_set_abort_callback(llm._ctx.ctx, self._abort_callback, None)

    def close(self) -> None:
        with self._lock:
            if self._llm is not None:
                atexit.unregister(self.close)
                with _quiet_native_stderr():
                    self._llm.close()
                self._llm = None

    # -- calls -------------------------------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        with self._lock:
            return len(self._loaded().tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _sample(self, messages: list[Message], options: Options, n: int,
                cancel: threading.Event | None) -> list[Completion]:
        """The prompt is evaluated once and its KV cache reused by every sample."""
        with self._lock:
            llm = self._loaded()
            messages = self._fit_images(messages)
            prompt_tokens = self._check_fits(llm, messages, options)
            options = with_room_for_schema(options, self.info.context - prompt_tokens)
            if options.seed is not None:
                llm.reset()  # a cached prefix changes numerics slightly: seeded calls start clean
            self._cancel = cancel
            try:
                raw, evaluated = self._generate(llm, messages, options, n, cancel)
            finally:
                self._cancel = None
        return _finish(raw, options, evaluated.length or prompt_tokens, evaluated.cached)

    def _fit_images(self, messages: list[Message]) -> list[Message]:
        if any(m.images for m in messages) and not self.info.vision:
            raise ModelError(f"{self.info.name} cannot read images: install a vision model and its projector")
        return [Message(m.role, m.text, tuple(fit_image(i, self._config.image_max_pixels) for i in m.images))
                for m in messages]

    def _check_fits(self, llm, messages: list[Message], options: Options) -> int:
        tokens = sum(len(llm.tokenize(m.text.encode("utf-8"), add_bos=False, special=False))
                     + sum(estimated_image_tokens(i) for i in m.images) + MESSAGE_OVERHEAD_TOKENS
                     for m in messages)
        if tokens + options.max_tokens > self.info.context:
            raise PromptTooLong(
                f"the prompt needs about {tokens:,} tokens and the answer {options.max_tokens:,}, but "
                f"{self.info.name} is running with a {self.info.context:,}-token context; "
                "shorten the page text, send fewer or smaller page images, or raise llm.context")
        return tokens

    def _generate(self, llm, messages: list[Message], options: Options, n: int,
                  cancel: threading.Event | None) -> tuple[list[tuple[dict, TokenObserver, float]], "_Evaluated"]:
        """(one raw completion per sample, the prompt's length and cached prefix). Let the chat handler format
        (and for vision, encode) the prompt once, then sample n times.

        The handler ends by calling llm.create_completion(prompt=tokens, ...); intercepting that call
        gives the evaluated prompt, and each further completion of the same tokens reuses its KV cache
        (llama-cpp-python matches the cached prefix), so n samples cost input + n × output.
        """
        from llama_cpp import LlamaGrammar, LogitsProcessorList, StoppingCriteriaList

        gbnf = schema_grammar(options.schema) if options.schema else options.grammar
        grammar = LlamaGrammar.from_string(gbnf, verbose=False) if gbnf else None
        first_tokens = {choice: llm.tokenize(choice.encode("utf-8"), add_bos=False, special=False)[0]
                        for choice in options.choices}
        seeds = _seeds(options.seed, n)
        results: list[tuple[dict, TokenObserver, float]] = []
        evaluated = _Evaluated()
        complete = llm.create_completion
        last_end = time.perf_counter()  # the first sample's time includes formatting and the prompt

        def sample_all(**handler_args):
            nonlocal last_end
            handler_stops = list(handler_args.get("stopping_criteria") or [])
            if not self.info.vision:  # a vision handler has evaluated the prompt itself by now
                evaluated.measure(llm, handler_args["prompt"])
            for seed in seeds:
                if cancel is not None and cancel.is_set():
                    break
                observer = TokenObserver(options.logprobs, cancel, first_tokens)
                stops = [*handler_stops, observer.should_stop]
                if options.on_text is not None and n == 1:
                    stops.append(TextStream(llm.detokenize, options.on_text))
                out = complete(
                    prompt=handler_args["prompt"], max_tokens=options.max_tokens,
                    temperature=options.temperature, seed=seed, grammar=grammar,
                    stop=handler_args.get("stop"), repeat_penalty=options.repeat_penalty,
                    logits_processor=LogitsProcessorList([observer]),
                    stopping_criteria=StoppingCriteriaList(stops))
                now = time.perf_counter()
                results.append((out, observer, now - last_end))
                last_end = now
                if options.on_sample is not None:
                    options.on_sample(len(results))
            return out if results else _EMPTY_COMPLETION

        llm.create_completion = sample_all
        try:
            with _quiet_native_stderr() if self.info.vision else contextlib.nullcontext():
                llm.create_chat_completion(messages=[as_chat(m) for m in messages],
                                           max_tokens=options.max_tokens)
        except (ValueError, RuntimeError) as exc:  # decode errors, an image the encoder cannot fit, …
            llm.reset()  # the KV cache may hold half a batch
            if cancel is not None and cancel.is_set():
                return results, evaluated  # aborted mid-decode by Stop
            if "n_ctx" in str(exc) or ("exceed" in str(exc) and "context" in str(exc)):
                raise PromptTooLong(f"{self.info.name}: {exc}") from exc
            raise ModelError(f"{self.info.name} failed: {exc}") from exc
        finally:
            del llm.create_completion
        return results, evaluated


_EMPTY_COMPLETION = {"id": "cancelled", "object": "text_completion", "created": 0, "model": "",
                     "choices": [{"text": "", "index": 0, "logprobs": None, "finish_reason": "stop"}],
                     "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


def _seeds(seed: int | None, n: int) -> list[int | None]:
    if seed is None and n == 1:
        return [None]
    base = random.randrange(2**31) if seed is None else seed
    return [base + i for i in range(n)]


@dataclass
class _Evaluated:
    """The formatted prompt of a text call: its exact length in tokens (0: not measured, e.g. a vision prompt)
    and how many of its leading tokens llama.cpp takes from the KV cache the previous call left."""
    length: int = 0
    cached: int = 0

    def measure(self, llm, prompt) -> None:
        if not isinstance(prompt, list):
            return
        self.length = len(prompt)
        if llm.n_tokens > 0:  # Llama.generate's own prefix match; a fully cached prompt replays its last token
            shared = llm.longest_token_prefix(llm._input_ids.tolist(), prompt)
            self.cached = shared - 1 if shared == len(prompt) else shared


def _finish(raw: list[tuple[dict, TokenObserver, float]], options: Options, prompt_tokens: int,
            cached_tokens: int = 0) -> list[Completion]:
    completions = []
    for i, (out, observer, seconds) in enumerate(raw):
        choice = out["choices"][0]
        completion = Completion(
            text=choice["text"],
            finish_reason="cancelled" if observer.cancelled else choice["finish_reason"] or "stop",
            usage=Usage(prompt_tokens if i == 0 else 0, out["usage"]["completion_tokens"], seconds,
                        cached_tokens if i == 0 else 0),
            token_logprobs=observer.logprobs, token_entropies=observer.entropies,
            choice_probabilities=observer.choice_probabilities)
        completions.append(completion)
    if options.schema is not None:
        parse_samples(completions, options.schema)
    return completions or [Completion("", "cancelled", Usage(prompt_tokens, 0, 0.0))]


@contextlib.contextmanager
def _quiet_native_stderr():
    """libmtmd prints to fd 2 even with verbose=False; keep the terminal clean while it works."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    with open(os.devnull, "wb") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
