"""The closest passages, and whether the pages read are about the question at all: the one rule every method's
"not found" follows (the quoted answers' and a model's refusal alike): not found only when no page read shares the
question's key terms; otherwise the sentences read nearest the question are shown, cited, for the reader to judge.
"""
from __future__ import annotations

from .matching import stem
from .question import KIND_WORDS, content_words
from .reader import Reading
from .scoring import Scored

OWN_WORDS_CHECKED = 40  # the best sentences looked at for a word of the question as asked
PASSAGES = 3  # closest sentences shown
RELATED_COVERAGE = 0.25  # below this share of its words in any sentence, nothing is about the question


def about_question(asked: str, reading: Reading, related_coverage: float = RELATED_COVERAGE) -> bool:
    """Whether a page read shares the question's key terms (or, lacking them, a sentence holds enough of its
    words), and the sentences read hold a word of the question as asked."""
    ranked = reading.sentences
    return about_own_words(asked, ranked) and bool(
        reading.key_terms or (ranked and ranked[0].coverage >= related_coverage))


def about_own_words(asked: str, ranked: list[Scored]) -> bool:
    """Whether the sentences read hold a word of the question as asked: a follow-up is read with its thread's
    words ("And in 2012?"), but one about something else ("What is the capital city of Mars?") is not about the
    thread's pages because they share the thread's words."""
    own = [(stem(w), w) for w in content_words(asked) if w not in KIND_WORDS]
    return not own or any(s.words.has(t, w) for s in ranked[:OWN_WORDS_CHECKED] for t, w in own)


def closest(ranked: list[Scored], count: int = PASSAGES, related_coverage: float = RELATED_COVERAGE) -> list[Scored]:
    """The `count` closest sentences (each once), as long as they hold enough of the question's words."""
    shown, texts = [], set()
    for scored in ranked:
        if len(shown) == count or scored.coverage < related_coverage:
            break
        if scored.candidate.sentence.text not in texts:
            shown.append(scored)
            texts.add(scored.candidate.sentence.text)
    return shown


def listed(shown: list[Scored]) -> str:
    """The passages as numbered lines: "[1] paper.pdf, page 5: “…”"."""
    return "\n".join(f"[{n}] {s.candidate.ref.source}: “{s.candidate.sentence.text}”" for n, s in enumerate(shown, 1))
