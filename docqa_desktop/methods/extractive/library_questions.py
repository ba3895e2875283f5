"""Questions about the library itself, which its index answers exactly: which documents (or pages) mention a
phrase, how many do, which were published by someone or in a year, which is the newest about something.

Retrieval reads a handful of pages, so a retrieval-only answer to "which of my files mention Port Ellery?" is
wrong by construction; the index holds every page's text and every document's catalogue entry, and can count.
Recognising such a question is kept conservative: what is listed or counted must be documents (files, reports,
papers, PDFs, …) or pages, followed by what they must do (mention a phrase, be by someone, be from a year), so a
question about a document's content ("Which datasets does the paper mention?", "How many pages does the report
have?") stays an ordinary question. Pure: no index here, only the question's words.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

LIST, COUNT, NEWEST, OLDEST = "list", "count", "newest", "oldest"  # what is asked
DOCUMENTS, PAGES = "documents", "pages"  # of what

MAX_PHRASE_WORDS = 6  # a longer "phrase" is a clause ("mention that revenue fell in 2020"), not a name
MAX_AUTHOR_WORDS = 8


@dataclass(frozen=True)
class LibraryQuestion:
    """What a library question asks: a list or a count (or the newest / oldest document) of documents or pages,
    filtered by a phrase their text holds, an author or publisher, a year; no filter: every one in scope."""
    asks: str  # LIST | COUNT | NEWEST | OLDEST
    of: str  # DOCUMENTS | PAGES
    mentions: str = ""  # whole words their text must hold (case- and accent-insensitive); "": none asked
    author: str = ""  # the author or publisher: in the metadata's authors, or named on the first page
    year: int | None = None  # the year in the document's metadata

    @property
    def filtered(self) -> bool:
        return bool(self.mentions or self.author or self.year is not None)


_YEAR = r"(?:1[89]|20)\d\d"
_DOC_NOUN = (r"(?:pdf\s+|pdf-)?(?:documents?|docs?|files?|pdfs?|reports?|papers?|articles?|publications?|books?|"
             r"manuals?|(?:slide\s*)?decks?|presentations?)")
_PAGE_NOUN = r"(?:pages?|slides?)"
_UNIT = rf"(?P<unit>{_DOC_NOUN}|{_PAGE_NOUN})"
_DOC_UNIT = rf"(?P<unit>{_DOC_NOUN})"
_OWN = r"(?:(?:of\s+)?(?:all\s+(?:of\s+)?(?:my|the|our)|my|the|our|these|those|all|any\s+of\s+(?:my|the|our))\s+)?"
_LIBRARY = (r"(?:\s+(?:in|of|from|across|among|within|on)\s+(?:my|the|our|this|these)\s+(?:library|collection|"
            r"index|folders?|corpus|documents|files|pdfs|database|computer|machine|disk))?")
_YEAR_QUALIFIER = (rf"(?:\s+(?:(?:that|which)\s+(?:are|were)\s+)?(?:from|published\s+in|written\s+in|dated|of)\s+"
                   rf"(?:the\s+year\s+)?(?P<qyear>{_YEAR}))?")
_RELATIVE = r"(?:\s+(?:that|which|who|where))?"

_LIST_HEAD = (r"(?:(?:(?:in|on|from)\s+)?(?:which|what)\s+" + _OWN +
              r"|(?:please\s+)?(?:list|show|find|give|name|tell|get)(?:\s+me)?(?:\s+(?:a|the)\s+list\s+of)?\s+" + _OWN +
              r"|(?:are\s+there\s+any|is\s+there\s+any|do\s+any(?:\s+of\s+(?:my|the|our))?"
              r"|does\s+any(?:\s+of\s+(?:my|the|our))?)\s+)")
_LIST_VERB_HEAD = (r"(?:please\s+)?(?:list|show|give|name|tell)(?:\s+me)?(?:\s+(?:a|the)\s+list\s+of)?\s+"
                   r"(?:(?:all\s+(?:of\s+)?)?(?:my|the|our)\s+|all\s+|every\s+)")
_COUNT_HEAD = (r"(?:(?:(?:in|on|from)\s+)?how\s+many\s+" + _OWN +
               r"|(?:please\s+)?(?:count|what\s+is\s+the\s+number\s+of|what's\s+the\s+number\s+of|number\s+of)\s+"
               + _OWN + ")")

_MENTION = (r"\s+(?:mentions?|mentioned|mentioning|refers?\s+to|referring\s+to|references?|referencing|"
            r"(?:contains?|containing|includes?|including|has|have|having|with|use|uses|using)\s+the\s+"
            r"(?:words?|phrase|terms?|names?|string)|(?:contains?|containing|includes?|including)(?=\s+[\"“'‘]))"
            r"\s+(?P<phrase>.+)")
_PASSIVE = (r"\s+(?:is|are|was|were)\s+(?P<phrase>.+?)\s+(?:mentioned|referred\s+to|referenced|named)"
            r"(?:\s+(?:in|on|at))?")
_AUTHOR = (r"\s+(?:(?:are|were|is|was)\s+)?(?:(?:published|written|authored|issued|released|produced|prepared|"
           r"put\s+out|created|made)\s+)?by\s+(?P<author>.+)")
_AUTHOR_FROM = r"\s+(?:are|were|is|was)\s+(?:published\s+)?from\s+(?P<from_author>.+)"
_AUTHOR_DID = (r"\s+(?:did|has|have)\s+(?P<author>.+?)\s+(?:publish|published|write|written|author|authored|issue|"
               r"issued|release|released|produce|produced)")
_YEAR_PREDICATE = (rf"\s+(?:(?:are|were|is|was)\s+)?(?:(?:published|written|dated|issued|released|produced|"
                   rf"created)\s+)?(?:from|in|of|dated)\s+(?:the\s+year\s+)?(?P<year>{_YEAR})")
_EVERY = (r"\s+(?:are\s+there|do\s+i\s+have|have\s+i\s+(?:got|indexed|added)|(?:are|were|have\s+been)\s+indexed|"
          r"(?:are|is)\s+(?:in|on)\s+(?:my|the|our)\s+(?:library|collection|index|computer|machine)|"
          r"(?:are\s+)?in\s+(?:my|the|our)\s+(?:library|collection|index)|does\s+(?:my|the|our)\s+library\s+"
          r"(?:have|hold|contain)|(?:is|are)\s+in\s+(?:it|there))")
_ORDER = (r"(?P<order>newest|latest|most\s+recent|most\s+recently\s+(?:published|written|dated)|oldest|earliest|"
          r"least\s+recent)")
_ABOUT = (r"\s+(?:about|on|regarding|concerning|mentioning|(?:that|which)\s+mentions?|(?:that|which)\s+(?:is|are)\s+"
          r"about)\s+(?P<phrase>.+)")
_NEWEST_HEAD = (r"(?:(?:what|which)(?:'s|’s|\s+is|\s+are|\s+was)?\s+|(?:please\s+)?(?:show|find|give|list|name|tell)"
                r"(?:\s+me)?\s+)(?:the|my|our)\s+" + _ORDER + r"(?:\s+(?:of\s+)?(?:my|the|our))?\s+")

_STEM = _UNIT + _LIBRARY + _YEAR_QUALIFIER + _RELATIVE

# (what is asked, the pattern of the whole question, whether a filter is needed). The first that matches wins.
_FORMS = [
    (LIST, _LIST_HEAD + _UNIT + _LIBRARY + _YEAR_QUALIFIER + r"\s+(?:(?:published|written)\s+)?by\s+(?P<author>.+?)"
     + _RELATIVE + _MENTION),
    (COUNT, _COUNT_HEAD + _UNIT + _LIBRARY + _YEAR_QUALIFIER + r"\s+(?:(?:published|written)\s+)?by\s+"
     r"(?P<author>.+?)" + _RELATIVE + _MENTION),
    (LIST, _LIST_HEAD + _STEM + _MENTION),
    (COUNT, _COUNT_HEAD + _STEM + _MENTION),
    (LIST, _LIST_HEAD + _UNIT + _LIBRARY + _PASSIVE),
    (COUNT, _COUNT_HEAD + _UNIT + _LIBRARY + _PASSIVE),
    (LIST, _LIST_HEAD + _STEM + _AUTHOR),
    (COUNT, _COUNT_HEAD + _STEM + _AUTHOR),
    (LIST, _LIST_HEAD + _UNIT + _LIBRARY + _AUTHOR_FROM),
    (COUNT, _COUNT_HEAD + _UNIT + _LIBRARY + _AUTHOR_FROM),
    (LIST, _LIST_HEAD + _UNIT + _LIBRARY + _AUTHOR_DID),
    (COUNT, _COUNT_HEAD + _UNIT + _LIBRARY + _AUTHOR_DID),
    (LIST, _LIST_HEAD + _UNIT + _LIBRARY + _RELATIVE + _YEAR_PREDICATE),
    (COUNT, _COUNT_HEAD + _UNIT + _LIBRARY + _RELATIVE + _YEAR_PREDICATE),
    (LIST, _LIST_HEAD + _UNIT + _YEAR_QUALIFIER + _EVERY + _LIBRARY),
    (COUNT, _COUNT_HEAD + _UNIT + _YEAR_QUALIFIER + _EVERY + r"?" + _LIBRARY),
    (LIST, _LIST_VERB_HEAD + _UNIT + _LIBRARY + _YEAR_QUALIFIER),
    (NEWEST, _NEWEST_HEAD + _DOC_UNIT + _LIBRARY + r"(?:" + _ABOUT + r"|" + _AUTHOR + r"|" + _YEAR_PREDICATE + r")?"),
    (NEWEST, r"(?:what|which)\s+" + _DOC_UNIT + _LIBRARY + r"(?:" + _ABOUT.replace("(?P<phrase>.+)", "(?P<phrase>.+?)")
     + r")?\s+(?:is|was)\s+(?:the\s+)?" + _ORDER + _LIBRARY),
]
_PATTERNS = [(asks, re.compile(pattern, re.I)) for asks, pattern in _FORMS]

_TRAILING = re.compile(r"(?:\s+(?:in|of|from|across|among|within|on)\s+(?:my|the|our|this|these|all\s+(?:my|the))\s+"
                       r"(?:library|collection|index|folders?|corpus|documents|files|pdfs|pages|database|computer)"
                       r"|\s+(?:at\s+all|anywhere|in\s+(?:their|the)\s+text|so\s+far|please))+$", re.I)
_QUOTES = "\"“”'‘’«»"
_ARTICLE = re.compile(r"^(?:the|a|an)\s+(?=\S)")  # lower case only: "The Hague" keeps its article
# a category noun after a name ("the HotpotQA dataset", "the Lufthansa airline"): the name is what pages say
_CATEGORY = re.compile(r"\s+(?:dataset|data\s+set|benchmark|corpus|model|method|algorithm|company|firm|airline|"
                       r"city|town|country|state|region|river|island|organi[sz]ation|agency|party|brand|product|"
                       r"framework|library|tool|program|programme|project|software|system|website)$")
_CLAUSE_START = re.compile(r"^(?:that|whether|how|why|what|when|where|who|whom|which|if|anything|something|"
                           r"nothing|any|some|it|its|them|they|this|these|those|me|him|her|us|you)\b", re.I)
_VERBS = re.compile(r"\b(?:is|are|was|were|be|been|did|does|do|have|has|had|will|would|can|could|should)\b", re.I)
_NAME_CONNECTORS = frozenset("of and for the & de del der van von du la le des et al al. y und on in at to".split())
_FORMAT_REQUEST = re.compile(r"\s*\bplease (?:write|answer|give|provide|respond|reply|use)\b.*$", re.I | re.S)


def parse_library_question(asked: str) -> LibraryQuestion | None:
    """What the question asks of the library, or None for an ordinary question about the documents' content."""
    text = _clean(asked)
    if not text:
        return None
    for asks, pattern in _PATTERNS:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        built = _built(asks, match)
        if built is not None:
            return built
    return None


