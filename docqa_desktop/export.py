"""Cited answers exported as Markdown, HTML, PDF (laid out by pymupdf, no browser) or JSON (full trace).

Markdown and HTML show numbered citations with the cited region of each page as an image, so a reader
can check the answer without the PDFs; PDF embeds the same images.

Page text and model output are untrusted (a PDF can say "answer with <script>…"): every export shows them
as text. Markdown escapes them where they would form markup (and only there, so the file reads as the answer
did): no HTML, image, link or autolink is formed, and its images are files beside it. HTML escapes them, embeds
the images as data: URIs and forbids every remote load in its Content-Security-Policy.
"""
from __future__ import annotations

import base64
import functools
import html
import io
import json
import re
import unicodedata
from pathlib import Path
from typing import Callable
from urllib.parse import quote as url_quote

import pymupdf

from .answers import Answer, Citation
from .documents import open_document
from .errors import DocQAError
from .files import write_atomically
from .pdf.unicode_map import plain_text_maps
from .presentation import WARNING_COLOUR, cited_line, computed_line, one_line, proof_html, run_line, shown_text

REGION_MARGIN = 24  # points around the quoted words, so the crop shows their context
NAME_CHARS = 60  # the most characters of the question an export's file name keeps (whole words)
RenderFn = Callable[[Citation], bytes | None]  # PNG of the cited region, None if the document is gone
# writer(answers, file, render, thread): `thread` when a thread is exported (even one of one answer)
Writer = Callable[[list[Answer], Path, RenderFn, bool], None]


def cited_region(citation: Citation, zoom: float = 2.0) -> bytes | None:
    """PNG of the cited region (the whole page when no box is known), or None if the file is gone."""
    try:
        with open_document(citation.path) as doc:
            page = doc[citation.page - 1]
            clip = page.rect
            if citation.bbox:
                x0, y0, x1, y1 = citation.bbox
                clip = pymupdf.Rect(0, y0 - REGION_MARGIN, page.rect.width, y1 + REGION_MARGIN) & page.rect
            return page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip).tobytes("png")
    except (DocQAError, RuntimeError, ValueError, IndexError, OSError):  # DocQAError: the opener refused it
        return None


def export(answers: Answer | list[Answer], fmt: str, out: Path, render: RenderFn = cited_region) -> Path:
    """Write one answer, or a whole thread (a list: a question and its follow-ups, in order), with their
    citations. Citations are numbered per answer, as they were shown."""
    if fmt not in WRITERS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    thread = not isinstance(answers, Answer)
    answers = list(answers) if thread else [answers]
    if not answers:
        raise ValueError("nothing to export: the thread has no answers")
    out = Path(out)
    WRITERS[fmt](answers, out, render, thread)
    return out


def file_name(answer: Answer, fmt: str, whole_thread: bool = False) -> str:
    """The file an export suggests, named after the question: "when-does-the-last-ferry-leave.md"; a thread's after
    the question it starts from ("thread-…"); the answer's id when the question has no letters or digits."""
    words = re.findall(r"[^\W_]+", answer.question.lower())
    kept: list[str] = []
    for word in words:
        if len("-".join(kept + [word])) > NAME_CHARS:
            break
        kept.append(word)
    slug = "-".join(kept) or (words[0][:NAME_CHARS] if words else answer.id)
    return f"{'thread-' if whole_thread else ''}{slug}.{fmt}"


def _thread_title(answers: list[Answer]) -> str:
    return f"Thread: {one_line(answers[0].question)} ({len(answers)} questions)"


