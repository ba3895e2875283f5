"""Questions about the library answered from the index itself (issue 43, item 5): which of my files mention a
phrase, how many documents or pages do, which were published by someone or in a year, which is the newest about
something. The parser is pure (methods/extractive/library_questions.py); the answers come from a real DuckDB
index through `docqa ask` (methods/quoted/library.py, store/mentions.py)."""
from __future__ import annotations

import json

import pytest

from conftest import make_settings
from docqa_desktop.cli import main
from docqa_desktop.methods.extractive.library_questions import (COUNT, DOCUMENTS, LIST, NEWEST, OLDEST, PAGES,
                                                                LibraryQuestion, parse_library_question)
from docqa_desktop.service import Service
from docqa_desktop.settings import save
from docqa_desktop.store import keywords, mentions

# -- recognising a library question --------------------------------------------------------------------------------

RECOGNISED = {
    # which documents mention …
    "Which documents mention Lufthansa?": (LIST, DOCUMENTS, "Lufthansa", "", None),
    "Which files mention Lufthansa?": (LIST, DOCUMENTS, "Lufthansa", "", None),
    "Which reports mention Lufthansa?": (LIST, DOCUMENTS, "Lufthansa", "", None),
    "which papers mention lufthansa": (LIST, DOCUMENTS, "lufthansa", "", None),
    "Which PDFs mention Lufthansa?": (LIST, DOCUMENTS, "Lufthansa", "", None),
    "Which PDF files mention Lufthansa?": (LIST, DOCUMENTS, "Lufthansa", "", None),
    "Which document mentions Lufthansa?": (LIST, DOCUMENTS, "Lufthansa", "", None),
    "Which of my files mention Port Ellery?": (LIST, DOCUMENTS, "Port Ellery", "", None),
    "Which of the reports mention Port Ellery?": (LIST, DOCUMENTS, "Port Ellery", "", None),
    "Which documents in my library mention Florida?": (LIST, DOCUMENTS, "Florida", "", None),
    "Which documents mention Florida in my library?": (LIST, DOCUMENTS, "Florida", "", None),
    "What documents mention Florida?": (LIST, DOCUMENTS, "Florida", "", None),
    "In which documents is Port Ellery mentioned?": (LIST, DOCUMENTS, "Port Ellery", "", None),
    "Which documents is Florida mentioned in?": (LIST, DOCUMENTS, "Florida", "", None),
    "List all documents that mention \"solar farm\"": (LIST, DOCUMENTS, "solar farm", "", None),
    "List the files mentioning Gull Island.": (LIST, DOCUMENTS, "Gull Island", "", None),
    "Show me the reports that refer to Gull Island": (LIST, DOCUMENTS, "Gull Island", "", None),
    "Find the papers that mention BERT": (LIST, DOCUMENTS, "BERT", "", None),
    "Are there any documents that mention Lufthansa?": (LIST, DOCUMENTS, "Lufthansa", "", None),
    "Do any of my documents mention Lufthansa?": (LIST, DOCUMENTS, "Lufthansa", "", None),
    "Which documents contain the word ferry?": (LIST, DOCUMENTS, "ferry", "", None),
    "Which documents contain “Port Ellery”?": (LIST, DOCUMENTS, "Port Ellery", "", None),
    "Which documents mention the HotpotQA dataset?": (LIST, DOCUMENTS, "HotpotQA", "", None),  # the name, not "dataset"
    "Which documents mention The Hague?": (LIST, DOCUMENTS, "The Hague", "", None),  # a capital "The" is the name's
    "Which documents mention Donald Trump?": (LIST, DOCUMENTS, "Donald Trump", "", None),
    "Which documents mention Zürich?": (LIST, DOCUMENTS, "Zürich", "", None),
    # pages
    "Which pages mention Port Ellery?": (LIST, PAGES, "Port Ellery", "", None),
    "Which slides mention Lufthansa?": (LIST, PAGES, "Lufthansa", "", None),
    # counts
    "How many documents mention Florida?": (COUNT, DOCUMENTS, "Florida", "", None),
    "How many of my files mention Florida?": (COUNT, DOCUMENTS, "Florida", "", None),
    "How many pages mention Florida?": (COUNT, PAGES, "Florida", "", None),
    "On how many pages is Florida mentioned?": (COUNT, PAGES, "Florida", "", None),
    "How many documents are in my library?": (COUNT, DOCUMENTS, "", "", None),
    "How many documents do I have?": (COUNT, DOCUMENTS, "", "", None),
    "How many pages are there in my library?": (COUNT, PAGES, "", "", None),
    # author or publisher
    "List the reports by Pew Research Center": (LIST, DOCUMENTS, "", "Pew Research Center", None),
    "Which documents were published by Pew Research Center?": (LIST, DOCUMENTS, "", "Pew Research Center", None),
    "Which papers were written by Liangming Pan?": (LIST, DOCUMENTS, "", "Liangming Pan", None),
    "Which documents are from Pew Research Center?": (LIST, DOCUMENTS, "", "Pew Research Center", None),
    "Which documents did Pew Research Center publish?": (LIST, DOCUMENTS, "", "Pew Research Center", None),
    "How many reports are by the World Bank?": (COUNT, DOCUMENTS, "", "World Bank", None),
    "Which reports by Pew Research Center mention Florida?": (LIST, DOCUMENTS, "Florida", "Pew Research Center", None),
    # year
    "How many of my documents are from 2020?": (COUNT, DOCUMENTS, "", "", 2020),
    "Which documents were published in 2014?": (LIST, DOCUMENTS, "", "", 2014),
    "Which documents from 2020 mention Germany?": (LIST, DOCUMENTS, "Germany", "", 2020),
    # newest, oldest
    "What is the newest document about solar power?": (NEWEST, DOCUMENTS, "solar power", "", None),
    "What's the most recent paper on retrieval augmented generation?":
        (NEWEST, DOCUMENTS, "retrieval augmented generation", "", None),
    "Which is the latest report mentioning Port Ellery?": (NEWEST, DOCUMENTS, "Port Ellery", "", None),
    "Which document about Germany is the newest?": (NEWEST, DOCUMENTS, "Germany", "", None),
    "What is the latest report by Pew Research Center?": (NEWEST, DOCUMENTS, "", "Pew Research Center", None),
    "What is the oldest document in my library?": (OLDEST, DOCUMENTS, "", "", None),
}

