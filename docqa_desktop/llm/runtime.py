"""The one way the rest of the app reaches a language model.

`Runtime` is what methods call; `ModelRuntimes` decides which backend and model serve the text and
vision roles, loads a local model lazily on first use, keeps at most one loaded (they are large), shares
it between callers and frees it on exit.
"""
from __future__ import annotations

import atexit
import threading
from typing import Protocol

from ..errors import Remedy
from ..settings import LlmSettings
from .hardware import Hardware, detect
from .local import LocalBackend, LocalConfig
from .manager import ModelManager, ResolvedModel
from .remote import RemoteBackend
from .types import Completion, Message, ModelError, ModelInfo, Options

NO_VISION_MODEL = ("no vision model installed: answers use page text and OCR. "
                   "`docqa models list` shows the recommended vision model for this machine")


class Runtime(Protocol):
    info: ModelInfo

    def chat(self, messages: list[Message], options: Options = ...,
             cancel: threading.Event | None = None) -> Completion: ...

    def sample(self, messages: list[Message], options: Options = ..., n: int = 1,
               cancel: threading.Event | None = None) -> list[Completion]: ...

    def count_tokens(self, text: str) -> int: ...

    def close(self) -> None: ...


class ModelRuntimes:
    def __init__(self, settings: LlmSettings, manager: ModelManager, hardware: Hardware | None = None):
        self._settings = settings
        self._manager = manager
        self._hardware = hardware
        self._loaded: dict[str, Runtime] = {}  # model name -> backend
        self._lock = threading.Lock()
        atexit.register(self.close)

    @property
    def hardware(self) -> Hardware:
        if self._hardware is None:
            self._hardware = detect()
        return self._hardware

    def text(self) -> Runtime:
        """The model for text-only tasks (a vision model when one is installed, else a text model)."""
        runtime = self._for_role("text")
        if runtime is None:
            raise ModelError("no language model is installed; reinstall DocQA Desktop (it ships SmolLM2) "
                             "or register a model file with {remedy}", remedy=Remedy.IMPORT_MODEL_FILE)
        return runtime

    def vision(self) -> Runtime | None:
        """The model that reads page images, or None (see NO_VISION_MODEL)."""
        return self._for_role("vision")

    def _for_role(self, role: str) -> Runtime | None:
        if self._settings.backend == "remote":
            return self._remote(role)
        preferred = self._settings.vision_model if role == "vision" else self._settings.text_model
        resolved = self._manager.resolve(role, preferred)
        return None if resolved is None else self._local(resolved)

    def _local(self, model: ResolvedModel) -> Runtime:
        with self._lock:
            if model.name not in self._loaded:
                for other in self._loaded.values():  # one large model in memory at a time
                    other.close()
                self._loaded.clear()
                self._loaded[model.name] = LocalBackend(model.name, model.model_path, self._local_config(),
                                                        model.projector_path)
            return self._loaded[model.name]

    def _local_config(self) -> LocalConfig:
        s = self._settings
        threads = s.threads or self.hardware.default_threads()
        gpu_layers = s.gpu_layers if s.gpu_layers >= 0 else (-1 if self.hardware.uses_gpu else 0)
        return LocalConfig(threads=threads, gpu_layers=gpu_layers, context=s.context,
                           image_max_pixels=s.image_max_pixels)

    def _remote(self, role: str) -> Runtime | None:
        s = self._settings
        if not s.remote_url:
            raise ModelError("llm.backend is 'remote' but llm.remote_url is empty")
        if role == "vision" and not s.remote_vision:
            return None
        with self._lock:
            key = f"remote:{s.remote_url}"
            if key not in self._loaded:
                self._loaded[key] = RemoteBackend(s.remote_url, s.remote_model, s.remote_api_key,
                                                  s.remote_timeout, s.context, s.remote_vision)
            return self._loaded[key]

    def close(self) -> None:
        with self._lock:
            for runtime in self._loaded.values():
                runtime.close()
            self._loaded.clear()
