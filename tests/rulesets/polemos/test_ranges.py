"""Every targeting path measures a range or refuses with a reason (P-RNG-1, P-RNG-2, P-SPH-6,
P-SPH-7, P-SPH-12, P-SPH-13, AP-24, AP-25): never a silent "no distance"."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.core import Command, Encounter, IllegalCommand, RulesError, load_ruleset
from arbiter.dice import ForcedDice
from arbiter.rulesets.polemos.spheres_math import inside

POLEMOS = load_ruleset("polemos")
NONE = ForcedDice([])
SIZE = 25
SIDES = ("north", "east", "south", "west")
TRUCK = {"vehicle": {"chassis": "light_truck",
                     "modules": {"0,0": "cab", "0,1": "engine", "0,2": "machine_gun"}}}
MODULES = {None: (0, 0), "0,0": (0, 0), "0,1": (0, 1), "0,2": (0, 2)}

SQUARE = st.tuples(st.integers(0, SIZE - 1), st.integers(0, SIZE - 1))
PLACE = st.one_of(st.tuples(st.just("contact"), SQUARE),
                  st.tuples(st.just("battle"), st.sampled_from(SIDES)),
                  st.tuples(st.just("support"), st.none()))


def deployed(actor: tuple[str, Any], target: tuple[str, Any], truck: bool,
             rulings: dict[str, str] | None = None) -> Encounter:
    enc = Encounter.create(POLEMOS, rulings or {})
    enc.execute({"do": "add", "id": "gunner", "template": "soldier"}, NONE)
    enc.execute({"do": "add", "id": "mark", **(TRUCK if truck else {"template": "soldier"})},
                NONE)
    enc.execute({"do": "spheres"}, NONE)
    for who, (sphere, where) in (("gunner", actor), ("mark", target)):
        command: dict[str, Any] = {"do": "deploy", "target": who, "sphere": sphere}
        if sphere == "contact":
            command["square"] = list(where)
        elif sphere == "battle":
            command["quadrant"] = where
        enc.execute(command, NONE)
    return enc


def expected(actor: tuple[str, Any], target: tuple[str, Any], module: str | None,
             edge: str | None, given_range: int | None) -> int | None:
    """The seed's ranges, worked out independently of the code under test (AP-24 default:
    the edge on the quadrant's side; a support unit crosses the edge named, else the
    nearest; AP-25 default: the GM's ``sphere_range`` or nothing)."""
    (a, a_at), (b, b_at) = actor, target
    if b == "contact":
        dx, dy = MODULES[module]
        b_at = (b_at[0] + dx, b_at[1] + dy)
    pair = {a, b}
    if a == b == "contact":
        return int(max(abs(a_at[0] - b_at[0]), abs(a_at[1] - b_at[1])))
    if pair == {"contact", "battle"}:
        square, quadrant = (a_at, b_at) if a == "contact" else (b_at, a_at)
        return inside(square, str(quadrant), SIZE) + 100  # P-SPH-6
    if pair == {"contact", "support"}:
        square = a_at if a == "contact" else b_at
        sides = [edge] if edge else list(SIDES)
        return min(inside(square, side, SIZE) for side in sides) + 1100  # P-SPH-13
    if pair == {"battle", "support"}:
        return 1000  # P-SPH-12
    return given_range  # AP-25: the GM's, or none


@pytest.mark.rules("P-RNG-1", "P-SPH-6", "P-SPH-7", "P-SPH-12", "P-SPH-13", "AP-24", "AP-25")
@settings(max_examples=400, deadline=None)
@given(PLACE, PLACE, st.booleans(), st.sampled_from([None, "0,0", "0,1", "0,2"]),
       st.sampled_from([None, *SIDES]), st.one_of(st.none(), st.integers(0, 3000)),
       st.integers(0, 2500))
