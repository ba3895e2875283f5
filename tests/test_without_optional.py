"""The base app without the optional components: with torch, torchvision, colpali-engine, transformers, numba,
llvmlite, scikit-learn, scipy and matplotlib unimportable in every process (a sitecustomize on PYTHONPATH sets
sys.modules[name] = None before anything runs, in the CLI and in the index workers it spawns), the sample PDFs are
indexed, searched and the ferry question answered with its citation; status and methods name what is missing."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "resources" / "samples"
OPTIONAL = ("torch", "torchvision", "colpali_engine", "transformers", "numba", "llvmlite", "sklearn", "scipy",
            "matplotlib")

pytestmark = pytest.mark.slow  # several CLI processes and an OCR of the scanned sample


@pytest.fixture(scope="module")
def base_env(tmp_path_factory) -> dict:
    """The environment of a process that cannot import the optional components, with a home of its own."""
    base = tmp_path_factory.mktemp("without-optional")
    blocker = base / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\n"
        f"for _name in {OPTIONAL!r}:\n"
        "    sys.modules[_name] = None  # `import torch` now fails as it does where torch is not installed\n")
    return {**os.environ, "PYTHONPATH": str(blocker), "DOCQA_HOME": str(base / "home")}


def python(env: dict, *args: str, timeout: float = 600) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def docqa(base_env):
    """Run `docqa ARGS` in the base app's conditions: returns (exit code, stdout, stderr)."""
    return lambda *args: python(base_env, "-m", "docqa_desktop", *args)


def test_the_blocker_really_blocks(docqa):
    code, out, err = docqa("components", "list", "--json")
    assert code == 0, err
    assert {c["name"]: c["installed"] for c in json.loads(out)} == {"visual": False, "clustering": False,
                                                                    "charts": False}


def test_index_search_and_ask_without_the_optional_components(docqa):
    code, out, err = docqa("index", str(SAMPLES))
    assert code == 0, out + err
    code, out, err = docqa("search", "last ferry to Gull Island")
    assert code == 0 and "ferry-memo-scanned.pdf" in out, out + err
    code, out, err = docqa("ask", "When does the last ferry to Gull Island leave?", "--json")
    assert code == 0, out + err
    answer = json.loads(out)
    assert "18:40" in answer["answer"]
    assert any(c["doc"] == "ferry-memo-scanned.pdf" and c["page"] == 1 for c in answer["citations"]), answer


def test_status_and_methods_name_the_missing_components(docqa):
    code, out, err = docqa("status")
    assert code == 0, out + err
    assert "visual retrieval is not installed" in out
    assert "Visual retrieval is an optional component: docqa components install visual" in out
    code, out, err = docqa("methods")
    assert code == 0, out + err
    mmrag = out[out.index("mmrag — "):].split("\n\n")[0]
    assert "needs clustering" in mmrag
    assert "docqa components install clustering" in mmrag


def test_mmrag_is_refused_with_the_reason(docqa):
    code, out, err = docqa("ask", "When does the last ferry to Gull Island leave?", "--method", "mmrag")
    assert code == 2
    assert "MMRAG-DocQA needs the optional component clustering" in err
    assert "docqa components install clustering" in err


def test_the_report_says_why_it_has_no_charts(base_env, tmp_path):
    script = ("import sys; from pathlib import Path; from docqa_desktop.evaluation.charts import charts_missing, "
              "write_charts; print(write_charts(Path(sys.argv[1]), {'quoted': {}})); print(charts_missing()); "
              "print([n for n in sys.argv[2:] if sys.modules.get(n) is not None])")
    code, out, err = python(base_env, "-c", script, str(tmp_path), *OPTIONAL)
    assert code == 0, err
    assert out.splitlines() == ["[]", "Evaluation charts is an optional component: docqa components install charts",
                                "[]"]
    assert not list(tmp_path.iterdir())
