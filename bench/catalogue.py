"""Catalogue benchmark: what checking a command against its declaration costs.

    python bench/catalogue.py [--json] [--runs N]

Plays ``--runs`` simulated encounters of every ``scenarios/encounters/*-4v4.yaml``,
recording every command the simulator decides, then times ``CommandSpec.validate`` over
that very stream (median of 7 passes, per command) and sets it against the time a whole
``decide`` of the same commands takes in the simulator (``bench/sim.py``'s figure), as a
share.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from arbiter.core import Command, Ruleset
from arbiter.sim import Simulator, load_encounter, prepare

ROOT = Path(__file__).resolve().parents[1]


def commands_of(path: Path, runs: int) -> tuple[Ruleset, list[Command], float]:
    """The commands ``runs`` simulated encounters decide, and the CPU seconds they took."""
    job = prepare(load_encounter(path))
    sim = Simulator(job)
    ruleset = sim.ruleset
    seen: list[Command] = []
    decide = ruleset.decide

    def recording(state: Any, command: Command, dice: Any) -> Any:
        seen.append(command)
        return decide(state, command, dice)

    ruleset.decide = recording  # type: ignore[method-assign]
    began = time.process_time()
    sim.play_batch(0, runs)
    elapsed = time.process_time() - began
    del ruleset.decide
    return ruleset, seen, elapsed


def per_command(ruleset: Ruleset, commands: list[Command]) -> float:
    """Median seconds per ``validate`` over the stream."""
    catalogue = ruleset.catalogue
    specs = [(catalogue[c.name], c) for c in commands]
    times = []
    for _ in range(7):
        began = time.perf_counter()
        for spec, command in specs:
            spec.validate(command)
        times.append((time.perf_counter() - began) / len(specs))
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args(argv)
    out = {}
    for path in sorted((ROOT / "scenarios" / "encounters").glob("*-4v4.yaml")):
        ruleset, commands, elapsed = commands_of(path, args.runs)
        cost = per_command(ruleset, commands)
        out[ruleset.name] = {"commands": len(commands), "validate_us": round(cost * 1e6, 3),
                             "share_of_sim": round(cost * len(commands) / elapsed, 4)}
    if args.json:
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    print(f"{'ruleset':<10} {'commands':>9} {'validate µs':>12} {'share of sim time':>18}")
    for name, row in out.items():
        print(f"{name:<10} {row['commands']:>9} {row['validate_us']:>12.3f} "
              f"{row['share_of_sim'] * 100:>17.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
