"""Descriptions of pictures and charts, written once by a vision model and read by every later question.

Kept as artifacts of kind ELEMENT_DESCRIPTION keyed by (doc_id, page, element seq) with the model that wrote
them (store/artifacts.py). With a vision model, its own description is used (written on the first request);
without one, the latest description any vision model wrote stands in for the picture; when none was ever
written, the text-layer or OCR words inside the element's box are all there is.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...answers import PageRef
from ...llm import Completion, Message, Options
from ...llm.runtime import Runtime
from ..ports import Artifacts, Pages
from .page_content import PICTURE_KINDS, PageElement, elements

ELEMENT_DESCRIPTION = "element-description"  # named before kinds carried their owner; databases hold it
# about a megapixel: a chart's tick labels stay legible (see page_source.DEFAULT_CROP_PIXELS)
DESCRIBE_MAX_PIXELS = 1024 * 1024
DESCRIPTION_TOKENS = 512  # a dense chart's values fit; a longer reply is mostly repetition
DESCRIBE_PROMPT = ("Describe this {kind} from page {page}: its title, axes, legend, and every value you can read "
                   "(numbers with their labels and units). Write only what the image shows, in plain text.")

# MethodContext.call: (step, runtime, messages, options, pages) -> Completion, recorded in the answer's trace
CallFn = Callable[[str, Runtime, list[Message], Options, list[PageRef]], Completion]


@dataclass(frozen=True)
class Description:
    text: str
    source: str  # vision: by the vision model asked | cached: by an earlier vision model | ocr: words in the box
    model: str = ""  # the model that wrote it (empty for ocr)


class Descriptions:
    def __init__(self, artifacts: Artifacts, pages_source: Pages, max_pixels: int = DESCRIBE_MAX_PIXELS,
                 max_tokens: int = DESCRIPTION_TOKENS):
        self.artifacts, self.pages = artifacts, pages_source
        self.max_pixels, self.max_tokens = max_pixels, max_tokens

    def describe(self, ref: PageRef, element: PageElement, vision_runtime: Runtime | None,
                 call: CallFn) -> Description:
        """The element's description (see the module docstring for which one). Asking the vision model
        renders the element from the PDF: PageGone when the document is no longer indexed or on disk."""
        key = (ref.doc_id, ref.page, element.seq)
        if vision_runtime is not None:
            model = vision_runtime.info.name
            known = self.artifacts.get(ELEMENT_DESCRIPTION, [key], model)
            if key in known:
                return Description(known[key], "vision", model)
            text = self._ask(ref, element, vision_runtime, call)
            if text:  # an empty reply is not kept: the next request asks again
                self.artifacts.put(ELEMENT_DESCRIPTION, key, model, text)
            return Description(text, "vision", model)
        cached = self.artifacts.latest(ELEMENT_DESCRIPTION, [key])
        if key in cached:
            model, text = cached[key]
            return Description(text, "cached", model)
        return Description(self.words_inside(ref, element.box), "ocr")

    def for_page(self, ref: PageRef, vision_runtime: Runtime | None, call: CallFn,
                 kinds: set[str] = PICTURE_KINDS) -> dict[int, Description]:
        """{seq: description} of the page's pictures (or other kinds), e.g. for page_markdown."""
        return {e.seq: self.describe(ref, e, vision_runtime, call) for e in elements(self.pages, ref, set(kinds))}

    def words_inside(self, ref: PageRef, box) -> str:
        """The page's words (text layer or OCR) whose centre is inside `box`, a line of text per line."""
        lines: dict[int, list[str]] = {}
        for line, word in self.pages.words_in_box(ref, box):
            lines.setdefault(line, []).append(word)
        return "\n".join(" ".join(words) for words in lines.values())

    def _ask(self, ref: PageRef, element: PageElement, runtime: Runtime, call: CallFn) -> str:
        png = self.pages.crop(ref, element.box, self.max_pixels)
        prompt = DESCRIBE_PROMPT.format(kind=element.kind, page=ref.page)
        completion = call(f"describe {element.kind} p.{ref.page} #{element.seq}", runtime,
                          [Message("user", prompt, (png,))], Options(max_tokens=self.max_tokens), [ref])
        return completion.text.strip()
