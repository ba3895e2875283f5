"""Fitting page text into the context window, counted with the real SmolLM2 tokenizer."""
from __future__ import annotations

from docqa_desktop.llm.budget import TRIM_MARK, share_budget, trim_to_tokens

PAGE = "Generation reached 7,950 MWh, twelve percent above plan, while curtailment fell to 1.4 percent. "


def test_trim_keeps_short_text_and_cuts_long_text_at_a_word(smollm2):
    assert trim_to_tokens(smollm2, PAGE, 500) == PAGE
    long = PAGE * 40
    cut = trim_to_tokens(smollm2, long, 100)
    assert smollm2.count_tokens(cut) <= 100
    assert smollm2.count_tokens(cut) > 80  # close to the limit, not needlessly short
    assert cut.endswith(TRIM_MARK) and long.startswith(cut[: -len(TRIM_MARK)])
    assert trim_to_tokens(smollm2, long, 0) == ""


def test_budget_is_shared_fairly_between_pages(smollm2):
    short, medium, huge = PAGE, PAGE * 5, PAGE * 60
    fitted = share_budget(smollm2, [huge, short, medium], 400)
    assert fitted[1] == short and fitted[2] == medium  # small pages stay whole
    assert fitted[0].endswith(TRIM_MARK)
    assert sum(smollm2.count_tokens(t) for t in fitted) <= 400
    assert share_budget(smollm2, [short, medium], 10_000) == [short, medium]
