import os
import shutil

import pymupdf
import pytest

from conftest import SAMPLES, make_settings
from docqa_desktop.service import Service, UnknownDocument


@pytest.fixture
def folder(tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    shutil.copy(SAMPLES / "harbour-solar-report.pdf", folder / "a.pdf")
    return folder


def test_thumbnails_are_cached_by_content_and_survive_a_rename(home, folder):
    with Service(make_settings(home, layout=False, dense=False)) as service:
        service.library.index([str(folder)])
        first = service.pages.thumbnail("a.pdf", 2)
        pix = pymupdf.Pixmap(str(first))
        assert max(pix.width, pix.height) == 256 and pix.width < pix.height  # portrait page
        stamp = first.stat().st_mtime_ns
        os.rename(folder / "a.pdf", folder / "b.pdf")
        service.library.index([str(folder)])
        again = service.pages.thumbnail("b.pdf", 2)
        assert again == first and again.stat().st_mtime_ns == stamp  # served from the cache
        assert first.is_relative_to(home)


def test_page_image_of_a_document_gone_from_disk_is_a_clear_error(home, folder):
    with Service(make_settings(home, layout=False, dense=False)) as service:
        service.library.index([str(folder)])
        assert service.pages.page_image("a.pdf", 1, 300)[:8] == b"\x89PNG\r\n\x1a\n"
        os.remove(folder / "a.pdf")
        with pytest.raises(UnknownDocument, match="no longer on disk"):
            service.pages.page_image("a.pdf", 1)
