"""Prompt layout that lets llama.cpp reuse its cached prefix between consecutive calls.

llama.cpp keeps the KV cache of the last prompt and re-evaluates only what follows the longest common token
prefix. So the parts that repeat go first — a step's fixed instructions, then the evidence (page texts and
images) — and what changes between calls over the same evidence (the question, the memory, the agent's role)
goes last. It is one user message: some chat templates have no system role, and vision chat handlers place
the images in the user turn. benchmarks/prefix_reuse.py measures the saving.
"""
from __future__ import annotations

from ...llm import Message


def evidence_first(instructions: str, evidence: str, request: str, images: tuple[bytes, ...] = ()) -> list[Message]:
    """[user: fixed instructions, then the evidence, then the request]."""
    return [Message("user", f"{instructions}\n\n{evidence}\n\n{request}", images)]


PAGE_IMAGES_NOTE = """
IMPORTANT: Images of the retrieved pages are attached, in the order listed. Analyze BOTH the images AND the extracted text.
"""
