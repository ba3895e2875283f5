"""Model manager: catalog, pull (against a local fake hub), import, verify, remove, roles, hardware, CLI."""
from __future__ import annotations

import json
import os
import shutil
import socket
import threading
from pathlib import Path

import pytest

from docqa_desktop.cli import main
from docqa_desktop.llm import ModelError
from docqa_desktop.llm import download
from docqa_desktop.llm.catalog import ROLES, Catalog, CatalogEntry, RemoteFile, Variant, load_catalog
from docqa_desktop.llm.catalog_choice import recommend
from docqa_desktop.llm.hardware import Gpu, Hardware, detect
from docqa_desktop.llm.manager import ModelManager
from docqa_desktop.llm.runtime import ModelRuntimes
from docqa_desktop.settings import LlmSettings
from hf_server import COMMIT, FakeHub

REPO = "acme/Tiny-VL-GGUF"
MODEL_FILE, PROJECTOR_FILE = "tiny-vl-Q4_K_M.gguf", "mmproj-tiny-vl-f16.gguf"


@pytest.fixture
def hub(tiny_vlm_files):
    with FakeHub() as fake:
        fake.add(REPO, MODEL_FILE, tiny_vlm_files[0].read_bytes())
        fake.add(REPO, PROJECTOR_FILE, tiny_vlm_files[1].read_bytes())
        yield fake


@pytest.fixture
def manager(tmp_path, hub):
    entry = CatalogEntry(name="tiny-vl", role="vision", title="Tiny VL", licence="MIT", default_variant="Q4_K_M",
                         variants={"Q4_K_M": Variant("Q4_K_M", MODEL_FILE, 0.3, 0.1)}, repo=REPO,
                         projector=RemoteFile(PROJECTOR_FILE))
    catalog = Catalog((entry,) + load_catalog().entries)
    return ModelManager(tmp_path / "data" / "models.json", catalog, hub_cache=tmp_path / "hf", endpoint=hub.endpoint)


# -- catalog -------------------------------------------------------------------------------------------

def test_catalog_entries_are_complete():
    catalog = load_catalog()
    names = [e.name for e in catalog.entries]
    assert len(names) == len(set(names))
    assert {e.role for e in catalog.entries} == set(ROLES)
    for entry in catalog.entries:
        assert entry.default_variant in entry.variants, entry.name
        assert entry.builtin or entry.repo, entry.name
        if entry.role == "vision":
            assert entry.projector is not None and entry.projector.file.startswith("mmproj"), entry.name
        for variant in entry.variants.values():
            assert variant.sha256 == "" or len(variant.sha256) == 64
    assert {"qwen2.5-vl-7b-instruct", "qwen2.5-vl-3b-instruct", "colqwen2.5-v0.2"} <= set(names)


def test_builtin_model_matches_its_catalog_checksum(tmp_path):
    [result] = ModelManager(tmp_path / "models.json").verify("smollm2-135m-instruct")
    assert result.ok and "checksum matches" in result.detail


# -- pull ----------------------------------------------------------------------------------------------

def test_pull_downloads_verifies_and_registers(manager, hub, tmp_path):
    seen = []
    model = manager.pull("tiny-vl", progress=lambda done, total: seen.append((done, total)))
    assert model.source == "pull" and model.variant == "Q4_K_M"
    for path in model.paths:
        assert (tmp_path / "hf") in Path(path).parents  # the standard cache layout
        assert f"snapshots/{COMMIT}/" in path
    assert seen and seen[-1][0] == seen[-1][1]
    assert manager.resolve("vision").name == "tiny-vl"
    assert manager.resolve("text").name == "tiny-vl"  # a vision model serves text tasks too
    # a second pull is served from the cache: no GET at all
    gets = sum(r.method == "GET" for r in hub.requests)
    manager.pull("tiny-vl")
    assert sum(r.method == "GET" for r in hub.requests) == gets


