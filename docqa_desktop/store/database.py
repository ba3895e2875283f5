"""Opening the DuckDB file: locking, migrations, transactions, bundled extensions."""
from __future__ import annotations

import functools
import glob
import importlib.util
import os
import shutil
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pyarrow as pa

from ..errors import DocQAError
from ..settings import IndexSettings
from . import migrations


class _KnownAbsent:
    """An import finder that fails the named modules at once. DuckDB's client tries `import pandas` on every query
    with parameters, several times, and a module that is not installed is searched for along the whole import path
    each time: ~140 searches, ~20 ms, per library search (benchmarks/library_scale.py)."""

    def __init__(self, names: set[str]):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if name in self.names and not _asked_by_importlib_util():
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None  # the others' business; and importlib.util.find_spec expects None, not an error (torch asks)


def _asked_by_importlib_util() -> bool:
    import sys

    frame = sys._getframe(2)
    for _ in range(3):
        if frame is None:
            return False
        if frame.f_globals.get("__name__") == "importlib.util":
            return True
        frame = frame.f_back
    return False


def _settle_missing_pandas() -> None:
    import sys

    if "pandas" not in sys.modules and importlib.util.find_spec("pandas") is None:
        sys.meta_path.insert(0, _KnownAbsent({"pandas"}))


_settle_missing_pandas()


class StoreError(DocQAError, RuntimeError):
    pass


class StoreBusy(StoreError):
    """Another process (a running `docqa watch`, the GUI) holds the database file."""


class DatabaseDamaged(StoreError):
    """The file cannot be read as a DuckDB database (damaged on disk, truncated, overwritten)."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path} is damaged and cannot be read ({reason}); run `docqa repair` to move it aside "
                         "and rebuild the index from your PDFs (history and page summaries are kept where "
                         "they can still be read)")
        self.path = path


# what DuckDB says when a file's bytes are not what it wrote: failed block checksums, a short file,
# headers that are not DuckDB's, a WAL that cannot be replayed
_DAMAGE_MARKERS = ("corrupt", "checksum", "not a valid duckdb database", "could not read enough bytes",
                   "failure while replaying wal", "serializ")
_DAMAGE_ERRORS = (duckdb.SerializationException, duckdb.InternalException, duckdb.FatalException)


def is_damage(exc: BaseException) -> bool:
    return isinstance(exc, _DAMAGE_ERRORS) or (
        isinstance(exc, duckdb.Error) and any(m in str(exc).lower() for m in _DAMAGE_MARKERS))


def store_error(path: Path, exc: duckdb.Error) -> StoreError:
    """A DuckDB error raised by a query outside this class, said in the store's terms."""
    return DatabaseDamaged(path, str(exc)) if is_damage(exc) else StoreError(f"cannot read {path}: {exc}")


def as_store_error(path: Path, exc: BaseException) -> StoreError | None:
    """store_error for a DuckDB error (e.g. a query that reached a damaged block the check on opening does not
    read); None for any other exception."""
    return store_error(path, exc) if isinstance(exc, duckdb.Error) else None


def _not_writable(exc: BaseException) -> bool:
    text = str(exc)
    return "Read-only file system" in text or "Permission denied" in text


# read in full on every open (small tables: 9 ms for 20,000 documents, benchmarks/db_open_check.py): a damaged
# block there fails now, with a clear message, rather than halfway through a command. The large tables (pages,
# words, chunks, vectors) are too big to read on open; a damaged block in them is reported the same way when
# a query reaches it, and `docqa repair` reads everything.
QUICK_CHECK_TABLES = ("meta", "libraries", "files", "documents")


@functools.lru_cache(maxsize=None)
def _bundled_extension(name: str) -> str | None:
    """Path of an extension shipped by the duckdb-ext-<name> package (INSTALL needs the internet)."""
    spec = importlib.util.find_spec("duckdb_ext")
    if spec is None or not spec.submodule_search_locations:
        return None
    for base in spec.submodule_search_locations:
        found = glob.glob(os.path.join(base, "extensions", f"v{duckdb.__version__}", "*",
                                       f"{name}.duckdb_extension"))
        if found:
            return found[0]
    return None


