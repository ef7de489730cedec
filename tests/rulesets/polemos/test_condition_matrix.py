"""The condition matrix (src/arbiter/rulesets/polemos/condition_matrix.toml): for every
condition of conditions.toml and every number or permission a condition could change, what
seed 000 says it does, played row by row (P-CON-1 and the rule ids of each row)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from arbiter.core import Encounter, RulesError, load_ruleset
from arbiter.core.content import read_content
from arbiter.rulesets.polemos import model
from arbiter.rulesets.polemos.model import Creature, condition_catalogue

POLEMOS = load_ruleset("polemos")
MATRIX: dict[str, Any] = read_content(Path(model.__file__).parent / "condition_matrix.toml")
ROWS: list[dict[str, Any]] = MATRIX["row"]
STANCES = ("aggressive stance", "defensive stance")


class Threes:
    """Every die shows 3 (a d2 shows 2): any number of dice gives a known total."""

    def roll(self, faces: int) -> int:
        return min(3, faces)


DICE = Threes()
SKILLS = {"athletics": 2, "melee": 2, "firearm": 2, "melee_defense": 1, "firearm_defense": 1,
          "initiative": 1}
ACTORS = {
    "nia": {"side": "a", "position": [0, 0], "skills": SKILLS, "weapons": ["knife", "pistol"]},
    "orc": {"side": "b", "position": [1, 0], "skills": {**SKILLS, "melee": 3},
            "weapons": ["knife", "pistol"]},
}
Make = Callable[[list[dict[str, Any]]], Encounter]


def maker(condition: str | None) -> Make:
    """Encounters with nia and orc: the measure's own steps first, then (unless measuring
    the baseline) the steps that give nia ``condition``, under its rulings."""
    give = MATRIX["give"].get(condition, {}) if condition else {}
    rulings = dict(give.get("rulings", {})) if condition else \
        {}

    def make(before: list[dict[str, Any]]) -> Encounter:
        enc = Encounter.create(POLEMOS, rulings)
        for name, spec in ACTORS.items():
            enc.execute({"do": "add", "id": name, **spec}, DICE)
        for step in before:
            enc.execute(step, DICE)
        for step in give.get("steps", []) if condition else []:
            enc.execute(step, DICE)
        return enc
    return make


def attempt(enc: Encounter, command: dict[str, Any]) -> dict[str, Any] | None:
    """The merged data of the command's events, or None when it is refused."""
    try:
        entry = enc.execute(command, DICE)
    except RulesError:
        return None
    out: dict[str, Any] = {}
    for event in entry.events:
        out.update(event.data)
    return out


def nia(enc: Encounter) -> Creature:
    found = enc.state.entities["nia"]
    assert isinstance(found, Creature)
    return found


def losses(before: Creature, after: Creature) -> int:
    """Vitality, SP and FP lost, and fatigue gained."""
    lost = sum(before.areas[a].vitality - after.areas[a].vitality for a in before.areas)
    return lost + (before.sp - after.sp) + (before.fp - after.fp) + \
        (after.fatigue - before.fatigue)


def snapshot(enc: Encounter) -> Creature:
    return enc.state.copy().entities["nia"]  # type: ignore[return-value]


def total(data: dict[str, Any] | None, key: str) -> Any:
    return "refused" if data is None else data[key]


def m_skill_roll(make: Make) -> Any:
    return total(attempt(make([]), {"do": "skill", "actor": "nia", "skill": "athletics"}),
                 "total")


def m_attack_roll(make: Make) -> Any:
    return total(attempt(make([]), {"do": "attack", "actor": "nia", "target": "orc",
                                    "weapon": "knife", "type": "slashing",
                                    "area": "chest"}), "attack_total")


def m_initiative(make: Make) -> Any:
    enc = make([])
    enc.execute({"do": "start"}, DICE)
    return enc.state.initiative["nia"]


def m_melee_defense(make: Make) -> Any:
    return total(attempt(make([]), {"do": "attack", "actor": "orc", "target": "nia",
                                    "weapon": "knife", "type": "slashing",
                                    "area": "chest"}), "defense_total")


def m_firearm_defense(make: Make) -> Any:
    return total(attempt(make([]), {"do": "attack", "actor": "orc", "target": "nia",
                                    "weapon": "pistol", "area": "chest"}), "defense_total")


def m_firearm_defense_roll(make: Make) -> Any:
    return total(attempt(make([]), {"do": "skill", "actor": "nia",
                                    "skill": "firearm_defense"}), "total")


def m_damage_taken(make: Make) -> Any:
    enc = make([])
    before = nia(enc).areas["chest"].vitality
    if attempt(enc, {"do": "attack", "actor": "orc", "target": "nia", "weapon": "knife",
                     "type": "slashing", "area": "chest"}) is None:
        return "refused"
    return before - nia(enc).areas["chest"].vitality