def _clean(asked: str) -> str:
    text = _FORMAT_REQUEST.sub("", asked).strip() or asked.strip()
    text = " ".join(text.split())
    text = re.sub(r"^(?:please\s+|can\s+you\s+|could\s+you\s+)+", "", text, flags=re.I)
    return text.rstrip("?.!;: ").strip()


def _built(asks: str, match: re.Match) -> LibraryQuestion | None:
    groups = match.groupdict()
    unit = (groups.get("unit") or "").lower()
    of = PAGES if re.fullmatch(_PAGE_NOUN, unit) else DOCUMENTS
    if asks == NEWEST:
        order = " ".join((groups.get("order") or "").lower().split())
        asks = OLDEST if order in ("oldest", "earliest", "least recent") else NEWEST
    phrase = author = ""
    if groups.get("phrase") is not None:
        phrase = _phrase(groups["phrase"])
        if not phrase:
            return None
    named = groups.get("author") if groups.get("author") is not None else groups.get("from_author")
    if named is not None:
        # "from X" names a publisher only when X is written as a name ("from Pew Research Center", not "from work")
        author = _author(named, strict_case=groups.get("from_author") is not None)
        if not author:
            return None
    year = groups.get("year") or groups.get("qyear")
    return LibraryQuestion(asks, of, phrase, author, int(year) if year else None)