ORDINARY = [
    "Which datasets does the paper mention?",  # what is listed is not documents or pages
    "How many pages does the report have?",
    "Which documents are most relevant to solar power?",
    "What does the report say about Florida?",
    "Which papers does the survey cite?",
    "How many employees does Best Buy have?",
    "Which documents mention that revenue fell in 2020?",  # a clause, not a phrase
    "Which articles of the constitution mention elections?",
    "What is the newest model?",
    "Which documents discuss climate change?",  # "discuss" is not "mention": no exact answer
    "Which two datasets are used?",
    "Which document has the highest revenue?",
    "Which files are from last year?",
    "Which documents are from work?",  # "from" names a publisher only when written as a name
    "How many pages in the report mention tables?",
    "What is the capital of France?",
    "Which papers mention any numbers?",
    "Which documents by Hinton discuss capsules?",
    "How many documents mention it?",
    "Which documents contain tables?",  # "contain" without "the word" or quotes is about content
    "Which documents mention Lufthansa or Germanwings?",  # two phrases
    "What is the last ferry to Gull Island?",
    "Which pages?",
    "",
]


@pytest.mark.parametrize("question", RECOGNISED)
def test_a_library_question_is_recognised_with_what_it_asks(question):
    asks, of, phrase, author, year = RECOGNISED[question]
    assert parse_library_question(question) == LibraryQuestion(asks, of, phrase, author, year)


@pytest.mark.parametrize("question", ORDINARY)
def test_a_question_about_content_stays_an_ordinary_question(question):
    assert parse_library_question(question) is None


def test_a_request_about_the_answers_format_is_not_part_of_the_phrase():
    asked = parse_library_question("Which documents mention Port Ellery? Please answer with a list.")
    assert asked == LibraryQuestion(LIST, DOCUMENTS, "Port Ellery")


# -- answered from a real index ------------------------------------------------------------------------------------

