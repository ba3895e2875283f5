"""Bad input: each file gets a clear error in status, the run goes on, nothing indexed is lost."""
import json
import os
import resource
import shutil
import tempfile
from pathlib import Path

import pymupdf
import pytest

from conftest import ROOT, SAMPLES, SLIDES_OCR, SMALL_PAPER, corpus_pdf, entries_by_name, make_settings, write_pdf
from docqa_desktop.domain import FileStatus
from docqa_desktop.retrieval.text_retriever import Mode
from docqa_desktop.service import Service


def _error_of(service, name):
    entry = entries_by_name(service)[name]
    assert entry.status is FileStatus.ERROR, entry
    return entry.error


@pytest.fixture
def bad_library(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    good = corpus_pdf(SMALL_PAPER).read_bytes()
    (folder / "truncated.pdf").write_bytes(good[: len(good) // 3])
    (folder / "garbage.pdf").write_bytes(b"%PDF-1.7\n" + os.urandom(4000))
    (folder / "notes.pdf").write_text("just some text named like a PDF\n")
    (folder / "empty.pdf").write_bytes(b"")
    (folder / "zero-pages.pdf").write_bytes(
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
        b"trailer<</Root 1 0 R>>\n%%EOF\n")
    locked = pymupdf.open()
    locked.new_page().insert_text((72, 72), "secret")
    locked.save(folder / "locked.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u")
    shutil.copy(SAMPLES / "harbour-solar-report.pdf", folder / "good.pdf")
    return folder


def test_each_bad_file_gets_its_own_clear_error_and_the_run_continues(fast_service, bad_library):
    report = fast_service.library.index([str(bad_library)])
    assert entries_by_name(fast_service)["good.pdf"].status is FileStatus.INDEXED
    assert "password-protected" in _error_of(fast_service, "locked.pdf")
    assert "not a PDF" in _error_of(fast_service, "notes.pdf")
    assert "empty file" in _error_of(fast_service, "empty.pdf")
    assert "no pages" in _error_of(fast_service, "zero-pages.pdf")
    assert "corrupt" in _error_of(fast_service, "garbage.pdf") or "no pages" in _error_of(fast_service, "garbage.pdf")
    # mupdf repairs what it can of a truncated file; if it cannot, the error says so
    truncated = entries_by_name(fast_service)["truncated.pdf"]
    assert truncated.status is FileStatus.INDEXED or "corrupt" in truncated.error or "pages" in truncated.error
    assert report.failed >= 5
    assert set(report.errors) >= {str(bad_library / n) for n in ("locked.pdf", "notes.pdf", "empty.pdf")}
    assert fast_service.pages.search("megawatt", k=1)[0].doc == "good.pdf"


def test_failed_reindex_keeps_the_previous_good_version(fast_service, tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    target = write_pdf(folder / "minutes.pdf", ["The harbour board approved the new breakwater."])
    fast_service.library.index([str(folder)])
    target.write_bytes(b"%PDF-1.7\n" + b"\x00" * 100)  # the file is damaged in place
    report = fast_service.library.index([str(folder)])
    assert report.failed == 1
    entry = entries_by_name(fast_service)["minutes.pdf"]
    assert entry.status is FileStatus.ERROR and entry.error
    assert entry.pages == 1  # still the good version
    assert fast_service.pages.search("breakwater", k=1)[0].doc == "minutes.pdf"


def test_unicode_and_space_laden_paths(fast_service, tmp_path):
    folder = tmp_path / "Bücher & Berichte" / "年报 2023"
    folder.mkdir(parents=True)
    write_pdf(folder / "  Ünïcødé report — final (1).pdf", ["Quarterly sardine landings doubled."])
    report = fast_service.library.index([str(tmp_path / "Bücher & Berichte")])
    assert report.added == 1 and report.failed == 0
    hit = fast_service.pages.search("sardine landings", k=1)[0]
    assert hit.path == str(folder / "  Ünïcødé report — final (1).pdf")


def test_symlink_loops_terminate_and_files_are_found_once(fast_service, tmp_path):
    folder = tmp_path / "loop"
    (folder / "a").mkdir(parents=True)
    write_pdf(folder / "a" / "doc.pdf", ["A note about symlink loops."])
    os.symlink(folder, folder / "a" / "back-to-top")
    os.symlink(folder / "a", folder / "a" / "self")
    report = fast_service.library.index([str(folder)])
    assert report.failed == 0
    assert len({e.doc_id for e in fast_service.library.status()}) == 1


def test_temporary_and_hidden_files_are_ignored(fast_service, tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    write_pdf(folder / "real.pdf", ["real"])
    for name in ("~$real.pdf", ".hidden.pdf", "download.pdf.part", "x.pdf.crdownload"):
        write_pdf(folder / name, ["temp"])
    fast_service.library.index([str(folder)])
    assert [e.name for e in fast_service.library.status()] == ["real.pdf"]


def test_file_deleted_while_indexing_leaves_the_index(home, tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    doomed = write_pdf(folder / "doomed.pdf", [f"page {i}" for i in range(6)])
    write_pdf(folder / "stays.pdf", ["stays"])

    def delete_when_started(p):
        if p.item == str(doomed) and doomed.exists():
            doomed.unlink()

    with Service(make_settings(home, layout=False, dense=False, pages_per_task=2)) as service:
        report = service.library.index([str(folder)], delete_when_started)
        assert [e.name for e in service.library.status()] == ["stays.pdf"]
        assert report.failed == 0


def test_file_rewritten_while_indexing_is_retried(home, tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    target = write_pdf(folder / "draft.pdf", ["first draft about otters"])

    def rewrite_when_started(p):
        if p.item == str(target) and p.done == 0:
            write_pdf(target, ["second draft about beavers"])
            os.utime(target, (2, 2))

    with Service(make_settings(home, layout=False, dense=False)) as service:
        service.library.index([str(folder)], rewrite_when_started)
        entry = entries_by_name(service)["draft.pdf"]
        assert entry.status is FileStatus.PENDING and "changed while" in entry.error
        service.library.index([str(folder)])
        assert entries_by_name(service)["draft.pdf"].status is FileStatus.INDEXED
        assert service.pages.search("beavers", k=1)[0].doc == "draft.pdf"
        assert service.pages.search("otters", k=5, mode=Mode.BM25) == []


@pytest.mark.model
def test_a_file_the_parser_cannot_finish_in_time_fails_alone(home, tmp_path):
    """A native parser stuck in a loop would hold indexing forever; a task past index.task_timeout_seconds has
    its worker killed and its file failed. Here OCR of a scanned deck stands in for the stuck page."""
    folder = tmp_path / "lib"
    folder.mkdir()
    shutil.copy(SAMPLES / "harbour-solar-report.pdf", folder / "good.pdf")
    with Service(make_settings(home, layout=False, dense=False)) as service:
        service.library.index([str(folder)])
    shutil.copy(corpus_pdf(SLIDES_OCR), folder / "slow.pdf")  # seconds of OCR per page
    write_pdf(folder / "z-after.pdf", ["Indexed after the stuck file: tidal turbines."])
    # 15 s: far below the scanned deck's first task (8 pages of OCR at 300 dpi), far above a one-page file's on
    # a busy machine, including a fresh worker's imports after the stuck one's pool is replaced
    with Service(make_settings(home, layout=False, dense=False, ocr_dpi=300, task_timeout_seconds=15)) as service:
        report = service.library.index([str(folder)])
        assert "the PDF parser gave up on this file" in _error_of(service, "slow.pdf")
        assert "index.task_timeout_seconds" in report.errors[str(folder / "slow.pdf")]
        assert service.pages.search("megawatt", k=1)[0].doc == "good.pdf"  # indexed before: kept
        assert service.pages.search("tidal turbines", k=1)[0].doc == "z-after.pdf"  # the run went on


@pytest.mark.slow
def test_huge_pdf_is_indexed_in_bounded_memory(home, tmp_path):
    """1200 pages: parsed in page batches by the workers; the main process never holds the whole file."""
    folder = tmp_path / "huge"
    folder.mkdir()
    doc = pymupdf.open()
    for i in range(1200):
        doc.new_page(width=300, height=300).insert_text((20, 40), f"Page {i + 1} of the harbour ledger, entry {i * 7}.")
    doc.save(folder / "ledger.pdf")
    doc.close()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with Service(make_settings(home, layout=False, dense=False, pages_per_task=16)) as service:
        report = service.library.index([str(folder)])
        assert report.failed == 0 and report.pages == 1200
        assert service.pages.search("entry 8393", k=1)[0].page == 1200
        grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 400, f"main process grew by {grown_mb:.0f} MB"


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_unreadable_file_gets_a_permission_error():
    """Checked in a forked child that drops root: root reads any file, whatever its mode."""
    closed = [str(p) for p in (ROOT, *ROOT.parents) if not p.stat().st_mode & 0o001]
    assert not closed, (f"the child runs as uid 65534 and must reach the checkout's .venv, but {closed[0]} is closed to "
                        "other users: put the checkout where others may traverse (e.g. not under a 0700 /root)")
    base = Path(tempfile.mkdtemp(prefix="docqa-perm-"))  # pytest's tmp_path is closed to other users
    folder = base / "perm"
    folder.mkdir()
    write_pdf(folder / "private.pdf", ["private"])
    os.chmod(folder / "private.pdf", 0o000)
    home = base / "home"
    for d in (base, folder):
        os.chmod(d, 0o777)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: no pytest machinery from here on, only os._exit
        try:
            if os.geteuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            with Service(make_settings(home, layout=False, dense=False)) as service:
                report = service.library.index([str(folder)])
                entry = service.library.status()[0]
            os.write(write_end, json.dumps([report.failed, entry.status.value, entry.error]).encode())
        except BaseException as exc:
            os.write(write_end, json.dumps(["child failed", repr(exc), ""]).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        payload = pipe.read()
    os.waitpid(pid, 0)
    shutil.rmtree(base, ignore_errors=True)
    failed, status, error = json.loads(payload)
    assert (failed, status) == (1, "error")
    assert error == "cannot read file: Permission denied"
