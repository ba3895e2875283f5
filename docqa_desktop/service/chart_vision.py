"""The vision model as the charts stage reads raster charts with it (index.stages.VisionReader): the service's
installed model or server, asked through the runtimes every method uses. Whether it is installed and quick is
answered without loading it (`docqa status` asks on every call)."""
from __future__ import annotations

import threading

from ..errors import ModelError
from ..index.chart_model import MAX_TOKENS, NO_VISION_MODEL
from ..llm import Message, Options
from .resources import Resources


class ChartVision:
    def __init__(self, resources: Resources):
        self._resources = resources

    def installed(self) -> bool:
        llm = self._resources.settings.llm
        if llm.backend == "remote":
            return bool(llm.remote_url and llm.remote_vision)
        try:
            return self._resources.models.resolve("vision", llm.vision_model) is not None
        except ModelError:  # the chosen model is gone or no vision model
            return False

    def quick(self) -> bool:
        """A server, or llama.cpp with a GPU it can use."""
        return self._resources.settings.llm.backend == "remote" or self._resources.runtimes.hardware.uses_gpu

    def read(self, image: bytes, prompt: str, cancel: threading.Event | None = None) -> str:
        runtime = self._resources.runtimes.vision()
        if runtime is None:
            raise ModelError(NO_VISION_MODEL)
        return runtime.chat([Message("user", prompt, (image,))], Options(max_tokens=MAX_TOKENS), cancel).text
