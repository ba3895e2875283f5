"""Answers built by hand (no model) that carry a written answer's proof: an answered value computed from
quoted numbers, and an unverified draft. Shared by the tests of the app's answer view, `docqa ask`'s printout
and the exports."""
from __future__ import annotations

from docqa_desktop.answers import Answer, AnswerStatus, Citation

QUESTION = "By how much did sales grow from 2022 to 2023, in percent?"
QUOTE = "Sales rose from 51.5 million in 2022 to 56.8 million in 2023."
COMPUTATION = "(56.8 - 51.5) / 51.5 * 100"
CHECK = "Checked: 56.8 and 51.5 are in the quote from page 7; the computation gives 10.29"
DRAFT = "Sales grew by 12 percent."
# the model's own words inside the check line: shown as text, never as markup
WHY = "Not verified: the quote “sales <b>grew</b> 12%” is not on page 7"
PASSAGE = "Net sales for the year were 56.8 million, against 51.5 million a year before."


def citation(quote: str, page: int = 7) -> Citation:
    return Citation("report.pdf", "/nowhere/report.pdf", page, str(page), quote)


def computed_answer() -> Answer:
    """ANSWERED, the value computed from two quoted numbers (and the constant 100, which is in no quote)."""
    return Answer("a-computed", QUESTION, "simpledoc", "Sales grew by 10.29% (from 51.5 to 56.8 million).",
                  AnswerStatus.ANSWERED, [citation(QUOTE)], short_answer="10.29", answer_format="Float",
                  computation=COMPUTATION, check=CHECK)


def unverified_answer() -> Answer:
    """UNVERIFIED: the model's draft, whose quote is not on the page; the citations are the passages it read."""
    return Answer("a-draft", QUESTION, "simpledoc", DRAFT, AnswerStatus.UNVERIFIED,
                  [citation(PASSAGE, 7), citation(QUOTE, 9)], short_answer="12", answer_format="Float",
                  check=WHY)
