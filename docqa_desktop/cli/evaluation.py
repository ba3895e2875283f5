"""`docqa eval`: methods scored on labelled questions (MMLongBench-Doc format), resumable."""
from __future__ import annotations

import sys

from ..service import METHOD_NAMES, Service, load_questions
from .common import ProgressBar, cancel_on_sigint, local_path, positive


def add_parsers(sub, common) -> None:
    p = sub.add_parser("eval", parents=[common],
                       help="score methods on labelled questions (MMLongBench-Doc format); resumable")
    p.add_argument("questions", type=local_path, help="JSON lines: doc, question, answer, answer_format, evidence_pages, ...")
    p.add_argument("--corpus", required=True, type=local_path, help="folder holding the questions' PDFs (indexed if needed)")
    p.add_argument("--method", action="append", choices=METHOD_NAMES,
                   help="method to evaluate; repeatable (default: the default method, see `docqa methods`)")
    p.add_argument("--limit", type=positive, default=None, help="only the first N questions")
    p.add_argument("--out", default="eval-results", type=local_path,
                   help="folder for results.jsonl, report.md and charts (an existing run there is resumed)")
    p.add_argument("--judge", action="store_true", help="also let the text model judge each answer")
    p.add_argument("--report-only", action="store_true",
                   help="only rebuild the report from the results already in --out (asks nothing)")
    p.set_defaults(run=evaluate)


def evaluate(service: Service, args) -> int:
    questions = load_questions(args.questions)[: args.limit]
    if args.report_only:
        print(f"report: {service.answers.evaluation_report(questions, args.method, args.out)}")
        return 0
    methods = list(dict.fromkeys(args.method or [service.answers.default_method]))
    cancel = cancel_on_sigint()
    bar = ProgressBar(service.library.stages)

    def say(message: str) -> None:
        bar.close()
        print(message, file=sys.stderr, flush=True)

    outcome = service.answers.evaluate(questions, args.corpus, methods, args.out, args.judge, say, cancel, bar)
    state = "interrupted (run again to resume)" if outcome.cancelled else "done"
    print(f"{state}: {outcome.ran} answered now, {outcome.skipped} from earlier runs; report: {outcome.report}")
    return 130 if outcome.cancelled else 0
