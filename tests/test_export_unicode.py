"""Exports keep every character a page or a model can write: curly quotes and dashes, accented names, CJK and
emoji come back from the PDF (read with PyMuPDF, as a reader copying or searching it would) and from the
Markdown, HTML and JSON files."""
from __future__ import annotations

import html
import json
import re

import pymupdf
import pytest
from markdown_it import MarkdownIt

from docqa_desktop.answers import Answer, AnswerStatus, Citation
from docqa_desktop.export import export
from docqa_desktop.pdf.unicode_map import plain_text_map

QUOTE = "“Within six hours the outbreak had spread globally.” — a late-60s–74% rise, said ‘Trois-Évêchés’"
ANSWER = "Trois-Évêchés and 東京 (Tōkyō) — the verified office figures 😀 🎉"
QUESTION = "Which régions did “Ωmega” name for 東京?"
# every one must come back whole, the words with a shaper's ligatures ("fi", "ffi") included
MUST_COME_BACK = ["“Within six hours the outbreak had spread globally.”", "late-60s–74%", "— a", "‘Trois-Évêchés’",
                  "東京", "Tōkyō", "😀", "🎉", "verified office", "régions", "“Ωmega”"]


@pytest.fixture
def unicode_answer(tmp_path) -> Answer:
    source = tmp_path / "source.pdf"
    with pymupdf.open() as doc:
        doc.new_page().insert_text((72, 100), "Within six hours the outbreak had spread globally.", fontsize=12)
        doc.save(source)
    cited = Citation("source.pdf", str(source), 1, "1", QUOTE, (72.0, 88.0, 360.0, 104.0))
    return Answer("a-unicode", QUESTION, "quoted", ANSWER, AnswerStatus.ANSWERED, [cited], short_answer="東京")


def pdf_text(path) -> str:
    with pymupdf.open(path) as doc:
        return " ".join(" ".join(page.get_text().split()) for page in doc)


def test_pdf_export_gives_back_quotes_dashes_accents_cjk_and_emoji(unicode_answer, tmp_path):
    out = export(unicode_answer, "pdf", tmp_path / "answer.pdf")
    text = pdf_text(out)
    for part in MUST_COME_BACK:
        assert part in text, f"{part!r} not in {text!r}"
    assert "?" not in text.replace("東京?", "")  # nothing replaced by a question mark (the question's own one aside)
    with pymupdf.open(out) as doc:
        fonts = {font[3] for page in doc for font in page.get_fonts()}
        assert len(doc[0].get_images()) == 1  # the cited region
    # each script drawn by a font that has it: CJK and emoji from PyMuPDF's bundled fallbacks (emoji monochrome)
    assert any("Droid Sans Fallback" in name for name in fonts), fonts
    assert any("Noto Emoji" in name for name in fonts), fonts
    assert out.stat().st_size < 300_000  # only the glyphs used: the whole CJK font alone is 3.5 MB


def test_pdf_export_of_a_thread_flows_a_long_answer_over_pages(unicode_answer, tmp_path):
    long = Answer("a-long", "And the rest of 東京’s figures?", "quoted",
                  "\n".join(f"Line {n} — Évêchés 東京 😀" for n in range(1, 121)), AnswerStatus.PASSAGES,
                  unicode_answer.citations)
    out = export([unicode_answer, long], "pdf", tmp_path / "thread.pdf")
    with pymupdf.open(out) as doc:
        assert doc.page_count >= 3
    text = pdf_text(out)
    assert "Thread: Which régions did “Ωmega” name for 東京? (2 questions)" in text
    assert all(f"Line {n} — Évêchés 東京 😀" in text for n in (1, 60, 120))  # none lost at a page end


def test_markdown_html_and_json_exports_keep_every_character(unicode_answer, tmp_path):
    markdown = MarkdownIt("commonmark").render(export(unicode_answer, "md", tmp_path / "a.md").read_text("utf-8"))
    page = export(unicode_answer, "html", tmp_path / "a.html").read_text("utf-8")
    assert "<meta charset='utf-8'>" in page
    for written in (markdown, page):
        shown = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", written)).split())
        for part in MUST_COME_BACK:
            assert part in shown, f"{part!r} not in {shown!r}"
    record = json.loads(export(unicode_answer, "json", tmp_path / "a.json").read_text("utf-8"))
    assert (record["question"], record["text"], record["citations"][0]["quote"]) == (QUESTION, ANSWER, QUOTE)


CMAP = b"""/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
1 begincodespacerange
<0000> <FFFF>
endcodespacerange
2 beginbfrange
<0001> <0003> <0041>
<0010> <0012> <fb00>
endbfrange
2 beginbfchar
<0020> <1f600>
<0021> <00e9>
endbfchar
endcmap
"""


def test_tounicode_entries_readers_misread_are_rewritten_and_the_rest_kept():
    fixed = plain_text_map(CMAP)
    assert b"1 beginbfrange\n<0001> <0003> <0041>\nendbfrange" in fixed  # A, B, C: kept as a range
    for entry in (b"<0010> <00660066>", b"<0011> <00660069>", b"<0012> <0066006c>",  # ff, fi, fl as letters
                  b"<0020> <d83dde00>", b"<0021> <00e9>"):  # 😀 as UTF-16, é as it was
        assert entry in fixed
    assert fixed.startswith(CMAP[:CMAP.index(b"2 beginbfrange")]) and fixed.endswith(b"endcmap\n")
    assert plain_text_map(fixed) == fixed  # nothing left to rewrite