def test_interrupted_pull_resumes_with_a_range_request(manager, hub, tiny_vlm_files, tmp_path):
    size = tiny_vlm_files[0].stat().st_size
    hub.cut_after(REPO, MODEL_FILE, size // 3)
    with pytest.raises(ModelError, match="interrupted after .* pull again to resume"):
        manager.pull("tiny-vl")
    partials = list((tmp_path / "hf").rglob("*.incomplete"))
    assert len(partials) == 1 and partials[0].stat().st_size == size // 3
    manager.pull("tiny-vl")
    resumed = [r for r in hub.requests if r.method == "GET" and MODEL_FILE in r.path][-1]
    assert resumed.range == f"bytes={size // 3}-"
    path = manager.registry.get("tiny-vl").model_path
    assert download.sha256_of(path) == download.sha256_of(tiny_vlm_files[0])
    assert not list((tmp_path / "hf").rglob("*.incomplete"))


def test_corrupt_download_is_rejected_and_not_kept(manager, hub, tmp_path):
    hub.corrupt(REPO, MODEL_FILE)
    with pytest.raises(download.ChecksumMismatch, match="corrupt"):
        manager.pull("tiny-vl")
    assert not [p for p in (tmp_path / "hf").rglob("*") if p.is_file() and p.stat().st_size > 200_000]
    assert manager.registry.get("tiny-vl") is None


def test_catalog_checksum_is_enforced(tmp_path, hub):
    entry = CatalogEntry(name="tiny-text", role="text", title="t", licence="MIT", default_variant="Q",
                         variants={"Q": Variant("Q", MODEL_FILE, sha256="0" * 64)}, repo=REPO)
    manager = ModelManager(tmp_path / "models.json", Catalog((entry,)), tmp_path / "hf", hub.endpoint)
    with pytest.raises(download.ChecksumMismatch):
        manager.pull("tiny-text")


def test_cancelled_pull_keeps_the_partial_file_for_later(manager, hub, tmp_path):
    cancel = threading.Event()

    def stop_after_first_block(done, total):
        cancel.set()

    big = bytes(range(256)) * 12_000  # 3 MB: several blocks
    hub.add(REPO, MODEL_FILE, big)
    with pytest.raises(download.DownloadCancelled):
        manager.pull("tiny-vl", progress=stop_after_first_block, cancel=cancel)
    assert list((tmp_path / "hf").rglob("*.incomplete"))


def test_pull_without_network_fails_at_once_and_suggests_import(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    manager = ModelManager(tmp_path / "models.json", hub_cache=tmp_path / "hf", endpoint=closed)
    with pytest.raises(download.Offline, match="docqa models import"):
        manager.pull("qwen2.5-vl-3b-instruct")


def test_a_pull_lifts_the_products_own_offline_switch_for_its_duration_only(manager):
    from huggingface_hub import constants

    assert constants.HF_HUB_OFFLINE  # docqa_desktop.offline: no hub requests unless a pull asks
    manager.pull("tiny-vl")
    assert manager.resolve("vision", "tiny-vl") is not None
    assert constants.HF_HUB_OFFLINE


def test_the_users_own_offline_switch_is_respected_and_explained(manager, monkeypatch):
    from docqa_desktop import offline

    monkeypatch.setattr(offline, "_USER_HUB_OFFLINE", True)  # HF_HUB_OFFLINE=1 in the user's environment
    with pytest.raises(download.Offline, match="HF_HUB_OFFLINE"):
        manager.pull("tiny-vl")


def test_a_process_started_by_docqa_tells_its_inherited_switch_from_the_users_own():
    """Workers, a `docqa` started by the app, a test run's worker processes inherit HF_HUB_OFFLINE=1 from the process
    that imported the package: that is the package's default, which an asked-for pull lifts, not the user's switch."""
    import subprocess
    import sys

    probe = ("import os, json, docqa_desktop.offline as o; "
             "print(json.dumps([o.downloads_forbidden(), os.environ['DOCQA_OFFLINE_DEFAULTS']]))")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_", "DOCQA_OFFLINE"))}

    def run(env):
        out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
        return json.loads(out.stdout)

    forbidden, ours = run(clean)
    assert not forbidden and {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"} <= set(ours.split(","))
    inherited = {**clean, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "DOCQA_OFFLINE_DEFAULTS": ours}
    assert run(inherited)[0] is False  # a child of a docqa process: still the package's default
    assert run({**clean, "HF_HUB_OFFLINE": "1"}) == [True, ours.replace("HF_HUB_OFFLINE,", "")]  # the user's own


def test_unknown_model_and_builtin_pull_are_explained(manager):
    with pytest.raises(ModelError, match="no model called"):
        manager.pull("gpt-17")
    with pytest.raises(ModelError, match="built in"):
        manager.pull("smollm2-135m-instruct")


# -- import, verify, remove ----------------------------------------------------------------------------

def test_import_verify_and_remove_a_gguf_on_disk(tmp_path, tiny_vlm_files):
    model, projector = (shutil.copy(p, tmp_path / p.name) for p in tiny_vlm_files)
    manager = ModelManager(tmp_path / "models.json")
    installed = manager.import_file(model, projector, name="my-vl")
    assert installed.role == "vision"
    assert manager.resolve("vision").name == "my-vl"
    assert all(r.ok for r in manager.verify("my-vl"))
    with open(installed.model_path, "r+b") as handle:  # the copy changes behind our back
        handle.seek(-100, 2)
        handle.write(b"\x00" * 100)
    result = manager.verify("my-vl")[0]
    assert not result.ok and "changed" in result.detail
    assert manager.remove("my-vl") == [installed.model_path, installed.projector_path]  # the app's copies
    assert manager.registry.get("my-vl") is None and not Path(installed.model_path).parent.exists()
    assert tmp_path.joinpath(tiny_vlm_files[0].name).exists()  # the user's own file is never deleted


def test_import_refuses_projector_alone_and_mismatched_pairs(tmp_path, tiny_vlm_files):
    from tiny_gguf import write_vlm

    manager = ModelManager(tmp_path / "models.json")
    with pytest.raises(ModelError, match="vision projector"):
        manager.import_file(tiny_vlm_files[1])
    _, wrong = write_vlm(tmp_path / "other", projector_width=96)
    with pytest.raises(ModelError, match="does not match"):
        manager.import_file(tiny_vlm_files[0], wrong)
    assert manager.registry.all() == {}


def test_removing_a_pulled_model_deletes_its_cache_files(manager):
    model = manager.pull("tiny-vl")
    deleted = manager.remove("tiny-vl")
    assert deleted and not any(os.path.exists(p) for p in model.paths)


def test_damaged_registry_is_reported(tmp_path):
    (tmp_path / "models.json").write_text("{not json")
    with pytest.raises(ModelError, match="damaged"):
        ModelManager(tmp_path / "models.json").statuses()


# -- roles and hardware --------------------------------------------------------------------------------

@pytest.mark.model
def test_without_downloads_the_builtin_model_answers_and_vision_is_absent(tmp_path):
    runtimes = ModelRuntimes(LlmSettings(threads=1), ModelManager(tmp_path / "models.json"))
    assert runtimes.text().info.name == "smollm2-135m-instruct"
    assert runtimes.vision() is None
    runtimes.close()


@pytest.mark.model
def test_one_local_model_is_loaded_at_a_time(tmp_path, tiny_vlm_files):
    manager = ModelManager(tmp_path / "models.json")
    runtimes = ModelRuntimes(LlmSettings(threads=1, text_model="smollm2-135m-instruct"), manager)
    text = runtimes.text()
    assert text is runtimes.text()  # shared, not reloaded
    manager.import_file(*tiny_vlm_files, name="tiny")
    vision = runtimes.vision()
    assert vision.info.vision and vision is not text
    assert text._llm is None  # the text model was freed when the vision model loaded
    runtimes.close()


def test_hardware_detection_and_recommendations():
    here = detect()
    assert here.cpu_cores >= 1 and here.ram_gb > 0
    assert here.default_threads() == max(1, here.cpu_cores - 1)
    gpu = Gpu("RTX", 24, 20, "nvidia")
    catalog = load_catalog()
    assert recommend(catalog, Hardware(8, 32, (gpu,), True)).name == "qwen3.5-9b-vision"  # Apache-2.0, 9 B
    assert recommend(catalog, Hardware(8, 32, (gpu,), False)).name == "qwen2.5-7b-instruct"  # CPU-only build
    assert recommend(catalog, Hardware(2, 2, (), False)).name == "smollm2-135m-instruct"


def test_models_list_cli_shows_builtin_ready_and_the_catalog(tmp_path, capsys):
    assert main(["models", "list", "--home", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "smollm2-135m-instruct" in out and "built in" in out
    assert "qwen2.5-vl-7b-instruct" in out and "not installed" in out
    assert "no vision model installed" in out
    assert main(["models", "list", "--json", "--home", str(tmp_path)]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["roles"] == {"text": "smollm2-135m-instruct", "vision": None}
    assert listing["hardware"]["cpu_cores"] >= 1
    runs_on = listing["hardware"]["runs_on"]
    assert set(runs_on) == {"llama.cpp", "page embedder", "layout and OCR", "chunk embeddings"}
    assert runs_on["layout and OCR"].startswith("CPU")  # no CUDA provider in the CPU onnxruntime of this machine
    assert "Runs on: llama.cpp: " in out and "chunk embeddings: CPU" in out


def test_the_page_embedder_device_is_read_from_the_torch_build(monkeypatch):
    from docqa_desktop.vectors import torch_runtime

    for installed, gpu, expected in [("2.13.0+cpu", True, "CPU (torch 2.13.0+cpu is a CPU build"),
                                     ("2.13.0+cu130", False, "CPU (no NVIDIA GPU)"),
                                     ("2.13.0+cu130", True, "CUDA (torch 2.13.0+cu130)"),
                                     ("2.13.0", True, "CUDA (torch 2.13.0)")]:  # the package index's CUDA build
        monkeypatch.setattr(torch_runtime, "version", lambda _name, v=installed: v)
        assert torch_runtime.torch_device(gpu).startswith(expected)


def test_models_cli_import_and_errors(tmp_path, capsys, tiny_vlm_files):
    home = str(tmp_path / "home")
    assert main(["models", "import", str(tiny_vlm_files[0]), "--projector", str(tiny_vlm_files[1]),
                 "--name", "tiny", "--home", home]) == 0
    assert main(["models", "verify", "--home", home]) == 0
    assert main(["models", "import", str(tmp_path / "nope.gguf"), "--home", home]) == 2
    assert "nope.gguf does not exist" in capsys.readouterr().err


def test_pulling_a_page_embedder_fetches_the_adapter_and_its_base_model(tmp_path, hub):
    adapter, base = "acme/colqwen-adapter", "acme/colqwen-base"
    hub.add(adapter, "adapter_config.json", json.dumps({"base_model_name_or_path": base}).encode())
    hub.add(adapter, "adapter_model.safetensors", b"\0" * 2048)
    hub.add(base, "config.json", b"{}")
    hub.add(base, "model.safetensors", b"\1" * 4096)
    hub.add(base, "notes.bin", b"filtered out by the catalog's patterns")
    entry = CatalogEntry(name="colqwen-test", role="page-embedder", title="ColQwen test", licence="MIT",
                         default_variant="bf16", variants={"bf16": Variant("bf16")}, repo=adapter, base_repo=base,
                         snapshot=True, patterns=("*.json", "*.safetensors"))
    manager = ModelManager(tmp_path / "models.json", Catalog((entry,)), hub_cache=tmp_path / "hf",
                           endpoint=hub.endpoint)
    model = manager.pull("colqwen-test")
    folder, base_folder = Path(model.model_path), Path(model.base_path)
    assert sorted(p.name for p in folder.iterdir()) == ["adapter_config.json", "adapter_model.safetensors"]
    assert sorted(p.name for p in base_folder.iterdir()) == ["config.json", "model.safetensors"]
    assert (base_folder / "model.safetensors").read_bytes() == b"\1" * 4096
    resolved = manager.page_embedder()
    assert (resolved.name, resolved.model_path, resolved.base_path) == ("colqwen-test", folder, base_folder)
    assert manager.verify("colqwen-test")[0].ok
    deleted = manager.remove("colqwen-test")
    assert not folder.exists() and not base_folder.exists() and len(deleted) >= 6
    assert manager.page_embedder() is None


# -- which model serves ----------------------------------------------------------------------------------

def test_a_model_with_more_weights_serves_text_once_installed_unless_the_user_chooses(tmp_path, tiny_vlm_files,
                                                                                        capsys):
    from tiny_gguf import write_header_only
    home = str(tmp_path / "home")

    def serving() -> str:
        assert main(["models", "list", "--home", home]) == 0
        return next(line for line in capsys.readouterr().out.splitlines() if line.startswith("text tasks"))

    def chooser() -> str:
        """Who makes the default cascade's choices, as `docqa methods` says under it."""
        assert main(["methods", "--home", home]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert next(line.split()[0] for line in lines if "(default)" in line) == "cascade"
        return next(line.strip() for line in lines if line.strip().startswith("the cascade"))

    assert serving() == "text tasks   → smollm2-135m-instruct (the most capable installed)"
    assert chooser().startswith("the cascade quotes only")  # the built-in model alone: quoted answers
    assert main(["models", "import", str(tiny_vlm_files[0]), "--name", "tiny-text", "--home", home]) == 0
    assert serving().startswith("text tasks   → smollm2-135m-instruct ")  # fewer weights than the built-in
    # SmolLM2 has 134.5 M weights; this one is labelled 1.5B, above the floor of the methods that need a model
    big = write_header_only(tmp_path / "big.gguf", 200_000_000, size_label="1.5B")
    assert main(["models", "import", str(big), "--name", "big-text", "--link", "--home", home]) == 0  # no 200 MB copy
    assert serving() == "text tasks   → big-text (the most capable installed)"
    assert chooser() == "the cascade's passages are read by big-text"  # a capable model reads
    assert main(["models", "default", "text", "tiny-text", "--home", home]) == 0  # the user's choice wins
    assert serving().startswith("text tasks   → tiny-text (your choice")
    assert 'text_model = "tiny-text"' in (tmp_path / "home" / "config" / "settings.toml").read_text(encoding="utf-8")
    assert main(["models", "default", "vision", "big-text", "--home", home]) != 0  # not a vision model: refused
    assert "not a vision model" in capsys.readouterr().err and serving().startswith("text tasks   → tiny-text ")
    assert main(["models", "default", "text", "auto", "--home", home]) == 0
    assert serving().startswith("text tasks   → big-text ")
    assert main(["models", "remove", "big-text", "--home", home]) == 0
    assert serving().startswith("text tasks   → smollm2-135m-instruct ")
    assert chooser().startswith("the cascade quotes only")
