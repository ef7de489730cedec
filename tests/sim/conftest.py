"""Encounter files for the simulator's tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO_4V4 = ROOT / "scenarios" / "encounters" / "demo-4v4.yaml"

DUEL = """\
# One attack decides: the duellist acts first (initiative +100) and the dummy never acts;
# the round limit of 1 leaves a miss unfinished. So P(duellist wins) = P(hit).
ruleset: demo
seed: 11
actors:
  duellist: {side: red, health: 10, attack: 3, defense: 10, damage: "5",
             stats: {initiative: 100}}
  dummy: {side: blue, health: 1, defense: 18}
sim:
  max_rounds: 1
  policies: {blue: passive}
"""


@pytest.fixture
def duel(tmp_path: Path) -> Path:
    path = tmp_path / "duel.yaml"
    path.write_text(DUEL, encoding="utf-8")
    return path


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """Write an encounter file into the test's folder and give its path."""

    def write_file(text: str, name: str = "enc.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write_file
