"""How long MMRAG-DocQA's summary tree takes to build: seconds per page and per summary, per document and model.

Runs the real prepare step (`docqa prepare --method mmrag`) one document at a time on an indexed home and
records wall time, the tree's shape (nodes per layer) and the summaries written. Resumable: a document whose
tree is finished is skipped (and keeps its earlier figures in the output file).

    python benchmarks/tree_build.py --home H --doc 2023.acl-long.386.pdf --doc PIP_Seniors-and-Tech-Use_040314.pdf
    DOCQA_LLM_TEXT_MODEL=qwen2.5-coder-1.5b DOCQA_ASK_PRESET=cpu python benchmarks/tree_build.py --home H ...

Writes benchmarks/results/tree_build-<model>.json (RESULTS.md via run_all.py --collect-only).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, environment, markdown_table, write_json  # noqa: E402

from docqa_desktop.service import Service  # noqa: E402
from docqa_desktop.settings import Settings  # noqa: E402
from docqa_desktop.store.summary_trees import SummaryTrees  # noqa: E402


def shape(service: Service, doc_id: int, model: str) -> dict:
    nodes = SummaryTrees(service.resources.db).nodes(doc_id, model)
    layers: dict[int, int] = {}
    for node in nodes:
        layers[node.layer] = layers.get(node.layer, 0) + 1
    return {"nodes": len(nodes), "per_layer": [layers[layer] for layer in sorted(layers)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", required=True)
    parser.add_argument("--doc", action="append", required=True, help="a document's file name, in build order")
    parser.add_argument("--out")
    args = parser.parse_args()
    with Service(Settings.load(Path(args.home))) as service:
        model = service.resources.runtimes.text().info.name
        out = Path(args.out) if args.out else RESULTS / f"tree_build-{model}.json"
        old = json.loads(out.read_text()) if out.exists() else {}
        rows = {row["doc"]: row for row in old.get("documents", [])}
        for name in args.doc:
            doc_id = service.pages.resolve_documents([name])[0]
            if SummaryTrees(service.resources.db).finished([doc_id], model):
                print(f"{name}: finished earlier", flush=True)
                continue
            pages, chunks = service.resources.db.cursor().execute(
                "SELECT d.pages, (SELECT count(*) FROM chunks WHERE doc_id = d.id) FROM documents d WHERE id = ?",
                [doc_id]).fetchone()
            started = time.perf_counter()
            report = service.answers.prepare("mmrag", [name])
            seconds = time.perf_counter() - started
            tree = shape(service, doc_id, model)
            per_summary = seconds / max(report.done, 1)
            # a resumed build wrote only part of the tree now: its whole build time is estimated from this part
            whole = seconds if report.done == tree["nodes"] else per_summary * tree["nodes"]
            rows[name] = {"doc": name, "pages": pages, "chunks": chunks, "summaries_now": report.done,
                          "resumed": report.done != tree["nodes"], "seconds": round(seconds, 1),
                          "seconds_per_summary": round(per_summary, 2),
                          "seconds_per_page": round(whole / pages, 2), **tree}
            print(json.dumps(rows[name]), flush=True)
            write_json({"model": model, "environment": environment(), "documents": list(rows.values())},
                       str(out), "")
    table = [[r["doc"][:40], r["pages"], r["chunks"], r["nodes"], "/".join(map(str, r["per_layer"])), r["seconds"],
              r["seconds_per_page"], r["seconds_per_summary"]] for r in rows.values()]
    print(markdown_table(["document", "pages", "chunks", "nodes", "per layer", "s", "s/page", "s/summary"], table))


if __name__ == "__main__":
    main()
