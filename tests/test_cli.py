"""The `docqa` command as a user runs it: real processes, real database, real corpus PDFs."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import REPORT_15, SAMPLES, SMALL_PAPER, assert_consistent, corpus_pdf


def docqa(*args, home, check=True, env=None, timeout=600):
    run = subprocess.run([sys.executable, "-m", "docqa_desktop", *args, "--home", str(home)],
                         capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})})
    if check and run.returncode != 0:
        raise AssertionError(f"docqa {args} exited {run.returncode}\n{run.stdout}\n{run.stderr}")
    return run


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """The default pipeline (OCR, layout, dense) over a small paper and the samples, once per module."""
    base = tmp_path_factory.mktemp("cli")
    folder = base / "library"
    folder.mkdir()
    shutil.copy(corpus_pdf(SMALL_PAPER), folder)
    for sample in SAMPLES.glob("*.pdf"):
        shutil.copy(sample, folder)
    home = base / "home"
    run = docqa("index", str(folder), home=home)
    assert "3 added" in run.stdout
    return home, folder


@pytest.mark.model  # `indexed` runs the default pipeline (OCR, layout, MiniLM) over three PDFs: ~25 s
def test_status_json_shape(indexed):
    home, folder = indexed
    status = json.loads(docqa("status", "--json", home=home).stdout)
    docs = status["documents"]
    assert sorted(d["name"] for d in docs) == sorted([SMALL_PAPER, "ferry-memo-scanned.pdf",
                                                      "harbour-solar-report.pdf"])
    for d in docs:
        assert set(d) == {"name", "path", "pages", "status", "error", "title", "authors", "year"}
        assert d["status"] == "indexed" and d["error"] is None and d["pages"] >= 1
        assert d["path"] == str(folder / d["name"])
    stages = {s["stage"]: s for s in status["stages"]}
    assert list(stages) == ["keywords", "layout", "tables", "charts", "embeddings", "page images", "summaries"]
    assert all({"stage", "done", "pending", "unit"} <= set(s) for s in stages.values())
    assert stages["layout"]["pending"] == 0 and stages["layout"]["done"] == sum(d["pages"] for d in docs)


@pytest.mark.model
def test_search_json_shape_and_scoping(indexed):
    home, folder = indexed
    hits = json.loads(docqa("search", "last ferry to Gull Island", "--json", "--k", "3", home=home).stdout)
    assert 1 <= len(hits) <= 3
    top = hits[0]
    assert set(top) == {"doc", "path", "page", "score", "snippet"}
    assert (top["doc"], top["page"]) == ("ferry-memo-scanned.pdf", 1)  # found through OCR
    assert "18:40" in top["snippet"]
    assert top["path"] == str(folder / "ferry-memo-scanned.pdf")
    scoped = json.loads(docqa("search", "ferry", "--doc", "harbour-solar-report.pdf", "--json", home=home).stdout)
    assert scoped and {h["doc"] for h in scoped} == {"harbour-solar-report.pdf"}


@pytest.mark.parametrize("mode", ["bm25", "dense", "fused"])
@pytest.mark.model
def test_each_retriever_finds_the_table_page(indexed, mode):
    home, _ = indexed
    hits = json.loads(docqa("search", "quarterly output in megawatt hours", "--mode", mode, "--json",
                            "--doc", "harbour-solar-report.pdf", home=home).stdout)
    assert hits[0]["page"] == 3


@pytest.mark.model
def test_unknown_document_is_a_clear_error(indexed):
    home, _ = indexed
    run = docqa("search", "x", "--doc", "no-such.pdf", home=home, check=False)
    assert run.returncode == 2 and "no indexed document matches 'no-such.pdf'" in run.stderr


@pytest.mark.model
def test_human_readable_output(indexed):
    home, _ = indexed
    status = docqa("status", home=home).stdout
    assert "indexed" in status and "3 documents, 13 pages" in status
    stages = {line.split()[0]: line for line in status.splitlines() if line.startswith("  ")}
    assert "13 / 13 pages" in stages["keywords"] and "13 / 13 pages" in stages["layout"]
    assert "pending" not in stages["embeddings"]
    assert "no page embedder installed" in stages["page"]  # page images: none here, and it says why
    assert str(home / "data" / "library.duckdb") in status
    assert "p.1" in docqa("search", "Gull Island", home=home).stdout


@pytest.mark.model
def test_home_from_environment_and_remove(tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    shutil.copy(SAMPLES / "harbour-solar-report.pdf", folder)
    env = {"DOCQA_HOME": str(tmp_path / "envhome"), "DOCQA_INDEX_LAYOUT": "0", "DOCQA_INDEX_DENSE": "0"}
    run = subprocess.run([sys.executable, "-m", "docqa_desktop", "index", str(folder), "--json"],
                         capture_output=True, text=True, env={**os.environ, **env}, timeout=300)
    assert json.loads(run.stdout)["added"] == 1
    assert (tmp_path / "envhome" / "data" / "library.duckdb").exists()
    run = subprocess.run([sys.executable, "-m", "docqa_desktop", "remove", str(folder)],
                         capture_output=True, text=True, env={**os.environ, **env}, timeout=300)
    assert "removed 1 file" in run.stdout


@pytest.mark.slow
def test_kill_9_mid_index_leaves_a_consistent_database_and_the_next_run_resumes(tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    for name in (SMALL_PAPER, REPORT_15, "PIP_Seniors-and-Tech-Use_040314.pdf"):
        shutil.copy(corpus_pdf(name), folder)
    home = tmp_path / "home"
    env = {**os.environ, "DOCQA_INDEX_LAYOUT": "0", "DOCQA_INDEX_PAGES_PER_TASK": "2"}
    proc = subprocess.Popen([sys.executable, "-m", "docqa_desktop", "index", str(folder), "--home", str(home)],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
                            start_new_session=True)
    deadline = time.monotonic() + 600
    line = ""
    while time.monotonic() < deadline and " 1/3 docs" not in line:  # one document committed
        line = proc.stderr.readline()
        assert line or proc.poll() is None, "indexer ended before the first document finished"
    os.killpg(proc.pid, signal.SIGKILL)  # the indexer and its parser processes, no clean-up
    proc.wait()
    assert_consistent(home / "data" / "library.duckdb")
    status = json.loads(docqa("status", "--json", home=home).stdout)["documents"]
    assert [d["status"] for d in status].count("indexed") >= 1
    docqa("index", str(folder), home=home, env={"DOCQA_INDEX_LAYOUT": "0"})
    status = json.loads(docqa("status", "--json", home=home).stdout)["documents"]
    assert [d["status"] for d in status] == ["indexed"] * 3
    assert_consistent(home / "data" / "library.duckdb")


@pytest.mark.model
def test_render_writes_a_png_of_the_page(indexed, tmp_path):
    home, _ = indexed
    out = tmp_path / "page.png"
    docqa("render", "harbour-solar-report.pdf", "3", "-o", str(out), "--size", "400", home=home)
    import pymupdf
    pix = pymupdf.Pixmap(str(out))
    assert max(pix.width, pix.height) == 400
    bad = docqa("render", "harbour-solar-report.pdf", "9", home=home, check=False)
    assert bad.returncode == 2 and "out of range 1..4" in bad.stderr


@pytest.mark.slow  # two docqa processes, each paying the full import
def test_bad_settings_are_named_not_a_traceback(tmp_path):
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.toml").write_text("[index\\nworkers = 2\n")
    run = docqa("status", home=home, check=False)
    assert run.returncode == 2 and "cannot read settings file" in run.stderr and "settings.toml" in run.stderr
    (home / "config" / "settings.toml").write_text("")
    run = docqa("status", home=home, check=False, env={"DOCQA_SEARCH_K": "ten"})
    assert run.returncode == 2 and "DOCQA_SEARCH_K: 'ten' is not a valid int" in run.stderr


@pytest.mark.slow  # a docqa process, paying the full import
def test_watch_of_a_missing_folder_is_a_clear_error(tmp_path):
    run = docqa("watch", str(tmp_path / "nowhere"), home=tmp_path / "home", check=False, timeout=120)
    assert run.returncode == 2 and "cannot watch" in run.stderr and "nowhere" in run.stderr


# ---- a written answer's proof and the unverified verdict: `docqa ask`'s printout, history and the exports
# (answers built by hand, tests/proof_answers.py; the app's view is in test_gui.py)

def _ask_printed(monkeypatch, capsys, tmp_path, answer, streamed: list[str] = ()) -> tuple[int, str]:
    from docqa_desktop.cli import main

    def ask(self, *args, stream=None, **kwargs):
        for text in streamed:  # what the model wrote, as the app streams it before checking its proof
            stream(text)
        return answer

    monkeypatch.setattr("docqa_desktop.service.answering.Answers.ask", ask)
    code = main(["ask", answer.question, "--home", str(tmp_path / "home")])
    return code, capsys.readouterr().out


def test_ask_prints_the_computation_from_quoted_numbers_and_the_check(monkeypatch, capsys, tmp_path):
    from proof_answers import CHECK, QUOTE, computed_answer

    code, printed = _ask_printed(monkeypatch, capsys, tmp_path, computed_answer())
    assert code == 0
    assert printed.index("Sales grew by 10.29%") \
        < printed.index("\nComputed from the quoted numbers: (56.8 - 51.5) / 51.5 * 100 = 10.29\n") \
        < printed.index(f"\n{CHECK}\n") < printed.index(f'[1] report.pdf, page 7: "{QUOTE}"') \
        < printed.index("\nAnswered · simpledoc")
    assert "Unverified" not in printed and "not checked" not in printed


def test_ask_prints_an_unverified_draft_after_its_verdict_then_why_then_the_passages(monkeypatch, capsys,
                                                                                       tmp_path):
    """Verdict, the draft labelled, why it is unverified, the passages; a streamed draft is printed again under
    the verdict, labelled. An unverified draft is an outcome, not an error: exit code 0."""
    from proof_answers import DRAFT, PASSAGE, QUOTE, WHY, unverified_answer
    from docqa_desktop.answers import VERDICTS, AnswerStatus

    for streamed in ([], ["Sales grew", DRAFT]):
        code, printed = _ask_printed(monkeypatch, capsys, tmp_path, unverified_answer(), streamed)
        assert code == 0
        verdict = VERDICTS[AnswerStatus.UNVERIFIED]
        block = printed[printed.index(verdict):]
        assert block.startswith(f"{verdict}\nModel's draft (not checked): {DRAFT}\n\n{WHY}\n\n"
                                f'[1] report.pdf, page 7: "{PASSAGE}"\n[2] report.pdf, page 9: "{QUOTE}"\n\n'
                                "Unverified draft · simpledoc · "), printed
        assert "Computed" not in printed
        assert printed.count(DRAFT) == 1 + bool(streamed)  # as the model wrote it, then labelled


def test_history_lists_an_unverified_draft_by_its_label(monkeypatch, capsys, tmp_path):
    from proof_answers import computed_answer, unverified_answer
    from docqa_desktop.cli import main

    monkeypatch.setattr("docqa_desktop.service.answering.Answers.history", lambda self, limit: [unverified_answer(),
                                                                                     computed_answer()])
    assert main(["history", "--home", str(tmp_path / "home")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "Unverified draft" in lines[0] and "Answered" in lines[2]


def _exported(answer, fmt: str, folder) -> str:
    import pymupdf
    from docqa_desktop.export import export

    out = export(answer, fmt, folder / f"{answer.id}.{fmt}", render=lambda citation: None)
    if fmt == "pdf":
        with pymupdf.open(out) as doc:
            return " ".join(" ".join(page.get_text().split()) for page in doc)
    return out.read_text(encoding="utf-8")


def _in_order(text: str, *parts: str) -> bool:
    at = [text.find(part) for part in parts]
    return -1 not in at and at == sorted(at)


def test_exports_show_the_computation_with_its_quoted_numbers_and_the_check(tmp_path):
    import html
    import re
    from markdown_it import MarkdownIt
    from proof_answers import CHECK, COMPUTATION, QUOTE, computed_answer
    from docqa_desktop.presentation import QUOTED_NUMBER_COLOUR

    answer = computed_answer()
    md = MarkdownIt("commonmark").render(_exported(answer, "md", tmp_path))
    assert re.findall(r"<strong>(.*?)</strong>", md) == ["Answered", "56.8", "51.5", "51.5"]  # verdict, operands
    assert f"<em>{CHECK}</em>" in md
    assert _in_order(html.unescape(re.sub(r"<[^>]+>", "", md)), "Sales grew by 10.29%",
                     "Computed: (56.8 - 51.5) / 51.5 * 100 = 10.29", CHECK, QUOTE)
    page = _exported(answer, "html", tmp_path)
    assert re.findall(rf"<b style='color:{QUOTED_NUMBER_COLOUR}'>([^<]*)</b>", page) == ["56.8", "51.5", "51.5"]
    assert f"<p style='color:gray'><small>{CHECK}</small></p>" in page
    assert _in_order(html.unescape(re.sub(r"<[^>]+>", "", page)), "Sales grew by 10.29%",
                     "Computed: (56.8 - 51.5) / 51.5 * 100 = 10.29", CHECK, QUOTE)
    assert _in_order(_exported(answer, "pdf", tmp_path), "Answered", "Sales grew by 10.29%",
                     "Computed from the quoted numbers: (56.8 - 51.5) / 51.5 * 100 = 10.29", CHECK, QUOTE)
    record = json.loads(_exported(answer, "json", tmp_path))
    assert (record["status"], record["computation"], record["check"]) == ("answered", COMPUTATION, CHECK)
    assert answer.as_json()["proof"] == {"computation": COMPUTATION, "check": CHECK}


def test_exports_show_an_unverified_draft_as_a_draft_with_the_passages_it_read(tmp_path):
    import html
    import re
    import pymupdf
    from markdown_it import MarkdownIt
    from proof_answers import DRAFT, PASSAGE, QUOTE, WHY, unverified_answer
    from docqa_desktop.answers import VERDICTS, AnswerStatus
    from docqa_desktop.presentation import WARNING_COLOUR

    answer, verdict = unverified_answer(), VERDICTS[AnswerStatus.UNVERIFIED]
    labelled = f"Model's draft (not checked): {DRAFT}"
    source = _exported(answer, "md", tmp_path)
    assert "<" not in source  # the model's '<b>' in the check line is escaped
    md = MarkdownIt("commonmark").render(source)
    assert re.findall(r"<strong>(.*?)</strong>", md) == [verdict]  # the verdict alone is bold, never the draft
    assert f"<p>{html.escape(labelled, quote=False)}</p>" in md.replace("&quot;", '"')
    assert _in_order(html.unescape(re.sub(r"<[^>]+>", "", md)), verdict, labelled, WHY, PASSAGE, QUOTE)
    page = _exported(answer, "html", tmp_path)
    assert f"<p style='color:{WARNING_COLOUR}'><b>{html.escape(verdict)}</b></p>" in page
    assert f"<p style='white-space:pre-wrap'>{html.escape(labelled)}</p>" in page  # plain, not bold
    assert f"<small>{html.escape(WHY)}</small>" in page and "<b>grew" not in page
    assert _in_order(html.unescape(re.sub(r"<[^>]+>", "", page)), verdict, labelled, WHY, PASSAGE, QUOTE)
    assert "Computed" not in page
    text = _exported(answer, "pdf", tmp_path)
    assert _in_order(text, verdict, labelled, WHY, PASSAGE, QUOTE), text
    with pymupdf.open(tmp_path / f"{answer.id}.pdf") as doc:
        spans = [s for b in doc[0].get_text("dict")["blocks"] for line in b.get("lines", []) for s in line["spans"]]
    assert all(s["color"] != 0 for s in spans if s["text"].startswith("Not verified"))  # grey, like the app
    record = json.loads(_exported(answer, "json", tmp_path))
    assert (record["status"], record["text"], record["check"]) == ("unverified", DRAFT, WHY)
    assert [c["quote"] for c in record["citations"]] == [PASSAGE, QUOTE]
