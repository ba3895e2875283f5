"""The page embedder for a running service: whether visual indexing runs, the loaded model, the search cache.

The model is loaded once, on first need (indexing with pages pending, or a visual query), and shared by
threads; nothing is imported from torch until then.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Callable
from pathlib import Path

from ..components import is_installed, missing_message
from ..llm.manager import ModelManager, ResolvedModel
from ..settings import Settings
from ..store import page_vectors
from ..store.database import Database
from ..vectors.page_embedder import PageEmbedder
from .library_index import VisualLibraryIndex
from .search_index import SearchDepth
from .stage import EMBEDDER_HINT, PageImages


class VisualModels:
    def __init__(self, settings: Settings, models: Callable[[], ModelManager], db: Callable[[], Database]):
        self.settings, self._models, self._db = settings, models, db
        self._embedder: PageEmbedder | None = None
        self._indexes: dict[str, VisualLibraryIndex] = {}
        self._loading = threading.Lock()
        self.stage = PageImages(self)  # the indexer's page-image stage

    def resolved(self) -> ResolvedModel | None:
        return self._models().page_embedder()

    def embedder(self) -> PageEmbedder:
        with self._loading:
            if self._embedder is None:
                if not is_installed("visual"):
                    raise LookupError(missing_message("visual"))
                resolved = self.resolved()
                if resolved is None:
                    raise LookupError(f"no page embedder installed ({EMBEDDER_HINT})")
                s = self.settings.index
                self._embedder = PageEmbedder.load(
                    resolved.model_path, base_folder=resolved.base_path, visual_tokens=s.visual_tokens,
                    pool_factor=s.visual_pool_factor, name=resolved.name, cpu_int8=s.visual_cpu_int8,
                    vision_attention=str(s.visual_attention), vision_graphs=str(s.visual_graphs),
                    compile_layers=str(s.visual_compile), max_batch=s.visual_max_batch)
            return self._embedder

    def library_index(self) -> VisualLibraryIndex | None:
        """The search cache for the installed embedder's pages, caught up with the database; None when the
        embedder has embedded none, or visual retrieval is not installed (search is by text then)."""
        resolved = self.resolved()
        if resolved is None or not is_installed("visual"):
            return None
        with self._loading:
            index = self._indexes.get(resolved.name)
            if index is None:
                if not page_vectors.counts(self._db().cursor()).get(resolved.name):
                    return None  # no cache folder for an embedder that has embedded nothing
                s = self.settings.search
                folder = self.settings.locations.cache_dir / "visual" / re.sub(r"[^A-Za-z0-9._-]+", "-", resolved.name)
                index = self._indexes[resolved.name] = VisualLibraryIndex(
                    self._db, Path(folder), resolved.name, SearchDepth(s.visual_stage1, s.visual_stage2))
        index.sync()
        return index if len(index) else None

    def catch_up(self) -> None:
        """After indexing: bring the search cache up to date now rather than at the next search."""
        self.library_index()

