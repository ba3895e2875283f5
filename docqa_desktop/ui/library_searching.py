"""The library search box's work (library_search.py asks, this runs): the pages of a query in the selected
documents (else the library) that the filters admit — BM25's ranking at once, then the fused one (the search.mode
setting, as `docqa search`) — and a result's page opened with the query's words boxed."""
from __future__ import annotations

import html

from ..domain import DocumentFilter, SearchHit
from ..service import Service
from .library_panel import LibraryPanel
from .page_viewer import PageViewer
from .tasks import Newest, TaskRunner

SEARCH_RESULTS = 20  # pages a library search lists


class LibrarySearching:
    def __init__(self, service: Service, tasks: TaskRunner, library: LibraryPanel, viewer: PageViewer):
        self.service, self.tasks, self.library, self.viewer = service, tasks, library, viewer
        self.searches = Newest(tasks)  # the reader types on: the newest query alone
        self.openings = Newest(tasks)  # Enter on one result, then another: the page of the last
        box = library.search
        box.search_requested.connect(self.search)
        box.hit_opened.connect(self.open_hit)
        box.widen_requested.connect(self.search_whole_library)

    def search(self, query: str, where: DocumentFilter) -> None:
        box = self.library.search
        chosen = self.library.selected_documents()
        docs = [path for path in chosen if path in self.library.indexed] or None  # a failed file is no scope
        if chosen and docs is None:
            box.say("None of the selected documents is indexed yet (<a href='whole'>search the whole library</a>)")
            return
        scope = f"in {len(docs)} selected document{'s' * (len(docs) != 1)}" if docs else ""
        quick_first = self.service.settings.search.mode != "bm25"

        def run(progress, cancel):
            if cancel.is_set():  # typed over before it left the queue
                return None
            pages = self.service.pages
            if quick_first:
                progress(pages.search(query, docs, SEARCH_RESULTS, "bm25", where))
            return None if cancel.is_set() else pages.search(query, docs, SEARCH_RESULTS, None, where)

        self.searches.start("search", run, lambda hits: hits is not None and box.show_hits(query, hits, scope, True),
                            lambda hits: box.show_hits(query, hits, scope, False),
                            lambda message: box.say(html.escape(message, quote=False)))

    def search_whole_library(self) -> None:
        self.library.tree.clearSelection()
        self.library.search.search()

    def open_hit(self, hit: SearchHit, query: str) -> None:
        """A result's page, the query's words on it highlighted (their boxes read off the GUI thread)."""
        def words(progress, cancel):
            return self.service.pages.query_words(hit.path, hit.page, query)

        self.openings.start("search words", words,
                            lambda boxes: self.viewer.open_page(hit.path, hit.page, marked=boxes),
                            on_failed=lambda message: self.viewer.open_page(hit.path, hit.page))
