"""Which catalog model a machine should download: the most capable language model whose licence lets a firm use it
and that answers a question here in about QUESTION_BUDGET_S (Hardware.seconds_per_question), else the built-in one.
The budget is weighed with SimpleDoc's work (every method must be usable with the recommended model); what a question
takes with the default method, the cascade, is what the front ends show (per_question).

One rule for every hardware tier, so that the first-run panel, the Models dialog, `docqa models list` and the hint
under a quoted answer all name the same model."""
from __future__ import annotations

from dataclasses import dataclass

from ..progress import about
from .catalog import Catalog, CatalogEntry
from .hardware import CASCADE, SIMPLEDOC, Hardware, Workload

ANSWERING_ROLES = ("vision", "text")
# What a question may take with the recommended model. The 1.5B text model, the size the methods were tuned on,
# takes ~210 s on 2 CPU cores by the bench's figure (170-260 s measured); the 3B vision model, ~640 s there, is an
# answer nobody waits for. More cores or a GPU buy a larger model within the same wait.
QUESTION_BUDGET_S = 240.0
# The share of RAM a model may take on a CPU: the app, its index and the rest of the machine keep the rest.
RAM_SHARE = 0.6
# The method whose time per question the Models dialog, the first-run panel and the recommendation's reason show: the
# default one (quoted reader, then one short choice by the text model).
DEFAULT_METHOD = "cascade"
# What each method asks of the model, for its estimate before it has run on this machine; a method not named does
# SimpleDoc's work or more (the deep-reading methods: their measured runs replace the estimate).
WORKLOADS = {DEFAULT_METHOD: CASCADE}


def workload(method: str) -> Workload:
    return WORKLOADS.get(method, SIMPLEDOC)


@dataclass(frozen=True)
class Choice:
    name: str
    variant: str
    why: str  # one plain sentence: why this model here
    seconds_per_question: float


def estimate(entry: CatalogEntry, hardware: Hardware, variant: str | None = None,
             work: Workload = SIMPLEDOC) -> float:
    """About how long a question takes with `entry` on `hardware` for a method doing `work` (SimpleDoc's unless
    given): its weights, and its vision encoder for a method that reads page images, on the GPU when it fits
    there."""
    chosen = entry.variant(variant)
    size = chosen.size_mb + (entry.projector.size_mb if entry.projector and work.reads_images else 0)
    return hardware.seconds_per_question(size, chosen.memory_gb, entry.parameters, work)


def recommend(catalog: Catalog, hardware: Hardware) -> Choice:
    """The model to recommend on `hardware`: among the answering models a firm may use (commercial_use free or with
    conditions) that fit its memory and answer within QUESTION_BUDGET_S, a vision model running on the GPU first
    (it reads charts and scans), then the one with the most parameters; when none is that quick (a single core),
    the quickest of them, said to be slow; the built-in model when none fits the memory."""
    fitting = [entry for entry in catalog.entries if entry.role in ANSWERING_ROLES and entry.commercial
               and not entry.builtin and _fits(entry, hardware)]
    quick = [entry for entry in fitting if estimate(entry, hardware) <= QUESTION_BUDGET_S]
    if quick:
        best = max(quick, key=lambda e: (e.role == "vision" and _on_gpu(e, hardware), e.parameters))
        return _choice(best, hardware, "the most capable model that quick here")
    if fitting:
        return _choice(min(fitting, key=lambda e: estimate(e, hardware)), hardware, "slow, but the quickest model here")
    builtin = next(e for e in catalog.entries if e.builtin and e.role in ANSWERING_ROLES)
    return Choice(builtin.name, builtin.default_variant,
                  f"only {hardware.ram_gb:.0f} GB RAM: the built-in model", estimate(builtin, hardware))


def _choice(entry: CatalogEntry, hardware: Hardware, standing: str) -> Choice:
    """`entry` recommended: why, as the time a question takes and where (estimated at `hardware`'s speed, measured
    by service/question_time.py), what its licence allows, `standing`."""
    seconds = estimate(entry, hardware)
    cores = hardware.cpu_cores
    where = (f"on your GPU ({hardware.gpu_memory_gb:.0f} GB)" if _on_gpu(entry, hardware)
             else f"on {cores} CPU core{'s' if cores != 1 else ''}")
    default = estimate(entry, hardware, work=workload(DEFAULT_METHOD))
    return Choice(entry.name, entry.default_variant,
                  f"{about(default)} a question {where}, {about(seconds)} with SimpleDoc, estimated from size; "
                  f"{entry.licence_words}; {standing}", seconds)


def _on_gpu(entry: CatalogEntry, hardware: Hardware) -> bool:
    return hardware.on_gpu(entry.variant().memory_gb)


def _fits(entry: CatalogEntry, hardware: Hardware) -> bool:
    return _on_gpu(entry, hardware) or entry.variant().memory_gb <= hardware.ram_gb * RAM_SHARE
