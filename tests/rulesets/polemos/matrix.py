"""The probes of Polemos' condition matrix (``condition_matrix.toml``), played by the one
table-driven test of every ruleset's matrix, ``tests/rulesets/test_conditions.py``: nia
and orc, every die a 3, the condition given to nia by the matrix's ``[give.NAME]``
steps under its rulings, each probe a number or a permission of nia."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from arbiter.core import Encounter, RulesError, load_ruleset
from arbiter.core.conditions import Matrix, MatrixRow
from arbiter.rulesets.polemos.model import Creature

POLEMOS = load_ruleset("polemos")


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
STANCES = ("aggressive stance", "defensive stance")


class PolemosMatrix:
    """The harness of Polemos' matrix (tests/rulesets/test_conditions.py's ``Harness``)."""

    def __init__(self, matrix: Matrix) -> None:
        self.matrix = matrix
        self.probes = frozenset({*MEASURES, "stance_kept"})
        self.baseline = cache(self._baseline)

    def rulings(self, condition: str) -> tuple[tuple[str, str], ...]:
        give = self.matrix.give.get(condition)
        return tuple(sorted(give.rulings.items())) if give else ()

    def maker(self, rulings: tuple[tuple[str, str], ...], condition: str | None) -> Make:
        """Encounters with nia and orc under ``rulings``: the probe's own steps first, then
        (unless measuring the baseline) the steps that give nia ``condition``."""
        give = self.matrix.give.get(condition) if condition else None
        steps = [dict(step) for step in give.steps] if give else []

        def make(before: list[dict[str, Any]]) -> Encounter:
            enc = Encounter.create(POLEMOS, dict(rulings))
            for name, spec in ACTORS.items():
                enc.execute({"do": "add", "id": name, **spec}, DICE)
            for step in [*before, *steps]:
                enc.execute(step, DICE)
            return enc
        return make

    def _measure(self, probe: str, make: Make, stance_for: str) -> Any:
        if probe == "stance_kept":  # a stance first, then the condition: still on?
            other = "defensive stance" if stance_for != "defensive stance" \
                else "aggressive stance"
            return nia(make([{"do": "condition", "target": "nia", "name": other}])).has(other)
        return MEASURES[probe](make)

    def _baseline(self, probe: str, rulings: tuple[tuple[str, str], ...],
                  stance_for: str) -> Any:
        return self._measure(probe, self.maker(rulings, None), stance_for)

    def measure(self, row: MatrixRow, given: bool) -> Any:
        """The probe of ``row`` with nia given its condition, or without it under the same
        rulings (a baseline is measured once per probe, rulings and stance)."""
        rulings = self.rulings(row.condition)
        if given:
            return self._measure(row.probe, self.maker(rulings, row.condition), row.condition)
        return self.baseline(row.probe, rulings,
                             row.condition if row.probe == "stance_kept" else "")

    def gives(self, condition: str) -> bool:
        """The steps of [give.NAME] do give the condition."""
        return nia(self.maker(self.rulings(condition), condition)([])).has(condition)


def harness(matrix: Matrix) -> PolemosMatrix:
    return PolemosMatrix(matrix)
