"""Builds the folder the GPU check carries to a GPU machine without network (run on a CPU machine with the project's
environment and network for the wheels):

    .venv/bin/python benchmarks/gpu_check/prepare.py .gpu-pack            # ≤ 40 MB, see below
    .venv/bin/python benchmarks/gpu_check/prepare.py PACK --small         # 4 pages, no sdist, no wheels (tests)

Then on the GPU machine: `bash benchmarks/gpu_check/run.sh .gpu-pack`. The pack holds:
- llama_cpp_python-0.3.36.tar.gz: the sdist without vocab files, docs and examples (76 → 3.3 MB), built there;
- colqwen25/: ColQwen2.5-v0.2's config, processor and the real Qwen2 tokenizer (gzipped), no weights;
- pages/: corpus pages rendered by the product's page_images() at 768 visual tokens, WebP (half JPEG's size at
  the same look: 64 pages in ~3.7 MB at quality 75), with pages.json;
- minilm/: all-MiniLM-L6-v2's config, tokenizer and tensor shapes (weights drawn there); chunks.json.gz: corpus
  chunks made by the product's chunker;
- methods.json: the mean prompt / cached / output tokens per question of each method, from the records of
  benchmarks/eval-dev-1.5b (llama_check.py turns them into seconds at the measured rates);
- whl/: the wheels the product imports that the GPU machine's image lacks (device README, KINDS.md), cp312.
The product's source is not copied: the checkout travels with the call, so the check measures the code as it is.
"""
from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIMIT_MB = 40
# what the product imports on the measured paths and the GPU image lacks (diskcache: llama_cpp's import); its torch, transformers, peft, numba,
# pyarrow, tokenizers, safetensors, pillow, numpy and onnx packages are used as they are
WHEELS = ["colpali-engine==0.3.18", "diskcache==5.6.3", "duckdb==1.4.4", "duckdb-ext-fts==1.4.4.20260205", "gguf==0.19.0",
          "platformdirs==4.14.7"]
PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64",
             "manylinux1_x86_64"]
BUDGET = 768


def copy_recipe(shared: Path, pack: Path, small: bool) -> None:
    recipe = shared / "recipes" / "gpu-check"
    shutil.copytree(recipe / "colqwen25", pack / "colqwen25")
    if not small:
        shutil.copy(recipe / "llama_cpp_python-0.3.36-stripped.tar.gz", pack / "llama_cpp_python-0.3.36.tar.gz")


def corpus_plan(corpus: Path, count: int) -> list[tuple[Path, int]]:
    """Page 1 of every PDF, then page 2, …: a mix of page shapes."""
    import pymupdf

    pdfs = sorted(corpus.glob("*.pdf"))
    pages = {p: pymupdf.open(p).page_count for p in pdfs}
    plan: list[tuple[Path, int]] = []
    k = 0
    while len(plan) < count and k < max(pages.values()):
        k += 1
        plan += [(p, k) for p in pdfs if pages[p] >= k][:count - len(plan)]
    return plan


def render_pages(plan, pack: Path, quality: int) -> None:
    """The product's renderer now, so that the GPU machine (no pymupdf) decodes the very images it would make."""
    from docqa_desktop.pdf.page_images import page_images

    folder = pack / "pages"
    folder.mkdir()
    manifest = []
    for i, (pdf, page) in enumerate(plan):
        (_n, image), = page_images(str(pdf), [page], BUDGET)
        name = f"p{i:03d}.webp"
        image.save(folder / name, "WEBP", quality=quality)
        manifest.append({"file": name, "pdf": pdf.name, "page": page, "pixels": list(image.size)})
    (folder / "pages.json").write_text(json.dumps({"budget": BUDGET, "webp_quality": quality, "pages": manifest}))


