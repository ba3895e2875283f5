"""`watch`: index at start, then follow creates, growing copies, moves and deletes."""
import os
import shutil
import threading
import time
from contextlib import contextmanager

import pytest

from conftest import SAMPLES, entries_by_name, make_settings, write_pdf
from docqa_desktop.service import Service


def wait_for(condition, timeout=120.0):
    """Poll until condition() is true; generous deadline, never a timing assertion."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError("condition not reached within the deadline")


def _folder_with_a_note(tmp_path, text: str):
    folder = tmp_path / "watched"
    folder.mkdir()
    write_pdf(folder / "first.pdf", [text])
    return folder


@contextmanager
def watching(home, folder, on_report):
    """`watch` on the folder in a thread, with quick settings; stopped and joined on exit. Yields the settings."""
    settings = make_settings(home, layout=False, dense=False, settle_seconds=0.5, workers=1)
    stop = threading.Event()
    service = Service(settings)
    thread = threading.Thread(target=service.library.watch, args=([str(folder)],),
                              kwargs={"stop": stop, "on_report": on_report}, daemon=True)
    thread.start()
    try:
        yield settings
    finally:
        stop.set()
        thread.join(timeout=60)
        service.close()
    assert not thread.is_alive()


@pytest.mark.slow
def test_watch_follows_the_folder(home, tmp_path):
    folder = _folder_with_a_note(tmp_path, "The first note mentions herons.")
    reports = []
    with watching(home, folder, reports.append) as settings:
        def names():
            if not reports:
                return None
            with Service(settings) as reader:  # the watcher closes the database between bursts
                return sorted(entries_by_name(reader))

        wait_for(lambda: names() == ["first.pdf"])
        # a file that is still being written is indexed only once it stops growing
        data = (SAMPLES / "harbour-solar-report.pdf").read_bytes()
        with open(folder / "growing.pdf", "wb") as fh:
            for i in range(0, len(data), 2048):
                fh.write(data[i:i + 2048])
                fh.flush()
                time.sleep(0.05)
        (folder / "~$lock.pdf").write_bytes(b"editor lock file")  # ignored
        wait_for(lambda: names() == ["first.pdf", "growing.pdf"])
        assert all(r.failed == 0 for r in reports)

        os.rename(folder / "first.pdf", folder / "renamed.pdf")
        wait_for(lambda: names() == ["growing.pdf", "renamed.pdf"])
        sub = folder / "sub"
        sub.mkdir()
        shutil.move(folder / "growing.pdf", sub / "moved.pdf")
        wait_for(lambda: names() == ["moved.pdf", "renamed.pdf"])
        os.remove(folder / "renamed.pdf")
        wait_for(lambda: names() == ["moved.pdf"])
        with Service(settings) as reader:
            assert reader.pages.search("megawatt", k=1)[0].doc == "moved.pdf"


@pytest.mark.slow  # two index runs (a worker pool each) and the watcher's settle time
def test_a_file_added_while_the_first_sync_runs_is_not_missed(home, tmp_path):
    """The folders are watched before the first sync starts: a file that arrives during it (here: while its
    report is being handed over) is picked up as a burst of its own."""
    folder = _folder_with_a_note(tmp_path, "Herons nest by the river.")
    reports = []

    def on_report(report):
        reports.append(report)
        if len(reports) == 1:
            write_pdf(folder / "late.pdf", ["A late note about kingfishers."])

    with watching(home, folder, on_report) as settings:
        wait_for(lambda: len(reports) >= 2, timeout=60)
        with Service(settings) as reader:
            assert sorted(entries_by_name(reader)) == ["first.pdf", "late.pdf"]
            assert reader.pages.search("kingfishers", k=1)[0].doc == "late.pdf"
