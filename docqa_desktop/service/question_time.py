"""About how long a question takes here, by model and method: the one place the Models dialog, `docqa models list`,
the first-run panel (its table and its recommendation) and the method picker take it from.

Measured: the median of this machine's answers with that method while that model served text tasks
(store.answers.question_timings); a model's figures never stand for another's. Never run: an estimate from the
model's size at this machine's speed, said to be one. The speed is measured too: the time the calls of the models
that did run here took over what the reference figures give for the same tokens (Hardware.speed, 1.0 until a model
has run here)."""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ..llm.catalog import Catalog
from ..llm.catalog_choice import WORKLOADS, estimate, workload
from ..llm.gguf_file import size_text as parameters_text
from ..llm.hardware import Hardware
from ..llm.manager import ModelStatus
from ..methods import METHODS
from ..progress import about
from ..store import answers as answers_store

# How many of a method's newest answers with a model its measured time is the median of.
MEASURED_ANSWERS = 20
# How many of the newest answers' model calls this machine's speed is measured over.
SPEED_ANSWERS = 100
# Models smaller than this do not measure the machine: their calls' time is mostly the work around a call, not
# the weights (the built-in 135M model's), and would make every larger model's estimate too slow.
SPEED_MIN_WEIGHTS_MB = 500.0
# A measured speed is kept within these bounds of the reference: beyond them it measured something else (a machine
# busy with indexing, a model swapped out).
SPEED_BOUNDS = (0.1, 10.0)


@dataclasses.dataclass(frozen=True)
class PerQuestion:
    """About how long a question takes here with a method and a model: the median of this machine's own answers
    when there are some, else the estimate from the model's size."""
    seconds: float | None  # None: nothing to go on (a server's model before its first answer, a missing file)
    measured: int = 0  # the answers measured; 0: an estimate
    basis: str = ""  # what an estimate rests on, in a sentence (a tooltip's)

    @property
    def short(self) -> str:
        """A table's cell: "~14 s, measured over 9 questions", "~25 s, estimated from size"; "–" with nothing."""
        if self.seconds is None:
            return "–"
        return f"{about(self.seconds)}, {self._how}"

    @property
    def text(self) -> str:
        """ "about 14 s per question, measured over 9 questions", "about 3 min per question, estimated from size";
        "" when there is nothing to go on."""
        if self.seconds is None:
            return ""
        return f"about {about(self.seconds).lstrip('~')} per question, {self._how}"

    @property
    def _how(self) -> str:
        if self.measured:
            return f"measured over {self.measured} question{'s' if self.measured != 1 else ''}"
        return "estimated from size"


@dataclasses.dataclass(frozen=True)
class MachineSpeed:
    """This machine's speed with language models: the seconds its models' calls took over the reference figures'
    for the same tokens and weights (2.0: twice as slow as they say)."""
    factor: float = 1.0
    calls: int = 0  # the calls measured; 0: the reference figures, nothing having run here
    models: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        if not self.calls:
            return "the reference figures for this hardware (no model has run here yet)"
        return (f"this machine's speed, measured over {self.calls} call{'s' if self.calls != 1 else ''} of "
                f"{', '.join(self.models)} ({self.factor:.2g}× the reference figures)")


def calls_a_model(method: str) -> bool:
    """Whether `method`'s time depends on the language model: a method with a workload, or one that needs a
    model (MethodSpec.min_model_params); the quoted reader calls none. A method not registered (yet): assumed to."""
    spec = METHODS.get(method)
    return method in WORKLOADS or spec is None or spec.min_model_params > 0


def machine_speed(calls: Mapping[str, tuple[int, int, float, int]], models: Mapping[str, ModelStatus],
                  hardware: Hardware) -> MachineSpeed:
    """The speed the calls (store.answers.model_calls) measure, weighed against what `hardware` should do by the
    reference figures; the calls of a model whose size is not known here (a server's) or too small to tell
    (SPEED_MIN_WEIGHTS_MB) are left out."""
    took = reference = 0.0
    counted, used = 0, []
    for name, (prompt, output, seconds, n) in sorted(calls.items()):
        status = models.get(name)
        if status is None or status.size_mb < SPEED_MIN_WEIGHTS_MB:
            continue
        took += seconds
        reference += hardware.call_seconds(status.size_mb, status.memory_gb, prompt, output)
        counted += n
        used.append(name)
    if reference <= 0:
        return MachineSpeed()
    low, high = SPEED_BOUNDS
    return MachineSpeed(min(high, max(low, took / reference)), counted, tuple(used))


class QuestionTimes:
    """This machine's times as they stand, read once (two queries): the measured ones by method and model, and the
    speed the estimates are scaled by (`hardware`: the machine with that speed)."""

    def __init__(self, cur, hardware: Hardware, catalog: Catalog, statuses: list[ModelStatus]):
        self._catalog = catalog
        self.models = statuses  # every model's status, read once
        self._models = {status.name: status for status in statuses}
        free = [method for method in METHODS if not calls_a_model(method)]
        self._measured = answers_store.question_timings(cur, free, MEASURED_ANSWERS)
        self.speed = machine_speed(answers_store.model_calls(cur, SPEED_ANSWERS), self._models, hardware)
        self.hardware = dataclasses.replace(hardware, speed=self.speed.factor)

    def per_question(self, method: str, model: str) -> PerQuestion:
        """About how long a question takes here with `method` while `model` serves text tasks: measured over this
        machine's answers when there are some; else for a method that calls a model the estimate from the model's
        size, for one that calls none (the quoted reader) nothing."""
        calls = calls_a_model(method)
        measured = self._measured.get((method, model if calls else ""))
        if measured is not None:
            return PerQuestion(*measured)
        status = self._models.get(model)
        if not calls or status is None or not status.size_mb:  # a server's model, an unknown size: nothing to weigh
            return PerQuestion(None)
        return self._estimate(method, status)

    def _estimate(self, method: str, status: ModelStatus) -> PerQuestion:
        entry, work, hw = self._catalog.find(status.name), workload(method), self.hardware
        seconds = (estimate(entry, hw, status.variant, work) if entry is not None
                   else hw.seconds_per_question(status.size_mb, status.memory_gb, status.parameters, work))
        billions = status.parameters or (entry.parameters if entry is not None else 0.0)
        weights = f"{status.size_mb / 1024:.1f} GB" if status.size_mb >= 1024 else f"{status.size_mb:.0f} MB"
        size = f"{parameters_text(billions)} parameters, {weights}" if billions else weights
        return PerQuestion(seconds, 0, f"Estimated from its size ({size}) at {self.speed.text}.")
