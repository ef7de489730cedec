"""What seeded runs of every shipped encounter give, as JSON: the digest of each log entry
of three runs through the event-sourced path (as ``tests/golden/logs.json`` keeps them)
and the tally of 40 runs through the simulator's fast path. ``test_compiled.py`` runs it
under the compiled build (``PYTHONPATH=build/fast``) and compares with the pure build.

    python tests/sim/compiled_report.py
"""

from __future__ import annotations

import copy
import hashlib
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import arbiter.build
import arbiter.sim.engine
from arbiter.core import Encounter, RulesError, load_ruleset
from arbiter.core.copying import clone, native, type_hints
from arbiter.dice import ForcedDice, RollResult, SeededDice, roll
from arbiter.native_clones import COPIERS
from arbiter.sim import Simulator, load_encounter, prepare
from arbiter.sim.stats import Tally

ROOT = Path(__file__).resolve().parents[2]
ENCOUNTERS = sorted((ROOT / "scenarios" / "encounters").glob("*.yaml"))
SEED = 20261201
LOGGED_RUNS = 3
FAST_RUNS = 40


def digest(entry: Any) -> str:
    text = json.dumps(entry.to_json(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def report_of(path: Path) -> dict[str, Any]:
    sim = Simulator(prepare(load_encounter(path), seed=SEED))
    logs = [[digest(entry) for entry in sim.logged(index).log] for index in range(LOGGED_RUNS)]
    tally = sim.play_batch(0, FAST_RUNS)
    return {"logs": logs, "tally": {
        "runs": tally.runs, "outcomes": dict(sorted(tally.outcomes.items())),
        "rounds": {str(k): v for k, v in sorted(tally.rounds.items())},
        "status": {who: dict(sorted(c.items())) for who, c in sorted(tally.status.items())},
        "dealt": dict(sorted(tally.dealt.items())), "taken": dict(sorted(tally.taken.items())),
        "refused": tally.refused, "first_refusal": tally.first_refusal}}


def copies() -> dict[str, bool]:
    """Whether a played end state of each shipped encounter, a demo creature (a class
    written in Python on a native base, in the compiled build) and rolls' results (native
    there too) copy and pickle whole."""
    out = {}
    for path in ENCOUNTERS:
        state = Simulator(prepare(load_encounter(path), seed=SEED)).play(0, Tally())
        out[path.name] = (clone(state) == state == copy.deepcopy(state)
                          == pickle.loads(pickle.dumps(state)))
    demo = Encounter.create(load_ruleset("demo"))
    demo.execute({"do": "add", "id": "orc", "health": 12, "attack": 3}, ForcedDice([]))
    orc = demo.state.entity("orc")
    out["demo creature"] = (clone(orc) == orc == copy.deepcopy(orc)
                            == pickle.loads(pickle.dumps(orc)))
    for text in ("2d6+3", "4d6kh3", "1d20!+2", "floor(3d6/2)"):  # a flat sum, a tree
        rolled = roll(text, SeededDice(7))
        out[f"roll {text}"] = all(
            (str(again), again.total, again.values()) == (str(rolled), rolled.total,
                                                          rolled.values())
            for again in (copy.deepcopy(rolled), pickle.loads(pickle.dumps(rolled))))
    return out


def overrides() -> dict[str, str]:
    """What the GM's overrides of typed fields give: the value set, or the refusal."""
    out = {}
    for path, value in [("orc.health", "abc"), ("orc.health", 7), ("orc.side", "gang"),
                        ("orc.side", None), ("orc.tags", ["brute"]), ("orc.tags", [1]),
                        ("orc.stats.STR", "3"), ("orc.stats.STR", 5), ("orc.down", True)]:
        demo = Encounter.create(load_ruleset("demo"))
        demo.execute({"do": "add", "id": "orc", "health": 12, "stats": {"STR": 2}},
                      ForcedDice([]))
        try:
            demo.execute({"do": "override", "path": path, "value": value, "reason": "test"},
                         ForcedDice([]))
            entity = demo.state.entity("orc")
            got = getattr(entity, path.split(".")[1])
            out[f"{path}={value!r}"] = repr(sorted(got) if isinstance(got, set) else got)
        except RulesError as err:
            out[f"{path}={value!r}"] = str(err)
    return out


def report() -> dict[str, Any]:
    return {"engine": arbiter.sim.engine.__file__, "build": arbiter.build.build(),
            "encounters": {path.name: report_of(path) for path in ENCOUNTERS},
            "native": sorted(kind.__qualname__ for kind in (*COPIERS, RollResult)
                             if native(kind)),
            "hints": {f"{kind.__module__}.{kind.__qualname__}":
                      {name: repr(hint) for name, hint in type_hints(kind).items()}
                      for kind in COPIERS},
            "copies": copies(), "overrides": overrides()}


if __name__ == "__main__":
    json.dump(report(), sys.stdout, sort_keys=True)
    sys.exit(0)
