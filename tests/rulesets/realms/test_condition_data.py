"""Realms reads what a condition does from ``conditions.toml``, not from its name (issue
37): a condition the rules never name, declared with the numbers and flags of one they
know, plays like it (R-C-FRI, R-C-HID, R-C-SUS, R-C-RSL, R-C-STU, R-C-BLE)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

import pytest

from arbiter.core import Condition, Encounter, load_ruleset
from arbiter.core.conditions import ConditionSpec
from arbiter.dice import ForcedDice
from arbiter.rulesets.realms import model
from arbiter.scenario.runner import last_result

REALMS = load_ruleset("realms")
KNOWN = model.conditions_catalogue()


def alias(of: str) -> ConditionSpec:
    """A condition the code never names, with ``of``'s numbers and flags."""
    spec = KNOWN[of]
    return ConditionSpec(text=f"like {of}", rules=spec.rules, leveled=spec.leveled,
                         modifiers=spec.modifiers, flags=spec.flags, resist=spec.resist)


@pytest.fixture
def extended(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The catalogue with ``dreading`` (Frightened's flags), ``lurking`` (Hidden's),
    ``brittle`` (Susceptible's numbers), ``hardy`` (Resilient's), ``reeling`` (Stunned's)
    and ``seeping`` (Bleed's)."""
    extra = {"dreading": alias("frightened"), "lurking": alias("hidden"),
             "brittle": alias("susceptible"), "hardy": alias("resilient"),
             "reeling": alias("stunned"), "seeping": alias("bleed")}
    table: Mapping[str, ConditionSpec] = MappingProxyType({**KNOWN, **extra})
    monkeypatch.setattr(model, "conditions_catalogue", lambda: table)
    for module in ("pipeline", "base", "conditions", "invariants", "checks"):
        target = __import__(f"arbiter.rulesets.realms.{module}", fromlist=["x"])
        if hasattr(target, "conditions_catalogue"):
            monkeypatch.setattr(target, "conditions_catalogue", lambda: table)
    yield


def scene(condition: str | None) -> Encounter:
    """``me`` and ``foe`` in combat, ``me``'s turn; ``me`` has ``condition`` from ``foe``,
    at level 2 if it has levels (set on the state: the condition command lists only the
    file's own names)."""
    enc = Encounter.create(REALMS)
    for name, spec in {"me": {"health": 40, "attack": 3, "weapon": "sword", "side": "a",
                              "position": [0, 0]},
                       "foe": {"health": 40, "evasion": 10, "weapon": "sword", "side": "b",
                               "position": [1, 0]}}.items():
        enc.execute({"do": "add", "id": name, **spec}, ForcedDice([]))
    enc.execute({"do": "start", "initiative": {"me": 20, "foe": 10}}, ForcedDice([]))
    if condition is not None:
        me = enc.state.entities["me"]
        level = 2 if model.conditions_catalogue()[condition].leveled else 1
        me.conditions = [*me.conditions, Condition(condition, level, source="foe")]
    return enc


def attack(enc: Encounter) -> dict[str, Any]:
    enc.execute({"do": "attack", "actor": "me", "target": "foe"}, ForcedDice([10, 4]))
    return last_result(enc)


def damage(enc: Encounter, amount: int = 10) -> int:
    enc.execute({"do": "damage", "target": "me", "amount": amount, "type": "slashing"},
                ForcedDice([]))
    return int(last_result(enc)["taken"])


@pytest.mark.rules("R-C-FRI", "R-C-HID")
@pytest.mark.parametrize(("known", "alias_"), [("frightened", "dreading"),
                                               ("hidden", "lurking")])
def test_an_attack_reads_the_flags_of_a_condition_not_its_name(
        extended: None, known: str, alias_: str) -> None:
    """Frightened's penalty against its source (R-C-FRI) and Hidden's +2 against the
    unaware (R-C-HID) come with the flags and numbers, whatever the name."""
    plain = attack(scene(None))["total"]
    assert attack(scene(known))["total"] == attack(scene(alias_))["total"] != plain


@pytest.mark.rules("R-C-SUS", "R-C-RSL")
@pytest.mark.parametrize(("known", "alias_"), [("susceptible", "brittle"),
                                               ("resilient", "hardy")])
def test_damage_reads_the_numbers_of_a_condition_not_its_name(
        extended: None, known: str, alias_: str) -> None:
    """Susceptible N adds N to the damage taken (R-C-SUS); Resilient N is a reduction of N
    (R-C-RSL): so does any condition with the same numbers."""
    plain = damage(scene(None))
    assert damage(scene(known)) == damage(scene(alias_)) != plain


@pytest.mark.rules("R-C-STU", "R-C-BLE")
@pytest.mark.parametrize(("known", "alias_"), [("stunned", "reeling"), ("bleed", "seeping")])
def test_a_turn_reads_the_numbers_of_a_condition_not_its_name(
        extended: None, known: str, alias_: str) -> None:
    """Stun N gains N fewer AP at the end of the turn (R-C-STU); Bleed N loses N Health at
    the start of each turn (R-C-BLE): so does any condition with the same numbers."""
    def after_a_round(condition: str | None) -> tuple[int, int]:
        enc = scene(condition)
        enc.execute({"do": "next"}, ForcedDice([]))
        ap = int(enc.state.entities["me"].ap)  # type: ignore[attr-defined]
        enc.execute({"do": "next"}, ForcedDice([]))
        return ap, int(enc.state.entities["me"].health)  # type: ignore[attr-defined]
    assert after_a_round(known) == after_a_round(alias_) != after_a_round(None)