def text_assets(plan, pack: Path, max_chunks: int) -> None:
    import pymupdf
    from safetensors import safe_open

    from docqa_desktop.index.chunking import chunk_page
    from docqa_desktop.vectors.text_embedder import bundled_model_dir

    model = bundled_model_dir()
    folder = pack / "minilm"
    folder.mkdir()
    shutil.copy(model / "config.json", folder)
    (folder / "tokenizer.json.gz").write_bytes(gzip.compress((model / "tokenizer.json").read_bytes(), 9))
    with safe_open(str(model / "model.safetensors"), "np") as weights:
        shapes = {name: list(weights.get_slice(name).get_shape()) for name in weights.keys()}
    (folder / "shapes.json").write_text(json.dumps(shapes))
    chunks: list[str] = []
    for pdf in sorted({pdf for pdf, _ in plan}):
        with pymupdf.open(pdf) as doc:
            for number, page in enumerate(doc, 1):
                chunks += [c.text for c in chunk_page(number, page.get_text())]
                if len(chunks) >= max_chunks:
                    break
        if len(chunks) >= max_chunks:
            break
    (pack / "chunks.json.gz").write_bytes(gzip.compress(json.dumps({"chunks": chunks[:max_chunks]}).encode(), 9))


def method_tokens(pack: Path) -> None:
    """Per method: mean prompt / cached / output tokens and LLM calls per question, over every record of the
    1.5B dev evaluations that has them."""
    per: dict[str, list[dict]] = defaultdict(list)
    for results in sorted((REPO / "benchmarks" / "eval-dev-1.5b").glob("**/results.jsonl")):
        for line in results.read_text().splitlines():
            record = json.loads(line)
            if record.get("prompt_tokens"):
                per[record["method"]].append(record)
    methods = {name: {"questions": len(rows),
                      "prompt_tokens": round(statistics.fmean(r["prompt_tokens"] for r in rows)),
                      "cached_tokens": round(statistics.fmean(r.get("cached_tokens", 0) for r in rows)),
                      "output_tokens": round(statistics.fmean(r["output_tokens"] for r in rows)),
                      "llm_calls": round(statistics.fmean(r.get("llm_calls", 1) for r in rows), 1),
                      "cpu_seconds_1.5b_2_cores": round(statistics.fmean(r["seconds"] for r in rows), 1)}
               for name, rows in sorted(per.items())}
    (pack / "methods.json").write_text(json.dumps({"source": "benchmarks/eval-dev-1.5b/**/results.jsonl",
                                                   "methods": methods}, indent=1))


def download_wheels(pack: Path) -> None:
    target = pack / "whl"
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
               "--python-version", "3.12", "--implementation", "cp", "-d", str(target)]
    for platform in PLATFORMS:
        command += ["--platform", platform]
    subprocess.run(command + WHEELS, check=True)


def size_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pack", type=Path)
    ap.add_argument("--small", action="store_true", help="4 pages, no llama.cpp sdist, no wheels (SMALL=1 runs)")
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared", help="holds corpus/ and recipes/")
    ap.add_argument("--pages", type=int, help="pages to render (default 64, 4 with --small)")
    ap.add_argument("--quality", type=int, default=75, help="WebP quality of the pages")
    args = ap.parse_args()
    sys.path.insert(0, str(REPO))
    from docqa_desktop.vectors.torch_runtime import import_torchvision

    import_torchvision()  # the CPU torch beside the CUDA torchvision wheel (see there)
    pack = args.pack
    shutil.rmtree(pack, ignore_errors=True)
    pack.mkdir(parents=True)
    copy_recipe(args.shared, pack, args.small)
    plan = corpus_plan(args.shared / "corpus", args.pages or (4 if args.small else 64))
    render_pages(plan, pack, args.quality)
    text_assets(plan, pack, 128 if args.small else 2048)
    method_tokens(pack)
    if not args.small:
        download_wheels(pack)
    total = size_mb(pack)
    print(f"{pack}: {total:.1f} MB ({', '.join(f'{p.name} {size_mb(p) if p.is_dir() else p.stat().st_size / 2**20:.1f}' for p in sorted(pack.iterdir()))})")
    if total > LIMIT_MB:
        print(f"over {LIMIT_MB} MB: use a lower --quality or fewer --pages", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
