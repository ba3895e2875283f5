"""`docqa`: the command line over the service facade."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import duckdb

from . import cli_models, logs
from .answers import Answer
from .cli_common import ProgressBar, cancel_on_sigint, signal_handlers_restored
from .domain import IndexReport
from .retrieval.page_retriever import SearchMode, VisualUnavailable
from .service import Service, UnknownDocument
from .evaluation import EvalRunner, load_questions, saved_records, write_report
from .export import FORMATS, cited_line, computed_line, export, shown_text
from .pdf.document import PdfError
from .methods import METHODS, QUOTED
from .llm import ModelError
from .settings import Settings, SettingsError
from .store import StoreError
from .store.database import store_error

METHOD_HELP = "default: setting ask.method (auto: quoted answers until a capable model is installed)"


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", default=argparse.SUPPRESS,
                        help="keep database, caches, logs and settings under this folder (or set DOCQA_HOME)")
    parser = argparse.ArgumentParser(prog="docqa", parents=[common],
                                     description="Private question answering over your PDF libraries.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("index", parents=[common], help="index PDFs in folders or files (incremental)")
    p.add_argument("paths", nargs="+")
    p.add_argument("--json", action="store_true", help="print the run's report as JSON")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--searchable-only", action="store_true",
                   help="stop once every document is keyword-searchable; layout, embeddings and page images "
                        "follow at the next index, watch or app start (see `docqa status`)")

    p = sub.add_parser("watch", parents=[common], help="index, then follow folders for changes (Ctrl-C stops)")
    p.add_argument("paths", nargs="+")

    p = sub.add_parser("remove", parents=[common], help="forget a file or folder (files on disk are kept)")
    p.add_argument("path")

    p = sub.add_parser("repair", parents=[common],
                       help="rebuild a damaged database: the damaged file is kept aside, history and page "
                            "summaries are copied where readable, the library folders are indexed again")
    p.add_argument("paths", nargs="*", help="folders or PDFs to index as well (needed when the damaged file "
                                            "no longer says which folders the library holds)")
    p.add_argument("--force", action="store_true", help="rebuild even if the database reads fine")

    p = sub.add_parser("status", parents=[common], help="what is indexed, pending or failed")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("search", parents=[common], help="find pages by text, by page image, or both")
    p.add_argument("query")
    p.add_argument("--doc", action="append", help="limit to a document (file name); repeatable")
    p.add_argument("--k", type=_positive, default=None, help="number of pages (default 10)")
    p.add_argument("--mode", choices=[m.value for m in SearchMode], default=None,
                   help="text (BM25 + dense; or bm25, dense alone), visual (page images), hybrid (both), "
                        "auto: hybrid once page images are embedded (the default, setting search.mode)")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("render", parents=[common], help="write a page of an indexed document as PNG")
    p.add_argument("doc")
    p.add_argument("page", type=int, help="1-based page index")
    p.add_argument("-o", "--output", help="file to write (default: DOC-pPAGE.png)")
    p.add_argument("--size", type=int, default=1600, help="longer side in pixels")
    p = sub.add_parser("ask", parents=[common], help="answer a question from the indexed documents, with citations")
    p.add_argument("question")
    p.add_argument("--doc", action="append", help="limit to a document (file name); repeatable")
    p.add_argument("--method", choices=sorted(METHODS), default=None, help=METHOD_HELP)
    p.add_argument("--k", type=_positive, default=None, help="pages from the first retrieval step (method setting k)")
    p.add_argument("--iterations", type=_positive, default=None, help="reasoning rounds (SimpleDoc's iterations)")
    p.add_argument("--follow-up", metavar="ID", default=None,
                   help="continue the thread of answer ID (see docqa history): its questions and answers go along")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("methods", parents=[common], help="the answering methods: paper, needs, settings")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("prepare", parents=[common],
                       help="a method's work ahead of questions, e.g. SimpleDoc's page summaries (resumable)")
    p.add_argument("--method", choices=sorted(METHODS), default=None, help=METHOD_HELP)
    p.add_argument("--doc", action="append", help="limit to a document (file name); repeatable")
    p = sub.add_parser("summarize", parents=[common], help="the same as `prepare --method simpledoc`")
    p.add_argument("--doc", action="append", help="limit to a document (file name); repeatable")
    p = sub.add_parser("history", parents=[common], help="questions asked before, newest first")
    p.add_argument("--limit", type=_positive, default=20)
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("export", parents=[common], help="write an answer with its citations to a file")
    p.add_argument("id", help="answer id (see docqa history)")
    p.add_argument("--format", choices=FORMATS, default="md")
    p.add_argument("-o", "--output", help="file to write (default: answer-ID.FORMAT)")
    p.add_argument("--thread", action="store_true", help="the whole thread the answer belongs to, in order")
    p = sub.add_parser("eval", parents=[common],
                       help="score methods on labelled questions (MMLongBench-Doc format); resumable")
    p.add_argument("questions", help="JSON lines: doc, question, answer, answer_format, evidence_pages, ...")
    p.add_argument("--corpus", required=True, help="folder holding the questions' PDFs (indexed if needed)")
    p.add_argument("--method", action="append", choices=sorted(METHODS),
                   help="method to evaluate; repeatable (default: the default method, see `docqa methods`)")
    p.add_argument("--limit", type=_positive, default=None, help="only the first N questions")
    p.add_argument("--out", default="eval-results",
                   help="folder for results.jsonl, report.md and charts (an existing run there is resumed)")
    p.add_argument("--judge", action="store_true", help="also let the text model judge each answer")
    p.add_argument("--report-only", action="store_true",
                   help="only rebuild the report from the results already in --out (asks nothing)")
    p = sub.add_parser("gui", parents=[common], help="open the desktop app")
    p.add_argument("folders", nargs="*", help="folders or PDFs to add to the library on start")
    p.add_argument("--install-launcher", action="store_true",
                   help="add DocQA Desktop to the applications menu (Linux), then exit")
    cli_models.add_parsers(sub, common)
    return parser


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = Settings.load(getattr(args, "home", None))
        logs.configure(settings.locations)
        with Service(settings) as service, signal_handlers_restored():
            return COMMANDS[args.command](service, args)
    except (StoreError, UnknownDocument, SettingsError, PdfError, ModelError, OSError, ValueError,
            VisualUnavailable) as exc:
        print(f"docqa: {exc}", file=sys.stderr)
        return 2
    except duckdb.Error as exc:  # e.g. a query reached a damaged block the check on opening does not read
        print(f"docqa: {store_error(settings.locations.database, exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("docqa: interrupted", file=sys.stderr)
        return 130


def _cmd_index(service: Service, args) -> int:
    cancel = cancel_on_sigint()
    bar = None if args.no_progress or args.json else ProgressBar(service.stages)
    report = service.index(args.paths, bar, cancel, enrich=not args.searchable_only)
    if bar:
        bar.close()
    if args.json:
        print(json.dumps(report.as_json(), indent=2))
    else:
        _print_report(report)
    return 1 if report.cancelled else 0


def _cmd_watch(service: Service, args) -> int:
    stop = cancel_on_sigint()
    bar = ProgressBar(service.stages)

    def on_report(report: IndexReport):
        bar.close()
        if report.added or report.updated or report.removed or report.failed:
            _print_report(report)

    def on_error(exc: Exception):
        bar.close()
        print(f"docqa watch: {exc} (will retry)", file=sys.stderr)

    print(f"watching {', '.join(args.paths)} (Ctrl-C to stop)", file=sys.stderr)
    service.watch(args.paths, bar, stop, on_report, on_error)
    return 0


def _cmd_remove(service: Service, args) -> int:
    removed = service.remove(args.path)
    print(f"removed {removed} file(s) from the index")
    return 0 if removed else 1


def _cmd_repair(service: Service, args) -> int:
    bar = ProgressBar(service.stages)
    report = service.repair(args.force, args.paths, bar)
    bar.close()
    if report.damage is None:
        print(f"{service.database_path} opens and reads fine: nothing to repair (--force rebuilds it anyway)")
        return 0
    print(f"{service.database_path}: {report.damage}")
    if report.set_aside:
        print(f"the old file is kept as {report.set_aside} (delete it once you have checked the rebuilt one)")
    print("kept — " + ", ".join(f"{what}: {n}" for what, n in report.kept.items()))
    for what, reason in report.unreadable.items():
        print(f"could not read {what}: {reason}")
    for path in report.missing_paths:
        print(f"not on disk any more, not indexed again: {path}")
    if report.reindexed is not None:
        print("rebuilt from the PDFs:")
        _print_report(report.reindexed)
    else:
        print("no library folders to index again: `docqa index FOLDER` adds them")
    return 0


def _cmd_status(service: Service, args) -> int:
    entries = service.status()
    stages = service.enrichment()
    if args.json:
        print(json.dumps({"documents": [{"name": e.name, "path": e.path, "pages": e.pages,
                                         "status": e.status.value, "error": e.error} for e in entries],
                          "stages": [stage.as_json() for stage in stages]}, indent=2))
        return 0
    if not entries:
        print("nothing indexed yet: docqa index FOLDER")
    for e in entries:
        pages = f"{e.pages} p." if e.pages is not None else "-"
        line = f"{e.status.value:8} {pages:>8}  {e.path}"
        print(line + (f"\n{'':18}{e.error}" if e.error else ""))
    t = service.totals()
    print(f"\n{t['documents']} documents, {t['pages']} pages")
    for stage in stages:
        print(f"  {stage.stage:12} {_stage_line(stage)}")
    print(f"database: {service.database_path}")
    return 0


def _stage_line(stage) -> str:
    """'1,200 / 1,500 pages, 300 pending' — or the reason the stage does not run."""
    line = stage.counts + (f", {stage.pending:,} pending" if stage.pending else "")
    if stage.pending and stage.note:
        line += f" ({stage.note})"
    elif stage.pending:  # an index stage (a method's prepared work says how it is written)
        line += " (run `docqa index` or keep `docqa watch` / the app running to finish)"
    return line


def _cmd_search(service: Service, args) -> int:
    hits = service.search(args.query, args.doc, args.k, args.mode)
    if args.json:
        print(json.dumps([h.as_json() for h in hits], indent=2, ensure_ascii=False))
        return 0
    if not hits:
        print("no matching pages")
    for rank, h in enumerate(hits, 1):
        where = _region_text(h.region) if h.region else ""
        print(f"{rank:2}. {h.doc}  p.{h.page}  ({h.score:.4f}){where}\n    {h.snippet}")
    return 0


def _region_text(region) -> str:
    x0, y0, x1, y1 = region
    return f" region x {x0:.2f}-{x1:.2f} y {y0:.2f}-{y1:.2f}"


def _cmd_ask(service: Service, args) -> int:
    cancel = cancel_on_sigint()
    progress = None if args.json else (lambda p: print(f"… {p.phase}", file=sys.stderr))
    printer = None if args.json else StreamPrinter()
    overrides = {"k": args.k, "iterations": args.iterations}
    method = args.method or service.default_method
    shortfall = service.model_shortfall(method)
    if shortfall:
        print(f"docqa: warning: {method} {shortfall}. Its answer will be labelled unverified.", file=sys.stderr)
    answer = service.ask(args.question, args.doc, args.method, overrides, progress, cancel, stream=printer,
                         follow_up=args.follow_up)
    if args.json:
        print(json.dumps(answer.as_json(), indent=2, ensure_ascii=False))
    else:
        print_answer(answer, printer)
        thread = f" · thread {answer.thread}" if answer.thread else ""
        print(f"\n{answer.status.label} · {answer.method} · {', '.join(answer.models) or 'no model'} · "
              f"{answer.iterations} round(s) · {len(answer.calls)} model calls · "
              f"{answer.prompt_tokens}+{answer.output_tokens} tokens · {answer.seconds:.1f} s · id {answer.id}{thread}")
        if answer.method == QUOTED:
            print(service.upgrade_hint())
    return {"answered": 0, "unverified": 0, "passages": 0, "not_found": 0,
            "cancelled": 130}.get(answer.status.value, 1)


def print_answer(answer: Answer, printer: "StreamPrinter") -> None:
    """The answer as `docqa ask` prints it: the verdict first unless it is an answer (after the text, when that
    was streamed as the model wrote it), the text (an unverified draft labelled as such), what was computed and
    checked, then the numbered citations (for a draft or passages: the passages to read)."""
    printer.finish(shown_text(answer), "" if answer.status.confident else answer.status.verdict)
    proof = [line for line in (computed_line(answer), answer.check) if line]
    if proof:
        print("\n".join(proof) + ("\n" if answer.citations else ""), file=printer.out)
    for n, c in enumerate(answer.citations, 1):
        print(cited_line(n, c), file=printer.out)


class StreamPrinter:
    """Prints the answer while the model writes it: each new piece as it comes, a fresh line when the method
    starts the answer over (another round); at the end the final text, unless it is what was printed."""

    def __init__(self, out=None):
        self.out = out or sys.stdout  # the stdout of the moment (a test's capture), not the one at import
        self.shown = ""

    def __call__(self, text: str) -> None:
        if self.shown and text.startswith(self.shown):
            self.out.write(text[len(self.shown):])
        else:
            self.out.write("\n" + text)
        self.shown = text
        self.out.flush()

    def finish(self, final: str, verdict: str = "") -> None:
        """End the answer with `final` (unless it is what was streamed), the verdict on the line above it."""
        said = f"{verdict}\n" if verdict else ""
        if self.shown and final == self.shown:
            self.out.write(f"\n\n{said}" + ("\n" if said else ""))
        else:
            self.out.write(("\n" if self.shown else "") + f"\n{said}{final}\n\n")
        self.out.flush()


def _cmd_methods(service: Service, args) -> int:
    specs = service.methods()
    shortfalls = service.model_shortfalls()  # "" where the text model is large enough
    if args.json:
        print(json.dumps([{**spec.as_json(), "model_shortfall": shortfalls[spec.name]} for spec in specs],
                         indent=2, ensure_ascii=False))
        return 0
    for spec in specs:
        default = " (default)" if spec.name == service.default_method else ""
        print(f"{spec.name}{default} — {spec.title}, cost {spec.cost}\n  {spec.description}\n  paper: {spec.paper}")
        extras = [f"needs {', '.join(spec.needs)}"] if spec.needs else []
        extras += [f"better with {', '.join(spec.uses)}"] if spec.uses else []
        extras += [f"prepares {spec.prepare_label}"] if spec.prepare else []
        if extras:
            print("  " + "; ".join(extras))
        if shortfalls[spec.name]:
            print(f"  {spec.name} {shortfalls[spec.name]}")
        print("  settings: " + ", ".join(f"{k}={v}" for k, v in spec.as_json()["settings"].items()))
    return 0


def _cmd_prepare(service: Service, args) -> int:
    cancel = cancel_on_sigint()
    started = time.monotonic()

    def progress(p) -> None:
        rate = p.done / max(1e-6, time.monotonic() - started)
        print(f"\r{p.phase} {p.done}/{p.total} {p.unit}, {rate * 60:.1f}/min, ETA {(p.total - p.done) / rate:.0f}s   ",
              end="", file=sys.stderr, flush=True)

    report = service.prepare(getattr(args, "method", None) or ("simpledoc" if args.command == "summarize" else None),
                             args.doc, progress, cancel)
    if not report.what:
        print(f"{report.method} has nothing to prepare")
        return 0
    print(f"\n{report.method}: {report.done} {report.what} written" + (" (cancelled)" if report.cancelled else ""))
    return 130 if report.cancelled else 0


def _cmd_history(service: Service, args) -> int:
    answers = service.history(args.limit)
    if args.json:
        print(json.dumps([{**a.as_json(), "question": a.question, "created_at": a.created_at} for a in answers],
                         indent=2, ensure_ascii=False))
        return 0
    if not answers:
        print("no questions asked yet: docqa ask QUESTION")
    for a in answers:
        follow_up = f"↳ (follow-up in thread {a.thread}) " if a.thread else ""
        print(f"{a.id}  {a.created_at}  {a.status.label:16} {follow_up}{a.question}\n{'':48}{a.text[:100]}")
    return 0


def _cmd_export(service: Service, args) -> int:
    answer = service.answer(args.id)
    if args.thread:
        output = service.export_thread(answer.id, args.format,
                                       args.output or f"thread-{answer.thread_id}.{args.format}")
    else:
        output = export(answer, args.format, args.output or f"answer-{answer.id}.{args.format}")
    print(output)
    return 0


def _cmd_eval(service: Service, args) -> int:
    questions = load_questions(args.questions)[: args.limit]
    if args.report_only:
        print(f"report: {write_report(args.out, saved_records(args.out, questions, args.method))}")
        return 0
    methods = list(dict.fromkeys(args.method or [service.default_method]))
    cancel = cancel_on_sigint()
    bar = ProgressBar(service.stages)

    def say(message: str) -> None:
        bar.close()
        print(message, file=sys.stderr, flush=True)

    runner = EvalRunner(service, args.out, say, cancel, bar)
    outcome = runner.run(questions, args.corpus, methods, args.judge)
    report = write_report(args.out, outcome.records)
    state = "interrupted (run again to resume)" if outcome.cancelled else "done"
    print(f"{state}: {outcome.ran} answered now, {outcome.skipped} from earlier runs; report: {report}")
    return 130 if outcome.cancelled else 0


def _cmd_gui(service: Service, args) -> int:
    if args.install_launcher:
        from .launcher import LauncherError, install_launcher
        try:
            home = getattr(args, "home", None) or os.environ.get("DOCQA_HOME")
            path = install_launcher(os.path.abspath(home) if home else None)
        except LauncherError as exc:
            print(f"docqa: {exc}", file=sys.stderr)
            return 2
        print(f"launcher written to {path}: DocQA Desktop is in the applications menu")
        return 0
    from .ui.app import run  # Qt is loaded only for the app

    service.close()  # the app opens its own
    return run(service.settings, [os.path.abspath(f) for f in args.folders])


def _cmd_render(service: Service, args) -> int:
    png = service.page_image(args.doc, args.page, args.size)
    output = args.output or f"{os.path.splitext(os.path.basename(args.doc))[0]}-p{args.page}.png"
    with open(output, "wb") as fh:
        fh.write(png)
    print(output)
    return 0


COMMANDS = {"index": _cmd_index, "watch": _cmd_watch, "remove": _cmd_remove, "repair": _cmd_repair,
            "status": _cmd_status, "search": _cmd_search, "render": _cmd_render, "models": cli_models.run,
            "ask": _cmd_ask, "summarize": _cmd_prepare, "prepare": _cmd_prepare,
            "methods": _cmd_methods, "history": _cmd_history, "export": _cmd_export,
            "eval": _cmd_eval, "gui": _cmd_gui}


def _print_report(report: IndexReport) -> None:
    state = "cancelled" if report.cancelled else "done"
    stages = report.stages.values()
    summary = "".join(f", {r.reported.summary.format(done=r.done)}" for r in stages if r.reported.summary)
    print(f"{state}: {report.added} added, {report.updated} updated, {report.removed} removed, "
          f"{report.unchanged} unchanged, {report.failed} failed; {report.pages} pages{summary} "
          f"in {report.seconds:.1f}s")
    for r in stages:
        if r.reported.line and (r.done or r.note):
            print(r.reported.line.format(done=r.done) + (f"; {r.note}" if r.note else ""))
    for path, reason in report.errors.items():
        print(f"  error: {path}: {reason}")
