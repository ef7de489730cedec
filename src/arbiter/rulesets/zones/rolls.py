"""Offense and defense rolls, read as ruling AZ-1 says.

By default (``roll-under``) roll the dice, add Hindrance, and succeed when the total does not
exceed the stat (ties succeed by AZ-2; "2d20" is a sum by AZ-3). AZ-1's two other choices are
the readings the inventory names and rejects:

- ``roll-over``: the dice + the stat - Hindrance must reach :data:`ROLL_OVER_TARGET` (21), so
  a single d20 succeeds exactly as often as under roll-under; a d12 less often and 2d20 more
  often (the opposite of the text's d12/2d20/X progression);
- ``die-steps``: roll-under, but Hindrance is not added: each point of it steps every die one
  size up :data:`DIE_LADDER` (past d20, ten faces a step; negative Hindrance steps down).

>>> from arbiter.dice import ForcedDice
>>> check = roll_check("1d20", "DEX", 12, {"melee interference": 2}, ForcedDice([10]), {})
>>> check["text"], check["success"]
('1d20 (10) + 2 Hindrance = 12 vs DEX 12: success', True)
>>> str(success_odds("1d12", 12, 2, {}))
'5/6'
>>> roll_check("1d20", "DEX", 12, {"x": 2}, ForcedDice([10]), {"AZ-1": "roll-over"})["text"]
'1d20 (10) + DEX 12 - 2 Hindrance = 20 vs 21: failure'
>>> roll_check("1d20", "DEX", 12, {"x": 2}, ForcedDice([10]), {"AZ-1": "die-steps"})["text"]
'1d20 stepped 2 for Hindrance: 1d40 (10) = 10 vs DEX 12: success'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from functools import partial
from typing import Any

from ...core import Deferred
from ...dice import DiceSource, distribution, roll
from ...dice.limits import MAX_FACES
from ...dice.roller import RollResult
from .model import RULINGS

_MULTI = re.compile(r"^(\d+)d(\d+)$")
_DIE = re.compile(r"(\d*)d(\d+)")

ROLL_OVER_TARGET = 21
"""AZ-1 ``roll-over``: dice + stat - Hindrance must reach this; 21 makes a d20 on a stat
succeed as often as under roll-under."""
HINDRANCE_LIMIT = 20
"""The bound of the GM's situational Hindrance on a roll, either way (a negative one eases
it): 20 already settles a d20 roll-under on any stat of 20 or less, and the rules' own
Hindrance is at most 6 (severe flanking doubled, Z-FLK-5; one-handed at long range 4,
Z-HND-1; melee interference 4 under AZ-8)."""
DIE_LADDER = (2, 4, 6, 8, 10, 12, 20)
"""AZ-1 ``die-steps``: die sizes a step of Hindrance moves along (then d30, d40...)."""


def offense_expression(expr: str, rulings: dict[str, str]) -> str:
    """The dice actually rolled for a listed expression such as ``2d20`` (AZ-3)."""
    if expr in _AS_LISTED:  # not several dice of one size: AZ-3 has nothing to say
        return expr
    reading = RULINGS.value(rulings, "AZ-3")
    key = (expr, reading)
    out = _OFFENSE.get(key)
    if out is None:
        out = expr
        match = _MULTI.match(expr.strip().lower())
        if match and int(match.group(1)) > 1:
            if RULINGS.chosen(rulings, "AZ-3", "keep-higher"):
                out = f"{expr}kh1"
            elif RULINGS.chosen(rulings, "AZ-3", "keep-lower"):
                out = f"{expr}kl1"
        elif len(_AS_LISTED) < 1024:
            _AS_LISTED.add(expr)
        if len(_OFFENSE) >= 1024:
            _OFFENSE.clear()
        _OFFENSE[key] = out
    return out


_OFFENSE: dict[tuple[str, str], str] = {}
"""Offense expressions by listed expression and AZ-3 reading (a pure function of both)."""
_AS_LISTED: set[str] = set()
"""Expressions AZ-3 leaves as listed whatever its reading (a single die, ``1d20``: most
rolls), so that the ruling is not read for them."""
_CANONICAL: dict[str, str] = {}
"""The canonical spelling (``str`` of the parsed tree) of each expression rolled."""


def step_die(faces: int, steps: int) -> int:
    """A die stepped ``steps`` sizes along :data:`DIE_LADDER` (AZ-1 ``die-steps``): up past
    d20 ten faces a step, down no lower than d2, never past the dice limit.

    >>> step_die(20, 1), step_die(12, 2), step_die(20, -3), step_die(3, 1), step_die(4, -5)
    (30, 30, 8, 4, 2)
    """
    for _ in range(abs(steps)):
        if steps > 0:
            faces = next((f for f in DIE_LADDER if f > faces), faces + 10)
            if faces >= MAX_FACES:
                return MAX_FACES
        else:
            faces = next((f for f in reversed(DIE_LADDER) if f < faces), faces)
    return faces


def stepped(expr: str, steps: int) -> str:
    """Every die of ``expr`` stepped ``steps`` sizes (AZ-1 ``die-steps``)."""
    if not steps:
        return expr
    return _DIE.sub(lambda m: f"{m.group(1)}d{step_die(int(m.group(2)), steps)}", expr)


def succeeds(total: int, stat: int, rulings: dict[str, str]) -> bool:
    """Roll-under (AZ-1): a total equal to the stat succeeds unless AZ-2 says otherwise."""
    if RULINGS.chosen(rulings, "AZ-2", "failure"):
        return total < stat
    return total <= stat


def reaches(total: int, rulings: dict[str, str]) -> bool:
    """Roll-over (AZ-1): a total equal to the target succeeds unless AZ-2 says otherwise."""
    if RULINGS.chosen(rulings, "AZ-2", "failure"):
        return total > ROLL_OVER_TARGET
    return total >= ROLL_OVER_TARGET


def roll_check(expr: str, on: str, stat: int, hindrance: Mapping[str, int],
               dice: DiceSource, rulings: dict[str, str],
               voluntary_fail: bool = False) -> Deferred:
    """Roll ``expr`` on a stat with labelled Hindrance; the raw dice, H and stat kept apart."""
    listed = offense_expression(expr, rulings)
    total_h = sum(hindrance.values()) if hindrance else 0
    steps = RULINGS.chosen(rulings, "AZ-1", "die-steps")
    text = stepped(listed, total_h) if steps else listed
    rolled = roll(text, dice)
    canonical = _CANONICAL.get(text)
    if canonical is None:  # the same text always parses to the same tree
        canonical = str(rolled.expression)
        if len(_CANONICAL) >= 1024:
            _CANONICAL.clear()
        _CANONICAL[text] = canonical
    out: dict[str, Any] = {}
    if RULINGS.chosen(rulings, "AZ-1", "roll-over"):
        total = rolled.total + stat - total_h
        success = reaches(total, rulings)
        h_text = f" + {on} {stat}" + (f" - {total_h} Hindrance" if total_h else "")
        against = str(ROLL_OVER_TARGET)
        out["target_number"] = ROLL_OVER_TARGET
    elif steps:
        total = rolled.total
        success = succeeds(total, stat, rulings)
        h_text = ""
        against = f"{on} {stat}"
        if text != listed:
            out["stepped_from"] = listed
    else:
        total = rolled.total + total_h
        success = succeeds(total, stat, rulings)
        h_text = f" + {total_h} Hindrance" if total_h else ""
        against = f"{on} {stat}"
    success = success and not voluntary_fail
    verdict = "voluntarily failed" if voluntary_fail else ("success" if success else "failure")
    # most rolls have no Hindrance, or none that is 0: no comprehension to run for them
    shown = {} if not hindrance else dict(hindrance) if all(hindrance.values()) else {
        k: v for k, v in hindrance.items() if v}
    known = {
        "dice": canonical,
        "rolled": rolled.values(),  # (a plain sum's without making its result tree)
        "natural": rolled.total,
        "hindrance": total_h,
        "hindrances": shown,
        "total": total,
        "on": on,
        "stat": stat,
        "success": success,
        **out,
    }
    lead = f"{listed} stepped {total_h} for Hindrance: " if "stepped_from" in out else ""
    return Deferred(partial(_check_text, lead, rolled, h_text, total, against, verdict),
                    known=known)


def _check_text(lead: str, rolled: RollResult, h_text: str, total: int, against: str,
                verdict: str) -> dict[str, Any]:
    """A check's ``text``: written only when read (the dice breakdown is most of a check's
    cost, and a simulated fight reads none); so is the roll's result tree it shows, which a
    plain sum makes only when it is read (``RollResult.tree``), and the sentence after it."""
    return {"text": f"{lead}{rolled.tree.render()}{h_text} = {total} vs {against}: {verdict}"}


def success_odds(expr: str, stat: int, hindrance: int, rulings: dict[str, str]) -> Fraction:
    """The exact chance that ``expr`` with ``hindrance`` succeeds on ``stat`` (AZ-1, AZ-2)."""
    text = offense_expression(expr, rulings)
    tie_fails = RULINGS.chosen(rulings, "AZ-2", "failure")
    if RULINGS.chosen(rulings, "AZ-1", "roll-over"):
        need = ROLL_OVER_TARGET - stat + hindrance + int(tie_fails)  # the dice must reach it
        return 1 - distribution(text).at_most(need - 1)
    if RULINGS.chosen(rulings, "AZ-1", "die-steps"):
        text, hindrance = stepped(text, hindrance), 0
    return distribution(text).at_most(stat - hindrance - int(tie_fails))
