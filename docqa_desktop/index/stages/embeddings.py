"""An embedding for every chunk still without one (dense retrieval), a committed batch at a time; a cancel or a
crash loses at most the batch in hand, and the next run resumes with the chunks still missing."""
from __future__ import annotations

from collections.abc import Sequence

from ...domain import Reported, StageStatus
from ...progress import ProgressTracker
from ...settings import IndexSettings
from ...store import content, enrichment
from ...store.database import Database, StoreError
from ..parse_task import embed_texts
from ..pipeline import OrderedPool, Task
from .base import StageContext, switch_status


class Embeddings:
    name = "embeddings"
    unit = "chunks"
    phase = "embedding"
    phase_text = "Searchable now; embedding passages — {done}/{total} {unit}{eta}"
    bar_text = "embedding {done}/{total} {unit}"
    reported = Reported(json_count="chunks_embedded", summary="{done} chunks embedded")

    def enabled(self, settings: IndexSettings) -> str | None:
        return None if settings.dense else "switched off (index.dense)"

    def status(self, cur, settings: IndexSettings) -> StageStatus:
        return switch_status(self, enrichment.chunks_embedded(cur), settings)

    def run(self, ctx: StageContext) -> int:
        """Embed the pending chunks; returns how many were embedded."""
        pending = content.pending_chunks(ctx.db.cursor())
        if not pending:
            return 0
        size = ctx.settings.embed_batch
        ids = [pending[start:start + size] for start in range(0, len(pending), size)]
        pool = OrderedPool(embed_texts, _TextBatches(ctx.db, ids), ctx.settings.workers,
                           on_crash=lambda: (None, 0.0))
        progress = ProgressTracker(1, len(pending), ctx.progress, phase=self.phase, unit="chunks")
        done = 0
        try:
            for index, chunk_ids in enumerate(ids):
                if ctx.cancel.is_set():
                    break
                vectors, seconds = pool.result(index)
                if vectors is None:
                    raise StoreError("the embedding process crashed; run the index again to resume")
                ctx.add_time({"embed": seconds})
                with ctx.db.transaction() as write:
                    content.set_embeddings(ctx.db, write, chunk_ids, vectors)
                done += len(chunk_ids)
                progress.pages_parsed(len(chunk_ids))
        finally:
            pool.close(kill=ctx.cancel.is_set())
        return done


class _TextBatches(Sequence[Task]):
    """The embedding tasks, each batch's texts read from the store when the pool gets to it: the pending chunks
    of a large import are too many to hold (~0.5 KB of text each, 711,000 at 100,000 pages)."""

    def __init__(self, db: Database, batches: list[list[int]]):
        self.db, self.batches = db, batches
        self._last: Task | None = None  # the pool looks at a task twice: whether to skip it, then to submit it

    def __len__(self) -> int:
        return len(self.batches)

    def __getitem__(self, index: int) -> Task:
        if self._last is None or self._last.job != index:
            self._last = Task(index, (content.chunk_texts(self.db.cursor(), self.batches[index]),))
        return self._last
