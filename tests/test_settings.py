from pathlib import Path

from docqa_desktop.settings import Locations, Settings


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
