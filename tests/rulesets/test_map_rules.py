"""The battle map's rules side (issue 20): what a move costs and triggers, asked of ``odds``
before it is made (the same checks as the command, nothing changed), the GM's place command
of each ruleset, and what each ruleset tells the map (``map_view``: footprints, reach,
line of sight, range bands)."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.core import Command, Encounter, IllegalCommand, RulesError, load_ruleset
from arbiter.dice import ForcedDice

NONE = ForcedDice([])


def creature(enc: Encounter, who: str) -> Any:
    """A creature of the encounter, as its ruleset's own type (fields such as ``ap``)."""
    return enc.state.entity(who)


def make(ruleset: str, initiative: dict[str, int] | None = None,
         rulings: dict[str, str] | None = None, **actors: dict[str, Any]) -> Encounter:
    enc = Encounter.create(load_ruleset(ruleset), rulings)
    for name, spec in actors.items():
        enc.execute({"do": "add", "id": name, **spec}, NONE)
    if initiative is not None:
        enc.execute({"do": "start", "initiative": initiative}, NONE)
    return enc


def odds(enc: Encounter, command: dict[str, Any]) -> dict[str, Any]:
    cmd = Command.from_json(command)
    enc.ruleset.validate(cmd)
    out: dict[str, Any] = enc.ruleset.odds(enc.state, cmd)
    return out


def refusal(enc: Encounter, command: dict[str, Any]) -> str:
    """The message ``decide`` refuses ``command`` with (the state unchanged)."""
    with pytest.raises(RulesError) as err:
        enc.ruleset.decide(enc.state, Command.from_json(command), NONE)
    return str(err.value)


# -- realms ---------------------------------------------------------------------------------
def realms_fight() -> Encounter:
    """nia (heroes) at (2, 2) between two bandits, flanked; an ogre far off."""
    return make("realms", {"nia": 20, "left": 5, "right": 3, "ogre": 1},
                nia={"template": "knight", "side": "heroes", "position": [2, 2]},
                left={"template": "bandit", "side": "brigands", "position": [1, 2]},
                right={"template": "bandit", "side": "brigands", "position": [3, 2]},
                ogre={"template": "ogre", "side": "brigands", "position": [9, 9]})


def test_realms_move_odds_give_the_cost_and_ap_left_the_move_then_spends() -> None:
    enc = realms_fight()
    path = [[2, 3], [3, 4]]  # one straight step and one diagonal: 2 + 3 half spaces
    before = enc.state.copy()
    out = odds(enc, {"do": "move", "actor": "nia", "path": path})
    assert enc.state == before  # asking changes nothing
    assert out["spaces"] == 2.5
    assert out["move_actions"] == 1 and out["ap_spent"] == 1
    assert out["to"] == [3, 4]
    entry = enc.execute({"do": "move", "actor": "nia", "path": path}, NONE)
    (moved,) = entry.events
    assert out["ap_left"] == moved.data["economy"]["ap"] == creature(enc, "nia").ap == 3
    speed = moved.data["economy"]["movement"]
    assert out["movement_left"] == speed / 2


def test_realms_move_odds_name_the_flankers_offered_a_reaction_and_the_reach_left() -> None:
    enc = realms_fight()
    out = odds(enc, {"do": "move", "actor": "nia", "path": [[2, 3], [2, 4]]})
    assert sorted(out["flank_reaction"]) == ["left", "right"]  # R-FLK-2
    assert sorted(out["leaves_reach"]) == ["left", "right"]
    assert out["flanked_at_end"] == []
    # a step that stays beside both provokes nothing
    out = odds(enc, {"do": "move", "actor": "nia", "path": [[2, 3]]})
    assert out["flank_reaction"] == [] and out["leaves_reach"] == []
    assert sorted(out["flanked_at_end"]) == ["left", "right"]


def test_realms_move_odds_refuse_as_the_move_does() -> None:
    enc = realms_fight()
    far = {"do": "move", "actor": "nia", "path": [[x, 2] for x in range(3, 40)]}
    far["path"] = [[2, y] for y in range(3, 40)]
    message = refusal(enc, far)
    with pytest.raises(IllegalCommand, match="AP left") as err:
        odds(enc, far)
    assert str(err.value) == message
    through = {"do": "move", "actor": "nia", "path": [[3, 2]], "forbid_larger": True}
    enc.execute({"do": "place", "target": "ogre", "at": [2, 3]}, NONE)
    message = refusal(enc, {**through, "path": [[2, 3]]})
    with pytest.raises(IllegalCommand, match="larger enemy"):
        odds(enc, {**through, "path": [[2, 3]]})
    assert "larger enemy" in message


