"""SimpleDoc's prompts (paper appendix A.6), with the tagged replies turned into JSON schemas so that
every reply parses (llama.cpp grammars), and pages named by the numbers shown to the model.

The page-summary prompt, also the paper's, lives with the summariser (toolkit/page_summaries.py): DocLens
reads the summaries too. Beyond the paper, for small models: the reasoner is told that arithmetic over
numbers on the pages is answering and that "not answerable" needs the pages to show the information is
absent (a 1.5B model otherwise declines a ratio whose two figures it has just listed). The reasoner's answer ends in the typed final answer (toolkit/final_answer.py), and its
prompt puts the instructions first and the pages before the question and memory (toolkit/prompt_layout.py),
so consecutive rounds reuse llama.cpp's cached prefix.
"""
from __future__ import annotations

from ..toolkit.final_answer import (INSTRUCTIONS as FINAL_ANSWER, FINAL_FIELDS, evidence_schema,
                                   final_answer_properties)

PAGE_RETRIEVAL = """You are a document understanding agent tasked with identifying the most promising page(s) for a given user query. You will be presented with summaries of each page in a document and a user query. Your task is to determine which page(s) should be examined in detail in a subsequent step.

First, review the summaries of each page:
<page_summaries>
{page_summaries}
</page_summaries>

Now, consider the following user query:
<user_query>
{query}
</user_query>

Important context about your task:
1. You are performing an initial screening of pages based on limited information (summaries only).
2. The pages you select will be analyzed in depth by another agent who will have access to the full page content.
3. These summaries are inherently incomplete and may miss details that could be relevant to the query.
4. It's better to include a potentially relevant page than to exclude it at this stage.

To determine which pages warrant closer examination:
1. Identify keywords, topics, and themes in the query that might appear in the document.
2. Select any page(s) whose summaries suggest they might contain information related to the query.
3. Be inclusive rather than exclusive.
4. Always select at least one page.
5. The page order should be from most relevant to less relevant.

Additionally, write a document-level summary (5-8 sentences) that addresses the user query based on your understanding of the document: how it relates to the query, the relevant facts across pages, and a strategy for answering. Do not be too certain about conclusions drawn from summaries.

Reply in JSON: "document_summary" (the summary) and "selected_pages" (the numbers of the selected pages, most relevant first)."""

REASONER_INSTRUCTIONS = """You are an AI assistant capable of analyzing documents and extracting relevant information to answer questions. You will be provided with document pages, a question about these pages and a working memory (a document-level summary and notes from earlier rounds).

First think in "scratchpad": list the facts and numbers on the pages that relate to the question, connect them, and work out the answer, doing any arithmetic there (a difference, ratio, percentage, total or count). Do not request pages that are already retrieved.

Then set "response" to exactly one of:
- "answer": the pages (or the memory) give the answer, or the facts and numbers to work it out; a value computed from numbers on the pages is an answer. Give, in "evidence", the page numbers and short quotes from those pages that support the answer, then the final answer.
- "not_answerable": only when the pages and the memory show that the document does not have the information (for example, it never mentions what the question asks about).
- "query_update": the answer likely exists in pages not retrieved yet. Put in "query_update" a rewritten long query that preserves the original meaning but adds specific details or keywords, and in "notes" what you learned so far and what is still missing.

{final_answer}

Reply in JSON with the keys scratchpad, response, evidence, query_update, notes, answer, proof, computation, short_answer, answer_format (use "" or [] for the ones that do not apply)."""

REASONER_INSTRUCTIONS = REASONER_INSTRUCTIONS.format(final_answer=FINAL_ANSWER)

REASONER_PAGES = """The CURRENT RETRIEVED PAGES that you should analyze: {page_list}

Raw text extracted from the retrieved pages (without visual information):
<page_text>
{page_text}
</page_text>
{image_note}"""

REASONER_REQUEST = """Working memory:
<document_summary>{memory}</document_summary>

Consider this question about the document:
<question>{question}</question>"""

def selection_schema(page_numbers: list[int], max_pages: int) -> dict:
    return {"type": "object",
            "properties": {"document_summary": {"type": "string", "maxLength": 500},
                           "selected_pages": {"type": "array", "items": {"type": "integer", "enum": page_numbers},
                                              "minItems": 1, "maxItems": max_pages}},
            "required": ["document_summary", "selected_pages"], "additionalProperties": False}


def reasoner_schema(page_numbers: list[int]) -> dict:
    return {"type": "object",
            "properties": {"scratchpad": {"type": "string", "maxLength": 400},
                           "response": {"type": "string", "enum": ["answer", "not_answerable", "query_update"]},
                           "evidence": evidence_schema(page_numbers),
                           "query_update": {"type": "string", "maxLength": 200},
                           "notes": {"type": "string", "maxLength": 200},
                           **final_answer_properties(page_numbers)},
            "required": ["scratchpad", "response", "evidence", "query_update", "notes", *FINAL_FIELDS],
            "additionalProperties": False}
