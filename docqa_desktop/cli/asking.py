"""`docqa ask | methods | prepare`: answering, the methods, and a method's work ahead of questions."""
from __future__ import annotations

import argparse
import json
import sys
import textwrap

from ..answers import Answer
from ..progress import describe
from ..presentation import cited_line, computed_line, confidence_line, shown_text
from ..service import CASCADE, METHOD_NAMES, QUOTED, Service, method_setting_defaults
from .common import add_doc_option, cancel_on_sigint, positive

METHOD_HELP = "default: setting ask.method (auto: quoted answers until a capable model is installed)"
EXIT_CODES = {"answered": 0, "unverified": 0, "passages": 0, "not_found": 0, "cancelled": 130}  # others: 1


def add_parsers(sub, common) -> None:
    p = sub.add_parser("ask", parents=[common], help="answer a question from the indexed documents, with citations",
                       epilog="method settings for --set (FIELD=the paper's default):\n"
                              + "\n".join(_wrapped(name, fields) for name, fields in method_setting_defaults().items()),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("question")
    add_doc_option(p)
    p.add_argument("--method", choices=METHOD_NAMES, default=None, help=METHOD_HELP)
    p.add_argument("--set", dest="settings", action="append", default=[], metavar="FIELD=VALUE",
                   help="a setting of the method for this question only; repeatable (the list below)")
    p.add_argument("--k", type=positive, default=None, help="the same as --set k=K: pages from the first retrieval")
    p.add_argument("--follow-up", metavar="ID", default=None,
                   help="continue the thread of answer ID (see docqa history): its questions and answers go along")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=ask)

    p = sub.add_parser("methods", parents=[common], help="the answering methods: paper, needs, settings")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=methods)

    p = sub.add_parser("prepare", parents=[common],
                       help="a method's work ahead of questions, e.g. SimpleDoc's page summaries (resumable)")
    p.add_argument("--method", choices=METHOD_NAMES, default=None, help=METHOD_HELP)
    add_doc_option(p)
    p.set_defaults(run=prepare)


def _wrapped(method: str, fields: list[str]) -> str:
    """'  simpledoc: k=10, iterations=3, …' wrapped for a terminal."""
    return textwrap.fill(f"{method}: " + ", ".join(fields), width=110, initial_indent="  ", subsequent_indent="      ")


def ask(service: Service, args) -> int:
    method = args.method or service.answers.default_method
    overrides = service.answers.method_overrides(method, args.settings + ([f"k={args.k}"] if args.k else []))
    cancel = cancel_on_sigint()
    progress = None if args.json else (lambda p: print(f"… {describe(p)}", file=sys.stderr))
    printer = None if args.json else StreamPrinter()
    shortfall = service.models.shortfall(method)
    if shortfall:
        print(f"docqa: warning: {method} {shortfall}. Its answer will be labelled unverified.", file=sys.stderr)
    answer = service.answers.ask(args.question, args.doc, args.method, overrides, progress, cancel, stream=printer,
                                 follow_up=args.follow_up)
    if args.json:
        print(json.dumps(answer.as_json(), indent=2, ensure_ascii=False))
    else:
        print_answer(answer, printer)
        thread = f" · thread {answer.thread}" if answer.thread else ""
        print(f"\n{answer.status.label} · {answer.method} · {', '.join(answer.models) or 'no model'} · "
              f"{answer.iterations} round(s) · {len(answer.calls)} model calls · "
              f"{answer.prompt_tokens}+{answer.output_tokens} tokens · {answer.seconds:.1f} s · id {answer.id}{thread}")
        if answer.method in (QUOTED, CASCADE) and not answer.calls and (hint := service.models.upgrade_hint()):
            print(hint)  # no model had a say, and only the built-in one is installed
    return EXIT_CODES.get(answer.status.value, 1)


def print_answer(answer: Answer, printer: "StreamPrinter") -> None:
    """The answer as `docqa ask` prints it: the verdict first unless it is an answer (after the text, when that
    was streamed as the model wrote it), the text (an unverified draft labelled as such), what was computed and
    checked, then the numbered citations (for a draft or passages: the passages to read)."""
    printer.finish(shown_text(answer), "" if answer.status.confident else answer.status.verdict)
    read_as = f"Read as: {answer.standalone_question}" if answer.standalone_question else ""  # a follow-up, written out
    proof = [line for line in (confidence_line(answer), computed_line(answer), answer.check, read_as) if line]
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


def methods(service: Service, args) -> int:
    specs = service.answers.methods()
    shortfalls = service.models.shortfalls()  # "" where the text model is large enough
    if args.json:
        print(json.dumps([{**spec.as_json(), "model_shortfall": shortfalls[spec.name]} for spec in specs],
                         indent=2, ensure_ascii=False))
        return 0
    for spec in specs:
        default = " (default)" if spec.name == service.answers.default_method else ""
        print(f"{spec.name}{default} — {spec.title}, cost {spec.cost}\n  {spec.description}\n  paper: {spec.paper}")
        extras = [f"needs {', '.join(spec.needs)}"] if spec.needs else []
        extras += [f"better with {', '.join(spec.uses)}"] if spec.uses else []
        extras += [f"prepares {spec.prepare_label}"] if spec.prepare else []
        if extras:
            print("  " + "; ".join(extras))
        if shortfalls[spec.name]:
            print(f"  {spec.name} {shortfalls[spec.name]}")
        if spec.name == CASCADE:
            print(f"  {service.answers.chooser_said()}")
        print("  settings: " + ", ".join(f"{k}={v}" for k, v in spec.as_json()["settings"].items()))
    return 0


def prepare(service: Service, args) -> int:
    cancel = cancel_on_sigint()

    def progress(p) -> None:
        print(f"\r{describe(p)}   ", end="", file=sys.stderr, flush=True)

    report = service.answers.prepare(args.method, args.doc, progress, cancel)
    if not report.what:
        print(f"{report.method} has nothing to prepare")
        return 0
    print(f"\n{report.method}: {report.done} {report.what} written" + (" (cancelled)" if report.cancelled else ""))
    return 130 if report.cancelled else 0
