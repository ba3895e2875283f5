"""A full disk stops indexing with a clear error; what was indexed before survives."""
import os
import shutil
import subprocess

import pytest

from conftest import SAMPLES, corpus_pdf, entries_by_name, make_settings
from docqa_desktop.domain import FileStatus
from docqa_desktop.service import Service
from docqa_desktop.store import StoreError

pytestmark = pytest.mark.slow


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "small-disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_full_disk_keeps_earlier_documents(small_disk, tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    shutil.copy(SAMPLES / "harbour-solar-report.pdf", folder / "a-small.pdf")
    settings = make_settings(small_disk / "home", layout=False, dense=False)
    with Service(settings) as service:
        service.library.index([str(folder)])
        assert service.pages.search("megawatt", k=1)[0].doc == "a-small.pdf"
    shutil.copy(corpus_pdf("stereo_headset.pdf"), folder / "b-large.pdf")  # 151 pages of words: > 6 MB
    with Service(settings) as service:
        with pytest.raises(StoreError, match="disk full"):
            service.library.index([str(folder)])
    os.remove(folder / "b-large.pdf")
    with Service(settings) as service:  # reopened: the earlier document is intact and searchable
        entries = entries_by_name(service)
        assert entries["a-small.pdf"].status is FileStatus.INDEXED
        assert service.pages.search("megawatt", k=1)[0].doc == "a-small.pdf"