_process_locks: dict[str, threading.RLock] = {}
_process_locks_guard = threading.Lock()


def _lock_for(path: Path) -> threading.RLock:
    """DuckDB shares one database instance between connections to the same file in a process,
    so every Database object on that file must share one writer lock too."""
    key = os.path.realpath(path)
    with _process_locks_guard:
        return _process_locks.setdefault(key, threading.RLock())


def _rollback(cur: duckdb.DuckDBPyConnection) -> None:
    try:
        cur.execute("ROLLBACK")
    except duckdb.Error:
        pass  # a failed COMMIT has already ended the transaction


class Database:
    """One connection to the library file; threads take cursors from it."""

    def __init__(self, path: str | os.PathLike, *, wait_seconds: float = 10.0,
                 memory_mb: int = IndexSettings.store_memory_mb):
        self.path = Path(path)
        self.read_only = False  # an existing file in a folder this process cannot write: searches still work
        if not self.path.exists():
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise self._folder_error(exc) from exc
        self._lock = _lock_for(self.path)  # one writer transaction at a time inside this process
        # threads opening the file at once would create two DuckDB instances or migrate it twice
        with self._lock:
            self.con = self._connect(wait_seconds)
            try:
                # DuckDB's default is 80 % of RAM, and its buffer pool keeps what a scan read: loading a
                # 100,000-page library's chunk vectors for search left 1.5 GB of table blocks cached
                self.con.execute(f"SET memory_limit = '{int(memory_mb)}MB'")
                # and its allocator returns what a big read freed to the system (1.0 instead of 2.0 GB resident
                # after the 100,000-page load, benchmarks/library_scale.py)
                self.con.execute("SET allocator_background_threads = true")
                self.load_fts(self.con)  # its stem() makes the keyword index's terms, migrations included
                self._migrate()
                self._quick_check()
            except BaseException:
                self.close()
                raise

    def _connect(self, wait_seconds: float) -> duckdb.DuckDBPyConnection:
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                return duckdb.connect(str(self.path), read_only=self.read_only)
            except duckdb.Error as exc:
                if is_damage(exc):
                    raise DatabaseDamaged(self.path, str(exc)) from exc
                if _not_writable(exc) and self.path.exists() and not self.read_only:
                    self.read_only = True  # reading needs no write access; writes say why they cannot
                    continue
                if _not_writable(exc):
                    raise self._folder_error(exc) from exc
                if not isinstance(exc, duckdb.IOException) or "lock" not in str(exc).lower():
                    raise StoreError(f"cannot open {self.path}: {exc}") from exc
                if time.monotonic() >= deadline:
                    raise StoreBusy(f"{self.path} is in use by another docqa process "
                                    f"(a running `docqa watch` or the app); stop it or wait. ({exc})") from exc
                time.sleep(0.2)

    def _folder_error(self, exc: BaseException) -> StoreError:
        return StoreError(f"cannot write {self.path}: its folder {self.path.parent} is read-only or not writable "
                          f"by this user; give docqa a writable folder (--home or DOCQA_HOME) ({exc})")

    def _migrate(self) -> None:
        """Bring the schema up to date; an existing database is backed up first (see _back_up)."""
        try:
            version = migrations.current_version(self.con)
        except duckdb.Error as exc:
            raise store_error(self.path, exc) from exc
        if version > migrations.LATEST:
            raise StoreError(f"{self.path}: database schema v{version} is newer than this program "
                             f"(v{migrations.LATEST}); upgrade docqa")
        if version == migrations.LATEST:
            return
        if self.read_only:
            raise StoreError(f"{self.path} needs upgrading from schema v{version} to v{migrations.LATEST}, but "
                             f"its folder {self.path.parent} is read-only")
        backup = self._back_up(version) if version > 0 else None
        try:
            migrations.migrate(self.con)
        except duckdb.Error as exc:
            if is_damage(exc):
                raise DatabaseDamaged(self.path, str(exc)) from exc
            kept = f"; a copy from before the upgrade is at {backup}" if backup else ""
            raise StoreError(f"cannot upgrade {self.path} from schema v{version} to v{migrations.LATEST} ({exc}); "
                             f"the step that failed was rolled back{kept}") from exc
        if backup is not None:
            _drop_older_backups(self.path, keep=backup)

    def _back_up(self, version: int) -> Path:
        """Copy the file before migrating it: <db>.before-v<N>.bak.

        Each migration step is one DuckDB transaction, so a kill mid-step leaves the file at the last
        finished step and the next start carries on; the copy is for what transactions cannot undo (a
        program bug in a step, or going back to the previous docqa version). The last copy is kept after
        a successful upgrade and older ones are deleted: restoring means replacing the database file with
        it while docqa is not running (see the README).
        """
        backup = self.path.with_name(f"{self.path.name}.before-v{version}.bak")
        partial = backup.with_name(backup.name + ".partial")
        try:
            self.con.execute("CHECKPOINT")  # everything in the main file, nothing left only in the WAL
            shutil.copyfile(self.path, partial)
            os.replace(partial, backup)  # a copy cut short by a kill never looks like a backup
        except (OSError, duckdb.Error) as exc:
            partial.unlink(missing_ok=True)
            raise StoreError(f"cannot back up {self.path} to {backup} before upgrading it from schema "
                             f"v{version}; nothing was changed ({exc})") from exc
        return backup

    def _quick_check(self) -> None:
        """Read the small core tables in full: a damaged file fails here with a clear message."""
        cur = self.con.cursor()
        try:
            for table in QUICK_CHECK_TABLES:
                # hashing whole rows reads every block of every column without building Python objects
                cur.execute(f"SELECT bit_xor(hash(t)) FROM {table} t").fetchall()
        except duckdb.Error as exc:
            raise store_error(self.path, exc) from exc
        finally:
            cur.close()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        return self.con.cursor()

    @contextmanager
    def transaction(self):
        """All-or-nothing: a crash or exception inside leaves the file as it was before."""
        if self.read_only:
            raise self._folder_error(OSError("opened read-only"))
        with self._lock:
            cur = self.con.cursor()
            cur.execute("BEGIN")
            try:
                yield cur
                cur.execute("COMMIT")
            except BaseException as exc:
                _rollback(cur)
                if isinstance(exc, duckdb.Error):
                    raise self._write_error(exc) from exc
                raise
            finally:
                cur.close()

    def _write_error(self, exc: duckdb.Error) -> StoreError:
        if is_damage(exc):
            return DatabaseDamaged(self.path, str(exc))
        if _not_writable(exc):
            return self._folder_error(exc)
        reason = "disk full" if "No space left" in str(exc) else "write failed"
        return StoreError(f"cannot write {self.path}: {reason} ({exc})")

    def insert_arrow(self, cur: duckdb.DuckDBPyConnection, table: str, data) -> None:
        """Bulk insert a pyarrow table (executemany costs milliseconds per row in DuckDB)."""
        if data.num_rows == 0:
            return
        cur.register("_batch", data)
        try:
            cur.execute(f"INSERT INTO {table} ({', '.join(data.column_names)}) SELECT * FROM _batch")
        finally:
            cur.unregister("_batch")

    def warm_up(self) -> None:
        """Load what DuckDB loads on first use — the text search extension, and pyarrow's dataset and compute
        modules for the first bulk insert — holding the interpreter lock for tens of milliseconds each."""
        self.load_fts()
        cur = self.cursor()
        cur.register("_warm_up", pa.table({"x": [1]}))
        try:
            cur.execute("SELECT count(*) FROM _warm_up").fetchall()
        finally:
            cur.unregister("_warm_up")
            cur.close()

    def load_fts(self, cur: duckdb.DuckDBPyConnection | None = None) -> None:
        target = cur or self.cursor()
        path = _bundled_extension("fts")
        try:
            target.execute(f"LOAD '{path}'" if path else "LOAD fts")
        except duckdb.Error as exc:
            raise StoreError("DuckDB full-text search extension not found: install duckdb-ext-fts "
                             f"matching duckdb {duckdb.__version__} ({exc})") from exc

    def close(self) -> None:
        try:
            self.con.close()
        except duckdb.Error:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _drop_older_backups(path: Path, keep: Path) -> None:
    for old in path.parent.glob(f"{glob.escape(path.name)}.before-v*.bak"):
        if old != keep:
            old.unlink(missing_ok=True)