def m_actions(make: Make) -> Any:
    allowed = []
    for kind in ("primary", "secondary", "minor", "free", "full"):
        enc = make([])
        enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 5}}, DICE)
        if attempt(enc, {"do": "act", "actor": "nia", "ability": f"try {kind}",
                         "kind": kind}) is not None:
            allowed.append(kind)
    return allowed


def m_movement(make: Make) -> Any:
    enc = make([])
    enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 5}}, DICE)
    moved = 0
    while moved < 10 and attempt(enc, {"do": "move", "actor": "nia",
                                       "to": [0, moved + 1]}) is not None:
        moved += 1
    return moved


def m_targeted(make: Make) -> Any:
    return attempt(make([]), {"do": "target", "actor": "orc", "target_kind": "creature",
                              "target": "nia", "range": 5}) is not None


def m_area(make: Make) -> Any:
    data = attempt(make([]), {"do": "target", "actor": "orc", "target_kind": "location",
                              "square": [0, 0], "range": 5})
    return data is not None and "nia" in data["affected"]


def m_visible(make: Make) -> Any:
    return attempt(make([]), {"do": "target", "actor": "orc", "target_kind": "creature",
                              "target": "nia", "range": 5,
                              "requires": ["visible"]}) is not None


def m_per_round(make: Make) -> Any:
    enc = make([])
    before = snapshot(enc)
    enc.execute({"do": "start", "initiative": {"nia": 10, "orc": 5}}, DICE)
    return losses(before, nia(enc))


def m_per_round_waiting(make: Make) -> Any:
    enc = make([])
    before = snapshot(enc)
    enc.execute({"do": "wait", "amount": 1}, DICE)
    return losses(before, nia(enc))


def m_bleeding(make: Make) -> Any:
    enc = make([{"do": "bleed", "target": "nia", "area": "left_arm", "damage": 1}])
    before = nia(enc).areas["left_arm"].vitality
    enc.execute({"do": "tick"}, DICE)
    return before - nia(enc).areas["left_arm"].vitality


def m_sustained(make: Make) -> Any:
    enc = make([{"do": "condition", "target": "orc", "name": "marked", "custom": True,
                 "sustained_by": "nia"}])
    return enc.state.entities["orc"].has("marked")


MEASURES: dict[str, Callable[[Make], Any]] = {
    name[2:]: fn for name, fn in globals().items() if name.startswith("m_")}


def measure(name: str, condition: str | None, stance_for: str | None = None) -> Any:
    if name == "stance_kept":  # a stance first, then the condition: is the stance still on?
        other = "defensive stance" if stance_for != "defensive stance" else "aggressive stance"
        enc = maker(condition)([{"do": "condition", "target": "nia", "name": other}])
        return nia(enc).has(other)
    return MEASURES[name](maker(condition))


@cache
def baseline(name: str, rulings: tuple[tuple[str, str], ...], stance_for: str | None) -> Any:
    """The measure without any condition (under the same rulings as the row's)."""
    found = measure(name, None, stance_for)
    assert found not in ("refused", [], 0) or name in ("per_round", "per_round_waiting"), \
        (name, found)  # the measure must work without the condition
    return found


def expected(row: dict[str, Any]) -> Any:
    base = baseline(row["measure"], tuple(sorted(MATRIX["give"][row["condition"]]
                                                 .get("rulings", {}).items())),
                    row["condition"] if row["measure"] == "stance_kept" else None)
    if "delta" in row:
        return base + row["delta"]
    if "value" in row:
        return row["value"]
    return base


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['condition']}/{r['measure']}" for r in ROWS])
def test_each_condition_changes_what_the_seed_says_and_nothing_else(
        row: dict[str, Any]) -> None:
    """P-CON-1 and the row's rule ids: the measure with the condition given is the
    baseline moved as the row says (or left alone)."""
    got = measure(row["measure"], row["condition"], row["condition"])
    assert got == expected(row), (row["note"], row["seed"])


def test_the_matrix_covers_every_condition_and_every_measure_once() -> None:
    """Every condition of conditions.toml against every measure, each row citing the seed,
    saying exactly one of same, delta or value."""
    pairs = [(r["condition"], r["measure"]) for r in ROWS]
    assert len(pairs) == len(set(pairs))
    assert set(pairs) == {(c, m) for c in condition_catalogue() for m in MATRIX["measure"]}
    assert set(MATRIX["measure"]) == {*MEASURES, "stance_kept"}
    for row in ROWS:
        assert row["seed"] and row["rules"] and row["note"], row
        assert sum(k in row for k in ("same", "delta", "value")) == 1, row


@pytest.mark.parametrize("condition", sorted(condition_catalogue()))
def test_the_matrix_gives_each_condition(condition: str) -> None:
    """The steps of [give.NAME] do give the condition (the rows measure what they say)."""
    enc = maker(condition)([])
    assert nia(enc).has(condition), condition