def test_every_sphere_placement_measures_a_range_or_refuses_with_a_reason(
        actor: tuple[str, Any], target: tuple[str, Any], truck: bool, module: str | None,
        edge: str | None, given_range: int | None, reach: int) -> None:
    """P-RNG-1, P-SPH-6, P-SPH-7, P-SPH-12, P-SPH-13, AP-24, AP-25: from any place in any
    sphere to a creature or to any module square of a vehicle, the range is measured (and
    checked against the ability's range) or the target is refused with the rule; the
    distance reported is never missing."""
    enc = deployed(actor, target, truck)
    args: dict[str, Any] = {"target_kind": "vehicle" if truck else "creature",
                            "target": "mark", "range": reach}
    if truck and module is not None:
        args["square"] = module
    if edge is not None:
        args["edge"] = edge
    if given_range is not None:
        args["sphere_range"] = given_range
    want = expected(actor, target, module if truck else None, edge, given_range)
    outside = truck and target[0] == "contact" and \
        target[1][1] + MODULES[module][1] >= SIZE
    command = Command("target", "gunner", args)
    try:
        events = POLEMOS.decide(enc.state, command, NONE)
    except RulesError as err:
        assert str(err)
        if outside:  # a module square beyond the contact sphere's edge
            assert isinstance(err, IllegalCommand) and err.rule == "P-SPH-2"
        elif want is None:
            assert isinstance(err, IllegalCommand) and err.rule == "AP-25"
        else:
            assert isinstance(err, IllegalCommand) and err.rule in ("P-RNG-1", "P-RNG-2")
            assert want > reach, (want, reach)
            assert f"{want} squares away" in str(err)
        return
    assert not outside
    distance = events[0].data["distance"]
    assert isinstance(distance, int), events[0].data
    assert distance == want
    assert distance <= reach


@pytest.mark.rules("P-SPH-7", "P-SPH-6")
@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["battle", "support"]), st.sampled_from(SIDES), SQUARE,
       st.sampled_from(["0,0", "0,1", "0,2"]))
def test_a_module_square_in_the_contact_sphere_has_its_own_range_from_any_sphere(
        sphere: str, quadrant: str, square: tuple[int, int], module: str) -> None:
    """P-SPH-7, P-SPH-6: from the battle or support sphere, a named module square of a
    vehicle in the contact sphere is measured from that square (inside the edge + 100, or
    + 1100), never skipped; a range of 1 never reaches it."""
    enc = deployed((sphere, quadrant if sphere == "battle" else None), ("contact", square),
                   truck=True)
    command = Command("target", "gunner", {"target_kind": "vehicle", "target": "mark",
                                           "square": module, "range": 1, "edge": quadrant})
    with pytest.raises(IllegalCommand) as err:
        POLEMOS.decide(enc.state, command, NONE)
    assert err.value.rule in ("P-RNG-1", "P-SPH-2"), str(err.value)


@pytest.mark.rules("P-RNG-1")
def test_on_the_grid_an_unplaced_target_is_refused_not_skipped() -> None:
    """P-RNG-1: one of the two has a square, the other none: no range can be measured."""
    enc = Encounter.create(POLEMOS)
    enc.execute({"do": "add", "id": "nia", "position": [0, 0]}, NONE)
    enc.execute({"do": "add", "id": "orc"}, NONE)
    enc.execute({"do": "add", "id": "kim", "weapons": ["pistol"]}, NONE)
    with pytest.raises(IllegalCommand, match="orc has no square on the grid") as err:
        enc.execute({"do": "target", "actor": "nia", "target_kind": "creature",
                     "target": "orc", "range": 50}, NONE)
    assert err.value.rule == "P-RNG-1"
    with pytest.raises(IllegalCommand, match="kim has no square on the grid"):
        enc.execute({"do": "attack", "actor": "kim", "target": "nia"}, NONE)
    # without any grid the game master gives the word, and the result says so
    with pytest.raises(IllegalCommand, match="valid: true") as err:
        enc.execute({"do": "target", "actor": "kim", "target_kind": "creature",
                     "target": "orc", "range": 5}, NONE)
    assert err.value.rule == "P-RNG-1"
    entry = enc.execute({"do": "target", "actor": "kim", "target_kind": "creature",
                         "target": "orc", "range": 5, "valid": True}, NONE)
    assert entry.events[0].data["distance"] is None
    assert "valid: true" in entry.events[0].data["judged"]
    # a selection by nearness names what it could not measure
    entry = enc.execute({"do": "target", "actor": "nia", "target_kind": "creature",
                         "nearest": 2, "range": 10}, NONE)
    assert entry.events[0].data["affected"] == []
    assert entry.events[0].data["unmeasured"] == ["orc", "kim"]
