"""A stage that does not run says so once, plainly — "off (no page embedder installed)", "off (no GPU)", "not
needed by the current method" — in `docqa status`, `docqa index`'s report and a watch's reports (only when it
changes), instead of counting its pages as pending forever."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pymupdf
import pytest

from docqa_desktop.cli.library import print_report
from docqa_desktop.domain import IndexReport, Reported, StageResult
from docqa_desktop.visual import stage as page_images

QUICK = {"DOCQA_INDEX_LAYOUT": "false", "DOCQA_INDEX_DENSE": "false"}


def docqa(*args: str, home) -> str:
    run = subprocess.run([sys.executable, "-m", "docqa_desktop", *args, "--home", str(home)], capture_output=True,
                         text=True, env={**os.environ, **QUICK}, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.mark.slow  # an index run and two more CLI processes
def test_status_and_index_say_off_once(tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    doc = pymupdf.open()
    for n in range(3):
        doc.new_page().insert_text((72, 72), f"Page {n + 1} of a report on tidal energy in the North Sea.")
    doc.save(folder / "tides.pdf")
    home = tmp_path / "home"

    report = docqa("index", str(folder), "--no-progress", home=home)
    assert report.count("page images: off (no page embedder installed)") == 1
    assert "0 embedded" not in report and "skipped" not in report

    status = docqa("status", home=home)
    rows = {line.split()[0]: line for line in status.splitlines() if line.startswith("  ")}
    assert "off (no page embedder installed) — `docqa models pull colqwen2.5-v0.2`" in rows["page"]
    assert "pending" not in rows["page"] and "pending" not in rows["summaries"]
    # questions go to the cascade, which needs no page summaries
    assert "not needed by the current method (Answer (quoted, then the model reads))" in rows["summaries"]
    assert "switched off (index.layout)" in rows["layout"] and "pending" not in rows["layout"]

    stages = {s["stage"]: s for s in json.loads(docqa("status", "--json", home=home))["stages"]}
    assert stages["page images"]["state"] == "off" and stages["page images"]["pending"] == 3
    assert stages["summaries"]["state"] == "off" and stages["keywords"]["state"] == "done"


def _run(note: str, done: int = 0) -> IndexReport:
    reported = Reported(json_count="pages_embedded_visually", line="page images: {done} embedded")
    return IndexReport(added=1, pages=3, stages={"page images": StageResult(reported, done, note)})


def test_a_watch_says_why_a_stage_is_off_only_when_that_changes(capsys):
    said: dict[str, str] = {}  # what `docqa watch` keeps across its runs
    for note in (page_images.NO_EMBEDDER, page_images.NO_EMBEDDER, page_images.NO_GPU, page_images.NO_GPU):
        print_report(_run(note), said)
    out = capsys.readouterr().out
    assert out.count("page images: off (no page embedder installed)") == 1
    assert out.count("page images: off (no GPU)") == 1
    print_report(_run("", done=3), said)  # it runs again ...
    print_report(_run(page_images.NO_GPU), said)  # ... and stops again: said again
    out = capsys.readouterr().out
    assert "page images: 3 embedded" in out and "page images: off (no GPU)" in out
    print_report(_run(page_images.NO_GPU))  # `docqa index`: once per run, every run
    assert capsys.readouterr().out.count("off (no GPU)") == 1
