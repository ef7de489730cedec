"""How the cost of a simulated encounter grows with its size: each ruleset's four-against-four
(``scenarios/encounters/<ruleset>-4v4.yaml``) grown to N against N for N in 2, 4, 8, 16, 32,
the milliseconds of CPU per encounter at each size, and the exponent k of a fit of
time = c * N^k (least squares on the logarithms). Issue 36's goal: k at most 1.1.

The cost of an encounter is the number of turns it lasts times the cost of a turn, and the
two grow apart: ``turns`` is the turns played per encounter (its exponent ``turns_exponent``;
a fight of more creatures also lasts more rounds, by the rules and the dice, whatever the
engine) and ``us_per_turn`` the CPU time of one turn with the commands in it (its exponent
``turn_exponent``: what the engine's own work adds as the fight grows; 0 is flat).

    python bench/growth.py [--json] [--seconds S] [--sizes 2,4,8,16,32] [--compiled]

An N-a-side fight takes each side's creatures of the four-against-four in turn, as many times
as needed (``nia``, ``nia2``...; the first N when N is smaller), a copy placed six squares
further down the grid than the one before where creatures have a ``position``. Only the
set-up is kept (the simulator plays the fight). ``--compiled`` measures the same in a
process that imports the compiled build (``build/fast``, made by ``make fast``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from arbiter.scenario import run_scenario
from arbiter.sim import Job, Simulator, load_encounter, prepare
from arbiter.sim.encounter import parse_encounter, setup_part

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sim import ENCOUNTERS, FAST, per_second  # (bench/sim.py)

ROOT = Path(__file__).resolve().parents[1]
SIZES = (2, 4, 8, 16, 32)
ROW = 6
"""Squares between one copy of a side and the next, down the grid."""


def plain(value: Any) -> Any:
    """A YAML value of the encounter file as plain dicts and lists (to write again)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def grown(path: Path, size: int) -> Job:
    """The encounter of ``path`` with ``size`` creatures a side, ready to simulate."""
    encounter = load_encounter(path)
    data = plain(encounter.data)
    setup = setup_part(encounter.data)
    played = run_scenario(setup, str(path))
    assert played.encounter is not None, played.failures
    sides: dict[str, list[str]] = {}
    for entity in played.encounter.state.entities.values():
        if entity.kind == "creature" and entity.side:
            sides.setdefault(str(entity.side), []).append(entity.id)
    actors: dict[str, Any] = {}
    for members in sides.values():
        for i in range(size):
            original = members[i % len(members)]
            copy_no = i // len(members)
            spec = dict(data["actors"][original])
            if copy_no and isinstance(spec.get("position"), list):
                x, y = spec["position"]
                spec["position"] = [x, y + ROW * copy_no]
            if copy_no:
                spec.setdefault("name", original)
                spec["name"] = f"{spec['name']} {copy_no + 1}"
            actors[original if not copy_no else f"{original}{copy_no + 1}"] = spec
    others = {k: v for k, v in data["actors"].items()
              if not any(k in members for members in sides.values())}
    body = {k: v for k, v in data.items() if k not in ("actors", "steps")}
    body["actors"] = {**others, **actors}
    body["steps"] = plain(setup.get("steps", []))
    text = yaml.safe_dump(body, sort_keys=False)
    return prepare(parse_encounter(text, f"{path.name} at {size}v{size}"), seed=1)


def exponent(sizes: list[int], ms: list[float]) -> float:
    """The k of ms = c * size^k that fits best (least squares on the logarithms)."""
    xs = [math.log(n) for n in sizes]
    ys = [math.log(t) for t in ms]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs)


TURN_RUNS = 480
"""Creatures' runs over which the turns of an encounter are counted (480 runs of 1v1, 15 of
32v32): the count is the dice's, the same for the same runs on every build."""


def turns_per_encounter(job: Job, size: int) -> float:
    """The mean number of turns played in an encounter of ``job`` (runs 0, 1, ...)."""
    runs = max(TURN_RUNS // size, 10)
    tally = Simulator(job).play_batch(0, runs)
    return tally.turns / tally.runs


def measure(sizes: list[int], seconds: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path in sorted(ENCOUNTERS.glob("*-4v4.yaml")):
        ruleset = path.name.removesuffix("-4v4.yaml")
        ms: list[float] = []
        turns: list[float] = []
        for size in sizes:
            job = grown(path, size)
            rate, _ = per_second(job, seconds)
            ms.append(1000 / rate)
            turns.append(turns_per_encounter(job, size))
        us = [1000 * t / n for t, n in zip(ms, turns, strict=True)]

        def by_size(values: list[float], digits: int) -> dict[str, float]:
            return {str(n): round(v, digits) for n, v in zip(sizes, values, strict=True)}

        out[ruleset] = {"ms_per_encounter": by_size(ms, 2),
                        "exponent": round(exponent(sizes, ms), 3),
                        "turns": by_size(turns, 1),
                        "turns_exponent": round(exponent(sizes, turns), 3),
                        "us_per_turn": by_size(us, 1),
                        "turn_exponent": round(exponent(sizes, us), 3)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="CPU time to measure each size of each ruleset")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)),
                        help="creatures a side, comma-separated")
    parser.add_argument("--compiled", action="store_true",
                        help="measure the compiled build too (build/fast, make fast)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    report: dict[str, Any] = {"load": [round(x, 2) for x in os.getloadavg()],
                              "pure": measure(sizes, args.seconds)}
    if args.compiled and os.environ.get("ARBITER_GROWTH_INNER") != "1":
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(FAST), str(ROOT)]),
               "ARBITER_GROWTH_INNER": "1"}
        done = subprocess.run([sys.executable, __file__, "--json", "--seconds",
                               str(args.seconds), "--sizes", args.sizes], env=env,
                              capture_output=True, text=True, check=False)
        report["compiled"] = (json.loads(done.stdout)["pure"] if done.returncode == 0
                              else f"not measured: {done.stderr.strip()[-300:]}")
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"load average {report['load']}")
    for build in ("pure", "compiled"):
        rows = report.get(build)
        if not isinstance(rows, dict):
            if rows is not None:
                print(f"{build}: {rows}")
            continue
        for ruleset, row in rows.items():
            cells = ", ".join(f"{n}v{n} {t} ms" for n, t in row["ms_per_encounter"].items())
            print(f"{build} {ruleset}: {cells}; grows as N^{row['exponent']}")
            turns = ", ".join(f"{n}v{n} {t}" for n, t in row["turns"].items())
            print(f"    turns an encounter: {turns}; grow as N^{row['turns_exponent']}")
            cost = ", ".join(f"{n}v{n} {t} µs" for n, t in row["us_per_turn"].items())
            print(f"    a turn: {cost}; grows as N^{row['turn_exponent']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
