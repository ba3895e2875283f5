import dataclasses
import tomllib
from pathlib import Path

import pytest

from docqa_desktop.settings import (Fusion, LlmBackend, Locations, SearchMode, SearchSettings, Settings,
                                    SettingsError, VisualIndexing, save)


def test_home_option_puts_everything_under_one_folder(tmp_path):
    loc = Locations.resolve(tmp_path / "h")
    for path in (loc.database, loc.thumbnails, loc.settings_file, loc.log_dir):
        assert Path(path).is_relative_to(tmp_path / "h")


def test_docqa_home_environment_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCQA_HOME", str(tmp_path / "envhome"))
    assert Locations.resolve().database.is_relative_to(tmp_path / "envhome")


def test_platform_dirs_without_home(monkeypatch):
    monkeypatch.delenv("DOCQA_HOME", raising=False)
    loc = Locations.resolve()
    assert "docqa-desktop" in str(loc.data_dir)
    assert loc.data_dir != loc.cache_dir


def test_settings_file_then_environment_override(tmp_path, monkeypatch):
    home = tmp_path / "h"
    Locations.resolve(home).create()
    Locations.resolve(home).settings_file.write_text("[index]\nworkers = 3\nocr = false\n[search]\nk = 7\n")
    s = Settings.load(home)
    assert (s.index.workers, s.index.ocr, s.search.k) == (3, False, 7)
    monkeypatch.setenv("DOCQA_INDEX_WORKERS", "1")
    monkeypatch.setenv("DOCQA_INDEX_OCR", "yes")
    s = Settings.load(home)
    assert (s.index.workers, s.index.ocr) == (1, True)


def test_option_settings_are_enums_that_compare_and_read_as_strings(tmp_path, monkeypatch):
    for name in ("DOCQA_SEARCH_FUSION", "DOCQA_SEARCH_MODE", "DOCQA_INDEX_VISUAL", "DOCQA_LLM_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "h"
    Locations.resolve(home).create()
    Locations.resolve(home).settings_file.write_text('[search]\nfusion = "rrf"\nmode = "Hybrid"\n')
    monkeypatch.setenv("DOCQA_LLM_BACKEND", " remote ")
    s = Settings.load(home)
    assert s.search.fusion is Fusion.RRF and s.search.fusion == "rrf" and f"{s.search.fusion}" == "rrf"
    assert s.search.mode is SearchMode.HYBRID  # case and spaces ignored
    assert s.llm.backend is LlmBackend.REMOTE and s.index.visual is VisualIndexing.AUTO
    # a plain string (the Settings dialog, dataclasses.replace) becomes the enum; a wrong one fails at once
    assert dataclasses.replace(s.index, visual="off").visual is VisualIndexing.OFF
    with pytest.raises(ValueError, match="fusion: 'max' is not one of convex, rrf"):
        SearchSettings(fusion="max")


def test_a_bad_option_from_the_environment_names_the_variable_and_the_choices(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCQA_SEARCH_FUSION", "foo")
    with pytest.raises(SettingsError) as caught:
        Settings.load(tmp_path / "h")
    assert str(caught.value) == "DOCQA_SEARCH_FUSION: 'foo' is not one of convex, rrf"
    monkeypatch.delenv("DOCQA_SEARCH_FUSION")
    monkeypatch.setenv("DOCQA_LLM_BACKEND", "cloud")
    with pytest.raises(SettingsError, match="DOCQA_LLM_BACKEND: 'cloud' is not one of local, remote"):
        Settings.load(tmp_path / "h")


def test_a_bad_option_in_the_settings_file_names_the_key_and_the_choices(tmp_path, monkeypatch):
    monkeypatch.delenv("DOCQA_INDEX_VISUAL", raising=False)
    monkeypatch.delenv("DOCQA_SEARCH_MODE", raising=False)
    home = tmp_path / "h"
    Locations.resolve(home).create()
    source = Locations.resolve(home).settings_file
    source.write_text('[index]\nvisual = "sometimes"\n')
    with pytest.raises(SettingsError) as caught:
        Settings.load(home)
    assert str(caught.value) == f"index.visual in {source}: 'sometimes' is not one of auto, on, off"
    source.write_text("[search]\nmode = 3\n")
    with pytest.raises(SettingsError, match="search.mode in .*: 3 is not one of bm25, dense, fused, text, visual, "
                                            "hybrid, auto"):
        Settings.load(home)


def test_save_writes_options_as_plain_strings(tmp_path, monkeypatch):
    for name in ("DOCQA_SEARCH_FUSION", "DOCQA_SEARCH_MODE", "DOCQA_INDEX_VISUAL", "DOCQA_LLM_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "h"
    s = Settings.load(home)
    changed = dataclasses.replace(s, search=dataclasses.replace(s.search, fusion=Fusion.RRF, mode="visual"),
                                  index=dataclasses.replace(s.index, visual=VisualIndexing.OFF))
    path = save(changed)
    text = path.read_text()
    assert 'fusion = "rrf"' in text and 'mode = "visual"' in text and 'visual = "off"' in text
    assert "Fusion" not in text and "SearchMode" not in text
    assert tomllib.loads(text)["search"] == {"fusion": "rrf", "mode": "visual"}
    reloaded = Settings.load(home)
    assert (reloaded.search.fusion, reloaded.search.mode, reloaded.index.visual) == \
        (Fusion.RRF, SearchMode.VISUAL, VisualIndexing.OFF)
