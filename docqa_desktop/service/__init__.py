"""The one facade the CLI and the GUI talk to, as four parts over shared resources:

    service.library   index, watch, remove, repair, status, stages
    service.pages     resolve documents, render pages and thumbnails, search
    service.answers   methods, ask, prepare, history, threads, export
    service.models    roles, defaults, recommendations, first run, pull / import / verify / remove
    service.components  the optional components (visual retrieval, clustering, charts): list, install, remove
    service.tables    a PDF's tables as the product reads them: from the index, or read from the file on the spot

`Service(settings)` builds the resources (database, model manager, language models, page embedder) on first use
and closes them once; `Service(settings, resources=Resources(settings, models=…, runtimes=…))` hands in fakes.
"""
from __future__ import annotations

from ..documents import document_kind, is_document
from ..errors import DocQAError, UnknownDocument
from ..evaluation import load_questions
from ..export import FORMATS as EXPORT_FORMATS
from ..export import file_name as export_file_name
from ..llm.runtime import NO_VISION_MODEL
from ..methods import AUTO_METHOD, CASCADE, METHODS, QUOTED, MethodSpec, setting_defaults
from ..pdf.render import RenderedPage
from ..retrieval.page_retriever import SearchMode
from ..settings import Settings
from ..store import StoreError
from ..table_export import FORMATS as TABLE_FORMATS
from ..table_export import tables_text, write_tables
from ..store.database import as_store_error
from .answering import Answers, PrepareReport, mark_below_floor
from .components import Components, InstallProgress
from .library import Library
from .models import Models, Recommendation
from .pages import Pages
from .resources import Resources
from .tables import FileTables, Tables

# what the front ends use from below this facade, which they may not import themselves (tests/test_layers.py)
METHOD_NAMES = sorted(METHODS)
SEARCH_MODES = [mode.value for mode in SearchMode]

__all__ = ["Service", "Resources", "Components", "InstallProgress", "DocQAError", "UnknownDocument", "PrepareReport", "Recommendation",
           "FileTables", "mark_below_floor", "user_error", "method_setting_defaults",
           "AUTO_METHOD", "CASCADE", "EXPORT_FORMATS", "METHOD_NAMES", "MethodSpec", "NO_VISION_MODEL", "QUOTED", "RenderedPage",
           "SEARCH_MODES", "StoreError", "TABLE_FORMATS", "document_kind", "export_file_name", "is_document", "load_questions",
           "tables_text", "write_tables"]


def user_error(exc: BaseException, settings: Settings | None) -> Exception | None:
    """`exc` as a front end shows it: the product's errors (DocQAError), the file system's (OSError) and a bad
    value (ValueError) as they are, a failed query on a damaged database in the store's words; None for a fault
    (a bug, to be raised with its traceback)."""
    if isinstance(exc, (DocQAError, OSError, ValueError)):
        return exc
    return as_store_error(settings.locations.database, exc) if settings is not None else None


def method_setting_defaults() -> dict[str, list[str]]:
    """Each method's settings as "name=the paper's default", by method name (for help texts)."""
    return {name: setting_defaults(METHODS[name]) for name in METHOD_NAMES}


class Service:
    def __init__(self, settings: Settings, *, resources: Resources | None = None):
        self._resources = resources or Resources(settings)
        self.models = Models(self._resources, self.apply_settings)
        self.pages = Pages(self._resources)
        # the answers index an evaluation's corpus through the library; a watch prepares through the answers
        self.answers = Answers(self._resources, self.pages, self.models,
                               lambda paths, progress, cancel: self.library.index(paths, progress, cancel))
        self.library = Library(self._resources, self.answers.prepare, lambda: self.answers.default_method,
                               self.answers.running)
        self.components = Components(self._resources)
        self.tables = Tables(self._resources)

    @property
    def settings(self) -> Settings:
        return self._resources.settings

    @property
    def resources(self) -> Resources:
        """The shared resources, for tests and benchmarks that work below the facade; the app and the CLI use
        the four parts only (tests/test_layers.py checks)."""
        return self._resources

    def apply_settings(self, settings: Settings) -> None:
        """New settings from the app; a changed model setting reloads the model on its next use."""
        self._resources.apply(settings)

    def warm_up(self) -> None:
        """Load now what the first search or indexing run would load mid-session, holding the interpreter
        lock (a hitch in the app's window)."""
        self._resources.db.warm_up()

    def close(self) -> None:
        self._resources.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
