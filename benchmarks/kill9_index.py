"""Crash consistency: `docqa index`, `docqa watch`, the page-image stage and `docqa prepare --method simpledoc` killed with SIGKILL at
random moments on a real corpus folder, run again to completion, and compared with a clean index of the same folder.

    .venv/bin/python benchmarks/kill9_index.py --kills N [--seed S] [--mode all|index|watch|visual|summarize[,...]]
                                               [--small] [--json] [--out FILE]

The folder (in a temp dir; the corpus is never copied into the repository): a born-digital corpus paper, a copy of
it in a subfolder (two paths, one document), the first pages of an image-only slide deck (OCR), the two sample PDFs
(one scanned). --small uses the samples and a copy, layout off (the default test suite runs that). A clean reference
index is built once; then each cycle starts a docqa process on a fresh home (index, watch) or a copy of a complete
one (a watch burst; the page-image stage with the tiny random ColQwen2.5 of tests/tiny_colqwen.py; `docqa summarize`
of the 4-page sample with the built-in language model), waits for a phase chosen at random (seeded) — scanning,
parsing, finishing (full-text index rebuild), embedding, a watch burst, page images, summaries — kills the process
alone (kill -9 on its pid: its worker processes must exit by themselves) a random moment into it, checks that the
database opens (`docqa status`) and holds no half-written document, runs the same command to completion and compares:
documents by sha256, page counts, page text, chunks and their embeddings, layout elements, words, files against the
folder, the full-text index, page-image vectors (visual), summaries written before the kill kept and none twice.
Modes go round-robin; `mode/phase` fixes the phase. Each cycle records the phase its last progress line showed
("hit"). Prints {"kills", "db_open_failures", "lost_documents", "mismatches", "orphans", "seconds",
"orphaned_workers"}; writes benchmarks/results/kill9_index.json (or --out) after every cycle.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from _docqa_runs import Run, docqa_args, docqa_env, open_readonly, run_docqa, sha256_file  # noqa: E402
from docqa_desktop.index.scan import find_documents  # noqa: E402

PAPER, DECK = "1912.01214.pdf", "germanwingsdigitalcrisisanalysis-150403064828-conversion-gate01_95.pdf"
DECK_PAGES = 3
HOLD = "harbour-solar-report.pdf"  # taken out before a watch starts, put back as the burst; also summarised
MOVER = "ferry-memo-scanned.pdf"  # moved into a subfolder in the same burst
CHILD_TABLES = ("pages", "words", "elements", "chunks", "chunk_vectors", "page_vectors", "artifacts")
PHASES = {"index": ["scanning", "parsing", "finishing", "embedding"],
          "watch": ["scanning", "parsing", "finishing", "embedding", "burst"],
          "visual": ["visual"], "summarize": ["summaries"]}
# lines of the progress bar (stderr on a terminal) that mark the start of each phase: the full-text index rebuild and
# then the chunk embeddings follow the last document (the bar shows the first embedding batch only once it is done)
ALL_DOCUMENTS = r"\b(\d+)/\1 docs"
MARKERS = {"parsing": r"\d+/\d+ docs", "finishing": ALL_DOCUMENTS, "embedding": ALL_DOCUMENTS,
           "visual": r"page images", "summaries": r"summarised \d+/\d+"}
FINISHING_SECONDS = 1.5  # the window after the last document in which "finishing" kills land
# what the last progress line before a kill says the process was doing
HIT = [("parsing", r"\d+/\d+ docs"), ("finishing", ALL_DOCUMENTS), ("embedding", r"chunks"),
       ("visual", r"page images"), ("summaries", r"summarised")]
SETTLE = 0.5


def build_folder(folder: Path, small: bool) -> None:
    samples = _common.REPO / "resources" / "samples"
    (folder / "sub").mkdir(parents=True)
    for sample in samples.glob("*.pdf"):
        shutil.copy(sample, folder / sample.name)
    if small:
        shutil.copy(samples / HOLD, folder / "sub" / "copy.pdf")
        return
    shutil.copy(_common.CORPUS / PAPER, folder / PAPER)
    shutil.copy(_common.CORPUS / PAPER, folder / "sub" / "paper-copy.pdf")
    with pymupdf.open(_common.CORPUS / DECK) as deck, pymupdf.open() as part:
        part.insert_pdf(deck, from_page=0, to_page=DECK_PAGES - 1)
        part.save(folder / "deck-ocr.pdf")


# -- what a database holds, by content -----------------------------------------------------------------------

def snapshot(db_path: Path, wait: float = 60) -> dict:
    con = open_readonly(db_path, wait)
    try:
        def rows(sql):
            return con.execute(sql).fetchall()

        def grouped(sql):
            out: dict = {}
            for row in rows(sql):
                out.setdefault(row[0], []).append(tuple(row[1:]))
            return out

        chunks = grouped("SELECT c.doc_id, c.page, c.seq, c.text, v.embedding FROM chunks c LEFT JOIN chunk_vectors v "
                         "USING (id) ORDER BY c.doc_id, c.page, c.seq")
        orphan_sql = " + ".join(f"(SELECT count(*) FROM {t} WHERE doc_id NOT IN (SELECT id FROM documents))"
                                for t in CHILD_TABLES)
        return {
            "docs": {i: (sha, pages) for i, sha, pages in rows("SELECT id, sha256, pages FROM documents")},
            "files": {p: (d, s) for p, d, s in rows("SELECT path, doc_id, status FROM files")},
            "pages": grouped("SELECT doc_id, page, text FROM pages ORDER BY doc_id, page"),
            "chunks": {d: [c[:3] for c in cs] for d, cs in chunks.items()},
            "embeddings": {d: [c[3] for c in cs] for d, cs in chunks.items()},
            "elements": grouped("SELECT doc_id, page, seq, kind, text FROM elements ORDER BY doc_id, page, seq"),
            "words": dict(rows("SELECT doc_id, count(*) FROM words GROUP BY doc_id")),
            "vectors": grouped("SELECT doc_id, page, model, vector_count, grid_rows, grid_cols, int8, scales "
                               "FROM page_vectors ORDER BY doc_id, page"),
            "summaries": {(d, p, m): s for d, p, m, s in rows(
                "SELECT doc_id, page, model, list(value) FROM artifacts GROUP BY ALL")},
            "orphans": rows(f"SELECT {orphan_sql}")[0][0],
            # every page has its keyword rows (written in the page's own transaction), and nothing else has
            "keywords": rows("SELECT (SELECT count(*) FROM pages p ANTI JOIN keyword_pages k USING (doc_id, page)), "
                             "(SELECT count(*) FROM keyword_pages k ANTI JOIN pages p USING (doc_id, page))")[0],
        }
    finally:
        con.close()


def crash_state_issues(snap: dict) -> list[str]:
    """What a kill may never leave behind: half-written documents, pages twice."""
    issues = []
    for doc_id, (sha, count) in snap["docs"].items():
        pages = [p for p, _ in snap["pages"].get(doc_id, [])]
        if len(pages) != count or len(set(pages)) != len(pages):
            issues.append(f"after the kill: document {sha[:12]} has {len(pages)} page rows for {count} pages")
    return issues


def compare(got: dict, ref: dict, folder: Path, visual_ref: dict | None = None) -> tuple[list[str], int]:
    """(differences, reference documents missing) between a database run to completion and the reference."""
    issues: list[str] = []
    live = {d for d, _ in got["files"].values() if d is not None}
    by_sha: dict[str, list[int]] = {}
    for doc_id, (sha, _) in got["docs"].items():
        by_sha.setdefault(sha, []).append(doc_id)
    issues += [f"document {sha[:12]} stored {len(ids)} times" for sha, ids in by_sha.items() if len(ids) > 1]
    issues += [f"document {got['docs'][d][0][:12]} kept with no file" for d in got["docs"] if d not in live]
    ref_ids = {sha: doc_id for doc_id, (sha, _) in ref["docs"].items()}
    issues += [f"document {sha[:12]} not in the reference" for sha in by_sha if sha not in ref_ids]
    lost = 0
    for sha, r in ref_ids.items():
        if sha not in by_sha:
            lost += 1
            continue
        g = by_sha[sha][0]
        name = sha[:12]
        if got["docs"][g][1] != ref["docs"][r][1]:
            issues.append(f"{name}: {got['docs'][g][1]} pages, reference {ref['docs'][r][1]}")
        for table in ("pages", "chunks", "elements"):
            if got[table].get(g, []) != ref[table].get(r, []):
                issues.append(f"{name}: {table} differ from the reference")
        if got["words"].get(g) != ref["words"].get(r):
            issues.append(f"{name}: {got['words'].get(g)} words, reference {ref['words'].get(r)}")
        issues += _embedding_issues(name, got["embeddings"].get(g, []), ref["embeddings"].get(r, []))
        if visual_ref is not None:
            vr = {sha: doc_id for doc_id, (sha, _) in visual_ref["docs"].items()}[sha]
            issues += _vector_issues(name, got["vectors"].get(g, []), visual_ref["vectors"].get(vr, []))
    issues += _file_issues(got, folder)
    if got["keywords"] != (0, 0):
        issues.append(f"keyword index: {got['keywords'][0]} pages without keyword rows, {got['keywords'][1]} rows "
                      "without a page")
    issues += [f"page summary {key} stored {len(s)} times" for key, s in got["summaries"].items() if len(s) > 1]
    return issues, lost


def _embedding_issues(name: str, got: list, ref: list) -> list[str]:
    if any(e is None for e in got):
        return [f"{name}: {sum(e is None for e in got)} chunks without an embedding"]
    if len(got) != len(ref):
        return []  # already reported as different chunks
    if got and float(np.min(np.sum(np.asarray(got) * np.asarray(ref), axis=1))) < 0.999:
        return [f"{name}: chunk embeddings differ from the reference"]
    return []


def _vector_issues(name: str, got: list, ref: list) -> list[str]:
    if [r[0] for r in got] != [r[0] for r in ref]:
        return [f"{name}: page vectors for pages {[r[0] for r in got]}, reference {[r[0] for r in ref]}"]
    for g, r in zip(got, ref):
        if g[1:5] != r[1:5]:
            return [f"{name} p.{g[0]}: page vectors of another shape or model"]
        decoded = [np.frombuffer(v[5], np.int8).reshape(v[2], -1) * np.frombuffer(v[6], np.float32)[:, None]
                   for v in (g, r)]
        cos = np.sum(decoded[0] * decoded[1], axis=1) / (
            np.linalg.norm(decoded[0], axis=1) * np.linalg.norm(decoded[1], axis=1) + 1e-9)
        if float(cos.min()) < 0.98:
            return [f"{name} p.{g[0]}: page vectors differ from the reference (cosine {cos.min():.3f})"]
    return []


def _file_issues(got: dict, folder: Path) -> list[str]:
    on_disk = set(find_documents(str(folder.resolve()))[0])
    issues = [f"{p}: on disk, not indexed" for p in sorted(on_disk - set(got["files"]))]
    issues += [f"{p}: indexed, not on disk" for p in sorted(set(got["files"]) - on_disk)]
    for path in sorted(on_disk & set(got["files"])):
        doc_id, status = got["files"][path]
        if status != "indexed" or doc_id not in got["docs"]:
            issues.append(f"{path}: {status}")
        elif got["docs"][doc_id][0] != sha256_file(Path(path)):
            issues.append(f"{path}: indexed with another content")
    return issues


# -- one cycle: start, kill at a random moment, check, finish, compare --------------------------------------

class Bench:
    def __init__(self, work: Path, small: bool, rng: random.Random):
        self.work, self.small, self.rng = work, small, rng
        self.folder = work / "corpus"
        build_folder(self.folder, small)
        self.env = docqa_env(DOCQA_INDEX_VISUAL="off", DOCQA_INDEX_SETTLE_SECONDS=str(SETTLE),
                             DOCQA_INDEX_PAGES_PER_TASK="2", **({"DOCQA_INDEX_LAYOUT": "0"} if small else {}))
        self.visual_env = {**self.env, "DOCQA_INDEX_VISUAL": "on", "DOCQA_INDEX_VISUAL_TOKENS": "256",
                           "DOCQA_INDEX_VISUAL_COMMIT_PAGES": "3"}
        self.homes = 0
        self.phase_seconds: dict[str, float] = {}
        self.ref_home = work / "reference"
        started = time.monotonic()
        self.ref = self._reference(self.ref_home, ["index", str(self.folder)], self.env)
        self.reference_seconds = round(time.monotonic() - started, 1)
        self.visual_base = self.visual_ref = None
        self.summarize_args = ["prepare", "--method", "simpledoc", "--doc", HOLD]

    def _reference(self, home: Path, args: list[str], env: dict) -> dict:
        run = Run(docqa_args(*args, home=home), env)
        if run.finish() != 0:
            raise SystemExit(f"the reference run `docqa {' '.join(args)}` failed: {run.last_line()}")
        self._learn_phases(run)
        return snapshot(home / "data" / "library.duckdb")

    def _learn_phases(self, run: Run) -> None:
        """How long each phase lasted in a clean run: the range the kill moment is drawn from."""
        end = (run.lines[-1][0] if run.lines else time.monotonic()) - run.started  # the last progress line
        first = {phase: t - run.started for phase, pattern in MARKERS.items()
                 if (t := (run.first(pattern) or (None,))[0]) is not None}
        if first:
            self.phase_seconds.setdefault("scanning", min(first.values()))
        if "parsing" in first:
            self.phase_seconds.setdefault("parsing", first["finishing"] - first["parsing"])
        for phase in ("embedding", "visual", "summaries"):  # each runs to the end of its run
            if phase in first:
                self.phase_seconds.setdefault(phase, max(0.2, end - first[phase]))
        if "finishing" in first:
            self.phase_seconds.setdefault("finishing", min(FINISHING_SECONDS, self.phase_seconds["embedding"]))

    def _ensure_visual(self) -> None:
        if self.visual_base is not None:
            return
        sys.path.insert(0, str(_common.REPO / "tests"))
        import tiny_colqwen

        model = tiny_colqwen.save_tiny(self.work / "tiny-colqwen2.5")
        self.visual_base = self.work / "visual-base"
        shutil.copytree(self.ref_home, self.visual_base)
        imported = run_docqa("models", "import", str(model), "--name", "tiny-colqwen", home=self.visual_base,
                             env=self.env)
        if imported.returncode != 0:
            raise SystemExit(f"cannot import the tiny page embedder: {imported.stderr}")
        self.visual_ref = self._reference_copy(self.visual_base, ["index", str(self.folder)], self.visual_env)

    def _reference_copy(self, base: Path, args: list[str], env: dict) -> dict:
        home = self.work / f"{base.name}-reference"
        shutil.copytree(base, home)
        return self._reference(home, args, env)

    def new_home(self, like: Path | None = None) -> Path:
        self.homes += 1
        home = self.work / f"home-{self.homes}"
        if like is not None:
            shutil.copytree(like, home)
        return home

    def cycle(self, mode: str) -> dict:
        """One kill in `mode` (or `mode/phase`)."""
        mode, _, phase = mode.partition("/")
        phase = phase or self.rng.choice(PHASES[mode])
        if mode == "visual":
            self._ensure_visual()
        if mode == "summarize" and "summaries" not in self.phase_seconds:
            self._reference_copy(self.ref_home, self.summarize_args, self.env)
        record = {"mode": mode, "phase": phase}
        try:
            if phase == "burst":
                home = self.new_home(like=self.ref_home)
                self._watch_burst(home, record)
            else:
                home = self.new_home(like={"index": None, "watch": None, "visual": self.visual_base,
                                           "summarize": self.ref_home}[mode])
                args = {"visual": ["index", str(self.folder)], "summarize": self.summarize_args}.get(
                    mode, [mode, str(self.folder)])
                run = Run(docqa_args(*args, home=home), self.visual_env if mode == "visual" else self.env)
                self._kill_in(run, phase, record)
            db = home / "data" / "library.duckdb"
            self._after_kill(home, db, record)
            self._complete(mode, home, record)
            got = snapshot(db)
            issues, record["lost_documents"] = compare(got, self.ref, self.folder,
                                                       self.visual_ref if mode == "visual" else None)
            issues += self._summaries_kept(got, record)
            record["orphans"] = record.get("orphans", 0) + got["orphans"]
            record["issues"] = record.get("issues", []) + issues
        finally:
            self._restore_folder()
        shutil.rmtree(home, ignore_errors=True)
        return record

    def _kill_in(self, run: Run, phase: str, record: dict) -> None:
        """Wait for the phase to begin, then kill -9 a random moment into it (unless the run ends first)."""
        began = 0.0 if phase == "scanning" else run.wait_for(MARKERS[phase], timeout=1800)
        if began is None:
            record.update(killed=False, note=f"ended before phase {phase}", exit=run.finish())
            return
        delay = self.rng.uniform(0, self.phase_seconds.get(phase, 5.0))
        time.sleep(max(0.0, began + delay - (time.monotonic() - run.started)))
        self._kill(run, record)

    def _kill(self, run: Run, record: dict) -> None:
        if run.proc.poll() is not None:
            record.update(killed=False, note="ended before the kill", exit=run.proc.returncode)
            return
        record["at_seconds"] = round(time.monotonic() - run.started, 2)
        record["last_progress"] = run.last_line()[:120]
        record["hit"] = next((phase for phase, pattern in reversed(HIT) if re.search(pattern, record["last_progress"])),
                             "scanning")
        record["orphaned_workers"] = run.kill9()
        record["killed"] = True

    def _watch_burst(self, home: Path, record: dict) -> None:
        """A watch on a complete index: the folder changes (a file comes back, another moves into a subfolder)
        and the watcher is killed somewhere in its reaction."""
        held = self.work / HOLD
        shutil.move(self.folder / HOLD, held)
        run = Run(docqa_args("watch", str(self.folder), home=home), self.env)
        if run.wait_for(r"^done: .* 1 removed", timeout=600, stdout=True) is None:
            record.update(killed=False, note="the watcher did not report its first sync", exit=run.stop())
            shutil.move(held, self.folder / HOLD)
            return
        shutil.move(held, self.folder / HOLD)
        shutil.move(self.folder / MOVER, self.folder / "sub" / MOVER)
        time.sleep(self.rng.uniform(0, SETTLE + self.phase_seconds["parsing"] + self.phase_seconds["embedding"]))
        self._kill(run, record)

    def _restore_folder(self) -> None:
        if (self.folder / "sub" / MOVER).exists():
            shutil.move(self.folder / "sub" / MOVER, self.folder / MOVER)
        if (self.work / HOLD).exists():
            shutil.move(self.work / HOLD, self.folder / HOLD)

    def _after_kill(self, home: Path, db: Path, record: dict) -> None:
        status = run_docqa("status", "--json", home=home, env=self.env)
        try:
            json.loads(status.stdout)
            record["db_opens"] = status.returncode == 0
        except ValueError:
            record["db_opens"] = False
        if not record["db_opens"]:
            record["issues"] = [f"the database does not open after the kill: {status.stderr.strip()[-300:]}"]
            return
        if not db.exists():
            return  # killed before the database was created
        state = snapshot(db)
        record["orphans"] = state["orphans"]
        record["issues"] = crash_state_issues(state)
        record["summaries_before"] = {k: v for k, v in state["summaries"].items()}
        record["documents_before"] = len(state["docs"])

    def _complete(self, mode: str, home: Path, record: dict) -> None:
        if mode == "watch":
            self._complete_watch(home, record)
            return
        args = self.summarize_args if mode == "summarize" else ["index", str(self.folder)]
        finished = run_docqa(*args, home=home, env=self.visual_env if mode == "visual" else self.env)
        if finished.returncode != 0:
            record.setdefault("issues", []).append(f"the run to completion failed: {finished.stderr[-300:]}")

    def _complete_watch(self, home: Path, record: dict) -> None:
        """Watch again until the index is complete, then Ctrl-C it."""
        run = Run(docqa_args("watch", str(self.folder), home=home), self.env)
        run.wait_for(r"^watching ", timeout=600)  # its Ctrl-C handler is in place
        db = home / "data" / "library.duckdb"
        deadline = time.monotonic() + max(120.0, 5 * self.reference_seconds)
        while time.monotonic() < deadline and run.proc.poll() is None:
            time.sleep(1.0)
            try:
                state = snapshot(db, wait=0)
            except Exception:  # busy (the watcher holds it) or not created yet
                continue
            done = not compare(state, self.ref, self.folder)[0]
            if done:
                break
        if run.stop() not in (0, 130):
            record.setdefault("issues", []).append(f"watch ended badly: {run.last_line()}")

    def _summaries_kept(self, got: dict, record: dict) -> list[str]:
        before = record.pop("summaries_before", {})
        issues = [f"summary of {key} changed or lost after the kill" for key, text in before.items()
                  if got["summaries"].get(key) != text]
        if record["mode"] == "summarize":
            record["summaries_kept"] = len(before)
            target = {doc_id for doc_id, (sha, _) in got["docs"].items()
                      if sha == sha256_file(self.folder / HOLD)}
            pages = {(d, p) for d in target for p, _ in got["pages"].get(d, [])}
            written = {(d, p) for d, p, _ in got["summaries"]}
            if pages - written:
                issues.append(f"pages without a summary after completion: {sorted(pages - written)}")
        return issues


def summary(records: list[dict], started: float) -> dict:
    killed = [r for r in records if r.get("killed")]
    issues = [i for r in records for i in r.get("issues", [])]
    return {
        "kills": len(killed),
        "db_open_failures": sum(1 for r in records if r.get("db_opens") is False),
        "lost_documents": sum(r.get("lost_documents", 0) for r in records),
        "mismatches": len(issues),
        "orphans": sum(r.get("orphans", 0) for r in records),
        "orphaned_workers": sum(r.get("orphaned_workers", 0) for r in records),
        "seconds": round(time.monotonic() - started, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, required=True)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--mode", default="all",
                        help="all, or modes (or mode/phase) separated by commas, taken round-robin")
    parser.add_argument("--small", action="store_true", help="the two sample PDFs only, layout off (for tests)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--out")
    args = parser.parse_args()
    modes = list(PHASES) if args.mode == "all" else args.mode.split(",")
    unknown = {m for m in modes if m.partition("/")[0] not in PHASES
               or m.partition("/")[2] not in ["", *PHASES.get(m.partition("/")[0], [])]}
    if unknown:
        parser.error(f"unknown mode(s) {', '.join(sorted(unknown))}; choose from {', '.join(PHASES)}")
    started = time.monotonic()
    rng = random.Random(args.seed)
    records: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="docqa-kill9-") as work:
        bench = Bench(Path(work), args.small, rng)
        result: dict = {}
        cycle = 0
        while sum(1 for r in records if r.get("killed")) < args.kills and cycle < 3 * args.kills:
            records.append(bench.cycle(modes[cycle % len(modes)]))
            cycle += 1
            result = {**summary(records, started), "seed": args.seed, "modes": modes, "small": args.small,
                      "reference_seconds": bench.reference_seconds,
                      "phase_seconds": {k: round(v, 1) for k, v in bench.phase_seconds.items()},
                      "kills_by_mode_phase": dict(Counter(f"{r['mode']}/{r['phase']}" for r in records
                                                          if r.get("killed"))),
                      # the phase the last progress line before each kill shows (the aim above is a plan)
                      "kills_by_phase_hit": dict(Counter(r["hit"] for r in records if r.get("killed"))),
                      "cycles": records, "environment": _common.environment()}
            if not args.json:
                r = records[-1]
                print(f"{cycle}: {r['mode']}/{r['phase']} killed={r.get('killed')} at {r.get('at_seconds')}s "
                      f"issues={len(r.get('issues', []))} orphans={r.get('orphans', 0)}", file=sys.stderr)
            _common.write_json(result, args.out, "kill9_index.json")
    print(json.dumps(summary(records, started)) if args.json else
          json.dumps({k: v for k, v in result.items() if k not in ("cycles", "environment")}, indent=2))


if __name__ == "__main__":
    main()