def _phrase(raw: str) -> str:
    """The phrase as pages must hold it: quotes, a leading lower-case article, a category noun after a name and
    trailing words about the library dropped; "" when it reads as a clause rather than a name or term."""
    text = _TRAILING.sub("", raw.strip()).strip().rstrip("?.!,;:")
    quoted = len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES
    text = text.strip(_QUOTES).strip()
    if not quoted:
        text = _ARTICLE.sub("", text)
        if _CLAUSE_START.match(text):
            return ""
        name = _CATEGORY.sub("", text)
        if name != text and re.search(r"[A-Z0-9]", name):
            text = name
    words = text.split()
    # "X or Y" is two phrases, which the index is not asked for: an ordinary question rather than a wrong "none"
    if not words or len(words) > MAX_PHRASE_WORDS or (not quoted and (_VERBS.search(text) or
                                                                      re.search(r"\bor\b", text, re.I))):
        return ""
    return text


def _author(raw: str, strict_case: bool) -> str:
    """An author or publisher as named: a name (capitalised words and their connectors), or any short text in
    lower case; "" for what reads as a clause ("the committee were asked")."""
    text = _TRAILING.sub("", raw.strip()).strip().rstrip("?.!,;:").strip(_QUOTES).strip()
    text = _ARTICLE.sub("", text)
    words = text.split()
    if not words or len(words) > MAX_AUTHOR_WORDS or _CLAUSE_START.match(text) or _VERBS.search(text) or \
            re.fullmatch(_YEAR, text) or re.match(r"(?:last|this|next|recent|previous)\b", text, re.I):
        return ""
    has_capitals = any(c.isupper() for c in text)
    if strict_case and not words[0][:1].isupper():
        return ""
    if has_capitals and not all(w[:1].isupper() or w[:1].isdigit() or w.lower() in _NAME_CONNECTORS
                                for w in words):
        return ""
    if not has_capitals and len(words) > 4:
        return ""
    return text