def _write_pdf(path, pages: list[str], metadata: dict | None = None):
    import pymupdf

    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), text, fontsize=11)
    doc.set_metadata({"creationDate": "D:20150101000000", "modDate": "D:20150101000000", **(metadata or {})})
    doc.save(path)
    doc.close()


@pytest.fixture(scope="module")
def library_home(tmp_path_factory):
    """Four small PDFs: Port Ellery on pages 2 and 3 of alpha, in capitals on page 2 of beta, broken over two lines
    in gamma; delta holds only near misses ("Ellery Port", "Port Elleryville") and Zürich."""
    folder = tmp_path_factory.mktemp("library") / "docs"
    folder.mkdir()
    _write_pdf(folder / "alpha.pdf", [
        "Harbour Solar Annual Report\n\nWritten by Harbour Solar Cooperative.\n\nCopyright 2019 Harbour Solar "
        "Cooperative.",
        "The ferry to Port Ellery leaves at 18:40 every weekday.",
        "Port Ellery has a new solar farm on the north pier."], {"title": "Harbour Solar Annual Report"})
    _write_pdf(folder / "beta.pdf", [
        "Council Minutes\n\nCopyright 2021 Town Council.",
        "Residents of PORT ELLERY asked for a later ferry."])
    _write_pdf(folder / "gamma.pdf", ["Pier Works\n\nThe old Port\nEllery pier was rebuilt in spring."])
    _write_pdf(folder / "delta.pdf", [
        "Travel Notes\n\nEllery Port is another place, and Port Elleryville another still.",
        "A conference in Zürich and a holiday in Florida."])
    home = folder.parent / "home"
    settings = make_settings(home, layout=False, ocr=False, dense=False)
    save(settings)  # the CLI asks with the settings it indexed with
    with Service(settings) as service:
        service.library.index([str(folder)])
    return home


def _ask_json(home, question: str, capsys, *docs: str) -> dict:
    args = ["ask", question, "--json", "--home", str(home)]
    for doc in docs:
        args += ["--doc", doc]
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_which_documents_mention_a_phrase_lists_every_one_cited_at_its_first_page(library_home, capsys):
    answer = _ask_json(library_home, "Which documents mention Port Ellery?", capsys)
    assert answer["method"] == "cascade" and answer["status"] == "answered" and answer["llm_calls"] == 0
    assert answer["answer_format"] == "List"
    assert json.loads(answer["short_answer"]) == ["alpha.pdf", "beta.pdf", "gamma.pdf"]
    assert answer["answer"].startswith("From the library index: 3 of the 4 documents in the library mention "
                                       "“Port Ellery”")
    assert "alpha.pdf — “Harbour Solar Annual Report”" in answer["answer"] and "pages 2, 3" in answer["answer"]
    cited = [(c["doc"], c["page"]) for c in answer["citations"]]
    assert cited == [("alpha.pdf", 2), ("beta.pdf", 2), ("gamma.pdf", 1)]
    quotes = [c["quote"] for c in answer["citations"]]
    assert quotes == ["Port Ellery", "PORT ELLERY", "Port Ellery"]  # the words on the page, across a line break too
    assert all(c["bbox"] is not None for c in answer["citations"])
    assert "delta.pdf" not in answer["answer"]  # "Ellery Port", "Port Elleryville": not the phrase


def test_how_many_documents_and_pages_are_counted_exactly(library_home, capsys):
    documents = _ask_json(library_home, "How many documents mention Port Ellery?", capsys)
    assert (documents["status"], documents["short_answer"], documents["answer_format"]) == ("answered", "3", "Int")
    assert documents["answer"].startswith("3\n\nFrom the library index: 3 of the 4 documents")
    pages = _ask_json(library_home, "How many pages mention Port Ellery?", capsys)
    assert (pages["status"], pages["short_answer"]) == ("answered", "4")
    assert "4 pages in 3 of the 4 documents in the library mention “Port Ellery”" in pages["answer"]
    everything = _ask_json(library_home, "How many documents are in my library?", capsys)
    assert everything["short_answer"] == "4" and "(8 pages)" in everything["answer"]


