"""`docqa index | watch | remove | repair | status`: the library."""
from __future__ import annotations

import json
import sys

from ..domain import IndexReport, StageStatus
from ..host import memory_limit_words
from ..service import Service
from .common import ProgressBar, cancel_on_sigint, local_path, require_existing
from .console import served_console


def add_parsers(sub, common) -> None:
    p = sub.add_parser("index", parents=[common], help="index PDFs in folders or files (incremental)")
    p.add_argument("paths", nargs="+", type=local_path)
    p.add_argument("--json", action="store_true", help="print the run's report as JSON")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--searchable-only", action="store_true",
                   help="stop once every document is keyword-searchable; layout, embeddings and page images "
                        "follow at the next index, watch or app start (see `docqa status`)")
    p.set_defaults(run=index)

    p = sub.add_parser("watch", parents=[common], help="index, then follow folders for changes (Ctrl-C stops)")
    p.add_argument("paths", nargs="+", type=local_path)
    p.set_defaults(run=watch)

    p = sub.add_parser("remove", parents=[common], help="forget a file or folder (files on disk are kept)")
    p.add_argument("path", type=local_path)
    p.set_defaults(run=remove)

    p = sub.add_parser("repair", parents=[common],
                       help="rebuild a damaged database: the damaged file is kept aside, history and page "
                            "summaries are copied where readable, the library folders are indexed again")
    p.add_argument("paths", nargs="*", type=local_path, help="folders or PDFs to index as well (needed when the damaged file "
                                            "no longer says which folders the library holds)")
    p.add_argument("--force", action="store_true", help="rebuild even if the database reads fine")
    p.set_defaults(run=repair)

    p = sub.add_parser("status", parents=[common], help="what is indexed, pending or failed")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=status)


def index(service: Service, args) -> int:
    require_existing(args.paths, "index")
    cancel = cancel_on_sigint()
    bar = None if args.no_progress or args.json else ProgressBar(service.library.stages)
    report = service.library.index(args.paths, bar, cancel, enrich=not args.searchable_only)
    if bar:
        bar.close()
    if args.json:
        print(json.dumps(report.as_json(), indent=2))
    else:
        print_report(report)
    return 130 if report.cancelled else 1 if report.failed else 0  # 1: some files failed, the rest are indexed


def watch(service: Service, args) -> int:
    if served_console() is not None:
        return _app_is_open("watch", "the app watches its library's folders itself: add the folder there, "
                                     "or `docqa index` it")
    stop = cancel_on_sigint()
    bar = ProgressBar(service.library.stages)
    said: dict[str, str] = {}  # why a stage is off, as last said: not repeated after every run

    def on_report(report: IndexReport):
        bar.close()
        if report.added or report.updated or report.removed or report.failed:
            print_report(report, said)

    def on_error(exc: Exception):
        bar.close()
        print(f"docqa watch: {exc} (will retry)", file=sys.stderr)

    print(f"watching {', '.join(args.paths)} (Ctrl-C to stop)", file=sys.stderr)
    service.library.watch(args.paths, bar, stop, on_report, on_error)
    return 0


def _app_is_open(command: str, reason: str) -> int:
    """What `docqa watch` and `docqa repair` say while the app has the library open (exit 2, as for a database
    in use): they need the database file to themselves."""
    print(f"docqa {command}: DocQA Desktop has this library open; {reason}", file=sys.stderr)
    return 2


def remove(service: Service, args) -> int:
    removed = service.library.remove(args.path)
    print(f"removed {removed} file(s) from the index")
    return 0 if removed else 1


def repair(service: Service, args) -> int:
    if served_console() is not None:
        return _app_is_open("repair", "close the app first: a repair sets the database file aside")
    bar = ProgressBar(service.library.stages)
    report = service.library.repair(args.force, args.paths, bar)
    bar.close()
    database = service.library.database_path
    if report.damage is None:
        print(f"{database} opens and reads fine: nothing to repair (--force rebuilds it anyway)")
        return 0
    print(f"{database}: {report.damage}")
    if report.set_aside:
        print(f"the old file is kept as {report.set_aside} (delete it once you have checked the rebuilt one)")
    print("kept — " + ", ".join(f"{what}: {n}" for what, n in report.kept.items()))
    for what, reason in report.unreadable.items():
        print(f"could not read {what}: {reason}")
    for path in report.missing_paths:
        print(f"not on disk any more, not indexed again: {path}")
    if report.reindexed is not None:
        print("rebuilt from the PDFs:")
        print_report(report.reindexed)
    else:
        print("no library folders to index again: `docqa index FOLDER` adds them")
    return 0


def status(service: Service, args) -> int:
    entries = service.library.status()
    stages = service.library.enrichment()
    if args.json:
        print(json.dumps({"documents": [{"name": e.name, "path": e.path, "title": e.info.title or None,
                                         "authors": e.info.authors or None, "year": e.info.year, "pages": e.pages,
                                         "status": e.status.value, "error": e.error} for e in entries],
                          "stages": [stage.as_json() for stage in stages]}, indent=2))
        return 0
    if not entries:
        print("nothing indexed yet: docqa index FOLDER")
    for e in entries:
        pages = f"{e.pages} p." if e.pages is not None else "-"
        print(f"{e.status.value:8} {pages:>8}  {e.path}")
        described = " · ".join(str(part) for part in (e.info.title, e.info.authors, e.info.year) if part)
        for below in (described, e.error):
            if below:
                print(f"{'':18}{below}")
    t = service.library.totals()
    print(f"\n{t['documents']} documents, {t['pages']} pages")
    for stage in stages:
        print(f"  {stage.stage:12} {stage_line(stage)}")
    print(f"database: {service.library.database_path}")
    print(f"worker memory: {memory_limit_words()}")
    return 0


def stage_line(stage: StageStatus) -> str:
    """'1,200 / 1,500 pages, 300 pending' — or that the stage is off and why, and how to turn it on."""
    if stage.off:
        return stage.note + (f" ({stage.counts} done)" if stage.done else "") + (
            f" — {stage.hint}" if stage.hint else "")
    line = stage.counts + (f", {stage.pending:,} pending" if stage.pending else "")
    if stage.pending and stage.note:
        line += f" ({stage.note})"
    elif stage.pending:  # an index stage (a method's prepared work says how it is written)
        line += " (run `docqa index` or keep `docqa watch` / the app running to finish)"
    return line + (f" — {stage.hint}" if stage.hint else "")  # a running stage's limit ("pages read by OCR …")


def print_report(report: IndexReport, said: dict[str, str] | None = None) -> None:
    """The run's counts, a line for each stage that did some work, and why a stage is off — once: `said` (a
    watch's, kept across its runs) holds what was said last, and an unchanged reason is not said again."""
    state = "cancelled" if report.cancelled else "done"
    stages = report.stages
    summary = "".join(f", {r.reported.summary.format(done=r.done)}" for r in stages.values() if r.reported.summary)
    print(f"{state}: {report.added} added, {report.updated} updated, {report.removed} removed, "
          f"{report.unchanged} unchanged, {report.failed} failed; {report.pages} pages{summary} "
          f"in {report.seconds:.1f}s")
    for name, r in stages.items():
        if not r.reported.line:
            continue
        if r.done:
            print(r.reported.line.format(done=r.done) + (f"; {r.note}" if r.note else ""))
        elif r.note and (said is None or said.get(name) != r.note):
            print(f"{name}: {r.note}")
        if said is not None:
            said[name] = r.note
    for path, reason in report.errors.items():
        print(f"  error: {path}: {reason}")
