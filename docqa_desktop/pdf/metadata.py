"""A document's title, authors and year, as a library lists them.

The PDF's own metadata first, where it is usable: a title of "Microsoft Word - report.docx", "untitled", the
file name, a name like a file's ("905_Precinct_NoOU") or a code ("S2MNCE01") is not; nor is one that page 1 does not
print while its largest type gives a related title instead (a draft's "Art in Machine Learning" on a paper headed
"Creativity in Machine Learning"). Nor is an author field holding a user name ("whitest", "WIN7") or a converter's
name. Where it is not, page 1 (pdf/first_page.py): the registrant of an SEC filing, the quoted title of a
"recommended citation", or the largest type on the page -- unless that is only the kind of document ("Help
Guide", "User Manual"), which gives way to the product named beside it; the names printed under that title (or
after "By"); a year from an arXiv id, the title, a web page's revision statement ("last edited on …", which
beats a printout's print date), a copyright line or a dateline, else a copyright line a few pages on. Authors and year
stay empty unless found so plainly: a wrong author is worse than none.
"""
from __future__ import annotations

import datetime
import os
import re
import unicodedata
from typing import Callable

from ..domain import DocumentInfo, Word
from .document import open_pdf
from .first_page import Line, body_size, ocr_lines, text_layer_lines

# -- titles ----------------------------------------------------------------------------------------------------

PLACEHOLDER_TITLES = {"untitled", "untitled document", "title", "document", "no title", "presentation",
                      "powerpoint presentation", "slide 1", "new document", "pdf", "print", "anonymous"}
APPLICATION_PREFIX = re.compile(r"^(microsoft (word|powerpoint|excel)|word|powerpoint)\s*-\s*", re.I)
FILE_NAME = re.compile(r"\.(docx?|docm|pptx?|xlsx?|xlsm|xlsb|csv|pdf|indd|qxd|psd|ai|eps|pub|vsdx?|rtf|odt|ods|odp|"
                       r"tex|dvi|ps|txt|md|html?|mht|xps|jpe?g|png|tiff?)$", re.I)
TITLE_SIZE = 1.15  # a title is set at least this much larger than the body text
SAME_SIZE = 0.85  # lines of a title block are within this share of its largest
MAX_TITLE_LINES = 4
MAX_TITLE_CHARS = 300
KEPT_SIGNS = {"&", "+", "-", "–", "—", "/", ":"}  # tokens without a letter that belong in a title
CITATION = re.compile(r"\b(recommended|suggested) citation\b|^cite (this|as)\b", re.I)
QUOTED = re.compile(r"[“\"]([^”\"]{8,300})[”\"]")
REGISTRANT = re.compile(r"exact name of registrant", re.I)
SEC_FORM = re.compile(r"^form\s+(10-k|10-q|8-k|20-f|40-f|s-1|def 14a)\b", re.I)
# A line that only names the kind of document ("Help Guide", "User's Manual", "Quick Start Guide"): a manual's
# header, not its title. Every word from KIND_WORDS, one of them a KIND_NOUN.
KIND_NOUNS = {"guide", "manual", "handbook", "instructions", "reference"}
KIND_WORDS = KIND_NOUNS | {"help", "user", "users", "user's", "owner", "owners", "owner's", "operator", "operator's",
                           "quick", "start", "startup", "setup", "set-up", "installation", "install", "instruction",
                           "operating", "operation", "service", "getting", "started", "product", "safety",
                           "maintenance", "and", "&"}
KIND_GAP = 2.0  # the product's name sits within this many header heights of a "Help Guide" header
TITLE_LINE_WORDS = 12  # a line of a title is short; a longer one is a sentence
NOT_A_PRODUCT = {"contents", "table of contents", "introduction", "preface", "overview", "getting started"}
HEADING_WORDS = 30  # a block of more words in large type is a paragraph, not a title
FUNCTION_WORDS = {"with", "from", "that", "this", "these", "their", "into", "onto", "over", "under", "about",
                  "between", "through", "when", "what", "which", "where", "your", "there"}


