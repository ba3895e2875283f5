"""What the evidence-first prompt layout saves: llama.cpp re-evaluates only what follows the longest prefix
shared with the previous prompt, so two questions over the same pages cost one evaluation of the pages when
the pages come first, and two when the question does.

    python benchmarks/prefix_reuse.py --model /path/qwen15b.gguf [--pages 3] [--repeats 2]

For each layout, a first call evaluates the prompt; the second call (another question, same pages) is timed.
Both generate 1 token, so the time is prompt evaluation. Needs a real GGUF (bash ../shared/recipes/qwen15b_gguf.sh F).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CORPUS, environment, write_json  # noqa: E402

from docqa_desktop.llm import Message, Options  # noqa: E402
from docqa_desktop.llm.local import LocalBackend, LocalConfig  # noqa: E402
from docqa_desktop.methods.toolkit.prompt_layout import evidence_first  # noqa: E402

INSTRUCTIONS = "Answer the question using only the document pages below. Reply with the answer only."
QUESTIONS = ("Which pivot languages are used?", "How many language pairs are evaluated?")
DOCUMENT = "2023.acl-long.386.pdf"


def page_texts(pages: int) -> str:
    with pymupdf.open(CORPUS / DOCUMENT) as pdf:
        return "\n\n".join(f"[Page {i + 1}]\n{pdf[i].get_text()[:3000]}" for i in range(pages))


def question_first(evidence: str, question: str) -> list[Message]:
    return [Message("system", INSTRUCTIONS), Message("user", f"<question>{question}</question>\n\n{evidence}")]


def layout_evidence_first(evidence: str, question: str) -> list[Message]:
    return evidence_first(INSTRUCTIONS, evidence, f"<question>{question}</question>")


def second_call_seconds(model: LocalBackend, layout, evidence: str) -> tuple[float, int]:
    options = Options(max_tokens=1)
    model.chat(layout(evidence, "What is this document about?"), options)  # a different prompt in the cache
    model.chat(layout(evidence, QUESTIONS[0]), options)
    started = time.perf_counter()
    completion = model.chat(layout(evidence, QUESTIONS[1]), options)
    return time.perf_counter() - started, completion.usage.prompt_tokens


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--pages", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    model = LocalBackend("bench", args.model, LocalConfig(args.threads, 0, 8192, 0))
    evidence = page_texts(args.pages)
    runs = {"question_first": [], "evidence_first": []}
    tokens = 0
    for _ in range(args.repeats):
        for name, layout in (("question_first", question_first), ("evidence_first", layout_evidence_first)):
            seconds, tokens = second_call_seconds(model, layout, evidence)
            runs[name].append(round(seconds, 2))
            print(name, f"{seconds:.2f} s", flush=True)
    medians = {name: statistics.median(values) for name, values in runs.items()}
    result = {"environment": environment(), "model": Path(args.model).name, "prompt_tokens": tokens,
              "pages": args.pages, "threads": args.threads, "second_call_seconds": runs, "median": medians,
              "saving": round(1 - medians["evidence_first"] / medians["question_first"], 3)}
    print(f"second question over the same {args.pages} pages ({tokens} prompt tokens): question first "
          f"{medians['question_first']:.1f} s, evidence first {medians['evidence_first']:.1f} s "
          f"({result['saving']:.0%} saved)")
    write_json(result, args.out, "prefix_reuse.json")
    model.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
