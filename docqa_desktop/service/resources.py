"""What the facade's parts share: the database, the model manager, the language models by role and the page
embedder — built on first use, rebuilt when settings change them, closed in one place. Tests hand fakes in through
the constructor."""
from __future__ import annotations

from ..llm.manager import ModelManager
from ..llm.runtime import ModelRuntimes
from ..settings import Settings
from ..store.database import Database
from ..visual.provider import VisualModels


class Resources:
    def __init__(self, settings: Settings, *, database: Database | None = None, models: ModelManager | None = None,
                 runtimes: ModelRuntimes | None = None):
        self.settings = settings
        settings.locations.create()
        self._db, self._models, self._runtimes = database, models, runtimes
        self.visual = VisualModels(settings, lambda: self.models, lambda: self.db)

    @property
    def db(self) -> Database:
        if self._db is None:
            self._db = Database(self.settings.locations.database, memory_mb=self.settings.index.store_memory_mb)
        return self._db

    @property
    def models(self) -> ModelManager:
        if self._models is None:
            self._models = ModelManager(self.settings.locations.installed_models)
        return self._models

    @property
    def runtimes(self) -> ModelRuntimes:
        """Language models by role, loaded on first use."""
        if self._runtimes is None:
            self._runtimes = ModelRuntimes(self.settings.llm, self.models)
        return self._runtimes

    def use_runtimes(self, runtimes: ModelRuntimes) -> None:
        """Serve the text and vision roles with these from now on (the loaded ones are closed): for tools and
        tests that script the language models."""
        if self._runtimes is not None:
            self._runtimes.close()
        self._runtimes = runtimes

    def apply(self, settings: Settings) -> None:
        """New settings; a changed model setting reloads the model on its next use."""
        if settings.llm != self.settings.llm and self._runtimes is not None:
            self._runtimes.close()
            self._runtimes = None
        if settings.index != self.settings.index:  # another visual-token budget or pooling: load again
            self.visual = VisualModels(settings, lambda: self.models, lambda: self.db)
        self.visual.settings = settings
        self.settings = settings

    def close(self) -> None:
        """Unload the models and close the database (it opens again on next use: `docqa watch` closes it
        between bursts so that other docqa processes can read it)."""
        if self._runtimes is not None:
            self._runtimes.close()
        if self._db is not None:
            self._db.close()
            self._db = None
