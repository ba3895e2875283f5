"""The reader's labelled questions and the candidates file made from them (shared by extract.py, train.py and
benchmarks/reader.py).

Question sets, each a JSONL file in dev.jsonl's format plus "kind", "quote" and "note":
- questions/*.jsonl: written by reading the pages first (origin "reader-written"), "doc" relative to ../shared/;
- ../facts/facts.jsonl: the facts set (documents in ../shared/corpus/ or resources/samples/; its library
  questions, doc "*", are answered by the index, not the reader, and are left out);
- ../shared/eval/dev.jsonl: 60 benchmark questions (measured, never trained on);
- icdar/generated.jsonl: generated from the ICDAR 2013 ground truth (row header x column header -> cell; icdar.py),
  reported apart from the written ones.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SHARED = Path("/work/shared")
SAMPLES = REPO / "resources" / "samples"
FACTS = REPO / "benchmarks" / "facts" / "facts.jsonl"
WRITTEN = HERE / "questions"
GENERATED = HERE / "icdar" / "generated.jsonl"
CANDIDATES = HERE / "data" / "candidates.jsonl.gz"  # one line per question: its candidates' evidence and labels
LIBRARY_DOC = "*"
DEV = SHARED / "eval" / "dev.jsonl"
# measured apart and never trained on: template questions, and the benchmark's dev questions
MEASURED_ONLY = ("icdar_generated", "dev")


def question_sets() -> dict[str, Path]:
    sets = {path.stem: path for path in sorted(WRITTEN.glob("*.jsonl"))}
    sets["facts"] = FACTS
    if GENERATED.exists():
        sets["icdar_generated"] = GENERATED
    sets["dev"] = DEV
    return sets


def document_path(row: dict) -> Path:
    """Where a question's document is: under ../shared/ by its relative path, else a corpus or sample file."""
    for folder in (SHARED, SHARED / "corpus", SAMPLES):
        if (folder / row["doc"]).is_file():
            return folder / row["doc"]
    raise FileNotFoundError(f"{row['doc']}: not under {SHARED} nor {SAMPLES}")


def load_questions() -> list[dict]:
    """Every question the reader learns from, with "set", "qid" and "path" added (library questions left out)."""
    rows = []
    for name, path in question_sets().items():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if row["doc"] == LIBRARY_DOC:
                continue
            row["subset"], row["set"] = row.get("set", ""), name
            row["qid"] = f"{name}:{n}"
            row["path"] = str(document_path(row))
            rows.append(row)
    return rows


def read_candidates(path: Path = CANDIDATES) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_candidates(rows: list[dict], path: Path = CANDIDATES) -> None:
    """Written reproducibly (no timestamp in the gzip header): the file's hash names the training data."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in rows)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write(text.encode("utf-8"))


def digest(path: Path = CANDIDATES) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