def test_realms_map_view_gives_footprints_and_reach() -> None:
    enc = realms_fight()
    view = enc.ruleset.map_view(enc.state, ["nia", "ogre"])  # type: ignore[attr-defined]
    ogre = creature(enc, "ogre")
    assert view["footprints"] == {"ogre": [list(s) for s in ogre.size_info.footprint]}
    assert len(view["footprints"]["ogre"]) > 1
    assert view["reach"] == {"nia": 1, "ogre": 1}
    assert "left" not in view["reach"]  # only the creatures asked about


# -- Polemos --------------------------------------------------------------------------------
def polemos_fight() -> Encounter:
    enc = make("polemos", {"vera": 9, "orc": 1},
               vera={"position": [0, 0], "speed": 5, "side": "a"},
               orc={"position": [6, 0], "side": "b", "reach": 2})
    enc.execute({"do": "terrain", "squares": [[3, 0]], "what": "wall"}, NONE)
    enc.execute({"do": "terrain", "squares": [[0, 3]], "what": "window"}, NONE)
    return enc


def test_polemos_move_odds_give_the_squares_left_this_turn() -> None:
    enc = polemos_fight()
    out = odds(enc, {"do": "move", "actor": "vera", "to": [2, 2]})
    assert out == {"to": [2, 2], "squares": 2, "speed": 5, "moved": 2, "squares_left": 3}
    enc.execute({"do": "move", "actor": "vera", "to": [2, 2]}, NONE)
    out = odds(enc, {"do": "move", "actor": "vera", "to": [2, 5]})
    assert (out["moved"], out["squares_left"]) == (5, 0)
    message = refusal(enc, {"do": "move", "actor": "vera", "to": [2, 6]})
    with pytest.raises(IllegalCommand, match="can move 5 squares a turn") as err:
        odds(enc, {"do": "move", "actor": "vera", "to": [2, 6]})
    assert str(err.value) == message


def test_polemos_move_odds_refuse_a_wall_in_the_way() -> None:
    enc = polemos_fight()
    with pytest.raises(IllegalCommand, match="obstructed"):
        odds(enc, {"do": "move", "actor": "vera", "to": [0, 4]})  # through the window


def test_polemos_gm_places_anywhere_and_off_the_grid_and_it_undoes() -> None:
    enc = polemos_fight()
    spec = enc.ruleset.catalogue["place"]
    assert spec.who == "gm"
    enc.execute({"do": "place", "target": "orc", "at": [3, 0]}, NONE)  # onto the wall: the GM
    assert creature(enc, "orc").position == [3, 0]
    enc.execute({"do": "place", "target": "orc"}, NONE)
    assert creature(enc, "orc").position is None
    with pytest.raises(RulesError, match="square"):
        enc.execute({"do": "place", "target": "orc", "at": [1]}, NONE)
    replayed = Encounter.replay(enc.ruleset, enc.log)
    assert replayed.state == enc.state
    assert enc.ruleset.describe("placed", {"target": "orc", "at": [3, 0]}, {"orc": "Orc"},
                                True) == "Orc is placed at (3, 0)."


def test_polemos_map_view_gives_reach_and_broken_lines_of_sight() -> None:
    enc = polemos_fight()
    view = enc.ruleset.map_view(enc.state, ["vera", "orc"])  # type: ignore[attr-defined]
    assert view["reach"] == {"vera": 1, "orc": 2}
    assert view["sight"] == {"vera": {"orc": [3, 0]}, "orc": {"vera": [3, 0]}}
    enc.execute({"do": "place", "target": "orc", "at": [6, 3]}, NONE)
    view = enc.ruleset.map_view(enc.state, ["vera", "orc"])  # type: ignore[attr-defined]
    assert view["sight"] == {}  # the line from (0, 0) to (6, 3) misses (3, 0)'s inside


# -- zones ----------------------------------------------------------------------------------
def zones_fight(rulings: dict[str, str] | None = None) -> Encounter:
    enc = make("zones", None, rulings,
               rook={"side": "crew", "group": "crew", "zone": "yard", "DEX": 12},
               kim={"side": "crew", "group": "crew", "zone": "yard", "DEX": 12},
               bob={"side": "gang", "group": "gang", "zone": "yard", "engagement": "crew"},
               cal={"side": "gang", "group": "gang2", "zone": "ridge"})
    enc.execute({"do": "zone", "id": "yard", "adjacent": ["ridge"]}, NONE)
    enc.execute({"do": "zone", "id": "far"}, NONE)
    enc.execute({"do": "start", "initiative": {"rook": 20, "kim": 15, "bob": 10, "cal": 5}},
                NONE)
    return enc


