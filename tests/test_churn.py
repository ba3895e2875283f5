"""`docqa watch` under churn (benchmarks/watch_churn.py at small scale): files created, rewritten in place,
renamed, moved between subfolders, replaced atomically, deleted, created and deleted again, renamed in chains and
over each other, whole subfolders renamed and deleted, in bursts while the watcher runs; once it settles the index equals the folder."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow


def test_after_a_churn_burst_the_index_equals_the_folder(tmp_path):
    out = tmp_path / "churn.json"
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "watch_churn.py"), "--files", "40",
                          "--bursts", "3", "--json", "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout)
    details = json.loads(out.read_text())
    assert set(details["operations_by_kind"]) == {"create", "rewrite", "rename", "move", "atomic_replace", "delete",
                                                  "create_then_delete", "rename_chain", "rename_over",
                                                  "rename_folder", "delete_folder"}
    assert result["seconds_to_settle"] is not None, "the watcher never settled"
    assert (result["missing"], result["stale"], result["wrong_content"]) == (0, 0, 0), details["examples"]
    assert details["unreferenced_documents"] == 0
