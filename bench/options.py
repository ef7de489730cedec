"""The cost of the legal options of a turn (``GET /options``), per installed demo encounter.

Each demo is played by its own legal options (a seeded choice of a legal targeted command,
else ``next``) for a number of turns; at each turn the options of the acting creature are
built afresh (the server builds them once per state version and asker) several times, and
the median is kept. Prints the median and the 90th percentile over the turns, with the
checks one build asks (``make bench`` runs it).

    .venv/bin/python bench/options.py [--turns 40] [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from arbiter.core import Command, Encounter, RulesError, load_ruleset
from arbiter.core.options import legal_options
from arbiter.dice import SeededDice
from arbiter.web.demo import demo_rulesets, table_of


def measure(name: str, turns: int, repeat: int, seed: int = 1) -> dict[str, Any]:
    ruleset = load_ruleset(name)
    encounter = Encounter.create(ruleset)
    dice = SeededDice(seed)
    for actor, spec in table_of(name)[1]:
        encounter.execute({"do": "add", "id": actor, **spec}, dice)
    encounter.execute({"do": "start"}, dice)
    pick = random.Random(seed)
    times: list[float] = []
    checks: list[int] = []
    for _ in range(turns):
        state = encounter.state
        current = state.current
        if current is None or ruleset.outcome(state)[0]:
            break
        actor = current
        runs = []
        for _ in range(repeat):
            start = time.perf_counter()
            options = legal_options(ruleset, state, actor)
            runs.append(time.perf_counter() - start)
        times.append(statistics.median(runs))
        checks.append(sum(len(o.targets) or 1 for o in options if o.checked))
        legal = [Command(o.command, actor, {o.target_arg: t.id}) for o in options
                 if o.target_arg and not o.needs and o.who == "player"
                 for t in o.targets if t.legal and t.relation == "enemy"]
        try:
            if legal and pick.random() < 0.8:
                encounter.execute(pick.choice(legal), dice)
            encounter.execute({"do": "next"}, dice)
        except RulesError:
            encounter.execute({"do": "next"}, dice)
    ordered = sorted(times)
    return {"ruleset": name, "turns": len(times),
            "median_ms": round(statistics.median(times) * 1000, 3),
            "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))] * 1000, 3),
            "checks_median": statistics.median(checks)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    given = parser.parse_args()
    rows = [measure(name, given.turns, given.repeat) for name in demo_rulesets()]
    if given.json:
        print(json.dumps(rows, indent=2))
        return
    for row in rows:
        print(f"{row['ruleset']:8} legal options of a turn: median {row['median_ms']:.2f} ms, "
              f"p90 {row['p90_ms']:.2f} ms over {row['turns']} turns "
              f"({row['checks_median']:.0f} checks a build)")


if __name__ == "__main__":
    main()
