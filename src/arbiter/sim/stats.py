"""Streaming statistics of many runs: integer counts that merge in any order.

A :class:`Tally` holds counts only (outcomes, rounds, statuses, damage sums), so memory
stays flat in the number of runs and merging batches in any order gives the same numbers.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .hooks import STANDING, STATUSES

DRAW = "draw"
"""Outcome of a run in which no side was left able to act."""
UNFINISHED = "unfinished"
"""Outcome of a run that reached the round limit with two or more sides still fighting."""

Z95 = 1.959963984540054
"""The 97.5th percentile of the standard normal distribution."""


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default).

    >>> lo, hi = wilson(50, 100)
    >>> round(lo, 4), round(hi, 4)
    (0.4038, 0.5962)
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denom = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    """Counts over runs: what :func:`merge` adds up and :meth:`summary` reports."""

    runs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    rounds: Counter[int] = field(default_factory=Counter)
    status: dict[str, Counter[str]] = field(default_factory=dict)
    dealt: Counter[str] = field(default_factory=Counter)
    taken: Counter[str] = field(default_factory=Counter)
    refused: int = 0
    first_refusal: tuple[int, str] | None = None
    turns: int = 0
    """Turns ended (``next`` played), over every run: the fight's length in the unit the
    engine's work is counted in (``bench/growth.py``: the cost of a turn, apart from the
    number of turns a fight lasts)."""

    def refuse(self, run: int, message: str) -> None:
        self.refused += 1
        if self.first_refusal is None or run < self.first_refusal[0]:
            self.first_refusal = (run, message)

    def merge(self, other: Tally) -> Tally:
        """Add ``other``'s counts to these (in place) and return self."""
        self.runs += other.runs
        self.outcomes.update(other.outcomes)
        self.rounds.update(other.rounds)
        for who, counts in other.status.items():
            self.status.setdefault(who, Counter()).update(counts)
        self.dealt.update(other.dealt)
        self.taken.update(other.taken)
        self.refused += other.refused
        self.turns += other.turns
        mine, theirs = self.first_refusal, other.first_refusal
        if theirs is not None and (mine is None or theirs[0] < mine[0]):
            self.first_refusal = theirs
        return self

    def summary(self, sides: dict[str, str]) -> dict[str, Any]:
        """The report as plain JSON values; ``sides`` maps each creature to its side."""
        n = self.runs
        side_names = sorted(set(sides.values()))
        win = {s: self.outcomes[s] / n if n else 0.0 for s in side_names}
        ci = {s: list(wilson(self.outcomes[s], n)) for s in side_names}
        creatures: dict[str, Any] = {}
        for who, side in sides.items():
            counts = self.status.get(who, Counter())
            creatures[who] = {
                "side": side,
                **{s: counts[s] / n if n else 0.0 for s in STATUSES if s != STANDING},
                "out": (n - counts[STANDING]) / n if n else 0.0,
                "damage_dealt": self.dealt[who] / n if n else 0.0,
                "damage_taken": self.taken[who] / n if n else 0.0,
            }
        by_side = {s: {"damage_dealt": sum(self.dealt[c] for c, cs in sides.items()
                                           if cs == s) / n if n else 0.0,
                       "damage_taken": sum(self.taken[c] for c, cs in sides.items()
                                           if cs == s) / n if n else 0.0}
                   for s in side_names}
        out: dict[str, Any] = {
            "runs": n,
            "win_probability": win,
            "ci95": ci,
            "draw": self.outcomes[DRAW] / n if n else 0.0,
            "unfinished": self.outcomes[UNFINISHED] / n if n else 0.0,
            "outcomes": {k: self.outcomes[k] for k in sorted(self.outcomes)},
            "rounds": rounds_summary(self.rounds),
            "creatures": creatures,
            "sides": by_side,
            "refused_commands": self.refused,
        }
        if self.first_refusal is not None:
            out["first_refusal"] = {"run": self.first_refusal[0],
                                    "message": self.first_refusal[1]}
        return out


def quantile(histogram: Counter[int], q: float) -> int:
    """The smallest value with at least ``q`` of the weight at or below it."""
    total = sum(histogram.values())
    if total == 0:
        return 0
    need = q * total
    seen = 0
    for value in sorted(histogram):
        seen += histogram[value]
        if seen >= need:
            return value
    return max(histogram)


def rounds_summary(histogram: Counter[int]) -> dict[str, Any]:
    total = sum(histogram.values())
    if total == 0:
        return {"mean": 0.0, "min": 0, "max": 0, "median": 0, "p5": 0, "p95": 0,
                "distribution": {}}
    return {
        "mean": sum(r * c for r, c in histogram.items()) / total,
        "min": min(histogram),
        "max": max(histogram),
        "median": quantile(histogram, 0.5),
        "p5": quantile(histogram, 0.05),
        "p95": quantile(histogram, 0.95),
        "distribution": {str(r): histogram[r] / total for r in sorted(histogram)},
    }
