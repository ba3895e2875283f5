"""The app's words for the fixes the core's messages send the user to (errors.Remedy): the button that makes the
fix, where the command line names its command."""
from __future__ import annotations

from ..errors import DocQAError, Remedy

IMPORT_BUTTON = "Import a model file…"  # the first-run panel's and the Models dialog's
KEEP_WHERE_IT_IS = "Keep the file where it is (link, do not copy)"  # the import dialog's choice
IN_THE_APP = {Remedy.IMPORT_MODEL_FILE: f"the “{IMPORT_BUTTON}” button (beside Download; Tools → Models)",
              Remedy.PULL_MODEL: "{model} from Tools → Models…",
              Remedy.LIST_MODELS: "Tools → Models…",
              Remedy.LINK_MODEL_FILE: f"import it with “{KEEP_WHERE_IT_IS}” ticked"}


def in_app_words(exc: BaseException) -> str:
    """An error's message as the app shows it: a fix it names as a button, not as a command."""
    return exc.worded(IN_THE_APP) if isinstance(exc, DocQAError) else str(exc)
