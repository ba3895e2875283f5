"""An LLM judge of page relevance: which of these pages should a reader of this question look at?

The pages are packed greedily, in order, into batches whose prompt fits a token budget; each batch is one
call whose JSON schema asks for a verdict on every page of the batch (page numbers as an enum). It serves
DocLens's Page Navigator run over chunks of K pages when a document does not fit one call (paper §3.1 and
appendix D.1 "Page Navigator"), MMRAG-DocQA's LLM re-ranking of retrieved parent pages (§"Page-level Parent
Page Retrieval", eq. 12, re-ranking prompt in the appendix), and any method that filters retrieved pages
before reading them (Doc-React's LLM-as-a-judge over retrieved subsets, §4.2).

Prompt layout and llama.cpp's prefix cache: a local runtime keeps the KV cache of its previous prompt and
re-evaluates only from the first token that differs. Consecutive batches of one question share the fixed
instructions and the question and differ in the pages, so instructions and question come FIRST and the
pages after them: every batch after the first reuses the cached instructions+question prefix. (Pages first
would make consecutive batches differ from almost the first token; evidence-first pays off only when the
same pages are sent again with different questions, which is not what batching does.) The per-batch list of
page numbers to answer for is therefore put after the pages, not before.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...answers import PageRef
from ...llm import Completion, Message, Options
from ...llm.budget import trim_to_tokens
from ...llm.jsonout import parse_json
from ...llm.runtime import Runtime
from ...progress import StepsFn, uncounted
from .batches import multi_document, pack_in_order, page_ids, page_name, shrink_to_fit

REASON_CHARS = 120
REPLY_TOKENS_PER_PAGE = 60  # a verdict: page, a reason of ≤120 characters, true/false, JSON punctuation
NO_VERDICT = "no verdict"
CallFn = Callable[..., Completion]  # ctx.call(step, runtime, messages, options, pages) -> Completion


@dataclass(frozen=True)
class PageVerdict:
    ref: PageRef
    score: float  # 1.0 / 0.0 for a yes/no rubric; the rubric's scale otherwise
    reason: str

    @property
    def relevant(self) -> bool:
        return self.score >= 0.5


# The default rubric's instructions follow DocLens appendix A "Prompt used for the Page Navigator" (recall is
# the main objective, be over-inclusive because a later agent checks the pages in detail; pages that hold the
# numbers needed to compute an asked-for number or percentage count; a page the question names must be
# included, and a user's "page X" means the printed page number) and MMRAG-DocQA's re-ranking guidelines (judge
# the block by whether it gives direct answers, partial insights or only background; reason first). The reason
# is asked before the verdict for the same reason MMRAG asks for reasoning before its score. MMRAG-DocQA's own
# re-ranker is a Rubric with the paper's prompt and its 0–1 scale (methods/mmrag/prompts.py).
JUDGE_INSTRUCTIONS = """You are screening the pages of a document for a question. For each page shown, decide whether it is relevant: whether a reader answering the question should look at this page.

Follow these instructions carefully:
- Relevant: the page gives the answer directly, or gives part of it: one of several facts the answer combines, a number, percentage or total needed to compute it, or the table, chart or figure the question is about.
- Relevant: a page the question names (e.g. "on page 5", "in slide 3", "Figure 2"). A user's page number usually means the number printed on the page.
- Not relevant: the page has no connection to the question, or only shares general background or a few words with it.
- Recall matters most: the pages you mark relevant are read in full by another agent afterwards, so when a page might be useful, mark it relevant.
- Judge each page only by the content shown for it; the texts may be cut short, marked […]."""

JUDGE_QUESTION = """

<question>{question}</question>

