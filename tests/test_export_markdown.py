"""The Markdown export reads as the answer did: characters are escaped only where Markdown would otherwise read
them as markup, so ordinary prose (parentheses, dots, hyphens, colons, dollar amounts, percentages) is written as
it is, and hostile text (emphasis, headings, lists, links, HTML, code, tables, math, autolinks) renders back as
its own characters. Checked by rendering the export with real Markdown parsers and comparing what a reader sees
with the answer's text, question and quotes."""
from __future__ import annotations

import html
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from docqa_desktop.answers import Answer, AnswerStatus, Citation
from docqa_desktop.export import export, file_name, markdown_text

PROSE = ("Net revenue grew 12.5% (from $3.2 million to $3.6 million) in fiscal 2019-2020, i.e. about 1/8 - see "
         "p. 4. The U.S. share: 41.2%, up from 38% (e.g. Q3); Smith-Jones & Co. said so at 18:40 on 3.5.2020, "
         "2 * 3 = 6, snake_case and ~5% too.")
# one line each, as an answer or a page may write them; each must come back as written, none as markup
HOSTILE_LINES = [
    "*not emphasis* and **not bold** and a*b*c and _not italic_ and __init__ and snake_case",
    "# not a heading",
    "1. not a list",
    "2) nor this",
    "- nor a bullet",
    "+ nor this",
    "* nor this",
    "> not a quote",
    "[a link](http://example.com) and ![an image](x.png) and [1][2]",
    "[ref]: http://example.com/defined",
    "<b>not bold</b> <script>alert(1)</script> &amp; &#60; <http://example.com/auto>",
    "`not code` and ``neither`` and ```",
    "a | b | c",
    "--- | --- | ---",
    "~~not struck~~ and ~5% and ~~~",
    "$x$ and $$y$$ but $5 and $10",
    "===",
    "www.example.com and http://example.org/page and //example.net and mail me@example.net and notes.md",
    "a closing hash #",
    "a trailing backslash \\",
]
HOSTILE = "\n".join(HOSTILE_LINES)
QUESTION = "# What did *Smith-Jones* say about [the] <b>figures</b> in `fiscal 2019`?"
QUOTE = "1. Revenue (net): $3.6 million, up 12.5% - see <b>Table 2</b> | [a](b) *note*"


def renderers() -> list:
    """CommonMark; with GFM's tables and strikethrough; and markdown-it's GFM-like preset, whose linkify turns
    bare domains into links (VS Code's preview does), where linkify-it-py is installed."""
    found = [pytest.param(MarkdownIt("commonmark"), id="commonmark"),
             pytest.param(MarkdownIt("commonmark").enable(["table", "strikethrough"]), id="gfm-tables")]
    try:
        import linkify_it  # noqa: F401  (optional: linkify-it-py)
        found.append(pytest.param(MarkdownIt("gfm-like"), id="gfm-linkify"))
    except ImportError:
        found.append(pytest.param(None, id="gfm-linkify", marks=pytest.mark.skip("linkify-it-py not installed")))
    return found


class Blocks(HTMLParser):
    """The rendered HTML as (block tag, inner tags, visible text) per heading, paragraph and list item."""
    BLOCKS = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "pre", "blockquote", "table", "hr"}

    def __init__(self, rendered: str):
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[str, list[str], str]] = []
        self._open: list[tuple[str, list[str], list[str]]] = []
        self.feed(rendered)

    def handle_starttag(self, tag, attrs):
        if tag in self.BLOCKS:
            self._open.append((tag, [], []))
            if tag == "hr":
                self.handle_endtag(tag)
        elif self._open:
            self._open[-1][1].append(tag)
            if tag == "br":
                self._open[-1][2].append("\n")

    def handle_endtag(self, tag):
        if tag in self.BLOCKS and self._open and self._open[-1][0] == tag:
            name, tags, text = self._open.pop()
            self.blocks.append((name, tags, "".join(text)))

    def handle_data(self, data):
        if self._open:
            self._open[-1][2].append(data.replace("\n", " "))  # a newline in HTML shows as a space; <br> breaks

    def kinds(self) -> set[str]:
        return {name for name, _, _ in self.blocks}


