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
        assert set(d) == {"name", "path", "pages", "status", "error"}
        assert d["status"] == "indexed" and d["error"] is None and d["pages"] >= 1
        assert d["path"] == str(folder / d["name"])
    stages = {s["stage"]: s for s in status["stages"]}
    assert list(stages) == ["keywords", "layout", "embeddings", "page images", "summaries"]
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


def test_bad_settings_are_named_not_a_traceback(tmp_path):
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.toml").write_text("[index\\nworkers = 2\n")
    run = docqa("status", home=home, check=False)
    assert run.returncode == 2 and "cannot read settings file" in run.stderr and "settings.toml" in run.stderr
    (home / "config" / "settings.toml").write_text("")
    run = docqa("status", home=home, check=False, env={"DOCQA_SEARCH_K": "ten"})
    assert run.returncode == 2 and "DOCQA_SEARCH_K: 'ten' is not a valid int" in run.stderr


def test_watch_of_a_missing_folder_is_a_clear_error(tmp_path):
    run = docqa("watch", str(tmp_path / "nowhere"), home=tmp_path / "home", check=False, timeout=120)
    assert run.returncode == 2 and "cannot watch" in run.stderr and "nowhere" in run.stderr
