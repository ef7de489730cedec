"""What comes back comes back whole (P-CON-6, P-WND-1, P-WND-8, P-AFF-2, P-AFF-3): removing
a wound, an affliction or a condition while its cause remains, and letting it come back,
gives the same state as adding it once."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.core import Encounter, load_ruleset
from arbiter.dice import ForcedDice, SeededDice
from arbiter.rulesets.polemos.model import Creature, body_plans, wound_catalogue

POLEMOS = load_ruleset("polemos")
NONE = ForcedDice([])
AREAS = list(body_plans()["human"])

WOUND = st.fixed_dictionaries(
    {"name": st.sampled_from(sorted(wound_catalogue())), "area": st.sampled_from(AREAS)},
    optional={"bleeding": st.integers(0, 3), "conditions": st.sampled_from([["limping"],
                                                                           ["daze"], []])})
AFFLICTION = st.fixed_dictionaries(
    {"name": st.sampled_from(["infection", "nerve damage", "hex"]), "wound": st.booleans()},
    optional={"area": st.sampled_from(AREAS)})
CONDITION = st.fixed_dictionaries(
    {"name": st.sampled_from(["shaken", "limping", "burning", "low light"]),
     "level": st.integers(1, 3)},
    optional={"damage": st.integers(1, 2), "area": st.sampled_from(AREAS)})


def fresh() -> Encounter:
    enc = Encounter.create(POLEMOS)
    enc.execute({"do": "add", "id": "nia", "tags": ["cursed"], "vitality": {
        area: 30 for area in AREAS}}, NONE)
    return enc


def given_once(kind: str, spec: dict[str, Any]) -> Encounter:
    enc = fresh()
    enc.execute(command(kind, spec), NONE)
    return enc


def command(kind: str, spec: dict[str, Any]) -> dict[str, Any]:
    verb = {"wound": "wound", "affliction": "afflict", "condition": "condition"}[kind]
    return {"do": verb, "target": "nia", "cause": "cursed", **spec}


def removed_and_back(kind: str, spec: dict[str, Any], rounds: int) -> Encounter:
    enc = fresh()
    enc.execute(command(kind, spec), NONE)
    nia = creature(enc)
    if kind == "wound":
        enc.execute({"do": "heal", "target": "nia", "wound": nia.wounds[-1].id}, NONE)
        enc.execute({"do": "wait", "amount": 1, "unit": "day"}, SeededDice(1))  # P-WND-8
    elif kind == "affliction":
        enc.execute({"do": "cure", "target": "nia", "affliction": nia.afflictions[-1].id},
                    NONE)
        enc.execute({"do": "wait", "amount": 1, "unit": "week"}, SeededDice(1))  # P-AFF-3
    else:
        enc.execute({"do": "uncondition", "target": "nia", "name": spec["name"],
                     "rounds": rounds}, NONE)
        enc.execute({"do": "wait", "amount": rounds}, SeededDice(1))  # P-CON-6
    assert enc.state.extra.get("readd") == []
    return enc


def creature(enc: Encounter) -> Creature:
    found = enc.state.entities["nia"]
    assert isinstance(found, Creature)
    return found


def records(enc: Encounter) -> dict[str, Any]:
    """What was given and what it brought, with wound ids numbered by their order (a wound
    an affliction gives again is a new wound) and without the time it was received."""
    nia = creature(enc)
    ids = {w.id: f"W{i}" for i, w in enumerate(nia.wounds)}

    def same(value: Any) -> Any:
        if isinstance(value, str):
            return ids.get(value, ids.get(value[2:], value) if value.startswith("b-") else value)
        return value

    wounds = [{**{k: same(v) for k, v in w.to_json().items()}, "received": None}
              for w in nia.wounds]
    conditions = []
    for cond in nia.conditions:
        out = cond.to_json()
        out["source"] = same(out.get("source"))
        if "duration" in out:
            out["duration"] = {k: same(v) for k, v in out["duration"].items()}
        conditions.append(out)
    bleeding = [(same(b.id), b.origin, b.damage, b.source) for b in nia.bleeding]
    return {"wounds": wounds, "afflictions": [a.to_json() for a in nia.afflictions],
            "conditions": conditions, "bleeding": bleeding, "fatigue": nia.fatigue}


@pytest.mark.rules("P-CON-6", "P-WND-1", "P-WND-8", "P-AFF-2", "P-AFF-3")
@settings(max_examples=60, deadline=None)
@given(st.one_of(st.tuples(st.just("wound"), WOUND),
                 st.tuples(st.just("affliction"), AFFLICTION),
                 st.tuples(st.just("condition"), CONDITION)),
       st.integers(1, 40))
def test_what_comes_back_is_what_was_given(given_: tuple[str, dict[str, Any]],
                                           rounds: int) -> None:
    """P-CON-6, P-WND-1, P-WND-8, P-AFF-2, P-AFF-3: a wound comes back with the conditions
    it causes and the bleeding it starts, an affliction with the wound it applies, a
    condition as it was given."""
    kind, spec = given_
    once = given_once(kind, spec)
    back = removed_and_back(kind, spec, rounds)
    assert records(back) == records(once)


@pytest.mark.rules("P-AFF-2", "P-AFF-3")
def test_a_returning_affliction_record_keeps_that_it_applies_a_wound() -> None:
    """P-AFF-2: the record says it applies a wound, so it applies it again (P-AFF-3)."""
    enc = given_once("affliction", {"name": "infection", "wound": True})
    assert creature(enc).afflictions[0].wound is True
    assert creature(enc).wounds[0].cause == creature(enc).afflictions[0].id
