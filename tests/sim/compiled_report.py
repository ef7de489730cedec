"""What seeded runs of every shipped encounter give, as JSON: the digest of each log entry
of three runs through the event-sourced path (as ``tests/golden/logs.json`` keeps them)
and the tally of 40 runs through the simulator's fast path. ``test_compiled.py`` runs it
under the compiled build (``PYTHONPATH=build/fast``) and compares with the pure build.

    python tests/sim/compiled_report.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import arbiter.build
import arbiter.sim.engine
from arbiter.sim import Simulator, load_encounter, prepare

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


def report() -> dict[str, Any]:
    return {"engine": arbiter.sim.engine.__file__, "build": arbiter.build.build(),
            "encounters": {path.name: report_of(path) for path in ENCOUNTERS}}


if __name__ == "__main__":
    json.dump(report(), sys.stdout, sort_keys=True)
    sys.exit(0)