def _markdown(answers: list[Answer], out: Path, render: RenderFn, thread: bool) -> None:
    images = out.with_name(out.stem + "_files")
    several = len(answers) > 1  # a thread of one reads as its answer
    inline = functools.partial(markdown_text, starts_line=False)  # a piece inside a line of ours
    lines = [f"# {inline(_thread_title(answers))}", ""] if several else []
    for i, answer in enumerate(answers, 1):
        heading = "##" if several else "#"
        lines += [f"{heading} {inline(one_line(answer.question))}", "",
                  f"**{inline(answer.status.verdict)}**", "",
                  markdown_text(shown_text(answer)).replace("\n", "  \n"), ""]
        computed = computed_line(answer, lambda n: f"**{n}**", inline)
        lines += [computed, ""] if computed else []
        lines += [f"*{inline(one_line(answer.check))}*", ""] if answer.check else []
        lines += [f"*{run_line(answer, inline)}*", "", f"{heading}# Citations", ""]
        for n, c in enumerate(answer.citations, 1):
            # the source begins the list item's content (where a list or a heading could begin), the path a line
            lines.append(f"{n}. {markdown_text(c.source)} — “{inline(one_line(c.quote))}”  \n"
                         f"   {markdown_text(one_line(c.path))}")
            png = render(c)
            if png:
                images.mkdir(exist_ok=True)
                name = f"answer-{i}-citation-{n}.png" if several else f"citation-{n}.png"
                (images / name).write_bytes(png)
                lines.append(f"\n   ![citation {n}]({url_quote(f'{images.name}/{name}')})")
            lines.append("")
    write_atomically(out, "\n".join(lines))


# -- Markdown text --------------------------------------------------------------------------------------------
# Text is escaped only where a character would start markup in its place, so that the file reads as the answer
# did: parentheses, dots, hyphens, colons, dollar amounts and percentages stay as written. The rules are
# CommonMark's (blocks at a line's start, emphasis by its delimiter-run rules, links, code, raw HTML, entities),
# GFM's (tables, strikethrough, autolinks), linkify's bare domains (markdown-it, VS Code) and pandoc's and
# GitHub's $…$ math. Markup of our own (**bold**, *italic*) only wraps whole pieces, so a piece's edges are
# treated as the worst case: whatever is beyond them could let a delimiter there open or close.

_HEADING_CLOSER = re.compile(r"(?<=[ \t])#+(?=[ \t]*$)")  # "# Title ##": a heading's closing hashes
_BLOCK_MARKER = re.compile(
    r"#{1,6}(?=[ \t]|$)"  # heading
    r"|[-+*](?=[ \t]|$)"  # bullet
    r"|>"  # block quote
    r"|~{3,}"  # code fence (every backtick is escaped anyway)
    r"|[-=*_:|][-=*_:| \t]*$")  # rule, setext underline or a table's delimiter row: its first character
_ORDERED_ITEM = re.compile(r"\d{1,9}(?=[.)](?:[ \t]|$))")  # "1." or "1)" then a space: the '.' or ')'
_ALWAYS = re.compile(r"`|\\(?=[!-/:-@\[-`{-~]|$)")  # code spans; a backslash that would escape or break a line
_LINK_CLOSE = re.compile(r"\](?=[(:])")  # "[text](url)" and "[label]: url" need this bracket
_MATH_CLOSE = re.compile(r"(?<!\s)\$(?!\d)")  # only a $ after a non-space (and not before a digit) closes math
_DELIMITER_RUN = re.compile(r"\*+|_+|~+")
# Autolinks: "//" of "http://" or "//host", the dot of "www.", a dot before a domain ending ("example.com",
# "notes.md"), the @ of an address. A dot before a digit or a one-letter word ("3.5", "e.g.") is no domain.
_AUTOLINK = re.compile(
    r"/(?=/)|(?<![\w.-])(?i:www)(\.)"
    r"|(?<=[\w-])\.(?=(?i:com|org|net|edu|gov|mil|int|info|biz|pro|name|aero|asia|coop|museum|shop|web|xxx|"
    r"app|dev|xyz|online|site|[a-z]{2})(?![\w-]))"
    r"|(?<=[\w.+-])@(?=[\w-])")
_ENTITY = re.compile(r"&(?=#\d{1,7};|#[xX][\da-fA-F]{1,6};|[A-Za-z][A-Za-z\d]{1,31};)")


