"""The compiled build (``make fast``, ``tools/fast.py``) plays exactly as the pure one.

Every shipped encounter, seeded, through both builds: three runs through the event-sourced
path must give the log entries ``tests/golden/logs.json`` holds (so the pure build, the
compiled build and the code before issue 22's speed work agree entry for entry), and 40
runs through the simulator's fast path the same tally on both builds.

The compiled half needs a C compiler, the Python headers and mypyc; without them it is
skipped, and the skip says which is missing. The test first brings ``build/fast`` up to the
sources with ``tools/fast.py --if-stale``: the package's files copied as they are, and the
compiled modules built only when what they are made from changed (about four minutes on two
cores) and that build is not in the cache kept by the hash of those sources (a fresh clone
of sources built before copies it in seconds).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ..support import script
from . import compiled_report

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "build" / "fast"
GOLDEN = ROOT / "tests" / "golden" / "logs.json"


def _tools() -> ModuleType:
    return script("tools/fast.py")


@pytest.fixture(scope="module")
def compiled() -> dict[str, Any]:
    """The report of the compiled build (brought up to the sources first)."""
    if os.environ.get("ARBITER_SKIP_COMPILED"):
        pytest.skip("ARBITER_SKIP_COMPILED is set: the compiled build is not checked")
    fast = _tools()
    lack = fast.missing()
    if lack is not None:
        pytest.skip(f"the compiled build is not checked: {lack}")
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "fast.py"), "--if-stale",
                           "--out", str(OUT)], cwd=ROOT, capture_output=True, text=True,
                          timeout=1800, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    assert fast.fresh(OUT), done.stderr[-4000:]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(OUT), str(ROOT)])}
    run = subprocess.run([sys.executable, str(Path(compiled_report.__file__))], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=900, check=False)
    assert run.returncode == 0, run.stderr[-4000:]
    report: dict[str, Any] = json.loads(run.stdout)
    return report


@pytest.fixture(scope="module")
def pure() -> dict[str, Any]:
    return compiled_report.report()


def test_the_compiled_build_is_what_runs(compiled: dict[str, Any]) -> None:
    assert compiled["engine"].startswith(str(OUT)), compiled["engine"]
    assert not compiled["engine"].endswith(".py"), "the engine was not compiled"
    assert compiled["build"] == "compiled"  # what /api/health and arbiter serve say


def test_the_pure_build_is_the_source(pure: dict[str, Any]) -> None:
    assert pure["engine"] == str(ROOT / "src" / "arbiter" / "sim" / "engine.py")
    assert pure["build"] == "pure"


@pytest.mark.parametrize("name", [p.name for p in compiled_report.ENCOUNTERS])
def test_compiled_logs_are_the_golden_logs(compiled: dict[str, Any], name: str) -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))[name]
    for run, (got, want) in enumerate(zip(compiled["encounters"][name]["logs"], golden,
                                          strict=True)):
        first = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
                     None)
        assert got == want, (f"{name} run {run}: entry {first} differs "
                             f"({len(got)} entries, golden {len(want)})")


@pytest.mark.parametrize("name", [p.name for p in compiled_report.ENCOUNTERS])
def test_compiled_tallies_are_the_pure_tallies(compiled: dict[str, Any], pure: dict[str, Any],
                                               name: str) -> None:
    assert pure["encounters"][name]["logs"] == compiled["encounters"][name]["logs"]
    assert compiled["encounters"][name]["tally"] == pure["encounters"][name]["tally"]


def test_the_hot_state_is_native_in_the_compiled_build_only(compiled: dict[str, Any],
                                                             pure: dict[str, Any]) -> None:
    assert {"Condition", "EncounterState", "Entity", "RealmsCreature", "Creature",
            "BodyArea", "Wound", "ArmorPiece", "Weapon", "RollResult"} \
        <= set(compiled["native"])
    assert pure["native"] == []


def test_the_compiled_build_reads_the_annotations_the_source_writes(
        compiled: dict[str, Any], pure: dict[str, Any]) -> None:
    """mypyc erases a native class's annotations to bare classes: the ones kept by
    tools/native_clones.py stand in for them (copying and the GM's overrides read them)."""
    assert compiled["hints"] == pure["hints"]
    assert compiled["hints"]["arbiter.core.model.Entity"]["side"] == "str | None"


def test_states_and_creatures_copy_and_pickle_whole_in_both_builds(
        compiled: dict[str, Any], pure: dict[str, Any]) -> None:
    assert all(compiled["copies"].values()), compiled["copies"]
    assert all(pure["copies"].values()), pure["copies"]


def test_overrides_of_typed_fields_answer_alike_in_both_builds(
        compiled: dict[str, Any], pure: dict[str, Any]) -> None:
    assert compiled["overrides"] == pure["overrides"]
    assert pure["overrides"]["orc.health='abc'"] == \
        "cannot override 'orc.health': Expected `int`, got `str`"
    assert pure["overrides"]["orc.side='gang'"] == "'gang'"
