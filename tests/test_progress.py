"""One vocabulary for long tasks (progress.py): what indexing reports, how the CLI and the app draw it, and the
one Cancelled that every task raises."""
from __future__ import annotations

import dataclasses
import io

import pytest

from docqa_desktop.cli.common import ProgressBar
from docqa_desktop.progress import index_progress
from docqa_desktop.llm.download import DownloadCancelled, DownloadError
from docqa_desktop.progress import Cancelled, Progress, check_cancel

INDEXING = Progress("index", "indexing", done=4, total=10, unit="pages", item="/lib/a.pdf", rate=2.0,
                    eta_seconds=3.0, docs_done=1, docs_total=3)
PAGE_IMAGES = Progress("index", "visual", done=2, total=5, unit="page images", item="/lib/b.pdf", rate=0.05,
                       eta_seconds=60.0, docs_done=0, docs_total=1)
LAYOUT = Progress("index", "layout", done=3, total=8, unit="pages", item="/lib/c.pdf", rate=1.5,
                  eta_seconds=4.0, docs_done=0, docs_total=2)
EMBEDDING = Progress("index", "embedding", done=64, total=128, unit="chunks", rate=10.0, eta_seconds=6.4,
                     docs_done=0, docs_total=1)


@pytest.fixture(scope="module")
def stages():
    """Every index stage, the page images' included (service.library.stages), as the bar and the status bar get them."""
    from docqa_desktop.index.stages import STAGES
    from docqa_desktop.visual.stage import PageImages

    return (*STAGES, PageImages(models=None))  # the words of a stage need no model


def test_the_cli_bar_draws_index_progress_as_before(stages):
    stream = io.StringIO()  # not a terminal: one line per finished document, and at the end of a stage
    bar = ProgressBar(stages, stream)
    bar(index_progress("scanning", 0, 3, item="/lib/a.pdf"))  # scanning is not drawn
    bar(INDEXING)
    bar(dataclasses.replace(LAYOUT, docs_done=2))
    bar(dataclasses.replace(EMBEDDING, done=128, total=128))
    bar(Progress("index", "visual", 2, 5, "page images", "/lib/b.pdf", 0.05, 60.0, 1, 1))
    bar(Progress("index", "visual", 5, 5, "page images", "/lib/b.pdf", 0.05, 0.0, 1, 1))
    assert stream.getvalue().splitlines() == [
        "[#########...............] 1/3 docs 4/10 pages 2.0/s ETA 3s a.pdf",
        "[#########...............] layout 2/2 docs 3/8 pages 1.5/s ETA 4s c.pdf",
        "[########################] embedding 128/128 chunks 10.0/s ETA 6s ",
        "[#########...............] embedding 2/5 page images 20 s each ETA 60s b.pdf",  # another document count
        "[########################] embedding 5/5 page images 20 s each ETA 0s b.pdf"]


def test_the_status_bar_text_of_the_app_as_before(stages):
    from docqa_desktop.ui.main_window import progress_text

    assert progress_text(INDEXING, stages) == "Indexing a.pdf — 1/3 documents, 4/10 pages, 2.0/s, about 3 s left"
    assert progress_text(PAGE_IMAGES, stages) == "Embedding page images of b.pdf — 2/5, about 60 s left"
    assert progress_text(LAYOUT, stages) == "Searchable now; analysing the layout of c.pdf — 3/8 pages, about 4 s left"
    assert progress_text(EMBEDDING, stages) == "Searchable now; embedding passages — 64/128 chunks, about 6 s left"
    assert progress_text(index_progress("scanning", 2, 7, item="/lib/c.pdf"), stages) == \
        "Checking c.pdf for changes — 2/7 files"
    assert progress_text(index_progress("finishing"), stages) == "Indexing: building the search index…"


def test_indexing_snapshots_are_progress_of_the_index_task():
    p = index_progress("embedding", 1, 1, 64, 128, rate=10.0, eta_seconds=6.4, unit="chunks")
    assert (p.task, p.phase, p.done, p.total, p.unit, p.fraction) == ("index", "embedding", 64, 128, "chunks", 0.5)


def test_one_cancelled_for_every_task():
    import threading

    from docqa_desktop.index import indexer
    from docqa_desktop.vectors import page_embedder as embedder

    assert indexer.Cancelled is Cancelled and embedder.Cancelled is Cancelled
    stop = threading.Event()
    check_cancel(stop)
    stop.set()
    with pytest.raises(Cancelled):
        check_cancel(stop)
    cancelled = DownloadCancelled("download of model.gguf cancelled at 1,024 bytes; pull again to resume")
    assert isinstance(cancelled, Cancelled) and isinstance(cancelled, DownloadError)
    assert str(cancelled) == "download of model.gguf cancelled at 1,024 bytes; pull again to resume"