def usable_title(title: str, file_name: str) -> str:
    """The metadata title, or "" when it is a placeholder, an application's label, a file name or an id."""
    title = " ".join(title.split())
    stem = os.path.splitext(file_name)[0]
    if (not title or APPLICATION_PREFIX.match(title) or FILE_NAME.search(title) or _code_like(title)
            or title.lower() in PLACEHOLDER_TITLES or _squash(title) == _squash(stem) or names_a_kind_only(title)):
        return ""
    letters = sum(ch.isalpha() for ch in title)
    if letters < 3 or letters < sum(ch.isdigit() for ch in title) or len(title) > MAX_TITLE_CHARS:
        return ""
    return title


def _code_like(title: str) -> bool:
    """A name as files and records are named, not as documents are titled: words joined by underscores
    ("905_Precinct_NoOU", "Final_report v2"), or one word with digits in it or in capitals only ("S2MNCE01",
    "RPTQ"). A title's words are separated by spaces."""
    if "_" in title and title.count("_") >= title.count(" "):
        return True
    return " " not in title and (any(ch.isdigit() for ch in title) or title.isupper())


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text)).lower()


def choose_title(metadata_title: str, lines: list[Line], page_text: str, file_name: str) -> str:
    """The metadata title where it is usable and not contradicted by page 1, else page 1's title."""
    heading = title_on_page(lines)
    title = usable_title(metadata_title, file_name)
    if title and heading and _retitled(title, heading, page_text):
        return heading
    return title or heading


def _retitled(title: str, heading: str, page_text: str) -> bool:
    """Whether page 1 names the document otherwise than its metadata: the metadata title is not printed on the
    page, its heading is a title (not a sentence, nor the metadata title shortened: "List of French monarchs" for
    "… - Wikipedia") and the two share a word ("Art in Machine Learning" for "Creativity in Machine Learning": a
    draft's title left in the file). Sharing none, the two may name different things (a manual's "4K UHD Display
    User Manual" over a page headed by its model numbers): the metadata stays."""
    if _squash(title) in _squash(page_text) or _squash(heading) in _squash(title):
        return False
    if len(heading.split()) < 2 or heading.rstrip().endswith((".", ";", ":")) or names_a_kind_only(heading):
        return False
    return bool(_content_words(title) & _content_words(heading))


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())
            if len(w) > 3 and not w.isdigit() and w not in FUNCTION_WORDS}


def title_on_page(lines: list[Line]) -> str:
    return _filing_title(lines) or _cited_title(lines) or _largest_type(lines)


def _filing_title(lines: list[Line]) -> str:
    """An SEC filing names its registrant above "(Exact name of registrant …)": "BEST BUY CO., INC. Form 10-K"."""
    form = next((m.group(1).upper() for line in lines if (m := SEC_FORM.match(line.text))), None)
    at = next((i for i, line in enumerate(lines) if REGISTRANT.search(line.text)), None)
    if form is None or not at:
        return ""
    return f"{lines[at - 1].text} Form {form}"


def _cited_title(lines: list[Line]) -> str:
    """A report's "Recommended citation" quotes its title."""
    for i, line in enumerate(lines):
        if CITATION.search(line.text):
            found = QUOTED.search(" ".join(later.text for later in lines[i:i + 5]))
            if found:
                return found.group(1).strip().rstrip(".,;")
    return ""


def _largest_type(lines: list[Line]) -> str:
    """The block of lines set in the largest type on the page, clearly larger than the body text; a block of one
    word (a logo, a "Support" tab) only when there is no other. A block that only names the kind of document
    ("Help Guide") gives way to the product named beside it, or else to the next largest."""
    body = body_size(lines)
    candidates = [i for i, line in enumerate(lines) if line.size >= TITLE_SIZE * body and _wordy(line.text)]
    blocks = [_block(lines, i) for i in sorted(candidates, key=lambda i: (-lines[i].size, i))]
    texts = [_block_text(lines, block) for block in blocks]
    ranked = [n for n, text in enumerate(texts) if len(text.split()) > 1 and not _sentence(text)] + [
        n for n, text in enumerate(texts) if len(text.split()) <= 1]
    for n in ranked:
        if not names_a_kind_only(texts[n]):
            return texts[n]
        if named := _named_beside(lines, blocks[n]):
            return named
    return ""


