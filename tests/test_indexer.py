"""Incremental indexing of real PDFs: new, unchanged, renamed, duplicated, changed, deleted, cancelled."""
import os
import shutil
import threading

import pytest

from conftest import REPORT_15, SMALL_PAPER, assert_consistent, corpus_pdf, entries_by_name, make_settings, write_pdf
from docqa_desktop.domain import FileStatus
from docqa_desktop.retrieval.text_retriever import Mode
from docqa_desktop.service import Service


def _count(service, sql):
    return service.resources.db.con.execute(sql).fetchone()[0]


def test_index_then_rerun_is_incremental(fast_service, library):
    report = fast_service.library.index([str(library)])
    assert (report.added, report.failed, report.pages) == (3, 0, 8 + 4 + 1)
    entries = entries_by_name(fast_service)
    assert {e.status for e in entries.values()} == {FileStatus.INDEXED}
    assert entries[SMALL_PAPER].pages == 8
    assert _count(fast_service, "SELECT count(*) FROM words") > 1000
    assert fast_service.library.libraries() == [str(library)]

    again = fast_service.library.index([str(library)])
    assert (again.added, again.updated, again.unchanged, again.pages) == (0, 0, 3, 0)


def test_rename_and_move_keep_the_index_without_parsing(fast_service, library):
    fast_service.library.index([str(library)])
    doc_before = entries_by_name(fast_service)[SMALL_PAPER].doc_id
    sub = library / "moved here"
    sub.mkdir()
    os.rename(library / SMALL_PAPER, sub / "renamed paper.pdf")
    report = fast_service.library.index([str(library)])
    assert report.pages == 0  # nothing parsed again
    entries = entries_by_name(fast_service)
    assert SMALL_PAPER not in entries
    assert entries["renamed paper.pdf"].doc_id == doc_before
    assert _count(fast_service, "SELECT count(*) FROM documents") == 3


def test_duplicates_share_one_document_and_list_every_path(fast_service, library):
    shutil.copy(library / SMALL_PAPER, library / "copy.pdf")
    report = fast_service.library.index([str(library)])
    assert report.added == 4 and report.pages == 13  # the copy is not parsed twice
    entries = entries_by_name(fast_service)
    assert entries["copy.pdf"].doc_id == entries[SMALL_PAPER].doc_id
    assert _count(fast_service, "SELECT count(*) FROM documents") == 3
    hits = fast_service.pages.search("pivot language transfer", k=3)
    assert hits and hits[0].doc in (SMALL_PAPER, "copy.pdf")
    # deleting one copy keeps the document for the other
    os.remove(library / "copy.pdf")
    fast_service.library.index([str(library)])
    assert _count(fast_service, "SELECT count(*) FROM documents") == 3


def test_changed_file_replaces_its_old_version(fast_service, library):
    target = write_pdf(library / "notes.pdf", ["The zeppelin hangar opened in 1931."])
    fast_service.library.index([str(library)])
    assert fast_service.pages.search("zeppelin hangar", k=1)[0].doc == "notes.pdf"
    write_pdf(target, ["The lighthouse keeper retired in 1988."])  # same name, new content
    os.utime(target, (1, 1))  # a different mtime even on coarse-clock file systems
    report = fast_service.library.index([str(library)])
    assert report.updated == 1 and report.pages == 1
    assert fast_service.pages.search("lighthouse keeper", k=1)[0].doc == "notes.pdf"
    assert _count(fast_service, "SELECT count(*) FROM pages WHERE text LIKE '%zeppelin%'") == 0
    assert _count(fast_service, "SELECT count(*) FROM documents") == 4


def test_deleted_files_leave_the_index(fast_service, library):
    fast_service.library.index([str(library)])
    os.remove(library / "ferry-memo-scanned.pdf")
    report = fast_service.library.index([str(library)])
    assert report.removed == 1
    assert "ferry-memo-scanned.pdf" not in entries_by_name(fast_service)
    assert _count(fast_service, "SELECT count(*) FROM pages WHERE text LIKE '%Gull Island%'") == 0
    assert fast_service.pages.search("Gull Island ferry", k=5) == [] or all(
        h.doc != "ferry-memo-scanned.pdf" for h in fast_service.pages.search("Gull Island ferry", k=5))


def test_missing_folder_does_not_wipe_its_documents(fast_service, library, tmp_path):
    fast_service.library.index([str(library)])
    hidden = tmp_path / "unmounted"
    os.rename(library, hidden)
    report = fast_service.library.index([str(library)])
    assert report.errors == {str(library): "path not found"}
    assert len(fast_service.library.status()) == 3


