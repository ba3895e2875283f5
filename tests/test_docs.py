"""The README says how to extend the app, and names every part it lists (the idea of datasette's test_docs)."""
from __future__ import annotations

import re
from pathlib import Path

from docqa_desktop.index.stages import Stage
from docqa_desktop.service import Service

from conftest import make_settings

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_section(title: str) -> str:
    """The text under `### title`, up to the next heading."""
    found = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^#)", README.read_text(encoding="utf-8"), re.M | re.S)
    assert found, f"README has no section {title!r}"
    return found.group(1)


def test_every_index_stage_is_named_in_adding_an_index_stage(tmp_path):
    section = readme_section("Adding an index stage")
    with Service(make_settings(tmp_path / "home")) as service:
        stages = service.library.stages
    assert len({stage.name for stage in stages}) == len(stages) >= 4  # a name is a status row and a report key
    for stage in stages:
        assert isinstance(stage, Stage), f"{stage.name} lacks part of the shape of index.stages.Stage"
        assert f"**{stage.name}**" in section, f"README 'Adding an index stage' does not name the {stage.name} stage"
