"""Roll-under checks: roll the dice, add Hindrance, succeed when the total does not exceed
the stat (ruling AZ-1; ties succeed by AZ-2; "2d20" is a sum by AZ-3).

>>> from arbiter.dice import ForcedDice
>>> check = roll_check("1d20", "DEX", 12, {"melee interference": 2}, ForcedDice([10]), {})
>>> check["text"], check["success"]
('1d20 (10) + 2 Hindrance = 12 vs DEX 12: success', True)
>>> str(success_odds("1d12", 12, 2, {}))
'5/6'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ...dice import DiceSource, distribution, roll

_MULTI = re.compile(r"^(\d+)d(\d+)$")


def offense_expression(expr: str, rulings: Mapping[str, str]) -> str:
    """The dice actually rolled for a listed expression such as ``2d20`` (AZ-3)."""
    reading = rulings.get("AZ-3", "sum")
    key = (expr, reading)
    out = _OFFENSE.get(key)
    if out is None:
        out = expr
        match = _MULTI.match(expr.strip().lower())
        if match and int(match.group(1)) > 1:
            if reading == "keep-higher":
                out = f"{expr}kh1"
            elif reading == "keep-lower":
                out = f"{expr}kl1"
        if len(_OFFENSE) >= 1024:
            _OFFENSE.clear()
        _OFFENSE[key] = out
    return out


_OFFENSE: dict[tuple[str, str], str] = {}
"""Offense expressions by listed expression and AZ-3 reading (a pure function of both)."""
_CANONICAL: dict[str, str] = {}
"""The canonical spelling (``str`` of the parsed tree) of each expression rolled."""


def succeeds(total: int, stat: int, rulings: Mapping[str, str]) -> bool:
    """Roll-under (AZ-1): a total equal to the stat succeeds unless AZ-2 says otherwise."""
    if rulings.get("AZ-2", "success") == "failure":
        return total < stat
    return total <= stat


def roll_check(expr: str, on: str, stat: int, hindrance: Mapping[str, int],
               dice: DiceSource, rulings: Mapping[str, str],
               voluntary_fail: bool = False) -> dict[str, Any]:
    """Roll ``expr`` on a stat with labelled Hindrance; the raw dice, H and stat kept apart."""
    text = offense_expression(expr, rulings)
    rolled = roll(text, dice)
    canonical = _CANONICAL.get(text)
    if canonical is None:  # the same text always parses to the same tree
        canonical = str(rolled.expression)
        if len(_CANONICAL) >= 1024:
            _CANONICAL.clear()
        _CANONICAL[text] = canonical
    total_h = sum(hindrance.values())
    total = rolled.total + total_h
    success = succeeds(total, stat, rulings) and not voluntary_fail
    verdict = "voluntarily failed" if voluntary_fail else ("success" if success else "failure")
    h_text = f" + {total_h} Hindrance" if total_h else ""
    return {
        "dice": canonical,
        "rolled": [d.value for d in rolled.dice()],
        "natural": rolled.total,
        "hindrance": total_h,
        "hindrances": {k: v for k, v in hindrance.items() if v},
        "total": total,
        "on": on,
        "stat": stat,
        "success": success,
        "text": f"{rolled.tree.render()}{h_text} = {total} vs {on} {stat}: {verdict}",
    }


def success_odds(expr: str, stat: int, hindrance: int, rulings: Mapping[str, str]) -> Fraction:
    """The exact chance that ``expr`` + Hindrance succeeds on ``stat``."""
    dist = distribution(offense_expression(expr, rulings))
    limit = stat - hindrance
    if rulings.get("AZ-2", "success") == "failure":
        limit -= 1
    return dist.at_most(limit)
