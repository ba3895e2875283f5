"""DocLens's prompts: appendix A's Page Navigator and Answer Sampler, adapted only where our input differs.

Adaptations, each for a reason:
- JSON through a grammar: located_pages is a list of integers limited to the pages shown (the paper asks for a
  string like "[3, 10]" and parses it); the sampler adds "evidence" quotes (so every answer cites the page
  words it rests on) and the typed final answer (answer, short_answer, answer_format) in place of the
  single "prediction".
- Pages in chunks (appendix D.1): each navigator call says which part of the document it shows.
- Page text comes from the text layer, OCR and table Markdown (the paper's MinerU Markdown), and page images
  only when a vision model is installed; the sampler's wording covers both.
"""
from __future__ import annotations

from ..toolkit.final_answer import FINAL_PARTS

NUMERICAL_RULES = """- Rules of numerical answers:
 - If the user asks for an absolute number (e.g., with questions like "How many...?"), you must first attempt to locate the number directly. If it cannot be found, {find} the relevant percentage and total count (or other necessary data) to calculate the absolute number. If the calculated absolute number for discrete entities (e.g., people, companies, objects) is a decimal, you must round it to the nearest whole number.
 - If the user asks for a percentage (or proportion), you must first attempt to locate the percentage directly. If it cannot be found, {find} the absolute numbers of the subgroup and the total count (or other necessary data) to calculate the percentage.
 - If the user's question is ambiguous and does not explicitly specify a number or percentage (e.g., "What's the gap between...?"), you must default to providing the absolute value. If you can only find relative values (percentages) in the chart, you must make every effort to find a total number within the provided context to calculate the absolute value. Only return the relative value as a last resort if a total number cannot be found, and explain that you cannot find total number in this case."""

NAVIGATOR_INSTRUCTIONS = """You are an expert AI assistant specializing in multimodal long document understanding. Given a multimodal long document and a user question, your task is to systematically locate the indices of all pages that might contain information useful for answering the user's question, and then provide an answer to the question.

Follow these instructions carefully:
- Core Objective: Your primary goal is to identify all pages relevant to the question. The pages you identify will be passed to a specialized agent for detailed examination, making recall your most important optimization goal. If a page might be useful, you should include it; it is better to be over-inclusive and let the subsequent agent perform the detailed check.
- Provide References: While fulfilling the Core Objective, provide the corresponding reference pages. If the user's question explicitly refers to a specific page, slide, figure, or section (e.g., "in slide 5", "on page 10"), then index of the corresponding page MUST be included in the located_pages list. However, it is crucial to understand that when a document has printed page numbers, a user's reference to "Page X" typically means the page with that printed number, not its sequential index in the file. For instance, if a PDF has a cover page, a user referring to "Page 2" means the page with the printed number '2', but its actual index might be 3. You must resolve the user's referenced page number into its correct page index. Crucially, the values you return in the located_pages list must always be these page indices (starting from 1). This rule is non-negotiable and overrides any other consideration about the page's content or sufficiency.
""" + NUMERICAL_RULES.format(find="you must find the pages containing") + """

Each page is shown as [Page i] followed by its text, where i is its index in the file; "printed X" after the index is the page number printed on that page. The texts may be cut short, marked […].{image_note}

Output Format: a JSON object with exactly three fields:
- analysis: Briefly explain your thought process. Describe how you located the answer within the document, which pages, tables, or figures you referenced, and how you connected the information to the question.
- located_pages: the list of page indices (integers) of every page that might help, e.g. [3, 10, 12]; [] if no page shown contains relevant evidence. Always return the index of the page, not the page number printed on it.
- prediction: the direct answer to the user's question, as far as these pages allow."""

NAVIGATOR_IMAGE_NOTE = " Screenshots of the pages are attached in the same order as the pages are listed."

NAVIGATOR_PAGES = """

<question>{question}</question>

Pages {part}:

{pages}

Reply in JSON with analysis, located_pages (indices among {first}–{last} shown above) and prediction."""

SAMPLER_INSTRUCTIONS = """You are an expert AI assistant specializing in multimodal long document understanding. Your task is to carefully analyze the provided document pages (which may contain text, figures, tables, and other content) and provide a precise answer to the user's question. Treat the provided pages as a curated and sufficient set of information. A preceding agent has already identified them as the key relevant pages from the full document, so you do not need to second-guess the relevance of the provided content. For example, if the question is about an appendix, but the provided pages aren't explicitly labeled as such, you should assume they are the correct appendix pages. If the question refers to a page range and you are only given some pages, assume those pages constitute the content of that range. If the question asks for a specific item (e.g., the "5th FAQ") and you are shown only one, treat that as the target item. Your task is to carefully review these pages and provide an accurate answer.

Follow these instructions carefully:
- Core Objective: Your primary goal is to accurately and concisely answer the user's question based on the content of the provided document pages.
""" + NUMERICAL_RULES.format(find="find") + """
- Zoom-in Feature: When a page contains figures or tables, zoomed-in images of these elements may be appended after the main page image (noted as "---- Zoomed-in Figures and Charts of this page ----"), to help you examine them closely. The text of each page is extracted into Markdown format. Note: For questions related to page layout, you must refer to the original page image itself, not the zoomed-in images or the Markdown text, as they may lose layout information. For instance, if asked for the first figure on the page, you should consult the full page image to determine its order, not the sequence of the provided zoomed-in images.
- Page Numbering: Page numbers in the user's question typically refer to the number printed on the page, not the page's index in the document file. For example, if a PDF's first page is the cover and the third page is the first page of content (labeled "Page 1"), a user's question about "page 1" refers to that third page. Similarly, when asked to provide a page number, you should return the printed page number. Only return the page index if no number is printed on the page.
- Rule of faithfulness: Be faithful. If the provided pages do not contain sufficient information to answer the user's question, you should answer `Not answerable`. For example, if the user asks for a man in green shirts, but there are only men in red shirts in the provided pages, you should answer `Not answerable`; if the user asks for the boy playing badminton, but there are only boys playing football in the provided pages, you should answer `Not answerable`; if the user asks for a certain year's data but the provided pages only contain data for other years, you should answer `Not answerable`; if the user asks for the color of a certain object but the provided pages do not contain that object, you should answer `Not answerable`.

Output Format: a JSON object. First "analysis": briefly explain your thought process; describe how you located the answer within the document, which pages, tables, or figures you referenced, and how you connected the information to the question. Then "evidence": the page numbers and short passages you relied on. Then:

""" + FINAL_PARTS

SAMPLER_PAGES = """Pages: {page_list}
{image_note}
<pages>
{page_text}
</pages>"""

SAMPLER_IMAGE_NOTE = """Images are attached in this order: for each page, its screenshot, then the zoomed-in crops listed under it."""

SAMPLER_REQUEST = "<question>{question}</question>"


def navigator_schema(page_ids: list[int], analysis_chars: int = 400) -> dict:
    return {"type": "object",
            "properties": {"analysis": {"type": "string", "maxLength": analysis_chars},
                           "located_pages": {"type": "array", "items": {"type": "integer", "enum": page_ids},
                                             "maxItems": len(page_ids)},
                           "prediction": {"type": "string", "maxLength": 200}},
            "required": ["analysis", "located_pages", "prediction"], "additionalProperties": False}
