"""The condition matrix (``src/arbiter/rulesets/zones/condition_matrix.toml``): for every
zones condition, each number or permission seed 002 says it changes, and each it says it
leaves alone, played row by row with and without the condition.

Rule ids of the rows are in the data file (``rules``); the table-driven test names the ids
its rows check.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from arbiter.core import Command, Encounter, RulesError
from arbiter.core.content import read_content
from arbiter.rulesets.zones import RULESET
from arbiter.rulesets.zones.model import Creature, condition_catalogue, group_defenders

from ...support import marked_rules
from .helpers import ORDER, PARTNER, WORLD, ZONES, give, run, world

MATRIX = Path(ZONES.package_dir or ".") / "condition_matrix.toml"
SHOOTER = RULESET
"""The zones ruleset as its own class (``plan_shot``: an attack's dice and Hindrance)."""
ROWS: list[dict[str, Any]] = read_content(MATRIX)["row"]

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


def measure(row: dict[str, Any], with_condition: bool) -> Any:
    enc = world()
    for other in row.get("also", []):
        give(enc, other, row["holder"])
    if with_condition:
        give(enc, row["condition"], row["holder"])
    value = PROBES[row["probe"]](enc, row["holder"])
    if "key" in row:
        value = value.get(row["key"], 0)
    return plain(value)


def row_id(row: dict[str, Any]) -> str:
    key = f"[{row['key']}]" if "key" in row else ""
    return f"{row['condition']}-{row['holder']}-{row['probe']}{key}"


@pytest.mark.rules("Z-BLI-1", "Z-BLI-2", "Z-RA-2", "Z-RA-4", "Z-RA-8", "Z-HND-1", "Z-MI-1",
                   "Z-MI-3", "Z-AOE-3", "Z-AOE-5", "Z-AOE-6", "Z-AOE-8", "Z-AOE-13", "Z-AOE-14",
                   "Z-COV-1", "Z-COV-2", "Z-COV-3", "Z-COV-5", "Z-COV-8", "Z-COV-9", "Z-COV-10")
@pytest.mark.parametrize("row", ROWS, ids=[row_id(r) for r in ROWS])
def test_each_condition_changes_what_the_seed_says_and_nothing_else(row: dict[str, Any]) -> None:
    """Each row: the probe without the condition, then with it."""
    assert (measure(row, False), measure(row, True)) == (row["without"], row["with"]), \
        f"{row['seed']} ({', '.join(row['rules']) or 'no rule id'})"


def test_the_matrix_is_well_formed() -> None:
    """Every condition of conditions.toml has rows; every row has a known probe, a holder of
    the world, a sentence and a verdict; "unchanged" and "silent" rows expect no change, the
    others a change; the test's ``rules`` marker names every id of the rows.

    Rule ids: Z-COV-1, Z-BLI-1
    """
    catalogue = condition_catalogue()
    assert {row["condition"] for row in ROWS} == set(catalogue)
    for row in ROWS:
        assert row["condition"] in catalogue and row["probe"] in PROBES
        assert row["holder"] in WORLD and row["seed"] and row["says"] in (
            "changes", "unchanged", "silent", "ruling")
        if row["says"] in ("changes", "ruling"):
            assert row["without"] != row["with"], row_id(row)
        else:
            assert row["without"] == row["with"], row_id(row)
        if row["says"] == "ruling":
            assert "ruling ZR-" in row["seed"] or "ruling AZ-" in row["seed"], row_id(row)
    marked = marked_rules(test_each_condition_changes_what_the_seed_says_and_nothing_else)
    named = {rid for row in ROWS for rid in row["rules"]}
    assert named <= marked, sorted(named - marked)


def test_the_game_masters_condition_command_gives_each_condition_or_says_how() -> None:
    """Every catalogued condition can be given with ``condition``, except cover, which needs
    an armor bonus: it is refused with a pointer to the ``cover`` command. A grapple given
    that way has two sides, like ``grapple``, and ends cover; ``uncondition`` ends both.

    Rule ids: Z-COV-2, Z-COV-5, Z-RA-8
    """
    for name in condition_catalogue():
        enc = world()
        command: dict[str, Any] = {"do": "condition", "target": "nia", "name": name}
        if name == "grappling":
            command["source"] = "rex"
        if name == "cover":
            with pytest.raises(RulesError, match="the cover command"):
                run(enc, command)
            continue
        run(enc, command)
        assert creature(enc, "nia").has(name)
    enc = world()
    give(enc, "cover", "nia")
    with pytest.raises(RulesError, match="names its 'source'"):
        run(enc, {"do": "condition", "target": "nia", "name": "grappling"})
    data = run(enc, {"do": "condition", "target": "nia", "name": "grappling", "source": "rex"})
    assert data["events"] == ["condition_added", "condition_added", "cover_left"]
    assert creature(enc, "rex").grappling() == "nia"
    run(enc, {"do": "uncondition", "target": "rex", "name": "grappling"})
    assert not creature(enc, "nia").has("grappling") and not creature(enc, "rex").has(
        "grappling")


def test_a_down_condition_takes_a_creature_out_of_the_fight() -> None:
    """A creature the GM marks ``down`` is down whatever its health (ruling ZR-2): it cannot
    act or be attacked, and the encounter ends when only one side stands.

    Rule ids: Z-RA-3
    """
    enc = world()
    give(enc, "down", "bob")
    give(enc, "down", "cal")
    assert creature(enc, "bob").down and creature(enc, "bob").health == 100
    assert "winner" not in enc.state.extra
    data = run(enc, {"do": "condition", "target": "rex", "name": "down"})
    assert data["events"] == ["condition_added", "side_won"]
    assert enc.state.extra["winner"] == "crew"
    with pytest.raises(RulesError, match="already down"):
        run(enc, {"do": "attack", "actor": "nia", **SHOT}, [])
    run(enc, {"do": "heal", "target": "bob", "amount": 0})
    assert not creature(enc, "bob").down


def test_the_matrix_has_rows_for_every_kind_of_effect() -> None:
    """Rolls, defense, Hindrance, movement, actions, targeting and sight all have rows.

    Rule ids: Z-RA-4, Z-MI-1
    """
    probes = {row["probe"] for row in ROWS}
    kinds = {
        "rolls": {"interference-roll", "spd-roll", "melee-offense", "aoe-own-engagement-offense"},
        "defense": {"defense", "melee-defense", "taken", "area-taken"},
        "hindrance": {"offense-hindrance"},
        "movement": {"move"},
        "actions": {"acts", "take-cover", "leave-cover-cost", "kept-next-turn", "touch-ally"},
        "targeting": {"targeted", "inclusion", "caution-inclusion", "attack-grapple-partner"},
        "sight": {"seen", "blind-attack", "attack"},
    }
    for kind, names in kinds.items():
        assert names <= probes, (kind, names - probes)