def _sentence(text: str) -> bool:
    """A paragraph or a sentence set large (a pull quote, a page cut from a report's middle), not a title."""
    words = len(text.split())
    return words > HEADING_WORDS or (words > TITLE_LINE_WORDS and text.rstrip().endswith("."))


def _block_text(lines: list[Line], block: list[int]) -> str:
    return _join_lines([lines[i].text for i in block])[:MAX_TITLE_CHARS]


def names_a_kind_only(text: str) -> bool:
    """Whether `text` only names a kind of document: "Help Guide", "Owner's Manual", "Reference Guide"."""
    words = [word.strip(".,:;()").replace("’", "'") for word in text.lower().split()]
    return bool(words) and all(word in KIND_WORDS for word in words) and any(word in KIND_NOUNS for word in words)


def _named_beside(lines: list[Line], header: list[int]) -> str:
    """The product a "Help Guide" header belongs to: the title-like lines right under it ("Wireless Noise
    Canceling Stereo Headset" / "WH-1000XM4"), else right above it."""
    size = lines[header[0]].size
    return _title_lines(lines, header[-1], 1, size) or _title_lines(lines, header[0], -1, size)


def _title_lines(lines: list[Line], start: int, step: int, size: float) -> str:
    """The run of title-like lines next to line `start` (below it: step 1, above it: -1), each close to the
    last."""
    picked, previous, i = [], lines[start], start + step
    while 0 <= i < len(lines) and len(picked) < MAX_TITLE_LINES:
        line = lines[i]
        gap = line.top - previous.bottom if step > 0 else previous.top - line.bottom
        if gap > KIND_GAP * size or not _title_like(line.text):
            break
        picked.append(line.text)
        previous, i = line, i + step
    return _join_lines(picked if step > 0 else picked[::-1])[:MAX_TITLE_CHARS]


def _title_like(text: str) -> bool:
    """A short line of words that is not a sentence, a copyright line, a kind of document or a section of the
    front matter."""
    return (_wordy(text) and len(text.split()) <= TITLE_LINE_WORDS and not text.rstrip().endswith((".", ":", ";"))
            and not COPYRIGHT.search(text) and "©" not in text and not names_a_kind_only(text)
            and text.lower().strip() not in NOT_A_PRODUCT)


def _block(lines: list[Line], top: int) -> list[int]:
    """Line `top` and its neighbours in about the same type, close above or below."""
    size = lines[top].size
    block = [top]
    for step in (-1, 1):
        i = top + step
        while 0 <= i < len(lines) and len(block) < MAX_TITLE_LINES:
            near, line = lines[block[-1] if step > 0 else block[0]], lines[i]
            gap = line.top - near.bottom if step > 0 else near.top - line.bottom
            if not SAME_SIZE * size <= line.size <= size / SAME_SIZE or gap > size or not _wordy(line.text):
                break
            block = block + [i] if step > 0 else [i] + block
            i += step
    return block


def _wordy(text: str) -> bool:
    """Words, not a page number, a date, a rule or an address."""
    return (sum(ch.isalpha() for ch in text) >= 3 and "@" not in text and "://" not in text
            and not text.lower().startswith("www."))


def _join_lines(texts: list[str]) -> str:
    """One line of text; "AB-" + "STRACTION" rejoined, tokens without a letter or digit (OCR debris) dropped."""
    joined = ""
    for text in texts:
        if joined.endswith("-") and joined[-2:-1].isalpha() and text[:1].isalpha():
            joined = joined[:-1] + text
        else:
            joined = f"{joined} {text}".strip()
    return " ".join(token for token in joined.split() if any(ch.isalnum() for ch in token) or token in KEPT_SIGNS)


# -- authors ---------------------------------------------------------------------------------------------------

PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "del", "della", "du", "la", "le", "bin", "al", "el",
             "dos", "das", "ten", "ter", "y"}