def markdown_text(text: str, starts_line: bool = True) -> str:
    """`text` as Markdown that renders as exactly that text: a character that would start markup where it
    stands is backslash-escaped (`<` and an entity's `&` become entities), so nothing in it can form a tag, an
    image, a link or a block; everything else is left as written. `starts_line`: the text begins a line (its
    later lines always do), where headings, lists and quotes begin."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(_markdown_line(line, starts_line or i > 0) for i, line in enumerate(lines))


def _markdown_line(line: str, starts_line: bool) -> str:
    if starts_line:
        line = line.lstrip(" \t")  # a renderer drops it, or reads four spaces as a code block
    escaped = _markup_at(line, starts_line)
    out = []
    for i, ch in enumerate(line):
        if ch == "<":
            out.append("&lt;")  # never raw HTML or an <autolink>, whatever the renderer
        elif ch == "&" and _ENTITY.match(line, i):
            out.append("&amp;")
        else:
            out.append("\\" + ch if i in escaped else ch)
    return "".join(out)


def _markup_at(line: str, starts_line: bool) -> set[int]:
    """Where in `line` a character would start or end markup."""
    at = {_first_group_or_match(m) for pattern in (_HEADING_CLOSER, _ALWAYS, _LINK_CLOSE, _MATH_CLOSE, _AUTOLINK)
          for m in pattern.finditer(line)}
    if starts_line and (m := _BLOCK_MARKER.match(line) or _ORDERED_ITEM.match(line)):
        at.add(m.end() if m.re is _ORDERED_ITEM else m.start())
    for run in _DELIMITER_RUN.finditer(line):
        if _run_delimits(run.group()[0], _kind(line, run.start() - 1), _kind(line, run.end())):
            at.update(range(run.start(), run.end()))
    return at


def _first_group_or_match(m: re.Match) -> int:
    return m.start(1) if m.lastindex else m.start()


def _kind(line: str, i: int) -> str:
    """'space', 'punctuation' or 'word', as CommonMark's flanking rules class the character at `i`; beyond the
    line it is unknown, so 'punctuation': the kind that lets a delimiter beside it both open and close."""
    if not 0 <= i < len(line):
        return "punctuation"
    if line[i].isspace():
        return "space"
    return "punctuation" if unicodedata.category(line[i])[0] in "PS" else "word"


def _run_delimits(char: str, before: str, after: str) -> bool:
    """Whether a run of `char` (* _ ~) between characters of these kinds could open or close emphasis or
    strikethrough. A lone ~ that cannot close is left alone: only a closing run pairs, and we write no ~."""
    left = after != "space" and (after != "punctuation" or before != "word")
    right = before != "space" and (before != "punctuation" or after != "word")
    if char == "*":
        return left or right
    if char == "~":
        return right
    return (left and (not right or before == "punctuation")) or (right and (not left or after == "punctuation"))


# Opening the export loads nothing from anywhere: no scripts, no fonts, no frames, images only inline.
NO_REMOTE_LOADS = ("<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; img-src data:; "
                   "style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'\">")


def _html(answers: list[Answer], render: RenderFn) -> str:
    thread = len(answers) > 1
    title = _thread_title(answers) if thread else answers[0].question
    parts = [f"<!doctype html><meta charset='utf-8'>{NO_REMOTE_LOADS}<title>{html.escape(title)}</title>",
             "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:50em;margin:2em auto;padding:0 1em}"
             "img{max-width:100%;border:1px solid #ccc}li{margin-bottom:1.5em}</style>"]
    if thread:
        parts.append(f"<h1>{html.escape(title)}</h1>")
    heading = 2 if thread else 1
    for answer in answers:
        warning = "" if answer.status.confident else f" style='color:{WARNING_COLOUR}'"
        parts += [f"<h{heading}>{html.escape(answer.question)}</h{heading}>",
                  f"<p{warning}><b>{html.escape(answer.status.verdict)}</b></p>",
                  f"<p style='white-space:pre-wrap'>{html.escape(shown_text(answer))}</p>{proof_html(answer)}",
                  f"<p><small>{run_line(answer, html.escape)}</small></p>",
                  f"<h{heading + 1}>Citations</h{heading + 1}><ol>"]
        for c in answer.citations:
            png = render(c)
            image = (f"<br><img alt='cited region' src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
                     if png else "")
            parts.append(f"<li>{html.escape(c.source)} — “{html.escape(c.quote)}”<br>"
                         f"<code>{html.escape(c.path)}</code>{image}</li>")
        parts.append("</ol>")
    return "\n".join(parts)


# The PDF is laid out by MuPDF's HTML engine (pymupdf.Story): it flows the answers over A4 pages and draws each
# character in the first font that has it -- Nimbus Sans (Helvetica) for Latin, Greek and Cyrillic, then MuPDF's
# bundled fallbacks: Droid Sans Fallback for Chinese, Japanese and Korean, the Noto fonts of other scripts and
# symbols, Noto Emoji (monochrome) for emoji. Only the glyphs used are embedded.
PDF_PAGE = pymupdf.paper_rect("a4")
PDF_TEXT_AREA = PDF_PAGE + (50, 50, -50, -42)
PDF_IMAGE_HEIGHT = 260.0  # points: a cited region is a strip of the page, not the page again
PDF_CSS = ("* {font-family: sans-serif; margin: 0; padding: 0}"
           "p {white-space: pre-wrap; margin-bottom: 0.6em; font-size: 10pt}"  # the text's own line breaks
           ".title {font-size: 17pt} .question {font-size: 15pt} .answer {font-size: 11pt}"
           f".warning {{color: {WARNING_COLOUR}}} .small {{font-size: 9pt}} .check {{color: #666666}}"
           ".citation {margin-top: 6pt} .answer-end {margin-bottom: 12pt}")


def _pdf(answers: list[Answer], out: Path, render: RenderFn, thread: bool) -> None:
    story = pymupdf.Story(html=_pdf_html(answers, render), user_css=PDF_CSS)
    laid_out = io.BytesIO()
    writer = pymupdf.DocumentWriter(laid_out)
    more = True
    while more:
        device = writer.begin_page(PDF_PAGE)
        more, _ = story.place(PDF_TEXT_AREA)
        story.draw(device)
        writer.end_page()
    writer.close()
    with pymupdf.open("pdf", laid_out.getvalue()) as doc:
        try:
            doc.subset_fonts()  # the whole CJK fallback alone is 3.5 MB
        except (RuntimeError, ValueError, ImportError):
            pass  # the whole fonts stay in: a larger file, the same text
        plain_text_maps(doc)  # emoji and words like "verified" copy and search as written
        write_atomically(out, doc.tobytes(garbage=3, deflate=True))


def _pdf_html(answers: list[Answer], render: RenderFn) -> str:
    """The answers as the PDF shows them, in the HTML that pymupdf.Story lays out (every text escaped)."""
    def paragraph(text: str, kind: str = "") -> str:
        return f"<p class='{kind}'>{html.escape(text)}</p>"

    parts = [paragraph(_thread_title(answers), "title")] if len(answers) > 1 else []
    for answer in answers:
        warning = "" if answer.status.confident else "warning"
        parts += [paragraph(answer.question, "question"),
                  f"<p class='{warning}'><b>{html.escape(answer.status.verdict)}</b></p>",
                  paragraph(shown_text(answer), "answer")]
        if computed := computed_line(answer):
            parts.append(paragraph(computed))
        if answer.check:
            parts.append(paragraph(answer.check, "small check"))
        parts.append(paragraph(run_line(answer), "small"))
        for n, c in enumerate(answer.citations, 1):
            parts.append(paragraph(cited_line(n, c), "citation"))
            png = render(c)
            if png:
                pix = pymupdf.Pixmap(png)
                height = min(PDF_IMAGE_HEIGHT, PDF_TEXT_AREA.width * pix.height / pix.width)
                parts.append(f"<p><img src='data:image/png;base64,{base64.b64encode(png).decode()}' "
                             f"width='{height * pix.width / pix.height:.1f}' height='{height:.1f}'></p>")
        parts.append("<p class='answer-end'></p>")
    return "\n".join(parts)


def _json(answers: list[Answer], out: Path, render: RenderFn, thread: bool) -> None:
    """The full trace: the answer's record, or the thread's id and its answers' records."""
    record = {"thread": answers[0].thread_id, "answers": [a.as_record() for a in answers]} if thread \
        else answers[0].as_record()
    write_atomically(out, json.dumps(record, indent=2, ensure_ascii=False))


def _html_file(answers: list[Answer], out: Path, render: RenderFn, thread: bool) -> None:
    write_atomically(out, _html(answers, render))


# one row a format: a new format is a writer and its row (the app's Export dialog and `docqa export` list FORMATS)
WRITERS: dict[str, Writer] = {"md": _markdown, "html": _html_file, "pdf": _pdf, "json": _json}
FORMATS = tuple(WRITERS)
