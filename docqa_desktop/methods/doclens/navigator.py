"""DocLens's Page Navigator (paper §3.1, appendix D.1): the model looks over every page and names the ones
that might help, T_e times at temperature τ; the evidence is the union of what the samples located.

- Scope: every page of the documents asked about, in batches that fit the context (at most K pages each,
  the paper's chunking); a scope larger than `read_all_up_to` pages (a whole library) is navigated through
  the retriever's top `library_pages` pages instead, and the trace says so.
- Input per page: its text (text layer or OCR, tables as Markdown) cut to the passages that best match the
  question, or its stored page summary (toolkit/page_summaries.py; `navigator_input = "summaries"`; a page
  without one shows its text); the page's screenshot as well when a vision model is installed and
  `navigator_images` is on.
- Pages are named by their index in the file, with the printed page number beside it, so the model can turn
  the user's "page 12" into an index (the prompt's rule). With `named_pages`, a page the question names by
  number is added in code too: a small model does not always follow that rule.
- `retrieved_floor` (0 in the paper, 3 in the CPU preset): the retriever's top pages join the union, for a
  small model whose navigator misses what the retriever ranks first; `max_located_share` (1.0 in the paper,
  0.5 in the CPU preset): a sample that names most of its pages has not navigated and is ignored.
- No page located → the retriever's top `fallback_k`, recorded.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ...answers import PageRef
from ...llm import Message, Options
from ...llm.jsonout import output_token_bound
from ...settings import SettingsError
from ..base import IMAGE_TOKENS, MethodContext
from ..toolkit.page_summaries import Summarizer
from ..toolkit.batches import multi_document, pack_in_order, page_ids, page_name, shrink_to_fit
from ..toolkit.passages import fit_to_question
from .prompts import NAVIGATOR_IMAGE_NOTE, NAVIGATOR_INSTRUCTIONS, NAVIGATOR_PAGES, navigator_schema

REPLY_MARGIN = 64  # chat-template tokens around the prompt
NAVIGATOR_INPUTS = ("pages", "summaries")
MIN_IGNORED = 3  # a sample naming 3 pages is never "everything", however few pages its batch had
WIDEST_PART = "(part 99 of 99)"  # batches are packed before their count is known: room for the widest label
NAMED_RANGE_LIMIT = 30  # "pages 400-640" names no more than this many pages
# "page 12", "pages 51-53", "p. 7", "slides 3 and 4", "page 12 to 14"
_NAMED = re.compile(r"\b(?:pages?|slides?|pp?\.)\s*(\d{1,5})(?:\s*(-|–|to|and|&)\s*(\d{1,5}))?", re.IGNORECASE)


@dataclass
class Navigation:
    shown: list[PageRef]  # the pages the navigator looked over
    located: list[PageRef]  # the union of the samples' located pages, in the order shown
    votes: Counter = field(default_factory=Counter)  # {(doc_id, page): samples that located it}
    named: list[PageRef] = field(default_factory=list)  # pages the question names, added in code
    floor: list[PageRef] = field(default_factory=list)  # the retriever's top pages (retrieved_floor)
    fallback: list[PageRef] = field(default_factory=list)  # the retriever's top k when nothing was located

    @property
    def evidence(self) -> list[PageRef]:
        """The pages handed to the Element Localizer and the Answer Sampler, in the order shown."""
        chosen = set(self.located) | set(self.named) | set(self.floor)
        return ([r for r in self.shown if r in chosen] + [r for r in self.floor if r not in self.shown]
                or self.fallback)


def navigate(ctx: MethodContext) -> Navigation:
    settings, answer = ctx.settings, ctx.answer
    ctx.step("listing the pages in scope")
    scope = ctx.scope_pages()
    if len(scope) <= settings.read_all_up_to:
        shown = ctx.readable(scope)
        answer.notes.append(f"navigate: the navigator read all {len(scope)} pages in scope")
    else:
        shown = ctx.readable(ctx.retrieve(ctx.question, settings.library_pages))
        answer.note_stage("retrieved", shown)
        answer.notes.append(f"navigate: {len(scope)} pages in scope are more than read_all_up_to "
                            f"({settings.read_all_up_to}); the navigator read the retriever's top {len(shown)}")
    answer.note_stage("candidates", shown)
    votes = _sample_locations(ctx, shown) if shown else Counter()
    navigation = Navigation(shown, [r for r in shown if votes[r.key()]], votes)
    answer.note_stage("located", navigation.located)
    if settings.named_pages:
        navigation.named = [r for r in named_pages(ctx.question, shown) if r not in navigation.located]
        if navigation.named:
            answer.notes.append("navigate: pages the question names, added: "
                                + ", ".join(_where(r, shown) for r in navigation.named))
    if settings.retrieved_floor > 0:
        navigation.floor = ctx.readable(ctx.retrieve(ctx.question, settings.retrieved_floor))
        new = [r for r in navigation.floor if r not in navigation.located and r not in navigation.named]
        answer.notes.append(f"navigate: the retriever's top {len(navigation.floor)} join the union "
                            f"(retrieved_floor), new: " + (", ".join(_where(r, shown) for r in new) or "none"))
    if not navigation.evidence:
        navigation.fallback = ctx.readable(ctx.retrieve(ctx.question, settings.fallback_k))
        answer.notes.append(f"navigate: no page located; read the retriever's top {len(navigation.fallback)} "
                            f"instead ({', '.join(_where(r, shown) for r in navigation.fallback) or 'none'})")
    answer.note_stage("selected", navigation.evidence)
    return navigation


def _sample_locations(ctx: MethodContext, shown: list[PageRef]) -> Counter:
    """{page key: how many of the T_e samples located it}, over every batch of `shown`."""
    settings = ctx.settings
    runtime = ctx.vision_model if settings.navigator_images and ctx.vision_model is not None else ctx.text_model
    with_images = runtime.info.vision
    ids = page_ids(shown)
    names = [page_name(ids[i], ref, ids[i] != ref.page or multi_document(shown)) for i, ref in enumerate(shown)]
    texts = _page_inputs(ctx, shown, runtime)
    instructions = NAVIGATOR_INSTRUCTIONS.format(image_note=NAVIGATOR_IMAGE_NOTE if with_images else "")

    def prompt(batch: list[int], part: str = "", text_of=lambda i: texts[i]) -> str:
        pages = "\n\n".join(f"[{names[i]}]\n{text_of(i)}".rstrip() for i in batch)
        return instructions + NAVIGATOR_PAGES.format(question=ctx.question.strip(), part=part, pages=pages,
                                                     first=ids[batch[0]], last=ids[batch[-1]])

    reply_bound = output_token_bound(navigator_schema(ids[:settings.batch_pages])) or 1024
    budget = runtime.info.context - reply_bound - REPLY_MARGIN
    image_tokens = IMAGE_TOKENS if with_images else 0

    def fits(batch: list[int]) -> bool:
        return runtime.count_tokens(prompt(batch, WIDEST_PART)) + image_tokens * len(batch) <= budget

    for i in range(len(shown)):
        if not fits([i]):
            texts[i] = shrink_to_fit(runtime, texts[i], lambda text: prompt([i], WIDEST_PART, lambda _: text),
                                     budget, image_tokens)
    batches = pack_in_order(len(shown), fits, settings.batch_pages)
    votes: Counter = Counter()
    ignored = 0
    def phase(batch: list[int]) -> str:
        return f"navigating pages {shown[batch[0]].page}–{shown[batch[-1]].page}" if len(batches) > 1 \
            else "navigating pages"

    for number, batch in enumerate(ctx.counted(phase, batches, "batches"), 1):
        part = f"(part {number} of {len(batches)})" if len(batches) > 1 else ""
        refs = [shown[i] for i in batch]
        images = tuple(ctx.pages.image(ref, ctx.image_side) for ref in refs) if with_images else ()
        schema = navigator_schema([ids[i] for i in batch])
        options = Options(max_tokens=min(reply_bound, 512), temperature=settings.navigator_temperature,
                          schema=schema)
        step = f"navigate {number}/{len(batches)}" if len(batches) > 1 else "navigate"
        by_id = {ids[i]: shown[i] for i in batch}
        for completion in ctx.sample(step, runtime, [Message("user", prompt(batch, part), images)], options,
                                     settings.navigator_samples, refs):
            if completion.parsed is None:  # a sample cut short or malformed: the others still count
                continue
            located = [by_id[i] for i in dict.fromkeys(completion.parsed["located_pages"]) if i in by_id]
            if located_everything(len(located), len(batch), settings.max_located_share):
                ignored += 1
                continue
            votes.update(ref.key() for ref in located)
    if ignored:
        ctx.answer.notes.append(f"navigate: {ignored} sample(s) located more than {settings.max_located_share:.0%} "
                                "of their pages and were ignored (max_located_share)")
    return votes


def located_everything(located: int, shown: int, max_share: float) -> bool:
    """A sample that names more than `max_share` of the pages it was shown (and more than MIN_IGNORED pages)
    has not navigated; with max_share 1.0 no sample is ignored."""
    return max_share < 1.0 and located > max(MIN_IGNORED, max_share * shown)


def _page_inputs(ctx: MethodContext, shown: list[PageRef], runtime) -> list[str]:
    """What the navigator reads of each page: its question-matched text, or its stored summary."""
    settings = ctx.settings
    if settings.navigator_input not in NAVIGATOR_INPUTS:
        raise SettingsError(f"doclens navigator_input must be one of {', '.join(NAVIGATOR_INPUTS)}, "
                            f"not {settings.navigator_input!r}")
    summaries = {}
    if settings.navigator_input == "summaries":
        summaries = Summarizer(ctx.artifacts, ctx.pages, ctx.reader).stored(shown)
        missing = sum(r.key() not in summaries for r in shown)
        if missing:
            ctx.answer.notes.append(f"navigate: {missing} of {len(shown)} pages have no stored summary and show "
                                    "their text (`docqa prepare --method doclens` writes them)")
    return [summaries[ref.key()] if ref.key() in summaries else
            fit_to_question(runtime, ctx.pages.text_or_empty(ref), settings.navigator_page_tokens, ctx.question)
            for ref in shown]


def named_pages(question: str, pages: list[PageRef]) -> list[PageRef]:
    """The pages of `pages` the question names by number ("page 12", "pages 51-53", "slides 3 and 4"): in each
    document, the page whose printed label is that number, else the page at that index in the file. A range
    names at most NAMED_RANGE_LIMIT pages (a longer one counts as its two ends)."""
    numbers: list[int] = []
    for match in _NAMED.finditer(question):
        first, separator, last = int(match.group(1)), match.group(2), int(match.group(3) or match.group(1))
        is_range = separator is not None and separator.lower() not in ("and", "&")
        numbers += range(first, last + 1) if is_range and first < last <= first + NAMED_RANGE_LIMIT else [first, last]
    named = set()
    for doc_id in dict.fromkeys(r.doc_id for r in pages):
        in_document = [r for r in pages if r.doc_id == doc_id]
        for number in set(numbers):
            named.update([r for r in in_document if r.label == str(number)]
                         or [r for r in in_document if r.page == number])
    return [r for r in pages if r in named]


def _where(ref: PageRef, shown: list[PageRef]) -> str:
    printed = f" (printed {ref.label})" if ref.label and ref.label != str(ref.page) else ""
    return f"{ref.doc} p.{ref.page}{printed}" if multi_document(shown) else f"p.{ref.page}{printed}"