def test_nothing_found_is_said_plainly_and_a_count_of_none_is_an_answer(library_home, capsys):
    listed = _ask_json(library_home, "Which documents mention Lufthansa?", capsys)
    assert listed["status"] == "not_found" and listed["citations"] == []
    assert listed["answer"].startswith("No document in the library mentions “Lufthansa” (4 searched")
    counted = _ask_json(library_home, "How many documents mention Lufthansa?", capsys)
    assert (counted["status"], counted["short_answer"], counted["answer_format"]) == ("answered", "0", "Int")
    assert "No document in the library mentions “Lufthansa” (4 searched" in counted["answer"]


def test_a_question_about_chosen_documents_lists_only_those(library_home, capsys):
    answer = _ask_json(library_home, "Which documents mention Port Ellery?", capsys, "beta.pdf", "delta.pdf")
    assert json.loads(answer["short_answer"]) == ["beta.pdf"]
    assert answer["answer"].startswith("From the library index: 1 of the 2 documents asked about mentions")
    assert [(c["doc"], c["page"]) for c in answer["citations"]] == [("beta.pdf", 2)]
    none = _ask_json(library_home, "How many documents mention Port Ellery?", capsys, "delta.pdf")
    assert none["short_answer"] == "0" and "No document asked about mentions “Port Ellery” (1 searched" in \
        none["answer"]


def test_publisher_year_and_newest_come_from_the_catalogue(library_home, capsys):
    by = _ask_json(library_home, "Which documents were published by Harbour Solar Cooperative?", capsys)
    assert json.loads(by["short_answer"]) == ["alpha.pdf"]  # named on its first page
    assert [(c["doc"], c["page"], c["quote"]) for c in by["citations"]] == [
        ("alpha.pdf", 1, "Harbour Solar Cooperative.")]
    year = _ask_json(library_home, "How many of my documents are from 2021?", capsys)
    assert year["short_answer"] == "1" and "beta.pdf" in year["answer"]  # its copyright year
    newest = _ask_json(library_home, "What is the newest document about Port Ellery?", capsys)
    assert newest["status"] == "answered" and newest["short_answer"] == "beta.pdf"  # 2021, then alpha's 2019
    assert newest["citations"][0]["doc"] == "beta.pdf"
    oldest = _ask_json(library_home, "Which is the oldest report mentioning Port Ellery?", capsys)
    assert oldest["short_answer"] == "gamma.pdf"  # 2015, its creation date


def test_an_ordinary_question_still_gets_a_quoted_answer(library_home, capsys):
    answer = _ask_json(library_home, "When does the ferry to Port Ellery leave?", capsys)
    assert "library index" not in answer["answer"]
    assert not any(note.startswith("library question") for note in answer.get("notes", []))


def test_the_index_port_reads_every_page_accents_and_documents_outside_the_keyword_index(library_home):
    with Service(make_settings(library_home, layout=False, ocr=False, dense=False)) as service:
        db = service.resources.db
        cur = db.cursor()
        names = {e.doc_id: e.name for e in mentions.catalogue(cur, None)}
        found = {names[d]: pages for d, pages in mentions.pages_mentioning(cur, "zurich", None).items()}
        assert found == {"delta.pdf": [2]}  # "Zürich" on the page, asked without its accent
        assert mentions.pages_mentioning(cur, "Port", None) == mentions.pages_mentioning(cur, "port", None)
        assert mentions.pages_mentioning(cur, "the", None)  # a stopword: no postings to narrow by, pages read
        delta = next(d for d, name in names.items() if name == "delta.pdf")
        with db.transaction() as tx:  # as if delta were indexed before the keyword index existed
            tx.execute(f"DELETE FROM keyword_pages WHERE doc_id = {delta}")
            tx.execute(f"DELETE FROM keyword_postings WHERE doc_id = {delta}")
        found = mentions.pages_mentioning(db.cursor(), "Florida", None)
        assert found == {delta: [2]}
        beta = next(d for d, name in names.items() if name == "beta.pdf")
        assert mentions.pages_mentioning(db.cursor(), "Florida", [beta]) == {}  # out of scope
        entry = next(e for e in mentions.catalogue(db.cursor(), [delta]))
        assert (entry.name, entry.pages) == ("delta.pdf", 2)
        with db.transaction() as tx:  # as it was, for any test after this one
            keywords.index_document(tx, delta)


def test_the_layer_contract_still_holds():
    from test_layers import check, package_sources

    assert check(package_sources()) == []
