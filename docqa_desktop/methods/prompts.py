"""SimpleDoc's prompts (paper appendix A.6), with the tagged replies turned into JSON schemas so that
every reply parses (llama.cpp grammars), and pages named by the numbers shown to the model."""
from __future__ import annotations

PAGE_INDEX = """You are tasked with creating a comprehensive summary of a given page from a document. Your summary should focus on extracting and describing the main content, tables, figures, and images present on the page.
{image_note}
Raw text extracted from the page (without visual information):
<page_text>
{page_text}
</page_text>

Please follow these steps to create your summary:
1. Carefully read and analyze the page content.
2. Identify the main topics, key points, and important details presented on the page.
3. Note any tables, figures, charts, diagrams, or images on the page and briefly describe their content and purpose.
4. Create a structured summary that captures the essential textual information, descriptions of any visual elements (tables, figures, images) and any particularly notable or unique information.

The summary should be concise yet comprehensive, typically 5-8 sentences for text-only pages, with additional sentences as needed to describe visual elements. Write only the summary."""

PAGE_INDEX_IMAGE_NOTE = "The page image is attached; read it together with the extracted text below.\n"

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

QUESTION_ANSWERING = """You are an AI assistant capable of analyzing documents and extracting relevant information to answer questions. You will be provided with document pages and a question about these pages.

Consider this question about the document:
<question>{question}</question>

Working memory (document-level summary and notes from earlier rounds):
<document_summary>{memory}</document_summary>

The CURRENT RETRIEVED PAGES that you should analyze: {page_list}

Raw text extracted from the retrieved pages (without visual information):
<page_text>
{page_text}
</page_text>
{image_note}
First think in "scratchpad": list key elements from the pages, identify details that relate to the question, connect them, and decide whether the information is sufficient. Do not request pages that are already retrieved.

Then set "response" to exactly one of:
- "answer": the pages (or the summary) contain sufficient information. Put a clear, concise answer in "answer" and, in "evidence", the page numbers and short quotes from those pages that support it.
- "not_answerable": the document as a whole does not contain the answer, or the pages that should contain it are already retrieved but do not have it.
- "query_update": the answer likely exists in pages not retrieved yet. Put in "query_update" a rewritten long query that preserves the original meaning but adds specific details or keywords, and in "notes" what you learned so far and what is still missing.

Reply in JSON with the keys scratchpad, response, answer, evidence, query_update, notes (use "" or [] for the ones that do not apply)."""

ANSWER_IMAGE_NOTE = """
IMPORTANT: Images of the retrieved pages are attached, in the order listed. Analyze BOTH the images AND the extracted text, along with the document summary.
"""

DIRECT_ANSWER = """Answer the question using only the document pages below. Pages: {page_list}

<page_text>
{page_text}
</page_text>
{image_note}
<question>{question}</question>

Reply in JSON: "answer" (concise, or "Not answerable" when the pages do not contain it), "answerable" (true or false) and "evidence" (page numbers and short quotes from those pages)."""


def selection_schema(page_numbers: list[int], max_pages: int) -> dict:
    return {"type": "object",
            "properties": {"document_summary": {"type": "string", "maxLength": 500},
                           "selected_pages": {"type": "array", "items": {"type": "integer", "enum": page_numbers},
                                              "minItems": 1, "maxItems": max_pages}},
            "required": ["document_summary", "selected_pages"], "additionalProperties": False}


def _evidence(page_numbers: list[int]) -> dict:
    return {"type": "array", "maxItems": 3,
            "items": {"type": "object",
                      "properties": {"page": {"type": "integer", "enum": page_numbers},
                                     "quote": {"type": "string", "maxLength": 120}},
                      "required": ["page", "quote"], "additionalProperties": False}}


def reasoner_schema(page_numbers: list[int]) -> dict:
    return {"type": "object",
            "properties": {"scratchpad": {"type": "string", "maxLength": 300},
                           "response": {"type": "string", "enum": ["answer", "not_answerable", "query_update"]},
                           "answer": {"type": "string", "maxLength": 300},
                           "evidence": _evidence(page_numbers),
                           "query_update": {"type": "string", "maxLength": 200},
                           "notes": {"type": "string", "maxLength": 200}},
            "required": ["scratchpad", "response", "answer", "evidence", "query_update", "notes"],
            "additionalProperties": False}


def direct_answer_schema(page_numbers: list[int]) -> dict:
    return {"type": "object",
            "properties": {"answer": {"type": "string", "maxLength": 300},
                           "answerable": {"type": "boolean"},
                           "evidence": _evidence(page_numbers)},
            "required": ["answer", "answerable", "evidence"], "additionalProperties": False}
