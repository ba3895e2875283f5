"""`docqa history | export`: questions asked before, and an answer (or its thread) written to a file."""
from __future__ import annotations

import json

from ..service import EXPORT_FORMATS, Service
from .common import positive


def add_parsers(sub, common) -> None:
    p = sub.add_parser("history", parents=[common], help="questions asked before, newest first")
    p.add_argument("--limit", type=positive, default=20)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=history)

    p = sub.add_parser("export", parents=[common], help="write an answer with its citations to a file")
    p.add_argument("id", help="answer id (see docqa history)")
    p.add_argument("--format", choices=EXPORT_FORMATS, default="md")
    p.add_argument("-o", "--output", help="file to write (default: answer-ID.FORMAT)")
    p.add_argument("--thread", action="store_true", help="the whole thread the answer belongs to, in order")
    p.set_defaults(run=export)


def history(service: Service, args) -> int:
    answers = service.answers.history(args.limit)
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


def export(service: Service, args) -> int:
    answer = service.answers.answer(args.id)
    if args.thread:
        output = service.answers.export_thread(answer.id, args.format,
                                               args.output or f"thread-{answer.thread_id}.{args.format}")
    else:
        output = service.answers.export(answer, args.format, args.output or f"answer-{answer.id}.{args.format}")
    print(output)
    return 0
