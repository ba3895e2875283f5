"""Watched folders under churn: while `docqa watch` runs, files are created, rewritten, renamed, moved between
subfolders, replaced atomically and deleted, in bursts; after it settles, the index must equal the folder.

    .venv/bin/python benchmarks/watch_churn.py --files N --bursts B [--seed S] [--settle 0.5] [--json] [--out FILE]

Every file is a small generated PDF whose text carries a word unique to its content (each rewrite gets a new one).
The N creations are spread over B bursts; each burst also rewrites, renames, moves, replaces (write a temp file, then
os.replace) and deletes some of the files already there, creates files and deletes them again, renames in chains and
renames one file over another, renames a subfolder and (every fourth burst) deletes one. Bursts are separated by gaps
drawn around the watcher's settle time, so some merge and others land while it is indexing. The watcher runs as a
real subprocess with a short settle time (DOCQA_INDEX_SETTLE_SECONDS) and layout, dense embeddings, OCR and page
images off (DOCQA_INDEX_LAYOUT=0 ...): this measures file events, not parsing. Settled = `docqa status --json` unchanged, nothing pending, for a while; then the
watcher is stopped with Ctrl-C and its database compared with the folder: every PDF on disk indexed with its own
content (sha256 and its unique word in the page text), nothing indexed that is not on disk.
Prints {"files", "operations", "bursts", "missing", "stale", "wrong_content", "seconds_to_settle"}; writes
benchmarks/results/watch_churn.json (or --out).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from _docqa_runs import Run, docqa_args, docqa_env, open_readonly, run_docqa, sha256_file  # noqa: E402
from docqa_desktop.index.scan import find_documents  # noqa: E402

SUBFOLDERS = ["", "alpha", "beta", "beta/deep", "gamma"]
WORDS = "harbour ledger quarterly turbine invoice survey estuary cargo tariff ferry audit beacon".split()
# share of the files present that each kind of operation touches in a burst
SHARES = {"rewrite": 0.08, "rename": 0.05, "move": 0.05, "atomic_replace": 0.05, "delete": 0.04}


class Folder:
    """The folder under churn and what each of its PDFs should be indexed as (path -> unique word)."""

    def __init__(self, root: Path, rng: random.Random):
        self.root, self.rng = root, rng
        self.expected: dict[Path, str] = {}
        self.serial = 0
        self.operations: Counter = Counter()
        self.subfolders = list(SUBFOLDERS)
        for sub in SUBFOLDERS:
            (root / sub).mkdir(parents=True, exist_ok=True)

    def _pdf(self) -> tuple[bytes, str]:
        self.serial += 1
        word = f"churnword{self.serial:06d}"
        filler = " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(5, 120)))
        with pymupdf.open() as doc:
            doc.new_page().insert_textbox(pymupdf.Rect(50, 50, 550, 800), f"{word} {filler}", fontsize=11)
            return doc.tobytes(), word

    def _new_path(self) -> Path:
        return self.root / self.rng.choice(self.subfolders) / f"doc-{self.serial + 1:06d}-{self.rng.randint(0, 999)}.pdf"

    def _pick(self) -> Path | None:
        return self.rng.choice(sorted(self.expected)) if self.expected else None

    def create(self, path: Path | None = None) -> Path:
        path = path or self._new_path()
        data, word = self._pdf()
        path.write_bytes(data)
        self.expected[path] = word
        self.operations["create"] += 1
        return path

    def rewrite(self) -> None:
        path = self._pick()
        if path:
            data, word = self._pdf()
            with open(path, "r+b") as fh:  # in place: same inode, new content
                fh.truncate(0)
                fh.write(data)
            self.expected[path] = word
            self.operations["rewrite"] += 1

    def atomic_replace(self) -> None:
        path = self._pick()
        if path:
            data, word = self._pdf()
            temp = path.with_name(f".{path.name}.tmp")
            temp.write_bytes(data)
            os.replace(temp, path)
            self.expected[path] = word
            self.operations["atomic_replace"] += 1

    def _move(self, source: Path, target: Path, kind: str) -> None:
        os.replace(source, target)
        self.expected[target] = self.expected.pop(source)
        self.operations[kind] += 1

    def rename(self) -> None:
        path = self._pick()
        if path:
            self._move(path, path.with_name(f"renamed-{self.serial}-{self.rng.randint(0, 99999)}.pdf"), "rename")

    def move(self) -> None:
        path = self._pick()
        if path:
            folder = self.rng.choice([s for s in self.subfolders if self.root / s != path.parent])
            self._move(path, self.root / folder / path.name, "move")

    def delete(self) -> None:
        path = self._pick()
        if path:
            path.unlink()
            del self.expected[path]
            self.operations["delete"] += 1

    def create_then_delete(self) -> None:
        path = self.create()
        self.operations["create"] -= 1
        path.unlink()
        del self.expected[path]
        self.operations["create_then_delete"] += 1

    def rename_chain(self) -> None:
        path = self._pick()
        if path:
            for step in range(3):
                folder = self.rng.choice(self.subfolders)
                target = self.root / folder / f"chain-{self.serial}-{step}-{self.rng.randint(0, 99999)}.pdf"
                os.replace(path, target)
                self.expected[target] = self.expected.pop(path)
                path = target
            self.operations["rename_chain"] += 1

    def rename_over(self) -> None:
        """One file renamed onto another's name: that path now holds the first file's content."""
        if len(self.expected) >= 2:
            source, target = self.rng.sample(sorted(self.expected), 2)
            del self.expected[target]
            self._move(source, target, "rename_over")

    def rename_folder(self) -> None:
        """A subfolder (with its own subfolders) renamed: every file below it moves at once."""
        old = self.rng.choice([s for s in self.subfolders if s])
        new = f"{old}-r{self.serial}"
        os.rename(self.root / old, self.root / new)

        def moved(sub: str) -> str:
            return new + sub[len(old):] if sub == old or sub.startswith(old + "/") else sub
        self.subfolders = [moved(s) for s in self.subfolders]
        self.expected = {self.root / moved(str(p.parent.relative_to(self.root))) / p.name: word
                         for p, word in self.expected.items()}
        self.operations["rename_folder"] += 1

    def delete_folder(self) -> None:
        """A leaf subfolder deleted with its files (and made again, empty)."""
        leaf = self.rng.choice([s for s in self.subfolders if s and not any(
            t.startswith(s + "/") for t in self.subfolders)])
        shutil.rmtree(self.root / leaf)
        self.expected = {p: w for p, w in self.expected.items() if p.parent != self.root / leaf}
        (self.root / leaf).mkdir()
        self.operations["delete_folder"] += 1

    def burst(self, index: int, creations: int) -> None:
        present = len(self.expected)
        actions = [self.create] * creations
        for kind, share in SHARES.items():
            actions += [getattr(self, kind)] * int(round(present * share))
        actions += [self.create_then_delete, self.rename_chain, self.rename_over] * max(1, present // 100)
        if present:
            actions += [self.rename_folder] + ([self.delete_folder] if index % 4 == 2 else [])
        self.rng.shuffle(actions)
        for action in actions:
            action()


def settle(home: Path, env: dict, quiet_seconds: float, timeout: float) -> tuple[float | None, list, int]:
    """Poll `docqa status --json` until its answer stays the same, with nothing pending, for `quiet_seconds`.
    Returns (seconds until that final answer first appeared or None on timeout, the answer, busy polls)."""
    started = time.monotonic()
    last, since, busy = None, None, 0
    while time.monotonic() - started < timeout:
        status = run_docqa("status", "--json", home=home, env=env, timeout=120)
        now = time.monotonic()
        if status.returncode != 0:  # the watcher holds the database during a burst (StoreBusy)
            busy += 1
            last, since = None, None
            continue
        documents = json.loads(status.stdout)["documents"]
        if documents != last:
            last, since = documents, now
        elif all(d["status"] != "pending" for d in documents) and now - since >= quiet_seconds:
            return round(since - started, 1), documents, busy
        time.sleep(0.5)
    return None, last or [], busy


def compare(db_path: Path, folder: Folder) -> dict:
    con = open_readonly(db_path)
    try:
        files = {p: (d, s) for p, d, s in con.execute("SELECT path, doc_id, status FROM files").fetchall()}
        docs = dict(con.execute("SELECT id, sha256 FROM documents").fetchall())
        texts: dict[int, str] = {}
        for doc_id, text in con.execute("SELECT doc_id, text FROM pages ORDER BY doc_id, page").fetchall():
            texts[doc_id] = texts.get(doc_id, "") + text
    finally:
        con.close()
    on_disk = set(find_documents(str(folder.root.resolve()))[0])
    expected = {str(p.resolve()): word for p, word in folder.expected.items()}
    assert set(expected) == on_disk, "the benchmark's own record of the folder is wrong"
    missing = [p for p in sorted(on_disk) if p not in files or files[p][1] != "indexed" or files[p][0] not in docs]
    wrong = [p for p in sorted(on_disk) if p not in missing and (
        docs[files[p][0]] != sha256_file(Path(p)) or expected[p] not in texts.get(files[p][0], ""))]
    stale = sorted(set(files) - on_disk)
    live = {d for d, _ in files.values()}
    return {"missing": len(missing), "stale": len(stale), "wrong_content": len(wrong),
            "unreferenced_documents": len(set(docs) - live),
            "examples": {"missing": missing[:5], "stale": stale[:5], "wrong_content": wrong[:5]}}


def measure(files: int, bursts: int, seed: int, settle_seconds: float, work: Path) -> dict:
    rng = random.Random(seed)
    folder = Folder(work / "watched", rng)
    home = work / "home"
    env = docqa_env(DOCQA_INDEX_SETTLE_SECONDS=str(settle_seconds), DOCQA_INDEX_LAYOUT="0",
                    DOCQA_INDEX_DENSE="0", DOCQA_INDEX_OCR="0", DOCQA_INDEX_VISUAL="off")
    watcher = Run(docqa_args("watch", str(folder.root), home=home), env)
    if watcher.wait_for(r"^watching ", timeout=300) is None:
        raise SystemExit(f"docqa watch did not start: {watcher.last_line()}")
    time.sleep(2 * settle_seconds + 1)  # its first (empty) sync
    started = time.monotonic()
    per_burst = [files // bursts + (1 if i < files % bursts else 0) for i in range(bursts)]
    for index, creations in enumerate(per_burst):
        folder.burst(index, creations)
        if index < bursts - 1:  # merge with the next burst, or land while the watcher indexes this one
            time.sleep(rng.choice([rng.uniform(0.05, 0.5), rng.uniform(1.5, 4.0)]) * settle_seconds)
    churn_seconds = time.monotonic() - started
    to_settle, status, busy = settle(home, env, quiet_seconds=max(8.0, 10 * settle_seconds),
                                     timeout=600 + files)
    exit_code = watcher.stop()
    result = compare(home / "data" / "library.duckdb", folder)
    retried = [line for _, line in watcher.lines if "will retry" in line]
    return {"files": files, "operations": sum(folder.operations.values()), "bursts": bursts,
            "missing": result["missing"], "stale": result["stale"], "wrong_content": result["wrong_content"],
            "seconds_to_settle": to_settle, "unreferenced_documents": result["unreferenced_documents"],
            "pdfs_at_end": len(folder.expected), "operations_by_kind": dict(folder.operations),
            "churn_seconds": round(churn_seconds, 1), "settle_seconds_setting": settle_seconds,
            "status_polls_busy": busy, "watcher_retries": len(retried), "watcher_retry_examples": retried[:3],
            "watcher_exit": exit_code, "examples": result["examples"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, required=True, help="files created over the whole run")
    parser.add_argument("--bursts", type=int, required=True)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--settle", type=float, default=0.5, help="the watcher's settle time (seconds)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--out")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="docqa-churn-") as work:
        result = measure(args.files, args.bursts, args.seed, args.settle, Path(work))
    result["environment"] = _common.environment()
    _common.write_json(result, args.out, "watch_churn.json")
    keys = ("files", "operations", "bursts", "missing", "stale", "wrong_content", "seconds_to_settle")
    print(json.dumps({k: result[k] for k in keys}) if args.json else json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
