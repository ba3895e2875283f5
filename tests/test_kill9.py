"""kill -9 at random moments of `docqa index` and `docqa watch` (benchmarks/kill9_index.py at small scale, on the
real CLI, real PDFs and real database files): the database always opens, the next run resumes, and the result
equals a clean index — same documents, pages, text, chunks with embeddings, full-text index, files; no orphans."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow


def test_kill_9_in_each_phase_then_resume_equals_a_clean_index(tmp_path):
    out = tmp_path / "kill9.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "kill9_index.py"), "--kills", "4", "--small", "--json",
         "--mode", "index/parsing,index/finishing,index/embedding,watch/burst", "--out", str(out)],
        capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout)
    issues = [i for c in json.loads(out.read_text())["cycles"] for i in c.get("issues", [])]
    assert result["kills"] == 4, result
    assert {k: result[k] for k in ("db_open_failures", "lost_documents", "mismatches", "orphans",
                                   "orphaned_workers")} == dict.fromkeys(
        ("db_open_failures", "lost_documents", "mismatches", "orphans", "orphaned_workers"), 0), issues
