"""Page text cut to a budget by the question: the passage that answers survives the cut, tables keep their
headers, and a page that fits is left alone. Real corpus pages, a word-counting tokenizer."""
from __future__ import annotations

import pymupdf

from conftest import REPORT_15, SMALL_PAPER, corpus_pdf
from docqa_desktop.llm.budget import share_budget, trim_to_tokens
from docqa_desktop.methods.toolkit.passages import fit_to_question, passages


class Words:
    def count_tokens(self, text: str) -> int:
        return len(text.split())


def page_text(name: str, page: int) -> str:
    with pymupdf.open(corpus_pdf(name)) as pdf:
        return pdf[page - 1].get_text()


def last_paragraph_question(text: str) -> tuple[str, str]:
    """A question made of the words of the page's last passage, and that passage."""
    last = passages(text)[-1].text
    return " ".join(w for w in last.split() if len(w) > 5)[:200], last


def test_the_passage_that_matches_survives_where_the_first_tokens_would_drop_it():
    for name, page in ((SMALL_PAPER, 2), (REPORT_15, 3)):
        text = page_text(name, page)
        question, answer_passage = last_paragraph_question(text)
        limit = Words().count_tokens(text) // 3
        fitted = fit_to_question(Words(), text, limit, question)
        assert Words().count_tokens(fitted) <= limit
        assert answer_passage in fitted, (name, page)
        assert answer_passage not in trim_to_tokens(Words(), text, limit)  # what cutting by position keeps
        assert fitted.startswith(passages(text)[0].text)  # the page's heading stays
        assert "[…]" in fitted  # the gaps are marked


def test_a_kept_table_row_brings_its_header_and_a_page_that_fits_is_unchanged():
    rows = "\n".join(f"| region {i} | {1000 + i} | {2000 + i} |" for i in range(40))
    text = ("Annual report. " * 30 + "\n\nTables on this page:\n| Region | Revenue 2022 | Revenue 2023 |\n"
            "|---|---|---|\n" + rows + "\n\nFigure 3: staff by region.")
    fitted = fit_to_question(Words(), text, 60, "What was the revenue of region 37?")
    assert "| region 37 | 1037 | 2037 |" in fitted
    assert "| Region | Revenue 2022 | Revenue 2023 |\n|---|---|---|" in fitted
    assert fit_to_question(Words(), text, 10_000, "revenue of region 37") == text
    assert fit_to_question(Words(), text, 0, "revenue") == ""


def test_shared_budget_trims_each_page_by_the_question():
    question_words = "pivot language BLEU"
    texts = [page_text(SMALL_PAPER, 1), page_text(SMALL_PAPER, 5)]
    budget = sum(Words().count_tokens(t) for t in texts) // 3
    shared = share_budget(Words(), texts, budget, lambda c, t, n: fit_to_question(c, t, n, question_words))
    assert sum(Words().count_tokens(t) for t in shared) <= budget
    assert all("[…]" in t for t in shared)
