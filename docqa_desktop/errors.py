"""The product's error root: every failure a user can cause or meet (a bad file, a missing model, a damaged
database, an unknown document) is a DocQAError whose message names the thing and the reason, so a front end
catches one type and shows the message as it is."""
from __future__ import annotations


class DocQAError(Exception):
    """A failure to report to the user in its own words."""


class ModelError(DocQAError, RuntimeError):
    """A model file that cannot be used, or a call that cannot be served; the message says why."""


class UnknownDocument(DocQAError, ValueError):
    """A document, page or answer the library does not hold (or no longer finds on disk)."""


class InvalidRequest(DocQAError, ValueError):
    """A request the app cannot act on as given (an empty question, a file to export that is no answer)."""


class PageGone(LookupError):
    """The page's document was removed from the index or from disk (the watcher removes a deleted file while a
    question runs): a method drops that page instead of failing the whole answer. Raised by the page port
    (retrieval/page_source.py)."""


class VisualUnavailable(DocQAError, LookupError):
    """Visual page search was asked for while no page images are embedded (retrieval/page_retriever.py)."""