def test_zones_move_odds_give_the_band_covered_and_the_engagement_left() -> None:
    enc = zones_fight()
    out = odds(enc, {"do": "move", "actor": "rook", "zone": "ridge"})
    assert out["distance"] == "medium"
    assert out["leaves_engagement"] == ["bob", "kim"]
    assert out["joins_engagement"] == []
    assert out["uses"] == "the turn's movement"
    assert out["slowing_action_after"] is False  # ZR-7 (no-move, the default)
    assert out["leaves_cover"] is False
    out = odds(enc, {"do": "move", "actor": "rook", "zone": "ridge", "group": "gang2"})
    assert out["joins_engagement"] == ["cal"] and out["engagement"] == "gang2"
    assert odds(enc, {"do": "move", "actor": "rook", "zone": "far"})["distance"] == "long"
    assert odds(enc, {"do": "move", "actor": "rook", "group": "solo"})["distance"] == "short"
    relaxed = zones_fight({"ZR-7": "record-only"})
    out = odds(relaxed, {"do": "move", "actor": "rook", "zone": "ridge"})
    assert out["slowing_action_after"] is True


def test_zones_move_odds_refuse_a_second_move_as_the_move_does() -> None:
    enc = zones_fight()
    enc.execute({"do": "move", "actor": "rook", "zone": "ridge"}, NONE)
    message = refusal(enc, {"do": "move", "actor": "rook", "zone": "yard"})
    with pytest.raises(IllegalCommand, match="already moved") as err:
        odds(enc, {"do": "move", "actor": "rook", "zone": "yard"})
    assert str(err.value) == message


def test_zones_move_odds_say_when_a_move_leaves_cover() -> None:
    enc = zones_fight({"ZR-7": "record-only"})
    enc.execute({"do": "cover", "actor": "rook", "environment": "heavy"}, NONE)
    assert creature(enc, "rook").has("cover")
    out = odds(enc, {"do": "move", "actor": "rook", "zone": "ridge"})
    assert out["leaves_cover"] is True


def test_zones_gm_places_into_a_zone_with_its_group_there() -> None:
    enc = zones_fight()
    assert enc.ruleset.catalogue["place"].who == "gm"
    enc.execute({"do": "place", "target": "kim", "zone": "ridge"}, NONE)
    kim = creature(enc, "kim")
    assert (kim.zone, kim.engagement, kim.group) == ("ridge", "crew", "crew")
    enc.execute({"do": "place", "target": "rook", "zone": "ridge"}, NONE)
    rook = creature(enc, "rook")
    assert (rook.zone, rook.engagement) == ("ridge", "crew")  # with kim, its group
    with pytest.raises(IllegalCommand, match="already in zone ridge"):
        enc.execute({"do": "place", "target": "rook", "zone": "ridge"}, NONE)
    with pytest.raises(RulesError, match="zone"):
        enc.execute({"do": "place", "target": "rook"}, NONE)
    assert Encounter.replay(enc.ruleset, enc.log).state == enc.state


def test_zones_map_view_gives_the_range_band_between_each_two() -> None:
    enc = zones_fight()
    view = enc.ruleset.map_view(enc.state, ["rook", "kim", "bob", "cal"])  # type: ignore[attr-defined]
    bands = view["bands"]
    assert bands["rook"]["kim"] == "engagement"
    assert bands["rook"]["bob"] == "engagement"  # bob is engaged with the crew
    assert bands["rook"]["cal"] == "medium" and bands["cal"]["rook"] == "medium"
    enc.execute({"do": "place", "target": "cal", "zone": "far"}, NONE)
    view = enc.ruleset.map_view(enc.state, ["rook", "cal"])  # type: ignore[attr-defined]
    assert view["bands"] == {"rook": {"cal": "long"}, "cal": {"rook": "long"}}


# -- the ruler's units (``measure``) --------------------------------------------------------
def test_each_ruleset_tells_the_ruler_its_units() -> None:
    realms = realms_fight()
    view = realms.ruleset.map_view(realms.state, ["nia"])  # type: ignore[attr-defined]
    assert view["measure"] == {"unit": "space", "diagonal": 1.5}  # R-MOV-3
    polemos = polemos_fight()
    view = polemos.ruleset.map_view(polemos.state, ["vera"])  # type: ignore[attr-defined]
    assert view["measure"] == {"unit": "square", "diagonal": 1}  # POL-3: chebyshev
    polemos.execute({"do": "ruling", "id": "POL-3", "value": "manhattan"}, NONE)
    view = polemos.ruleset.map_view(polemos.state, ["vera"])  # type: ignore[attr-defined]
    assert view["measure"]["diagonal"] == 2
    zones = zones_fight()
    view = zones.ruleset.map_view(zones.state, ["rook"])  # type: ignore[attr-defined]
    assert view["measure"] == {"unit": "zone", "engaged": "engagement",
                               "bands": ["short", "medium", "long"]}  # ZR-4
