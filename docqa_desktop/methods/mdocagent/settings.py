"""MDocAgent's knobs: the paper's parameters by default (§3.2, §4.1, appendix A.3), a CPU budget as preset."""
from __future__ import annotations

from dataclasses import dataclass

SEGMENT_UNITS = ("chunk", "page")
IMAGE_AGENT_MODES = ("auto", "off")


@dataclass(frozen=True)
class MDocAgentSettings:
    # Multi-modal context retrieval (§3.2, Algorithm 1; §4.1 "we retrieve 1 or 4 highest-scored segments")
    text_k: int = 4  # top-k text segments (the paper's ColBERTv2 role: our BM25 + dense passages)
    image_k: int = 4  # top-k page images (ColQwen2.5 when pages are embedded, else the text ranking's pages)
    segment_unit: str = "chunk"  # chunk: passages of ~80 words (the paper's "segments or paragraphs") | page
    segment_tokens: int = 1200  # most tokens of one segment (a page is cut to the passages matching the question)
    # Agents (§3.3-3.5, appendix A.4)
    image_agent: str = "auto"  # auto: runs when a vision model is installed | off
    agent_tokens: int = 400  # one answering agent's reply (paper: 256 new tokens of free text; ours adds quotes
    #                          for the citations and the typed final answer)
    critical_tokens: int = 256  # the critical agent's {"text": …, "image": …}
    skip_unanimous: bool = False  # the paper always summarizes; True: no call when every agent agrees


# ask.preset = "cpu" (the 1.5B bench's quick budget). Whole pages as segments: on the 60 dev questions, the
# top-4 pages hold 73.9 % of the evidence pages, the pages of the top-4 passages 52.7 %
# (benchmarks/segment_recall.py), and a page cut to its 400 best-matching tokens costs four times a passage
# but is evaluated once for the general, critical and text agents (the evidence is the shared prompt prefix).
# No summarizing call when the agents agree: with a text model only two agents answer.
CPU_PRESET = {"segment_unit": "page", "segment_tokens": 400, "skip_unanimous": True}
