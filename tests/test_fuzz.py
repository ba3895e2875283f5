"""Fuzzed PDFs through the real `docqa index` CLI (the engine of benchmarks/fuzz_pdfs.py, at small scale),
and the product fixes the fuzzing led to."""
import importlib.util
import random
import subprocess
import sys
from collections import Counter

import pymupdf
import pytest

from conftest import ROOT, SMALL_PAPER, corpus_pdf, entries_by_name
from docqa_desktop.domain import FileStatus


def _fuzz_module():
    spec = importlib.util.spec_from_file_location("fuzz_pdfs", ROOT / "benchmarks" / "fuzz_pdfs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)  # puts benchmarks/ on sys.path for pdf_mutations and _common
    return module


fuzz = _fuzz_module()
mutations = fuzz.pdf_mutations


BYTE_LEVEL = {"byte_flips", "truncate", "damage_xref", "corrupt_stream", "misdeclared_stream", "splice_garbage"}


@pytest.mark.slow
def test_fuzzed_files_of_every_kind_end_indexed_or_with_a_clear_error(tmp_path):
    """One file of each kind and a second of each (cheap) byte-level kind; the full run has thousands."""
    seeds = mutations.seeds_from([corpus_pdf(SMALL_PAPER)], pages=1)
    kinds = len(mutations.KINDS)
    cases = [mutations.make_case(7, i, seeds) for i in range(2 * kinds)
             if i < kinds or mutations.KINDS[i % kinds] in BYTE_LEVEL]
    assert set(c.kind for c in cases) == set(mutations.KINDS)
    folder = tmp_path / "fuzzed"
    fuzz.write_batch(folder, cases)

    batch = fuzz.index_batch(folder, tmp_path / "home", tmp_path, workers=2)

    assert set(batch.outcomes) == {c.file_name for c in cases}
    bad = {name: (outcome, batch.errors.get(name), batch.culprits.get(name))
           for name, outcome in batch.outcomes.items() if outcome not in ("indexed", "error")}
    assert bad == {}  # no crash, hang or unclassified error
    assert batch.unattributed == []
    assert batch.control_ok  # the known-good PDF beside them is indexed and found by search
    outcomes = Counter(batch.outcomes.values())
    assert outcomes["indexed"] >= 5 and outcomes["error"] >= 3  # the mutations bite, and mupdf repairs some


def test_cases_are_reproducible_from_run_seed_and_index():
    seeds = mutations.seeds_from([corpus_pdf(SMALL_PAPER)], pages=1)
    for index in range(len(mutations.KINDS)):
        a, b = mutations.make_case(3, index, seeds), mutations.make_case(3, index, seeds)
        assert (a.kind, a.detail) == (b.kind, b.detail)
        if a.kind != "encrypted":  # encryption draws fresh random IVs
            assert a.data == b.data
    assert mutations.make_case(3, 0, seeds).data != mutations.make_case(4, 0, seeds).data


def test_only_the_products_own_reasons_count_as_clear():
    assert fuzz.classify("indexed", None) == "indexed"
    assert fuzz.classify("error", "damaged PDF: page 2 failed in OCR (ResizeImgError)") == "error"
    assert fuzz.classify("error", "failed while parsing pages 1-8: ValueError: bad") == "unclassified"
    assert fuzz.classify("pending", None) == "unclassified"


def test_an_absurd_page_count_is_a_clear_error_not_a_crash(fast_service, tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    seed = mutations.seeds_from([corpus_pdf(SMALL_PAPER)], pages=1)[0]
    data = seed.data
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        pages_xref = int(doc.xref_get_key(doc.pdf_catalog(), "Pages")[1].split()[0])
    broken = mutations.edit_object(data, pages_xref, lambda body: body.replace(b"/Count 1", b"/Count 1000000000"))
    (folder / "count.pdf").write_bytes(broken)
    (folder / "good.pdf").write_bytes(data)
    fast_service.library.index([str(folder)])
    entries = entries_by_name(fast_service)
    assert entries["good.pdf"].status is FileStatus.INDEXED
    assert entries["count.pdf"].status is FileStatus.ERROR
    assert entries["count.pdf"].error.startswith("damaged PDF: the page tree cannot be read")


@pytest.mark.model
def test_a_page_with_2_mb_of_text_skips_layout_and_keeps_its_text(tmp_path):
    """mupdf's style collection (asked for by the layout pass) is quadratic: such a page took hours."""
    from docqa_desktop.index.layout import layout_elements

    rng = random.Random(5)
    while True:  # the variant with 2 MB of words in lines (the other is one 2 MB word, mostly off the page)
        data, detail = mutations.big_text_page(rng, None)
        if detail.startswith("words"):
            break
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        assert layout_elements(doc, [1]) == {}
        assert len(doc[0].get_text()) > 1_000_000
    normal = mutations.one_page_pdf(mutations.text_content(["Quarterly report", "The breakwater held."] * 5))
    with pymupdf.open(stream=normal, filetype="pdf") as doc:
        assert layout_elements(doc, [1])[1]


@pytest.mark.slow
def test_a_lying_jpeg_header_stays_inside_the_parser_memory_limit(tmp_path):
    """A 64 px JPEG declaring 65500 x 65500 pixels: mupdf filled 21 GB before the worker had a limit."""
    from docqa_desktop.index.parse_task import PARSER_ADDRESS_SPACE

    rng = random.Random(0)
    while True:  # the huge_image variant with the lying header
        data, detail = mutations.huge_image(rng, None)
        if detail.startswith("jpeg header"):
            break
    path = tmp_path / "liar.pdf"
    path.write_bytes(data)
    code = ("import multiprocessing, resource\n"
            "from docqa_desktop.index.parse_task import parse_pages\n"
            "from docqa_desktop.settings import IndexSettings\n"
            "if __name__ == '__main__':\n"
            "    resource.setrlimit(resource.RLIMIT_AS, (12 << 30, 12 << 30))  # a safety net for this machine\n"
            "    with multiprocessing.get_context('spawn').Pool(1) as pool:  # limited like the indexer's workers\n"
            f"        r = pool.apply(parse_pages, ({str(path)!r}, 1, 1, IndexSettings(dense=False)))\n"
            "    print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.error or 'indexed', len(r.pages))\n")
    script = tmp_path / "parse_liar.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    peak_kb, outcome = out.stdout.split(" ", 1)  # the largest child: the pool's worker
    assert int(peak_kb) * 1024 < PARSER_ADDRESS_SPACE
    assert outcome.startswith(("indexed 1", "too large to index")), outcome