def test_remove_forgets_a_folder(fast_service, library):
    fast_service.library.index([str(library)])
    assert fast_service.library.remove(str(library)) == 3
    assert fast_service.library.status() == [] and fast_service.library.libraries() == []
    assert _count(fast_service, "SELECT count(*) FROM pages") == 0
    assert _count(fast_service, "SELECT count(*) FROM words") == 0


@pytest.mark.slow
def test_cancel_rolls_back_the_current_document_and_the_next_run_resumes(home, library):
    shutil.copy(corpus_pdf(REPORT_15), library / REPORT_15)
    cancel = threading.Event()
    seen = []

    def progress(p):
        if p.phase == "indexing" and p.docs_done >= 1:
            seen.append(p)
            cancel.set()

    settings = make_settings(home, layout=False, dense=False, pages_per_task=2)
    with Service(settings) as service:
        report = service.library.index([str(library)], progress, cancel)
        assert report.cancelled
        statuses = [e.status for e in service.library.status()]
        assert FileStatus.PENDING in statuses and FileStatus.INDEXED in statuses
        assert_consistent(service.library.database_path, service)
        resumed = service.library.index([str(library)])
        assert not resumed.cancelled and resumed.failed == 0
        assert {e.status for e in service.library.status()} == {FileStatus.INDEXED}
        assert_consistent(service.library.database_path, service)


@pytest.mark.model
def test_embedding_pass_follows_keyword_indexing_and_resumes(home, library):
    cancel = threading.Event()
    phases = []

    def progress(p):
        phases.append(p.phase)
        if p.phase == "embedding" and p.done > 0:
            cancel.set()  # stop after the first committed batch of embeddings

    settings = make_settings(home, layout=False, dense=True, embed_batch=8)
    with Service(settings) as service:
        first = service.library.index([str(library)], progress, cancel)
        assert first.cancelled and 0 < first.stages["embeddings"].done
        assert phases.index("embedding") > phases.index("indexing")
        waiting = _count(service, "SELECT count(*) FROM chunks WHERE id NOT IN (SELECT id FROM chunk_vectors)")
        assert waiting > 0
        assert service.pages.search("ferry Gull Island", k=1)[0].doc == "ferry-memo-scanned.pdf"  # keywords already work
        second = service.library.index([str(library)])
        assert second.pages == 0 and second.stages["embeddings"].done == waiting
        assert _count(service, "SELECT count(*) FROM chunks WHERE id NOT IN (SELECT id FROM chunk_vectors)") == 0
        assert service.pages.search("when does the boat leave", k=1, mode=Mode.DENSE)[0].doc == "ferry-memo-scanned.pdf"


@pytest.mark.slow
def test_a_new_parser_version_parses_everything_again(fast_service, library, monkeypatch):
    from docqa_desktop.index import indexer

    fast_service.library.index([str(library)])
    assert fast_service.library.index([str(library)]).pages == 0
    monkeypatch.setattr(indexer, "PARSER_VERSION", indexer.PARSER_VERSION + 1)
    report = fast_service.library.index([str(library)])
    assert report.pages == 13 and report.updated == 3
    assert _count(fast_service, "SELECT count(*) FROM documents") == 3  # old versions dropped


def test_failed_files_are_not_parsed_again_until_touched(fast_service, tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    broken = folder / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n" + b"\x00" * 64)
    assert fast_service.library.index([str(folder)]).failed == 1
    assert fast_service.library.index([str(folder)]).failed == 0  # unchanged: not retried
    os.utime(broken, (5, 5))
    assert fast_service.library.index([str(folder)]).failed == 1


def test_an_unreadable_subfolder_does_not_wipe_its_documents(fast_service, library, monkeypatch):
    """Root reads every folder, so the walk reports the error as os.walk does for an unreadable one."""
    sub = library / "private"
    sub.mkdir()
    write_pdf(sub / "inner.pdf", ["inner note about kelp"])
    fast_service.library.index([str(library)])
    real_walk = os.walk

    def walk_with_unreadable_folder(top, *args, onerror=None, **kwargs):
        for dirpath, dirnames, filenames in real_walk(top, *args, onerror=onerror, **kwargs):
            if dirpath == str(sub):
                onerror(PermissionError(13, "Permission denied", dirpath))
                dirnames[:] = []
                continue
            yield dirpath, dirnames, filenames

    monkeypatch.setattr(os, "walk", walk_with_unreadable_folder)
    report = fast_service.library.index([str(library)])
    assert report.removed == 0 and "cannot list folder" in report.errors[str(sub)]
    assert "inner.pdf" in entries_by_name(fast_service)