NAME_TOKEN = re.compile(r"^([A-ZÀ-Þ][a-zß-ÿ'’]+|[A-ZÀ-Þ]{2,}|[A-ZÀ-Þ]\.?)(-([A-ZÀ-Þ][a-zß-ÿ'’]+|[A-ZÀ-Þ]\.?))*$")
NOT_A_NAME = {"university", "institute", "academy", "laboratory", "laboratories", "lab", "labs", "school",
              "college", "department", "center", "centre", "faculty", "group", "foundation", "hospital",
              "research", "inc", "inc.", "ltd", "llc", "corp", "corporation", "company", "co.", "google",
              "deepmind", "microsoft", "meta", "amazon", "ibm", "nvidia", "openai", "abstract", "introduction",
              "online", "division", "office", "governor", "director", "secretary", "manager", "editor", "report",
              "states", "united", "commission", "agency", "ministry", "association", "society", "press"}
SEPARATORS = re.compile(r"\s*(?:,|;|&|\band\b|[∗*†‡§¶#\d]+)\s*")
BYLINE = re.compile(r"^by\s+(.+)$", re.I)
MAX_AUTHOR_LINES = 12
AUTHOR_GAP = 2.5  # names sit within this many title heights under the title (not a governor further down)


def person_names(text: str) -> list[str]:
    """The names in "Ann Lee, Bo Chen and Cy Diaz" (marks and affiliation numbers between them are separators);
    [] unless every piece reads as a person's name."""
    names = _pieces(text)
    return names if names and all(_is_name(name) for name in names) else []


def _is_name(name: str) -> bool:
    tokens = name.split()
    if not 2 <= len([t for t in tokens if t not in PARTICLES]) <= 4 or any(t.lower().strip(".,") in NOT_A_NAME for t in tokens):
        return False
    named = [t for t in tokens if t not in PARTICLES]
    return all(NAME_TOKEN.match(t) for t in named) and sum(len(t.strip(".")) > 1 for t in named) >= 2


def usable_authors(author: str) -> str:
    return ", ".join(person_names(author))


def authors_on_page(lines: list[Line], title: str) -> str:
    """A "By …" line, or the lines of names right under the title."""
    for line in lines:
        byline = BYLINE.match(line.text)
        if byline and (names := person_names(byline.group(1))):
            return ", ".join(names)
    end = _title_end(lines, title)
    return "" if end is None else _names_under(lines, end)


def _names_under(lines: list[Line], end: int) -> str:
    """The names in the lines after line `end` (the title's last), up to the first line that is not names (an
    affiliation, an e-mail address, "Abstract") or a gap; a name wrapped onto the next line ("…, Meng" /
    "Wang, and …") is joined again."""
    names: list[str] = []
    previous = lines[end]
    for line in lines[end + 1:end + 1 + MAX_AUTHOR_LINES]:
        pieces = _pieces(" , ".join(line.parts))
        if line.top - previous.bottom > AUTHOR_GAP * lines[end].size or not _names_but_wrapped(pieces):
            break
        if names and len(names[-1].split()) == 1 and len(pieces[0].split()) == 1:
            names[-1] += " " + pieces.pop(0)
        names += pieces
        previous = line
    return ", ".join(names) if names and all(_is_name(name) for name in names) else ""


def _pieces(text: str) -> list[str]:
    return [" ".join(piece.split()) for piece in SEPARATORS.split(text) if piece and piece.strip()]


def _names_but_wrapped(pieces: list[str]) -> bool:
    """Every piece a name, but the first and the last may be a name's half, wrapped across lines."""
    def whole_or_half(i: int, piece: str) -> bool:
        return _is_name(piece) or (i in (0, len(pieces) - 1) and len(piece.split()) == 1
                                   and bool(NAME_TOKEN.match(piece)) and piece.lower() not in NOT_A_NAME)
    return bool(pieces) and any(_is_name(p) for p in pieces) and all(
        whole_or_half(i, p) for i, p in enumerate(pieces))


def _title_end(lines: list[Line], title: str) -> int | None:
    """The index of the title's last line on the page, if the title is printed there (in consecutive lines)."""
    wanted = _squash(title)
    for i in range(len(lines)):
        text = ""
        for j in range(i, min(len(lines), i + MAX_TITLE_LINES)):
            text += _squash(lines[j].text)
            if not text or not wanted.startswith(text):
                break
            if len(text) >= 0.9 * len(wanted):
                return j
    return None


