"""`docqa history | export`: questions asked before, and an answer (or its thread) written to a file."""
from __future__ import annotations

import json

from ..presentation import shown_text
from ..service import EXPORT_FORMATS, Service, export_file_name
from .common import clipped_line, local_path, zero_or_more

SHOWN = 20  # answers `docqa history` lists unless --limit says otherwise
QUESTION_WIDTH, ANSWER_WIDTH = 100, 100  # characters of each on its one line


def add_parsers(sub, common) -> None:
    p = sub.add_parser("history", parents=[common], help="questions asked before, newest first")
    p.add_argument("--limit", type=zero_or_more, default=SHOWN, metavar="N",
                   help=f"show the newest N answers (default {SHOWN}; 0: all of them)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=history)

    p = sub.add_parser("export", parents=[common], help="write an answer with its citations to a file")
    p.add_argument("id", help="answer id (see docqa history)")
    p.add_argument("--format", choices=EXPORT_FORMATS, default="md")
    p.add_argument("-o", "--output", type=local_path,
                   help="file to write (default: named after the question, e.g. when-does-the-last-ferry-leave.md)")
    p.add_argument("--thread", action="store_true", help="the whole thread the answer belongs to, in order")
    p.set_defaults(run=export)


def history(service: Service, args) -> int:
    answers = service.answers.history(args.limit or None)
    if args.json:
        print(json.dumps([{**a.as_json(), "question": a.question, "created_at": a.created_at} for a in answers],
                         indent=2, ensure_ascii=False))
        return 0
    if not answers:
        print("no questions asked yet: docqa ask QUESTION")
        return 0
    for a in answers:  # two lines each, whatever the question and answer hold: the columns stay aligned
        follow_up = f"↳ (follow-up in thread {a.thread}) " if a.thread else ""
        print(f"{a.id}  {a.created_at}  {a.status.label:16} {follow_up}{clipped_line(a.question, QUESTION_WIDTH)}\n"
              f"{'':48}{clipped_line(shown_text(a), ANSWER_WIDTH)}")
    total = service.answers.history_size()
    more = " (--limit N for more, --limit 0 for all)" if len(answers) < total else ""
    print(f"\n{len(answers)} of {total} answers, newest first{more}")
    return 0


def export(service: Service, args) -> int:
    answer = service.answers.answer(args.id)
    output = args.output or local_path(export_file_name(answer, args.format, args.thread))
    if args.thread:
        output = service.answers.export_thread(answer.id, args.format, output)
    else:
        output = service.answers.export(answer, args.format, output)
    print(output)
    return 0
