"""DocLens's knobs: the paper's parameters by default (§3, appendix D.1, appendix E.1), a CPU budget as preset."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DocLensSettings:
    # Page Navigator (§3.1; appendix D.1 "Sampling", "Page Navigator")
    navigator_samples: int = 8  # T_e: navigator runs whose located pages are united
    navigator_temperature: float = 0.7  # τ for both samplers
    navigator_input: str = "pages"  # pages: each page's text, OCR and tables | summaries: the stored page summaries
    navigator_images: bool = True  # page screenshots too, when a vision model is installed (the paper's input)
    navigator_page_tokens: int = 1200  # most text tokens of a page shown to the navigator (question-matched passages)
    batch_pages: int = 50  # K: most pages in one navigator call; fewer when the context is smaller
    read_all_up_to: int = 500  # pages in scope the navigator reads in full; beyond, the retriever's top library_pages
    library_pages: int = 40  # pages navigated over a scope too large to read (a whole library)
    fallback_k: int = 4  # the retriever's top pages read when the navigator locates none
    retrieved_floor: int = 0  # the retriever's top pages that join the union whatever the navigator says (paper: 0)
    max_located_share: float = 1.0  # a sample locating more of its batch's pages than this is ignored (1.0: never)
    max_read_pages: int = 0  # most pages the Answer Sampler reads (0: all that fit the context, as in the paper)
    named_pages: bool = True  # pages the question names ("page 12", "slides 3-5") join the union (the prompt's rule)
    # Element Localizer (§3.1)
    zoom_in: bool = True  # crops of a page's pictures and tables follow its screenshot (vision model)
    crops_per_page: int = 4  # the largest elements of a page, cropped
    crop_pixels: int = 1024 * 1024  # resolution of a crop
    # Answer Sampler (§3.2): the text says 8 samples, the released code and appendix E.1 say 2 suffice
    answer_samples: int = 2  # T_a
    page_tokens: int = 1200  # most text tokens of one page in the answer prompt (and in a summary's input)
    answer_tokens: int = 700  # one sample's reply: analysis, quotes, answer parts
    # Adjudicator (§3.2)
    skip_unanimous: bool = False  # the paper always adjudicates; True: no call when every sample agrees
    summary_tokens: int = 160  # a page summary written by `docqa prepare --method doclens` (navigator_input summaries)


# ask.preset = "cpu" (the 1.5B bench's quick budget). The navigator reads each page's best-matching passages
# (~100 tokens) rather than summaries: summaries of every page cost a prepare pass (~10 s a page with the 1.5B
# on two cores: over an hour for the six dev documents), the passages cost nothing ahead of the question.
# For a small model (the 1.5B bench): the retriever's top 3 join the union, because its navigator misses pages
# the retriever ranks first (SimpleDoc's keep_top finding; the report's "located" stage is the navigator's
# union alone, "selected" with the floor); a sample naming more than half of its pages is ignored and the
# sampler reads at most 6 pages, because its first dev question had one sample "locate" all 24 pages, which
# made the answer prompt 6,800 tokens (6 minutes on a core) of mostly irrelevant pages.
CPU_PRESET = {"navigator_samples": 2, "navigator_images": False, "navigator_page_tokens": 100,
              "read_all_up_to": 200, "retrieved_floor": 3, "max_located_share": 0.5, "max_read_pages": 6,
              "answer_samples": 2, "page_tokens": 400, "answer_tokens": 500, "crops_per_page": 2,
              "skip_unanimous": True}