# -- year ------------------------------------------------------------------------------------------------------

YEAR = r"(1[89]\d\d|20\d\d)"
MONTH = (r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?")
DATES = [re.compile(p, re.I) for p in (
    rf"\b{MONTH},?\s+(\d{{1,2}}(st|nd|rd|th)?,?\s+)?{YEAR}\b",  # May 3, 2018 · April 2014 · May, 2018
    rf"\b\d{{1,2}}(st|nd|rd|th)?\s+{MONTH},?\s+{YEAR}\b",  # 31st March 2003
    rf"\b\d{{1,2}}[/.-]\d{{1,2}}[/.-]{YEAR}\b",  # 6/3/2020 · 25-03-2015
    rf"\b{YEAR}-\d\d-\d\d\b",  # 2020-06-03
)]
ARXIV_ID = re.compile(r"\barXiv:(\d\d)(\d\d)\.\d{4,5}")
ARXIV_FILE = re.compile(r"^(\d\d)(\d\d)\.\d{4,5}(v\d+)?$")
COPYRIGHT = re.compile(rf"(©|\(c\)|c\u20dd|copyright)\s*(©\s*)?{YEAR}\b", re.I)  # c⃝: LaTeX's drawn ©
# a year in a title, but not the start of a span of years ("Assaults Reported, 1909-2009"): what it covers, not when
YEAR_IN_TITLE = re.compile(rf"(?<![\d.-]){YEAR}(?![\d.])(?!\s*[-–]\s*(?:1[89]|20)\d\d)")
DATELINE_WORDS = 12  # a dateline is short ("FOR RELEASE MAY 3, 2018"); a date in a sentence is about something else
DATELINE_TOP, DATELINE_BOTTOM = 0.3, 0.85  # and sits in the top or bottom margin of the page
# "11/3/2024, 2:05 PM" at a page's top or foot: the moment a browser printed the page, not the page's date
PRINT_STAMP = re.compile(r",?\s*\d{1,2}:\d\d\b")
NUMERIC_DATES = DATES[2:]
# A web page's statement of its own version: "This page was last edited on 12 May 2019", "Last modified: …",
# Wikipedia's "old revision of this page, as edited by … at 17:01, 24 April 2019" (the date within REVISION_REACH
# characters), "Updated: March 5, 2019" (the date right after). Not a journal's "Received …; revised …": that is
# the paper's history, and its copyright line dates it.
REVISED = re.compile(r"\b(?:last\s+(?:edited|updated|modified|revised|reviewed)|as\s+edited\s+by)\b", re.I)
REVISION_REACH = 80
UPDATED = re.compile(r"\bupdated(?:\s+on)?\s*:?\s*", re.I)
LATER_PAGES = 10  # a copyright line repeated in the page footers shows within the first pages (or on the last)


def year_of(lines: list[Line], page_text: str, page_height: float, title: str, file_name: str,
            created: str, later_pages: Callable[[], list[str]] = list) -> int | None:
    """The first of: an arXiv id's year (of the stamp on page 1 or the file name), a year in the title, page 1's
    revision date, copyright year, dateline, recommended citation's date or a line that is only a date; then
    `later_pages()` (the text of
    the next pages and the last: read only when page 1 says nothing): the last page's revision date, a copyright
    year; last, the PDF's creation date (a printout's: the day it was printed)."""
    stem = os.path.splitext(file_name)[0]
    arxiv = ARXIV_ID.search(page_text) or ARXIV_FILE.match(stem)
    if arxiv and 1 <= int(arxiv.group(2)) <= 12 and int(arxiv.group(1)) >= 7:
        return 2000 + int(arxiv.group(1))
    for found in (YEAR_IN_TITLE.search(title), _revision_date(page_text), COPYRIGHT.search(page_text),
                  _dateline(lines, page_height), _citation_date(lines), _date_alone(lines)):
        if found:
            return _plausible(int(found.groups()[-1]))
    if found := _later_year(later_pages()):
        return _plausible(int(found.groups()[-1]))
    match = re.match(r"D:(\d{4})", created or "")
    return _plausible(int(match.group(1))) if match else None


def _revision_date(text: str):
    """The date a "last edited on …" or "Updated: …" statement gives, if the text makes one."""
    for said in REVISED.finditer(text):
        reach = text[said.end():said.end() + REVISION_REACH]
        dates = [m for pattern in DATES if (m := pattern.search(reach))]
        if dates:
            return min(dates, key=lambda m: m.start())
    for said in UPDATED.finditer(text):
        if date := next((m for pattern in DATES if (m := pattern.match(text, said.end()))), None):
            return date
    return None


def _later_year(pages: list[str]):
    """The last page's revision date (where a web page says when it was last edited), else the first copyright
    line on the pages after page 1 (a manual's footer)."""
    if pages and (revised := _revision_date(pages[-1])):
        return revised
    return next((m for text in pages if (m := COPYRIGHT.search(text))), None)


def _dateline(lines: list[Line], page_height: float):
    for line in lines:
        where = line.top / page_height if page_height else 0.5
        if DATELINE_TOP <= where <= DATELINE_BOTTOM or len(line.text.split()) > DATELINE_WORDS:
            continue
        found = {m.end(): m for pattern in DATES for m in pattern.finditer(line.text)}  # one date, however read
        if len(found) == 1 and not re.search(r"[–—]|\bto\b", line.text):  # a range is not the document's date
            date = next(iter(found.values()))
            if not _print_stamp(date, line.text):
                return date
    return None


def _date_alone(lines: list[Line]):
    """A line that is nothing but a date, wherever it stands (a slide's cover: under the title, mid-page)."""
    for line in lines:
        for pattern in DATES:
            if found := pattern.fullmatch(line.text.strip()):
                return found
    return None


def _print_stamp(date: re.Match, text: str) -> bool:
    """A numeric date with the time after it: when the page was printed ("11/3/2024, 2:05 PM")."""
    numeric = any(pattern.fullmatch(date.group()) for pattern in NUMERIC_DATES)
    return numeric and bool(PRINT_STAMP.match(text, date.end()))


def _citation_date(lines: list[Line]):
    for i, line in enumerate(lines):
        if CITATION.search(line.text):
            text = " ".join(later.text for later in lines[i:i + 3])
            return next((m for pattern in DATES if (m := pattern.search(text))), None)
    return None


def _plausible(year: int) -> int | None:
    return year if 1800 <= year <= datetime.date.today().year + 1 else None


# -- a document ------------------------------------------------------------------------------------------------

def describe(metadata: dict, lines: list[Line], page_text: str, page_height: float, file_name: str,
             later_pages: Callable[[], list[str]] = list) -> DocumentInfo:
    title = choose_title(metadata.get("title") or "", lines, page_text, file_name)
    authors = authors_on_page(lines, title) if title else ""
    authors = authors or usable_authors(metadata.get("author") or "")
    year = year_of(lines, page_text, page_height, title, file_name, metadata.get("creationDate") or "", later_pages)
    return DocumentInfo(title, authors, year)


def document_info(path: str, ocr_words: list[Word] | None = None) -> DocumentInfo:
    """The title, authors and year of the PDF at `path`; `ocr_words`: page 1's words when its text came from OCR
    (a scanned cover has no text layer to read). Raises PdfError when the file cannot be opened."""
    with open_pdf(path) as doc:
        page = doc[0]
        lines = ocr_lines(ocr_words) if ocr_words else text_layer_lines(page)
        text = " ".join(line.text for line in lines) if ocr_words else page.get_text("text", flags=0)
        return describe(doc.metadata or {}, lines, text, page.rect.height, os.path.basename(path),
                        lambda: _later_page_texts(doc))


def _later_page_texts(doc) -> list[str]:
    """The text layer of the pages after page 1 that a year is looked for on: the next few, and the last."""
    numbers = list(range(1, min(LATER_PAGES, doc.page_count)))
    if doc.page_count > LATER_PAGES:
        numbers.append(doc.page_count - 1)
    return [_page_text(doc, n) for n in numbers]


def _page_text(doc, number: int) -> str:
    try:
        return doc[number].get_text("text", flags=0)
    except (RuntimeError, ValueError):  # a damaged page further on costs the year's evidence on it, nothing more
        return ""

