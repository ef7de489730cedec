"""The probes of the zones condition matrix (``condition_matrix.toml``), played by the one
table-driven test of every ruleset's matrix, ``tests/rulesets/test_conditions.py``: the
small world of :mod:`.helpers` (``WORLD``), the condition given to the row's holder as the
game master gives it (:func:`.helpers.give`), each probe a number or a permission."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from arbiter.core import Command, Encounter, RulesError
from arbiter.core.conditions import Matrix, MatrixRow
from arbiter.rulesets.zones import RULESET
from arbiter.rulesets.zones.model import Creature, group_defenders

from .helpers import ORDER, PARTNER, WORLD, ZONES, give, run, world

SHOOTER = RULESET
"""The zones ruleset as its own class (``plan_shot``: an attack's dice and Hindrance)."""

SHOT = {"target": "bob", "weapon": "rifle", "range": "short"}
GRENADE = {"target": "bob", "weapon": "grenade"}


def allowed(enc: Encounter, name: str, actor: str | None, **kwargs: Any) -> str:
    """"allowed", or "refused RULE" with the rule id of the refusal."""
    try:
        ZONES.check(enc.state, Command(name, actor, kwargs))
    except RulesError as err:
        rule = getattr(err, "rule", None)
        return f"refused {rule}" if rule else "refused"
    return "allowed"


def odds(enc: Encounter, name: str, actor: str, **kwargs: Any) -> dict[str, Any]:
    return ZONES.odds(enc.state, Command(name, actor, kwargs))


def events(enc: Encounter, command: dict[str, Any], dice: list[int]) -> str:
    try:
        return ", ".join(run(enc, command, dice)["events"])
    except RulesError:
        return "refused"


def creature(enc: Encounter, name: str) -> Creature:
    found = enc.state.entities[name]
    assert isinstance(found, Creature)
    return found


def kept_next_turn(enc: Encounter, holder: str) -> bool:
    run(enc, {"do": "start", "initiative": ORDER})
    for _ in WORLD:
        run(enc, {"do": "next"})
    assert enc.state.current == "nia" and enc.state.round == 2
    return creature(enc, holder).has("cover")


def leave_cover_cost(enc: Encounter, holder: str) -> str:
    verdict = allowed(enc, "leave_cover", holder)
    return ZONES.spec("leave_cover").cost if verdict == "allowed" else "refused"


def grapple_then_shoot(enc: Encounter, holder: str) -> str:
    run(enc, {"do": "grapple", "actor": "nia", "target": holder})
    return allowed(enc, "attack", "nia", target=holder, weapon="rifle")


def taken(result: dict[str, Any], who: str) -> int:
    return int(result.get("damage_taken", {}).get(who, result.get("taken", 0)))


PROBES: dict[str, Callable[[Encounter, str], Any]] = {
    "attack": lambda enc, h: allowed(enc, "attack", "nia", **SHOT),
    "thrown-attack": lambda enc, h: allowed(enc, "attack", "nia", target="bob",
                                            weapon="knife", range="short"),
    "targeted": lambda enc, h: allowed(enc, "attack", "nia", **{**SHOT, "target": h}),
    "blind-attack": lambda enc, h: allowed(enc, "attack", "nia", blind=True,
                                           engagement="gang", weapon="rifle"),
    "blind-attack-competent": lambda enc, h: SHOOTER.plan_shot(enc.state, Command(
        "attack", "nia", {"blind": True, "engagement": "gang", "weapon": "rifle"})).competent,
    "attack-grapple-partner": grapple_then_shoot,
    "aoe-own-engagement": lambda enc, h: allowed(enc, "attack", "nia", target="rex",
                                                 weapon="grenade"),
    "aoe-own-engagement-offense": lambda enc, h: odds(enc, "attack", "nia", target="rex",
                                                      weapon="grenade")["offense"],
    "aoe-own-engagement-inclusion": lambda enc, h: odds(
        enc, "attack", "nia", target="rex", weapon="grenade")["inclusion"]["kim"],
    "offense-hindrance": lambda enc, h: SHOOTER.plan_shot(
        enc.state, Command("attack", "nia", SHOT)).hindrance,
    "defense": lambda enc, h: odds(enc, "attack", "nia", **SHOT)["defense"],
    "taken": lambda enc, h: taken(run(enc, {"do": "attack", "actor": "nia", **SHOT},
                                      [1, 20, 10]), h),
    "taken-engaged": lambda enc, h: taken(run(enc, {"do": "attack", "actor": "rex",
                                                    "target": "nia", "weapon": "pistol"},
                                              [1, 20, 10]), h),
    "area-taken": lambda enc, h: taken(run(enc, {"do": "attack", "actor": "nia", **GRENADE},
                                           [1, 1, 1, 100]), h),
    "adhesive": lambda enc, h: (run(enc, {"do": "attack", "actor": "nia", "target": "bob",
                                          "weapon": "adhesive-grenade"}, [1, 1, 100])
                                and creature(enc, h).has("stuck")),
    "inclusion": lambda enc, h: odds(enc, "attack", "nia", **GRENADE)["inclusion"].get(
        h, "none"),
    "caution-inclusion": lambda enc, h: odds(enc, "attack", "nia", caution=True,
                                             **GRENADE)["inclusion"].get(h, "none"),
    "melee-offense": lambda enc, h: odds(enc, "melee", "nia", target="rex")["offense"],
    "melee-defense": lambda enc, h: odds(enc, "melee", "rex", target="nia")["defense"],
    "outnumbering": lambda enc, h: odds(enc, "melee", "rex",
                                        target="nia")["outnumbering"]["defenders"],
    "group-defenders": lambda enc, h: len(group_defenders(enc.state, creature(enc, "nia"))),
    "interference-roll": lambda enc, h: odds(enc, "roll", "nia", stat="SPD",
                                             melee_interference=True)["success"],
    "spd-roll": lambda enc, h: events(enc, {"do": "roll", "actor": "nia", "stat": "SPD"}, [1]),
    "move": lambda enc, h: events(enc, {"do": "move", "actor": "nia", "group": "elsewhere"},
                                  []),
    "acts": lambda enc, h: allowed(enc, "move", "nia", group="elsewhere"),
    "take-cover": lambda enc, h: allowed(enc, "cover", "nia", environment="moderate"),
    "leave-cover-cost": leave_cover_cost,
    "kept-next-turn": kept_next_turn,
    "touch-ally": lambda enc, h: allowed(enc, "touch", "nia", target="kim"),
    "in-cover": lambda enc, h: creature(enc, h).has("cover"),
    "partner-grappling": lambda enc, h: creature(enc, PARTNER[h]).has("grappling"),
    "seen": lambda enc, h: ZONES.detected(enc.state, "nia", h),
}


def plain(value: Any) -> Any:
    """A probe's value as the table writes it: fractions and booleans as text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Fraction):
        return str(value)
    return value


class ZonesMatrix:
    """The harness of the zones matrix (tests/rulesets/test_conditions.py's ``Harness``)."""

    def __init__(self, matrix: Matrix) -> None:
        self.matrix = matrix
        self.probes = frozenset(PROBES)

    def measure(self, row: MatrixRow, given: bool) -> Any:
        """The row's probe in the world, its holder given ``also`` and (when ``given``)
        the row's condition; a mapping's ``key`` when the row names one."""
        holder = row.holder or "nia"
        enc = world()
        for other in row.also:
            give(enc, other, holder)
        if given:
            give(enc, row.condition, holder, row.level or 1)
        value = PROBES[row.probe](enc, holder)
        if row.key is not None:
            value = value.get(row.key, 0)
        return plain(value)

    def gives(self, condition: str) -> bool:
        """Giving nia the condition as the game master does gives it."""
        enc = world()
        give(enc, condition, "nia")
        return creature(enc, "nia").has(condition)


def harness(matrix: Matrix) -> ZonesMatrix:
    return ZonesMatrix(matrix)