def lines_of(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n")]


def answer(text: str, question: str = QUESTION, quote: str = QUOTE) -> Answer:
    cited = Citation("report.pdf", "/nowhere/report.pdf", 4, "4", quote)
    return Answer("a-markdown", question, "simpledoc", text, AnswerStatus.PASSAGES, [cited], seconds=2.5)


def exported(tmp_path, text: str, **kwargs) -> str:
    return export(answer(text, **kwargs), "md", tmp_path / "answer.md", render=lambda c: None).read_text("utf-8")


def test_ordinary_prose_is_written_as_it_is(tmp_path):
    source = exported(tmp_path, PROSE, question="What was the revenue (net) in 2019-2020, in $ million?",
                      quote="Revenue was $3.6 million (2019: $3.2 million), up 12.5%.")
    assert PROSE in source.splitlines()  # not one backslash in the answer
    assert "What was the revenue (net) in 2019-2020, in $ million?" in source
    assert "Revenue was $3.6 million (2019: $3.2 million), up 12.5%." in source
    assert markdown_text("3.5 e.g. U.S. report.pdf 18:40 (a-b) 1/8 $5 41.2% Q&A") == \
        "3.5 e.g. U.S. report.pdf 18:40 (a-b) 1/8 $5 41.2% Q&A"


@pytest.mark.parametrize("renderer", renderers())
def test_hostile_text_renders_back_as_its_own_characters(renderer, tmp_path):
    blocks = Blocks(renderer.render(exported(tmp_path, HOSTILE)))
    assert blocks.kinds() == {"h1", "h2", "p", "li"}  # no table, quote, code block or rule
    assert [block for block in blocks.blocks if block[0] == "h2"] == [("h2", [], "Citations")]  # the export's own
    heading, verdict, text = blocks.blocks[:3]
    assert heading == ("h1", [], QUESTION)
    assert verdict[1] == ["strong"]  # the export's own bold, around the verdict
    assert text[1] == ["br"] * (len(HOSTILE_LINES) - 1)  # line breaks, and no other markup
    assert lines_of(text[2]) == HOSTILE_LINES
    [item] = [block for block in blocks.blocks if block[0] == "li"]
    assert item[1] == ["br"] and f"— “{QUOTE}”" in item[2]


@pytest.mark.parametrize("renderer", renderers())
def test_each_hostile_line_alone_renders_as_text(renderer):
    """Each line as the first of a block, where headings, lists, quotes, fences and tables begin."""
    for line in HOSTILE_LINES:
        blocks = Blocks(renderer.render(markdown_text(line)))
        assert [(name, tags) for name, tags, _ in blocks.blocks] == [("p", [])], (line, blocks.blocks)
        assert blocks.blocks[0][2].strip() == line


def test_the_whole_export_shows_question_verdict_answer_proof_and_quote_as_written(tmp_path):
    """An answered value with its computation, check and run line, as the app makes it."""
    computed = Answer("a-computed", "By how much did sales grow (2022-2023), in %?", "simpledoc",
                      "Sales grew by 10.29% (from $51.5 to $56.8 million).", AnswerStatus.ANSWERED,
                      [Citation("report.pdf", "/nowhere/report.pdf", 7, "7", "Sales: $51.5 million (2022), "
                                "$56.8 million (2023).")], seconds=41.2, short_answer="10.29",
                      computation="(56.8 - 51.5) / 51.5 * 100", check="Checked: 56.8 and 51.5 are quoted")
    source = export(computed, "md", tmp_path / "computed.md", render=lambda c: None).read_text("utf-8")
    for written in ("# By how much did sales grow (2022-2023), in %?", "Sales grew by 10.29% (from $51.5 to $56.8 "
                    "million).", "Computed: (**56.8** - **51.5**) / **51.5** * 100 = 10.29",
                    "*Checked: 56.8 and 51.5 are quoted*", "· 41.2 s*",
                    "“Sales: $51.5 million (2022), $56.8 million (2023).”"):
        assert written in source, written
    shown = html.unescape(" ".join(b[2] for b in Blocks(MarkdownIt("commonmark").render(source)).blocks))
    assert "Computed: (56.8 - 51.5) / 51.5 * 100 = 10.29" in shown


@pytest.mark.parametrize("computation, short, line", [
    ("5 * 2", "10", "Computed: **5** * 2 = 10"),
    ("-5 * 2", "-10", "Computed: -5 * 2 = -10"),  # the quote says 5, not -5
    ("−5 * 2", "-10", "Computed: −5 * 2 = -10"),  # U+2212
    ("12 - 5", "7", "Computed: 12 - **5** = 7"),  # a minus between two numbers is no sign
])
def test_a_computed_number_is_marked_quoted_only_with_the_quotes_sign(tmp_path, computation, short, line):
    answer = Answer("a-signed", "How many units were returned, doubled?", "simpledoc", short, AnswerStatus.ANSWERED,
                    [Citation("report.pdf", "/nowhere/report.pdf", 7, "7", "Returns: 5 units.")], short_answer=short,
                    computation=computation)
    assert line in export(answer, "md", tmp_path / "signed.md", render=lambda c: None).read_text("utf-8")


def test_pieces_inside_a_line_keep_their_edges_safe():
    """A piece between markup of the export's own (a computation's numbers in bold) is escaped where its edges
    could let a delimiter open or close, and only there."""
    assert markdown_text(" * ", starts_line=False) == " * "  # spaces on both sides: never emphasis
    assert markdown_text("*", starts_line=False) == "\\*"  # between two numbers: "2*3*4" would be emphasis
    assert markdown_text(" - ", starts_line=False) == " - "  # not at a line's start: no bullet
    assert markdown_text("- x") == "\\- x"
    assert markdown_text("1. x", starts_line=False) == "1. x"


def test_an_export_is_named_after_its_question():
    def named(question: str, fmt: str = "md", whole_thread: bool = False) -> str:
        return file_name(Answer(id="23033348f9cf", question=question, method="quoted"), fmt, whole_thread)

    assert named("When does the last ferry leave?") == "when-does-the-last-ferry-leave.md"
    assert named("When does the last ferry leave?", "pdf", True) == "thread-when-does-the-last-ferry-leave.pdf"
    assert named("Wie hoch ist die Förderung 2024?") == "wie-hoch-ist-die-förderung-2024.md"
    long = named("What " + "very " * 30 + "long question is this?")
    assert long.startswith("what-very-") and len(long) <= 60 + len(".md") and not long.endswith("-.md")
    assert named("???", "json") == "23033348f9cf.json"  # nothing to name it by: its id
