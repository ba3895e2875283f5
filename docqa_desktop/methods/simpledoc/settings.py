"""SimpleDoc's knobs: the paper's parameters by default (§4, Tables 4-5), a smaller budget for a CPU."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SimpleDocSettings:
    k: int = 10  # pages from the embedding retriever before the summary re-ranking (paper: 10 or 30)
    iterations: int = 3  # L: reasoning rounds before "not answerable" (Table 5 stops at 3)
    max_pages: int = 5  # pages the re-ranker may hand to the reasoner per round (paper: 3.5 on average, no cap)
    summary_tokens: int = 160  # per page summary (the paper asks for 5-8 sentences)
    page_tokens: int = 1200  # most text tokens of one page shown to a model (speed and focus on a CPU)
    summary_chars: int = 700  # of each page summary in the re-ranking prompt
    reasoner_tokens: int = 500  # the reasoner's reply: scratchpad, decision, answer parts
    # Reading list (method.reading_list); the paper's exact behaviour is keep_top 0, min_pages 1,
    # read_before_declining false: the re-ranker's choice alone, and "not answerable" ends the loop.
    keep_top: int = 3  # the retriever's best pages read whatever the re-ranker chose (the rest are its picks)
    min_pages: int = 3  # fewest pages read per round: the re-ranker's picks, then the retriever's order
    read_before_declining: bool = True  # round 1 may not decline while retrieved pages are unread


# ask.preset = "cpu": what the 1.5B bench calls the quick budget (benchmarks/eval_real.py)
CPU_PRESET = {"k": 5, "max_pages": 3, "summary_tokens": 80, "page_tokens": 400}
