"""MDocAgent's agent prompts: appendix A.4's general, critical, text and image agents, verbatim, placed after the
evidence they read (the summarizing agent's is toolkit/aggregate.SUMMARIZER).

Adaptations, each for a reason:
- Evidence first, role last: every agent's prompt starts with the same preamble and the same retrieved text,
  so llama.cpp evaluates the evidence once and reuses it for the next agent (toolkit/prompt_layout).
- JSON through a grammar: the answering agents reason in "analysis", quote their evidence by page number (so
  the final answer cites page words) and end with the typed final answer; the paper's agents answer in free
  text. The critical agent's dictionary is the paper's, its keys limited to the agents that will run.
- With a text model only, the general agent reads the text segments alone, so its prompt leaves out the
  paper's sentences about images.
"""
from __future__ import annotations

from ..toolkit.final_answer import FINAL_PARTS

PREAMBLE = ("Several agents answer a question about a document, each from the evidence retrieved for it. "
            "The evidence comes first; your role, the question and what to reply follow it.")

TEXT_EVIDENCE = """Text segments retrieved for the question, best first:

{segments}"""

IMAGE_EVIDENCE = """Page images retrieved for the question are attached, in this order: {pages}."""

GENERAL_AGENT = """You are an advanced agent capable of analyzing both text and images. Your task is to use both the textual and visual information provided to answer the user's question accurately.
**Extract Text from Both Sources**: If the image contains text, extract it and consider both the text in the image and the provided textual content.
**Analyze Visual and Textual Information**: Combine details from both the image (e.g., objects, scenes, or patterns) and the text to build a comprehensive understanding of the content.
**Provide a Combined Answer**: Use the relevant details from both the image and the text to provide a clear, accurate, and context-aware response to the user's question.
When responding:
- If both the image and text contain similar or overlapping information, cross-check and use both to ensure consistency.
- If the image contains information not present in the text, include it in your response if it is relevant to the question.
- If the text and image offer conflicting details, explain the discrepancies and clarify the most reliable source."""

GENERAL_AGENT_TEXT_ONLY = """You are an advanced agent capable of analyzing text. Your task is to use the textual information provided to answer the user's question accurately.
**Analyze the Textual Information**: Combine the details of the text segments to build a comprehensive understanding of the content.
**Provide an Answer**: Use the relevant details from the text to provide a clear, accurate, and context-aware response to the user's question.
When responding:
- If several segments contain similar or overlapping information, cross-check and use them all to ensure consistency.
- If the segments offer conflicting details, explain the discrepancies and clarify the most reliable source."""

CRITICAL_AGENT = """Provide a Python dictionary of critical information based on all given information—{which}.
Respond exclusively in a valid dictionary format without any additional text. The format should be:
{format}"""

CRITICAL_FORMATS = {
    ("text", "image"): ("one for text and one for image",
                        '{"text": "critical information for text", "image": "critical information for image"}'),
    ("text",): ("for text", '{"text": "critical information for text"}'),
    ("image",): ("for image", '{"image": "critical information for image"}'),
}

TEXT_AGENT = """You are a text analysis agent. Your job is to extract key information from the text and use it to answer the user's question accurately.
Your tasks:
- Extract key details. Focus on the most important facts, data, or ideas related to the question.
- Understand the context and pay attention to the meaning and details.
- Use the extracted information to give a concise and relevant response to the user's question. Provide a clear answer."""

IMAGE_AGENT = """You are an advanced image processing agent specialized in analyzing and extracting information from images. The images may include document screenshots, illustrations, or photographs.
Your tasks:
- Extract textual information from images using Optical Character Recognition (OCR).
- Analyze visual content to identify relevant details (e.g., objects, patterns, scenes).
- Combine textual and visual information to provide an accurate and context-aware answer to the user's question."""

QUESTION = "<question>{question}</question>"

GENERAL_ANSWER = """The general agent's preliminary answer: {answer}"""

CLUE = """Critical information to focus on, from the critical agent: {clue}"""

ANSWER_FORMAT = """Reply in JSON. First "analysis": the key information you found and how it answers the question. Then "evidence": the page numbers (as listed above) and short passages you relied on. Then:

""" + FINAL_PARTS


def critical_schema(keys: tuple[str, ...], chars: int = 400) -> dict:
    return {"type": "object", "properties": {key: {"type": "string", "maxLength": chars} for key in keys},
            "required": list(keys), "additionalProperties": False}
