"""Doc-React's knobs: the paper's parameters where it gives them (appendices B and C), documented choices where
it leaves them open, and a CPU budget as preset."""
from __future__ import annotations

from dataclasses import dataclass

from ...settings import SettingsError, check_ranges

NUMERATORS = ("probability", "gain")


@dataclass(frozen=True)
class DocReactSettings:
    rounds: int = 4  # T: Thought/Action rounds before the answer is forced (appendix B: at most 4)
    candidate_sets: int = 4  # |Ω′|: evidence sets scored for one sub-query (the paper leaves it open)
    pages_per_set: int = 1  # pages in one candidate set S′ (the paper's sets are subsets of pages)
    score_temperature: float = 0.1  # f = retrieval score (0..1 within the scored list) / temperature: the
    #                                 paper's ColPali scores spread by several units between pages; ours by < 1
    gain_numerator: str = "probability"  # "probability": Δ = softmax(f)(S′) / H (see selection.py);
    #                                      "gain": the paper's eq. (4)/(6) literally, Δ = InfoNCE gain / H
    examples: int = 3  # the in-context examples of appendix E shown to the Thought/Action step (paper: 3)
    extract_tokens: int = 100  # one extraction (appendix C.3: a token limit of 100 for generation)
    page_tokens: int = 1200  # most text tokens of one page shown to the extraction
    thought_chars: int = 400  # one Thought
    query_chars: int = 200  # one Search or Lookup sub-query, or the Finish answer
    answer_tokens: int = 500  # the typed final answer from the observations


# ask.preset = "cpu" (the 1.5B bench's quick budget): three rounds of three one-page candidates, short page texts
# and extractions, two in-context examples (the Thought prompt is evaluated again after every extraction, since
# llama.cpp caches only the last prompt).
CPU_PRESET = {"rounds": 3, "candidate_sets": 3, "examples": 2, "extract_tokens": 60, "page_tokens": 400}


def check_settings(settings: DocReactSettings) -> None:
    """A SettingsError naming the first setting out of range."""
    if settings.gain_numerator not in NUMERATORS:
        raise SettingsError(f"docreact: gain_numerator must be one of {', '.join(NUMERATORS)}, "
                            f"not {settings.gain_numerator!r}")
    check_ranges("docreact", settings, {"rounds": (1, None), "candidate_sets": (1, None), "pages_per_set": (1, None),
                                        "examples": (0, 3), "extract_tokens": (1, None), "page_tokens": (50, None)})
    if settings.score_temperature <= 0:
        raise SettingsError(f"docreact: score_temperature must be above 0, not {settings.score_temperature}")
