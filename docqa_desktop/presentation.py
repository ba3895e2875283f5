"""How an answer reads, the same in the app, the command line and every export (each styles the pieces): its text
(a draft says it is one), how sure the app is, the computation with its quoted numbers marked, the proof check,
a citation as one line, how the answer was made. Plain strings and HTML fragments: no Qt, no files."""
from __future__ import annotations

import html
import re
from typing import Callable

from . import numbers
from .answers import Answer, AnswerStatus, Citation, sureness


def one_line(text: str) -> str:
    """`text` with its line breaks and runs of spaces as single spaces."""
    return " ".join(text.split())


def cited_line(n: int, c: Citation) -> str:
    """A numbered citation as one line of plain text (PDF export, copy to the clipboard)."""
    return f'[{n}] {c.source}: "{c.quote}"' if c.quote else f"[{n}] {c.source} (the highlighted region)"


def run_line(answer: Answer, escape: Callable[[str], str] = str) -> str:
    """'Answered · simpledoc · 3 model calls · 41.2 s': how the answer was made, under it in every export."""
    return (f"{answer.status.label} · {escape(answer.method)} · {len(answer.calls)} model calls · "
            f"{answer.seconds:.1f} s")


DRAFT_LABEL = "Model's draft (not checked): "
WARNING_COLOUR = "#8a6d3b"  # the verdict of anything that is not an answer (app and HTML export)
QUOTED_NUMBER_COLOUR = "#1f5fa8"  # a computation's numbers that are in a cited quote (app and HTML export)


def shown_text(answer: Answer) -> str:
    """The answer's text as every view shows it: an unverified draft says it is one, so it never passes for the
    answer."""
    if answer.status is AnswerStatus.UNVERIFIED and answer.text:
        return DRAFT_LABEL + answer.text
    return answer.text


def confidence_line(answer: Answer) -> str:
    """How sure the app is of an answer, in words ("Confidence: likely right, p = 0.87"); "" when no method rated it
    or it is no answer (a passages' likeliest value says how sure it is in the text)."""
    if answer.confidence is None or answer.status is not AnswerStatus.ANSWERED:
        return ""
    return f"Confidence: {sureness(answer.confidence)}"


def computation_parts(answer: Answer) -> list[tuple[str, bool]]:
    """An answered value's computation (left of any '=' the model wrote) in pieces, True for a number that is in
    one of the answer's cited quotes (its operands, read as numbers.find reads them); [] when nothing was computed."""
    if not answer.status.confident or not answer.computation.strip():
        return []
    expression = one_line(re.split(r"[=≈]", answer.computation, maxsplit=1)[0])
    # compared by value as written and signed: a computed "-5" is not a quote's "5"; "12%" and "$12" are its "12"
    quoted = {number.value for c in answer.citations for number in numbers.find(c.quote)}
    parts, at = [], 0
    for number in numbers.find(expression):
        parts += [(expression[at:number.start], False), (number.text, number.value in quoted)]
        at = number.end
    parts.append((expression[at:], False))
    return [part for part in parts if part[0]]


def computed_line(answer: Answer, mark: Callable[[str], str] | None = None,
                  escape: Callable[[str], str] = str) -> str:
    """"Computed: (56.8 - 51.5) / 51.5 * 100 = 10.29" under an answered value the app computed, each quoted
    number passed through `mark` (bold in Markdown, coloured in HTML); without `mark`, plain text that says the
    numbers were quoted (CLI, PDF). Every piece goes through `escape`. "" when nothing was computed."""
    parts = computation_parts(answer)
    if not parts:
        return ""
    marked = "".join(mark(escape(text)) if mark and quoted else escape(text) for text, quoted in parts)
    value = f" = {escape(answer.short_answer)}" if answer.short_answer else ""
    return f"{'Computed' if mark else 'Computed from the quoted numbers'}: {marked}{value}"


def proof_html(answer: Answer) -> str:
    """The computation and the check line as HTML (app and HTML export): quoted numbers bold and coloured, the
    check small and grey. Model text is escaped."""
    computed = computed_line(answer, lambda n: f"<b style='color:{QUOTED_NUMBER_COLOUR}'>{n}</b>", html.escape)
    return ((f"<p>{computed}</p>" if computed else "")
            + (f"<p style='color:gray'><small>{html.escape(answer.check)}</small></p>" if answer.check else ""))
