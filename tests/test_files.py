"""Atomic writes: a failed write leaves the previous file whole and no temporary file behind."""
from __future__ import annotations

import pytest

from docqa_desktop.files import write_atomically


def test_a_write_replaces_the_file_whole(tmp_path):
    target = tmp_path / "answer.html"
    write_atomically(target, "old")
    assert write_atomically(target, "new ✓") == target
    assert target.read_text(encoding="utf-8") == "new ✓"
    write_atomically(target, b"\x89PNG")
    assert target.read_bytes() == b"\x89PNG"
    assert [p.name for p in tmp_path.iterdir()] == ["answer.html"]


def test_a_failed_write_keeps_the_previous_file_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "settings.toml"
    write_atomically(target, "k = 10\n")
    with pytest.raises(TypeError):
        write_atomically(target, 12345)  # neither text nor bytes: fails while writing
    assert target.read_text(encoding="utf-8") == "k = 10\n"
    assert [p.name for p in tmp_path.iterdir()] == ["settings.toml"]


def test_a_written_file_has_the_permissions_a_plain_write_would_give(tmp_path):
    """An export is for sharing: not the private 0600 of the temporary file it is written through; a file it
    replaces keeps its own permissions."""
    import os

    mask = os.umask(0o022)
    try:
        new = write_atomically(tmp_path / "answer.md", "18:40")
        assert new.stat().st_mode & 0o777 == 0o644
        os.chmod(new, 0o600)  # the user made it private
        write_atomically(new, "18:45")
        assert new.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(mask)
