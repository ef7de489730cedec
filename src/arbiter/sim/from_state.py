"""Simulating an encounter of the table: a :class:`Job` built from a stored encounter's
events (its current state: placements, health, conditions, the turn order if started)
instead of from an encounter file, and played under a deadline (the server's simulate
routes, docs/server.md).

The events are evolved onto a fresh state by the simulator, in its own process, so the
stored state is never touched. Run ``i`` rolls dice seeded from (seed, i) alone, and the
runs are played in order, so the same seed gives the same answer.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable
from typing import Any

from ..core import EncounterState, Event, load_ruleset
from .encounter import DEFAULT_MAX_ROUNDS, Job, SimError
from .engine import simulator_for
from .hooks import STANDING, STATUSES, outcomes_for
from .policy import default_policy_name
from .stats import DRAW, UNFINISHED, Tally, wilson

MAX_RUNS = 10_000
"""The most runs one request may ask for."""


def job_from_events(ruleset_name: str, events: Iterable[Event], seed: int,
                    max_rounds: int = DEFAULT_MAX_ROUNDS) -> Job:
    """The job of playing, from the state ``events`` leave, to the fight's end with each
    side's default tactics. SimError when there is nothing to simulate (a creature without
    a side, fewer than two sides able to act)."""
    ruleset = load_ruleset(ruleset_name)
    setup = tuple(events)
    state = EncounterState(ruleset="")
    for event in setup:
        ruleset.evolve(state, event)
    outcomes = outcomes_for(ruleset.name)
    sides: list[tuple[str, str]] = []
    for entity in state.entities.values():
        if entity.kind != "creature":
            continue
        if not entity.side:
            raise SimError(f"{entity.id} has no side: give every creature a side to simulate")
        sides.append((entity.id, str(entity.side)))
    fighting = {side for who, side in sides if not outcomes.defeated(state, state.entities[who])}
    if len(fighting) < 2:
        raise SimError("nothing to simulate: a fight needs two sides with creatures able to "
                       f"act (sides: {', '.join(sorted(fighting)) or 'none'})")
    policy = default_policy_name(ruleset.name)
    policies = tuple((side, policy) for side in sorted({s for _, s in sides}))
    payload = json.dumps([ruleset.name, [e.to_json() for e in setup], sides, policies,
                          max_rounds, seed], sort_keys=True, default=str)
    key = hashlib.blake2b(payload.encode(), digest_size=16).hexdigest()
    return Job(ruleset.name, setup, tuple(sides), policies, max_rounds, seed, key)


def odds(job: Job, runs: int, seconds: float, batch: int = 25) -> dict[str, Any]:
    """Play up to ``runs`` runs of ``job`` in this process, stopping at the first batch
    boundary after ``seconds`` (``cut_short`` then), and answer what a GM reads: each
    side's chance to win with its 95% Wilson interval, draws, expected rounds, each
    creature's chance to go down and to die."""
    if not 1 <= runs <= MAX_RUNS:
        raise SimError(f"runs must be from 1 to {MAX_RUNS}, not {runs}")
    began = time.perf_counter()
    tally = play_runs(job, 0, runs, seconds, batch)
    return summary(job, tally, runs, time.perf_counter() - began)


def play_runs(job: Job, start: int, stop: int, seconds: float, batch: int = 25) -> Tally:
    """Runs ``start`` to ``stop - 1`` of ``job``, in batches, until ``seconds`` have passed:
    one worker's share of a request (the server splits a request over its workers)."""
    began = time.perf_counter()
    sim = simulator_for(job)
    tally = Tally()
    while start < stop and (tally.runs == 0 or time.perf_counter() - began <= seconds):
        end = min(stop, start + batch)
        tally.merge(sim.play_batch(start, end))
        start = end
    return tally


def summary(job: Job, tally: Tally, asked: int, seconds: float) -> dict[str, Any]:
    n = tally.runs
    side_of = job.side_of
    sides = sorted(set(side_of.values()))
    rounds = sum(r * c for r, c in tally.rounds.items()) / n if n else 0.0
    creatures = []
    for who, side in side_of.items():
        counts = tally.status.get(who)
        total = n or 1
        standing = counts[STANDING] if counts else n
        dead = counts[STATUSES[-1]] if counts else 0
        creatures.append({"id": who, "side": side, "down": (n - standing) / total,
                          "dead": dead / total})
    return {
        "runs": n,
        "asked": asked,
        "seed": job.seed,
        "cut_short": n < asked,
        "seconds": round(seconds, 3),
        "sides": [{"side": s, "win": tally.outcomes[s] / n if n else 0.0,
                   "ci95": list(wilson(tally.outcomes[s], n))} for s in sides],
        "draw": tally.outcomes[DRAW] / n if n else 0.0,
        "unfinished": tally.outcomes[UNFINISHED] / n if n else 0.0,
        "rounds": rounds,
        "creatures": creatures,
    }