Pages:
"""

JUDGE_REPLY = """
Reply in JSON: "verdicts", one for each of the pages {pages}, in that order, each with "page" (the number after "Page"), "reason" (a few words on what the page holds that matters, or why it does not) and "relevant" (true or false)."""


@dataclass(frozen=True)
class Rubric:
    """What the judge asks about each page: instructions (first, cached across batches), the question's block,
    the reply line ({pages}), and the verdict's reason and value keys with the value's JSON schema."""
    instructions: str
    question: str
    reply: str
    value_key: str
    value_schema: dict
    reason_key: str = "reason"
    reason_chars: int = REASON_CHARS

    @property
    def reply_tokens_per_page(self) -> int:
        return REPLY_TOKENS_PER_PAGE + max(0, self.reason_chars - REASON_CHARS) // 3


RELEVANT = Rubric(JUDGE_INSTRUCTIONS, JUDGE_QUESTION, JUDGE_REPLY, "relevant", {"type": "boolean"})


def judge_schema(page_ids: list[int], rubric: Rubric = RELEVANT) -> dict:
    verdict = {"type": "object",
               "properties": {"page": {"type": "integer", "enum": page_ids},
                              rubric.reason_key: {"type": "string", "maxLength": rubric.reason_chars},
                              rubric.value_key: rubric.value_schema},
               "required": ["page", rubric.reason_key, rubric.value_key], "additionalProperties": False}
    return {"type": "object",
            "properties": {"verdicts": {"type": "array", "items": verdict, "maxItems": len(page_ids)}},
            "required": ["verdicts"], "additionalProperties": False}


def judge_pages(question: str, pages: list[PageRef], page_text: Callable[[PageRef], str], runtime: Runtime,
                call: CallFn, budget_tokens: int, per_page_tokens: int, step: str = "judge pages",
                max_batch_pages: int | None = None, rubric: Rubric = RELEVANT, steps: StepsFn = uncounted,
                phase: str = "judging pages") -> list[PageVerdict]:
    """A verdict for every page of `pages`, in their order.

    Each page's text is trimmed to `per_page_tokens`; pages are then packed greedily in order into batches
    whose whole prompt (instructions + question + the batch's pages + the reply line), counted with
    `runtime.count_tokens`, is at most `budget_tokens` — the prompt text only: the chat template's few
    tokens (8 a message locally) and the reply (REPLY_TOKENS_PER_PAGE a page asked for, raised by the
    backend towards the schema's bound when the context has room) are the caller's margin. A page too long to fit even
    alone is trimmed further until it does. `max_batch_pages` (DocLens's K) also caps a batch's size.
    One `call` per batch; a page the model gives no verdict for counts as not relevant (score 0, "no
    verdict"); if it gives two, the first counts. `page_text` should return "" for a page that cannot be read.
    `rubric` says what is asked (default: relevant or not; MMRAG-DocQA's re-ranker: a 0–1 score). Each batch is
    announced through `steps` (ctx.counted) as `phase`."""
    if not pages:
        return []
    ids = page_ids(pages)
    texts = [trim_to_tokens(runtime, page_text(ref), per_page_tokens) for ref in pages]
    labels = [page_name(ids[i], ref, ids[i] != ref.page or multi_document(pages)) for i, ref in enumerate(pages)]
    head = rubric.instructions + rubric.question.format(question=question.strip())

    def prompt(batch: list[int], override: tuple[int, str] | None = None) -> str:
        blocks = []
        for i in batch:
            text = override[1] if override and override[0] == i else texts[i]
            blocks.append(f"[{labels[i]}]\n{text}".rstrip())
        listed = ", ".join(str(ids[i]) for i in batch)
        return head + "\n\n".join(blocks) + "\n" + rubric.reply.format(pages=listed)

    def fits(batch: list[int]) -> bool:
        return runtime.count_tokens(prompt(batch)) <= budget_tokens

    for i in range(len(pages)):
        if not fits([i]):
            texts[i] = shrink_to_fit(runtime, texts[i], lambda text: prompt([i], (i, text)), budget_tokens)
    batches = pack_in_order(len(pages), fits, max_batch_pages)

    verdicts: dict[int, PageVerdict] = {}
    for batch in steps(phase, batches, "batches"):
        batch_ids = [ids[i] for i in batch]
        schema = judge_schema(batch_ids, rubric)
        options = Options(max_tokens=16 + rubric.reply_tokens_per_page * len(batch), temperature=0.0, schema=schema)
        completion = call(step, runtime, [Message("user", prompt(batch))], options, [pages[i] for i in batch])
        reply = completion.parsed if completion.parsed is not None else parse_json(completion.text, schema)
        by_id = {ids[i]: i for i in batch}
        for item in reply["verdicts"]:
            i = by_id.get(item["page"])
            if i is not None and i not in verdicts:
                verdicts[i] = PageVerdict(pages[i], float(item[rubric.value_key]), item[rubric.reason_key].strip())
    return [verdicts.get(i) or PageVerdict(ref, 0.0, NO_VERDICT) for i, ref in enumerate(pages)]
