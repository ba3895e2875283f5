"""What the page viewer and the answer's thumbnails ask of the library, each read off the GUI thread: a page rendered
at the viewer's size, the height of cited words (the viewer zooms until they read), every match of find in the
document as it is found, and a page's thumbnail."""
from __future__ import annotations

from pathlib import Path

from ..service import Service
from .answer_view import AnswerView
from .page_viewer import PageViewer
from .tasks import Newest, TaskRunner


class PageFeed:
    def __init__(self, service: Service, tasks: TaskRunner, viewer: PageViewer, answer_view: AnswerView):
        self.service, self.tasks, self.viewer, self.answer_view = service, tasks, viewer, answer_view
        self.finds = Newest(tasks)  # find in the document: the newest search alone
        viewer.render_requested.connect(self.render_page)
        viewer.text_height_requested.connect(self.read_text_height)
        viewer.find_requested.connect(self.find_in_document)

    def render_page(self, path: str, page: int, width: int, height: int) -> None:
        def render(progress, cancel):
            return self.service.pages.rendered_page(path, page, width, height)

        self.tasks.start("render", render,
                         lambda rendered: self.viewer.show_render(path, page, (width, height), rendered),
                         on_failed=self.viewer.show_error)

    def read_text_height(self, path: str, page: int, box) -> None:
        """How tall the cited words stand: the viewer zooms until they read."""
        def read(progress, cancel):
            return self.service.pages.text_height(path, page, box)

        self.tasks.start("text height", read, lambda points: self.viewer.show_text_height(path, page, box, points),
                         on_failed=lambda message: self.viewer.show_text_height(path, page, box, None))

    def find_in_document(self, path: str, text: str) -> None:
        """Every match of `text` in the document at `path`, for the viewer's find bar: searched page by page (a
        document of thousands of pages does not hold the window), the matches shown as they are found. A newer
        search, or an empty text (the bar closed), cancels the one running."""
        if not text:
            self.finds.cancel()
            return
        bar = self.viewer.find_bar

        def find(progress, cancel):
            return self.service.pages.find(path, text, cancel=cancel, found=progress)

        self.finds.start("find", find, lambda _: bar.finished(), lambda page: bar.add_found(page.page, page.matches),
                         bar.failed)

    def load_thumbnail(self, path: str, page: int) -> None:
        def load(progress, cancel):
            return Path(self.service.pages.thumbnail(path, page)).read_bytes()

        self.tasks.start("thumbnail", load, lambda png: self.answer_view.set_thumbnail(path, page, png))
