"""Seeded runs of every shipped encounter give the same log, entry for entry.

A refactor of the rules (issue 19's one shape, issue 22's speed work) must not change what
happens: each shipped encounter of ``scenarios/encounters/`` is played through the
event-sourced path (``Simulator.logged``: decide, evolve, RecordingDice, the log) for three
seeds, and every log entry (its command, events and dice, as stored) is compared by digest
with ``tests/golden/logs.json``. A difference names the encounter, the run, the first entry
that differs and its command.

When a change is meant to change the logs (a new encounter, a new event, a rule fixed),
regenerate the file with ``make golden`` (tests/sim/golden.py), which prints what changed, and
say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from arbiter.sim import Simulator, load_encounter, prepare

ROOT = Path(__file__).resolve().parents[2]
ENCOUNTERS = sorted((ROOT / "scenarios" / "encounters").glob("*.yaml"))
GOLDEN = ROOT / "tests" / "golden" / "logs.json"
RUNS = 3


def entry_digests(path: Path) -> list[list[str]]:
    """Per run, each log entry's digest (16 hex digits of SHA-256 of its JSON)."""
    sim = Simulator(prepare(load_encounter(path), seed=20261201))
    out = []
    for index in range(RUNS):
        log = sim.logged(index).log
        out.append([hashlib.sha256(json.dumps(entry.to_json(), sort_keys=True,
                                              separators=(",", ":")).encode()).hexdigest()[:16]
                    for entry in log])
    return out


def commands_of(path: Path, index: int) -> list[str]:
    sim = Simulator(prepare(load_encounter(path), seed=20261201))
    return [str(entry.command) for entry in sim.logged(index).log]


def test_the_golden_file_lists_every_shipped_encounter() -> None:
    if os.environ.get("ARBITER_GOLDEN") == "write":
        GOLDEN.write_text(json.dumps({p.name: entry_digests(p) for p in ENCOUNTERS},
                                     indent=1, sort_keys=True) + "\n", encoding="utf-8")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert sorted(golden) == [p.name for p in ENCOUNTERS], (
        "a shipped encounter was added or removed: regenerate tests/golden/logs.json "
        "(make golden)")


@pytest.mark.parametrize("path", ENCOUNTERS, ids=[p.stem for p in ENCOUNTERS])
def test_seeded_runs_give_the_same_log(path: Path) -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))[path.name]
    now = entry_digests(path)
    for index, (was, is_) in enumerate(zip(golden, now, strict=True)):
        if was == is_:
            continue
        first = next((i for i, (a, b) in enumerate(zip(was, is_, strict=False)) if a != b),
                     min(len(was), len(is_)))
        commands = commands_of(path, index)
        shown = commands[first] if first < len(commands) else "(the log ended)"
        pytest.fail(f"{path.name}, run {index}: the log differs from entry {first + 1} on "
                    f"({len(was)} entries before, {len(is_)} now); that entry's command: "
                    f"{shown}")


def test_make_golden_prints_what_changed() -> None:
    """``make golden`` (tests/sim/golden.py): an added and a removed encounter, and a run
    whose third entry differs, each on one line; nothing for a run that is the same."""
    from .golden import diff

    old = {"a.yaml": [["1", "2", "3"], ["1"]], "gone.yaml": [["9"]]}
    new = {"a.yaml": [["1", "2", "4", "5"], ["1"]], "new.yaml": [["7"], ["8"]]}
    assert diff(old, new, lambda name, run, entry: f"{name}/{run}/{entry}") == [
        "+ new.yaml: new (2 runs)",
        "- gone.yaml: gone",
        "~ a.yaml, run 0: differs from entry 3 on (3 entries before, 4 now): a.yaml/0/2",
    ]
    assert diff(new, new) == []
