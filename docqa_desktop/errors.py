"""The product's error root: every failure a user can cause or meet (a bad file, a missing model, a damaged
database, an unknown document) is a DocQAError whose message names the thing and the reason, so a front end
catches one type and shows the message as it is."""
from __future__ import annotations

import enum
from collections.abc import Mapping


class Remedy(enum.Enum):
    """A fix a message sends the user to, which each front end names its own way: the command line a command, the
    app a button. The value is the command line's words."""
    IMPORT_MODEL_FILE = "`docqa models import FILE.gguf [--projector MMPROJ.gguf]`"
    PULL_MODEL = "`docqa models pull {model}`"  # {model}: the catalogue name to download
    LIST_MODELS = "`docqa models list`"
    LINK_MODEL_FILE = "import it with `--link`"  # keep a model file where it lies instead of copying it

    def worded(self, words: Mapping[Remedy, str], **names: str) -> str:
        """This fix in `words` (the command line's where they have none), its slots filled from `names`."""
        return words.get(self, self.value).format(**names)


class DocQAError(Exception):
    """A failure to report to the user in its own words. A message that sends the user to a fix is written with
    `{remedy}` where the fix goes and raised with `remedy=`: str() says it as the command line does, worded() as
    another front end does."""

    remedy: Remedy | None = None

    def __init__(self, *args, remedy: Remedy | None = None):
        super().__init__(*args)
        if remedy is not None:
            self.remedy = remedy

    def __str__(self) -> str:
        return self.worded({})

    def worded(self, words: Mapping[Remedy, str]) -> str:
        """The message with its remedy in `words` (the command line's where they have none)."""
        text = super().__str__()
        return text if self.remedy is None else text.replace("{remedy}", self.remedy.worded(words))


class ModelError(DocQAError, RuntimeError):
    """A model file that cannot be used, or a call that cannot be served; the message says why."""


class DocumentError(DocQAError):
    """A file the library cannot read: gone, unreadable, damaged, or of a kind it does not read (documents.py); the
    message says why, for `docqa status` and the library panel."""


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
