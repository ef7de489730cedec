"""Content files carry a schema version, and old ones are brought up to date."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml

from arbiter.core import content
from arbiter.core.content import CONTENT_SCHEMA, read_content
from arbiter.core.errors import SchemaError

RULESETS = Path(content.__file__).resolve().parents[1] / "rulesets"
SHIPPED = sorted(RULESETS.glob("*/*.toml")) + sorted(RULESETS.glob("*/*.yaml"))


@pytest.mark.parametrize("path", SHIPPED, ids=[f"{p.parent.name}/{p.name}" for p in SHIPPED])
def test_every_shipped_content_file_is_at_the_current_schema(path: Path) -> None:
    raw = (tomllib.loads(path.read_text(encoding="utf-8")) if path.suffix == ".toml"
           else yaml.safe_load(path.read_text(encoding="utf-8")))
    assert raw["schema"] == CONTENT_SCHEMA
    assert "schema" not in read_content(path)


def test_the_shipped_content_files_are_found() -> None:
    """The check above is not vacuous: four rulesets' rulings, templates and catalogues."""
    assert len(SHIPPED) >= 20


@pytest.mark.parametrize(("text", "name", "message"), [
    ('[wolf]\nhealth = 3\n', "a.toml", "no schema version"),
    ('schema = "1"\n', "a.toml", "no schema version"),
    ("schema: 9\nwolf: {}\n", "a.yaml", "schema version 9 is newer than this Arbiter"),
    ("- a\n- b\n", "a.yaml", "a mapping at the top"),
    ("schema = \n", "a.toml", "cannot read this content file"),
])
def test_bad_content_files_are_refused_naming_the_file(tmp_path: Path, text: str, name: str,
                                                      message: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SchemaError) as err:
        read_content(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_an_old_file_goes_through_its_upcasters(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(content, "CONTENT_SCHEMA", 3)
    monkeypatch.setitem(content._UPCASTERS, ("weapons.toml", 1),
                        lambda d: {k: {"range": v["reach"]} for k, v in d.items()})
    monkeypatch.setitem(content._UPCASTERS, ("*", 2),
                        lambda d: {**d, "upcast": True})
    path = tmp_path / "weapons.toml"
    path.write_text('schema = 1\n[spear]\nreach = 2\n', encoding="utf-8")
    assert read_content(path) == {"spear": {"range": 2}, "upcast": True}
    other = tmp_path / "armor.toml"
    other.write_text("schema = 1\n", encoding="utf-8")
    with pytest.raises(SchemaError, match=r"no upcaster for armor\.toml from schema version 1"):
        read_content(other)
