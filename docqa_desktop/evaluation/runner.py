"""`docqa eval`: index the corpus, run every question with every method, one JSON line per result.

Resumable: results.jsonl is appended (and synced) after each answer, and a rerun skips the
(question, method) pairs already in it — an interrupted run loses at most the answer in flight.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..documents import is_document
from ..errors import DocQAError
from ..answers import Answer, AnswerStatus
from ..domain import IndexReport
from ..files import write_atomically
from ..llm.runtime import Runtime
from ..progress import ProgressFn
from .extraction import extract
from .judge import judge
from .pages import page_metrics
from .questions import LIBRARY_DOC, EvalQuestion
from .scoring import score

RESULTS_FILE = "results.jsonl"
RUN_FILE = "run.json"


class EvalError(DocQAError, ValueError):
    pass


@dataclass(frozen=True)
class EvalPorts:
    """What a run uses of the app, handed in by the facade (evaluation sits below it)."""
    index: Callable[[list[str], ProgressFn | None, threading.Event], IndexReport]
    ask: Callable[..., Answer]  # ask(question, docs, method, cancel=…, save=False)
    judge_model: Callable[[], Runtime]  # the text model, loaded only when a judge is asked for
    run_info: Callable[[list[str]], dict]  # models, settings and these methods' settings, for the report header


@dataclass
class EvalOutcome:
    ran: int = 0
    skipped: int = 0  # already in results.jsonl
    cancelled: bool = False
    records: list[dict] = field(default_factory=list)  # every result of this question set, old and new
    report: Path | None = None  # the report written from them


class ResultsFile:
    """results.jsonl: read what exists (a line cut by a crash is dropped), append one record at a time."""

    def __init__(self, path: Path):
        self.path = path
        self.records: list[dict] = []
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    self.records.append(json.loads(line))
                except json.JSONDecodeError:
                    continue  # the write in flight when the run was killed
            self._rewrite()  # drop the cut line so appends start on a fresh line

    def done(self) -> set[tuple[str, str]]:
        return {(r["qid"], r["method"]) for r in self.records}

    def append(self, record: dict) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.records.append(record)

    def _rewrite(self) -> None:
        write_atomically(self.path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.records))


def score_record(record: dict) -> dict:
    """Extracted short answer, rule score and page metrics; recomputed by the report, so better rules
    apply to old results too."""
    # an unverified draft is scored as written (the method's own answer); trust.py counts only "answered"
    answered = record["status"] in (AnswerStatus.ANSWERED.value, AnswerStatus.UNVERIFIED.value) \
        and record.get("predicted_format") != "None"
    # a method's typed short answer when it gave one; the rules then only normalise it to the gold's format
    extracted = extract(record.get("short_answer") or record["prediction"], answered, record["answer_format"])
    record["extracted"] = extracted
    record["score"] = round(score(record["gold"], extracted, record["answer_format"]), 4)
    record["page_metrics"] = _page_metrics(record, record["pages_used"])
    record["stage_metrics"] = {stage: _page_metrics(record, pages)
                               for stage, pages in record.get("stage_pages", {}).items()}
    return record


def _page_metrics(record: dict, pages: list[int]) -> dict | None:
    """None for a library question: its pages come from several documents, and their numbers alone cannot
    be matched to evidence pages."""
    return None if record.get("doc") == LIBRARY_DOC else page_metrics(record["evidence_pages"], pages)


def result_record(q: EvalQuestion, method: str, answer: Answer) -> dict:
    return score_record({
        "qid": q.id, "method": method, "doc": q.doc, "question": q.question, "gold": q.answer,
        "answer_format": q.answer_format, "kind": q.kind, "evidence_pages": list(q.evidence_pages),
        "evidence_sources": list(q.evidence_sources), "prediction": answer.text, "status": answer.status.value,
        "short_answer": answer.short_answer, "predicted_format": answer.answer_format,
        "confidence": answer.confidence,  # None unless the method rates its answers (the report's risk–coverage)
        "computation": answer.computation, "check": answer.check,  # a written answer's proof as checked
        "error": answer.error, "pages_used": sorted({p.page for p in answer.pages_used}),
        "citations": [c.as_json() for c in answer.citations], "iterations": answer.iterations,
        "llm_calls": len(answer.calls), "prompt_tokens": answer.prompt_tokens,
        "cached_tokens": answer.cached_tokens,
        "output_tokens": answer.output_tokens, "seconds": round(answer.seconds, 2),
        "stage_pages": {stage: sorted({p.page for p in refs}) for stage, refs in answer.stage_pages.items()},
        "notes": list(answer.notes),
        "calls": [{"step": c.step, "model": c.model, "prompt_tokens": c.prompt_tokens,
                   "output_tokens": c.output_tokens, "cached_tokens": c.cached_tokens,
                   "seconds": round(c.seconds, 2), "pages": c.pages,
                   "output": c.output} for c in answer.calls]})


def records_for(records: list[dict], questions: list[EvalQuestion], methods: list[str] | None) -> list[dict]:
    """The results of these questions (and methods; None = every method on record)."""
    ids = {q.id for q in questions}
    return [r for r in records if r["qid"] in ids and (methods is None or r["method"] in methods)]


def saved_records(out_dir: str | Path, questions: list[EvalQuestion], methods: list[str] | None) -> list[dict]:
    path = Path(out_dir) / RESULTS_FILE
    if not path.exists():
        raise EvalError(f"{path} does not exist: run the evaluation first")
    return records_for(ResultsFile(path).records, questions, methods)


def failed_answer(q: EvalQuestion, method: str, reason: str) -> Answer:
    return Answer(id="", question=q.question, method=method, status=AnswerStatus.FAILED, error=reason)


class EvalRunner:
    def __init__(self, ports: EvalPorts, out_dir: str | Path, progress: Callable[[str], None] = lambda message: None,
                 cancel: threading.Event | None = None, index_progress: ProgressFn | None = None):
        self.ports = ports
        self.out_dir = Path(out_dir)
        self.progress = progress
        self.cancel = cancel or threading.Event()
        self.index_progress = index_progress

    def run(self, questions: list[EvalQuestion], corpus: str | Path, methods: list[str],
            use_judge: bool = False) -> EvalOutcome:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        scopes = self._scopes(questions, Path(corpus))
        results = ResultsFile(self.out_dir / RESULTS_FILE)
        done = results.done()
        todo = [(q, m) for q in questions for m in methods if (q.id, m) not in done]
        outcome = EvalOutcome(skipped=len(questions) * len(methods) - len(todo))
        index_errors = self._index(sorted({path for q, _ in todo for path in scopes[q.doc]})) if todo else {}
        self._write_run_info(methods, use_judge, len(questions), str(corpus))
        for n, (q, method) in enumerate(todo, 1):
            if self.cancel.is_set():
                outcome.cancelled = True
                break
            scope = scopes[q.doc]
            unindexed = [path for path in scope if path in index_errors]
            if unindexed:  # a library question too: an answer over part of it would be judged as one over all
                answer = failed_answer(q, method, "; ".join(f"{path}: {index_errors[path]}" for path in unindexed))
            else:
                answer = self.ports.ask(q.question, scope, method, cancel=self.cancel, save=False)
            if answer.status is AnswerStatus.CANCELLED:
                outcome.cancelled = True  # not recorded: the next run asks it again
                break
            record = result_record(q, method, answer)
            if use_judge:
                record["judge"] = judge(self.ports.judge_model(), q.question, q.answer, answer.text)
            results.append(record)
            outcome.ran += 1
            self.progress(f"[{n}/{len(todo)}] {method} {q.doc}: {answer.status.value}, score {record['score']:.2f}, "
                          f"pages {record['pages_used']} (evidence {list(q.evidence_pages)}), {answer.seconds:.1f}s")
        outcome.records = records_for(results.records, questions, methods)
        return outcome

    def _scopes(self, questions: list[EvalQuestion], corpus: Path) -> dict[str, list[str]]:
        """The documents each question's doc names: its file, or for LIBRARY_DOC every PDF in the corpus folder."""
        if not corpus.is_dir():
            raise EvalError(f"corpus folder {corpus} does not exist")
        docs = {q.doc for q in questions} - {LIBRARY_DOC}
        scopes = {doc: [os.path.abspath(corpus / doc)] for doc in docs}
        missing = sorted(doc for doc in docs if not os.path.isfile(scopes[doc][0]))
        if missing:
            raise EvalError(f"{corpus} lacks the question documents: {', '.join(missing)}")
        if any(q.doc == LIBRARY_DOC for q in questions):
            scopes[LIBRARY_DOC] = self._library(corpus)
        return scopes

    @staticmethod
    def _library(corpus: Path) -> list[str]:
        pdfs = sorted(os.path.abspath(p) for p in corpus.iterdir() if is_document(p) and p.is_file())
        if not pdfs:
            raise EvalError(f"{corpus} has no PDFs for the questions about the whole library (doc \"{LIBRARY_DOC}\")")
        return pdfs

    def _index(self, paths: list[str]) -> dict[str, str]:
        """Index (or find already indexed) the documents; returns path -> reason for those that failed."""
        self.progress(f"indexing {len(paths)} document(s) (reused when already indexed)")
        report = self.ports.index(paths, self.index_progress, self.cancel)
        for path, reason in report.errors.items():
            self.progress(f"cannot index {path}: {reason}; its questions are recorded as failed")
        return dict(report.errors)

    def _write_run_info(self, methods: list[str], use_judge: bool, questions: int, corpus: str) -> None:
        """What produced these results (models, method settings), for the report's header."""
        info_path = self.out_dir / RUN_FILE
        info = json.loads(info_path.read_text(encoding="utf-8")) if info_path.exists() else {}
        app = self.ports.run_info(methods)
        info.update({
            "updated": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            "questions": questions, "corpus": corpus, "machine": f"{os.cpu_count()} CPU threads",
            "methods": sorted(set(info.get("methods", [])) | set(methods)), "judge": use_judge or info.get("judge", False),
            "models": app["models"], "settings": app["settings"],
            "method_settings": {**info.get("method_settings", {}), **app["method_settings"]}})
        info_path.write_text(json.dumps(info, indent=2), encoding="utf-8")
