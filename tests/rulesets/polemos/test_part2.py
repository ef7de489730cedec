"""Polemos part 2: the grid, targets, detection, networks, vehicles and combat spheres.

Rule ids are those of shared/rules/inventory.md; the scenarios under scenarios/polemos/ check
most of them, these tests the geometry, the rulings' alternatives, the odds and replay.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.core import Command, Encounter, Entry, IllegalCommand, RulesError, load_ruleset
from arbiter.dice import ForcedDice, SeededDice
from arbiter.rulesets.polemos import PolemosRuleset
from arbiter.rulesets.polemos.grid import angle, aura, contiguous, crossed, distance, passes_through
from arbiter.rulesets.polemos.spheres_math import move_cost, sphere_range

from ...support import Played

POLEMOS = load_ruleset("polemos")
ROOT = Path(__file__).resolve().parents[3]
RAID = ROOT / "scenarios" / "encounters" / "polemos-yard-raid.yaml"
NONE = ForcedDice([])


def make(rulings: dict[str, str] | None = None, **actors: dict[str, Any]) -> Encounter:
    enc = Encounter.create(POLEMOS, rulings or {})
    for name, spec in actors.items():
        enc.execute({"do": "add", "id": name, **spec}, NONE)
    return enc


@pytest.mark.rules("P-RNG-1", "P-STL-1", "POL-5")
def test_the_grid_fight_plays_to_the_end_and_replays_identically(played: Played) -> None:
    """P-RNG-1, P-STL-1, POL-5: the seeded yard raid ends with one side; its log replays."""
    result = played(RAID)
    assert result.passed, result.failures
    enc = result.encounter
    assert enc is not None and not enc.state.in_combat
    assert enc.state.extra["winner"] == "militia"
    replayed = Encounter.replay(POLEMOS, [Entry.from_json(e.to_json()) for e in enc.log])
    assert replayed.state == enc.state


@pytest.mark.rules("P-REQ-4")
def test_line_of_sight_counts_only_squares_the_linepasses_through_through() -> None:
    """P-REQ-4: a diagonal line touching only corners crosses no square; a knight's move line
    crosses exactly the two squares it passes between."""
    assert crossed((0, 0), (2, 2)) == [(1, 1)]
    assert crossed((0, 0), (1, 1)) == []
    assert crossed((0, 0), (2, 1)) == [(1, 0), (1, 1)]
    assert crossed((0, 0), (0, 3)) == [(0, 1), (0, 2)]


SMALL = st.tuples(st.integers(-8, 8), st.integers(-8, 8))


@pytest.mark.rules("P-REQ-4")
@settings(max_examples=300, deadline=None)
@given(SMALL, SMALL)
def test_crossed_squares_match_checking_every_square(a: tuple[int, int],
                                                     b: tuple[int, int]) -> None:
    """P-REQ-4: the fast walk along the line finds exactly the squares that clipping every
    square of the bounding box finds; and the line is symmetric."""
    (x0, y0), (x1, y1) = a, b
    px, py = Fraction(2 * x0 + 1, 2), Fraction(2 * y0 + 1, 2)
    every = [(x, y) for x in range(min(x0, x1), max(x0, x1) + 1)
             for y in range(min(y0, y1), max(y0, y1) + 1)
             if (x, y) not in (a, b) and passes_through(px, py, x1 - x0, y1 - y0, x, y)]
    assert sorted(crossed(a, b)) == sorted(every) == sorted(crossed(b, a))


@pytest.mark.rules("P-RNG-1", "POL-3")
def test_distances_count_squares_by_ruling() -> None:
    """P-RNG-1, POL-3: a diagonal step is one square (or two, manhattan)."""
    assert distance((2, 3), (5, 9)) == 6
    assert distance((2, 3), (5, 9), "manhattan") == 9


@pytest.mark.rules("P-TGT-9", "P-TGT-10", "POL-4")
def test_area_contiguity_and_aura_shapes() -> None:
    """P-TGT-9, P-TGT-10, POL-4: contiguous by edges unless corners join; auras are near-square
    and centred."""
    assert contiguous([(0, 0), (0, 1), (1, 1)])
    assert not contiguous([(0, 0), (1, 1)])
    assert contiguous([(0, 0), (1, 1)], diagonal=True)
    assert len(aura((0, 0), 25)) == 25 and (0, 0) in aura((0, 0), 25)
    assert sorted(aura((0, 0), 25)) == [(x, y) for x in range(-2, 3) for y in range(-2, 3)]
    assert aura((0, 0), 1) == [(0, 0)]


@pytest.mark.rules("P-TGT-11")
def test_angle_excludes_the_actor_and_keeps_its_arc() -> None:
    """P-TGT-11: a 90-degree arc to the east at range 3 holds 3 + 5 + 7 squares."""
    squares = angle((0, 0), "e", 3)
    assert (0, 0) not in squares and len(squares) == 15
    assert all(x > 0 and abs(y) <= x for x, y in squares)
    assert len(angle((0, 0), "ne", 1)) == 3
    assert len(angle((0, 0), "n", 1, arc=360)) == 8


@pytest.mark.rules("P-SPH-6", "P-SPH-12", "P-SPH-13", "AP-24")
def test_cross_sphere_ranges_follow_the_texts_examples() -> None:
    """P-SPH-6, P-SPH-12, P-SPH-13, AP-24: 113, 1000 and 1113."""
    soldier = ("contact", None, (11, 7))
    assert sphere_range(("battle", "east", None), soldier, 25) == 113
    assert sphere_range(soldier, ("battle", "east", None), 25) == 113
    assert sphere_range(("support", None, None), ("battle", "west", None), 25) == 1000
    assert sphere_range(("support", None, None), soldier, 25, edge="east") == 1113
    # AP-24 nearest-edge: the northern edge is nearer (7 inside)
    assert sphere_range(("battle", "east", None), soldier, 25, "nearest-edge") == 107


@pytest.mark.rules("AP-25")
def test_ap25_movement_costs_give_the_undefined_ranges() -> None:
    """AP-25: by default the GM gives battle-to-battle ranges; the alternative uses the
    movement costs."""
    a, b = ("battle", "east", None), ("battle", "west", None)
    with pytest.raises(IllegalCommand, match="AP-25"):
        sphere_range(a, b, 25)
    assert sphere_range(a, b, 25, undefined="movement-costs") == 20
    assert sphere_range(a, ("battle", "north", None), 25, undefined="movement-costs") == 10
    assert sphere_range(a, b, 25, given=33) == 33


@pytest.mark.rules("P-SPH-9", "P-SPH-10", "P-SPH-14", "AP-26")
def test_movement_costs_between_spheres() -> None:
    """P-SPH-9, P-SPH-10, P-SPH-14, AP-26."""
    assert move_cost(("contact", None, (0, 12)), ("battle", "west"), 25) == 10
    assert move_cost(("battle", "east", None), ("battle", "west"), 25) == 20
    assert move_cost(("battle", "east", None), ("battle", "west"), 25, "direct-opposite") == 10
    assert move_cost(("battle", "east", None), ("support", None), 25) == 100
    with pytest.raises(IllegalCommand, match="P-SPH-9"):
        move_cost(("contact", None, (3, 12)), ("battle", "west"), 25)


@pytest.mark.rules("AP-23")
def test_ap23_area_prose_changes_the_recorded_sphere_sizes() -> None:
    """AP-23: square counts by default; the prose areas as the alternative."""
    for ruling, battle in (("square-counts", 10_000), ("area-prose", 2_236)):
        enc = make({"AP-23": ruling})
        enc.execute({"do": "spheres"}, NONE)
        assert enc.state.extra["spheres"]["battle_size"] == battle


@pytest.mark.rules("AP-24")
def test_ap24_nearest_edge_in_play() -> None:
    """AP-24: the ruling reaches the targeting command."""
    for ruling, expected in (("quadrant-edge", 113), ("nearest-edge", 107)):
        enc = make({"AP-24": ruling}, tank={"sphere": "battle", "quadrant": "east"},
                   nia={"sphere": "contact", "position": [11, 7]})
        entry = enc.execute({"do": "target", "actor": "tank", "target_kind": "creature",
                             "target": "nia", "range": 2000}, NONE)
        assert entry.events[0].data["distance"] == expected


@pytest.mark.rules("AP-27", "P-NET-20")
def test_ap27_host_known_shows_every_host() -> None:
    """AP-27, P-NET-20: hosts are hidden from systems that do not know them, unless ruled."""
    for ruling, host in (("host-hidden", None), ("host-known", "hub")):
        enc = make({"AP-27": ruling}, hub={"kind": "item", "system": True},
                   hex={"tags": ["networked"]})
        enc.execute({"do": "network", "actor": "hub", "name": "base", "kind": "global"}, NONE)
        enc.execute({"do": "learn", "actor": "hex", "network": "base"}, NONE)
        enc.execute({"do": "connect", "actor": "hex", "network": "base"}, NONE)
        enc.execute({"do": "run", "actor": "hub", "network": "base", "process": "fw"}, NONE)
        entry = enc.execute({"do": "processes", "actor": "hex", "network": "base"}, NONE)
        assert entry.events[0].data["processes"]["p1"]["host"] == host


@pytest.mark.rules("POL-7", "P-NET-24")
def test_pol7_ad_hoc_reach() -> None:
    """POL-7, P-NET-24: an ad hoc network reaches 100 squares, or 50 by ruling."""
    for ruling, reach in (("100", 100), ("50", 50)):
        enc = make({"POL-7": ruling}, ana={"tags": ["networked"]})
        enc.execute({"do": "network", "actor": "ana", "name": "m"}, NONE)
        assert enc.state.extra["networks"]["m"]["range"] == reach


@pytest.mark.rules("P-NET-23", "P-NET-10")
def test_personal_devices_follow_their_owner_in_and_out_of_range() -> None:
    """P-NET-23, P-NET-10: a paired device connects whenever the owner's personal network is
    in range and drops off when it is not."""
    enc = make(nia={"tags": ["networked"], "position": [0, 0]},
               watch={"kind": "item", "position": [3, 0], "device": {"personal": True}})
    enc.execute({"do": "pair", "actor": "nia", "device": "watch"}, NONE)
    assert "watch" in enc.state.extra["networks"]["nia-pn"]["members"]
    entry = enc.execute({"do": "move", "actor": "nia", "to": [-3, 0]}, NONE)
    assert [e.type for e in entry.events] == ["moved", "network_disconnected"]
    assert "watch" not in enc.state.extra["networks"]["nia-pn"]["members"]
    enc.execute({"do": "move", "actor": "nia", "to": [-2, 0]}, NONE)
    assert "watch" in enc.state.extra["networks"]["nia-pn"]["members"]


@pytest.mark.rules("P-STL-3", "POL-8")
def test_search_odds_are_exact() -> None:
    """P-STL-3, POL-8: 2D6 + 2 reaching a detection defense of 9 is 21/36 (ties succeed)."""
    enc = make(nia={"skills": {"search": 2}},
               trap={"kind": "item", "hidden": True, "skills": {"detection_defense": 9}})
    odds = POLEMOS.odds(enc.state, Command("search", "nia", {}))
    assert odds["found"] == {"trap": Fraction(21, 36)}
    harder = POLEMOS.odds(enc.state, Command("search", "nia", {"detection_modifier": 2}))
    assert harder["found"]["trap"] == Fraction(10, 36)


@pytest.mark.rules("AP-1", "P-STL-2", "P-SOC-6")
@pytest.mark.parametrize("ties", ["ties-succeed", "ties-fail"])
def test_opposed_hiding_and_restrictions_odds_are_what_decide_does_over_every_roll(
        ties: str) -> None:
    """P-SKL opposed rolls (AP-1 ties), P-STL-2 (hiding: the detection defense rolled),
    P-SOC-6 (a place's restrictions abroad, against 8): every pair of 2D6, forced through
    ``decide``, succeeds exactly as often as the odds say."""
    enc = make({"AP-1": ties}, nia={"skills": {"persuade": 3, "stealth": 1, "community": 2}},
               bo={"skills": {"insight": 4}})
    pairs = [[a, b] for a in range(1, 7) for b in range(1, 7)]
    opposed = Command("skill", "nia", {"skill": "persuade", "against": "bo",
                                       "against_skill": "insight"})
    wins = sum(POLEMOS.decide(enc.state, opposed, ForcedDice(mine + theirs))[0].data["success"]
               for mine in pairs for theirs in pairs)
    assert POLEMOS.odds(enc.state, opposed)["success"] == Fraction(wins, 36 * 36)
    hide = Command("hide", "nia", {})
    totals: dict[int, Fraction] = {}
    for pair in pairs:
        defense = next(e for e in POLEMOS.decide(enc.state, hide, ForcedDice(pair))
                       if e.type == "hid").data["defense"]
        totals[defense] = totals.get(defense, Fraction(0)) + Fraction(1, 36)
    assert POLEMOS.odds(enc.state, hide)["totals"] == totals
    abroad = Command("restrictions", "nia", {"location": "port", "foreign": True})
    known = sum(POLEMOS.decide(enc.state, abroad, ForcedDice(pair))[0].data["known"]
                for pair in pairs)
    assert POLEMOS.odds(enc.state, abroad)["success"] == Fraction(known, 36)
    home = Command("restrictions", "nia", {"location": "port"})
    assert POLEMOS.odds(enc.state, home)["success"] == 1


@pytest.mark.rules("P-RNG-1")
def test_attack_odds_refuse_a_target_out_of_range() -> None:
    """P-RNG-1: the odds of an impossible attack are refused like the attack."""
    enc = make(nia={"template": "soldier", "position": [0, 0]},
               orc={"template": "ganger", "position": [200, 0]})
    with pytest.raises(IllegalCommand, match="P-RNG-1"):
        POLEMOS.odds(enc.state, Command("attack", "nia", {"target": "orc"}))
    enc.execute({"do": "move", "actor": "nia", "to": [81, 0]}, NONE)
    odds = POLEMOS.odds(enc.state, Command("attack", "nia", {"target": "orc"}))
    assert odds["hit"] + odds["miss"] == 1


@pytest.mark.rules("POL-5")
def test_moving_is_limited_by_speed_each_turn() -> None:
    """POL-5: up to 'speed' squares a turn, reset at the next turn."""
    enc = make(nia={"position": [0, 0], "speed": 3}, orc={"position": [9, 9]})
    enc.execute({"do": "start", "initiative": {"nia": 9, "orc": 1}}, NONE)
    enc.execute({"do": "move", "actor": "nia", "to": [2, 2]}, NONE)
    with pytest.raises(IllegalCommand, match="can move 3 squares a turn"):
        enc.execute({"do": "move", "actor": "nia", "to": [4, 4]}, NONE)
    enc.execute({"do": "move", "actor": "nia", "to": [3, 3]}, NONE)
    enc.execute({"do": "next"}, NONE)
    enc.execute({"do": "next"}, NONE)
    enc.execute({"do": "move", "actor": "nia", "to": [6, 6]}, NONE)


ACTIONS = st.sampled_from(["move", "search", "hide", "network", "connect", "hack", "map",
                           "pair", "operate", "run", "disconnect", "offline", "next",
                           "attack", "sphere"])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(ACTIONS, st.sampled_from(["nia", "orc"]), st.integers(0, 6)),
                max_size=25), st.integers(0, 1000))
def test_replaying_part2_play_gives_the_identical_state(
    script: list[tuple[str, str, int]], seed: int
) -> None:
    """Rules are pure: networks, detection, movement and spheres replay to the same state."""
    enc = Encounter.create(POLEMOS)
    dice = SeededDice(seed)
    enc.execute({"do": "add", "id": "nia", "template": "soldier", "side": "a",
                 "position": [0, 0], "tags": ["networked"]}, dice)
    enc.execute({"do": "add", "id": "orc", "template": "ganger", "side": "b",
                 "position": [4, 0], "tags": ["networked"]}, dice)
    enc.execute({"do": "add", "id": "veil", "kind": "item", "carried_by": "nia",
                 "device": {"personal": True}}, dice)
    enc.execute({"do": "spheres"}, dice)
    enc.execute({"do": "start"}, dice)
    for action, who, n in script:
        current = enc.state.current or who
        foe = "orc" if current == "nia" else "nia"
        commands: dict[str, dict[str, Any]] = {
            "move": {"do": "move", "actor": current, "to": [n, n - 3]},
            "search": {"do": "search", "actor": current},
            "hide": {"do": "hide", "actor": who},
            "network": {"do": "network", "actor": who, "name": f"n{n % 2}"},
            "connect": {"do": "connect", "actor": who, "network": f"n{n % 2}",
                        "in_range": True, "approved_by": foe},
            "hack": {"do": "connect", "actor": who, "network": f"{foe}-pn", "hack": True},
            "map": {"do": "map", "actor": who, "network": f"n{n % 2}"},
            "pair": {"do": "pair", "actor": who, "device": "veil"},
            "operate": {"do": "operate", "actor": who, "device": "veil", "remote": True,
                        "action": "deactivate" if n % 2 else "activate"},
            "run": {"do": "run", "actor": who, "network": f"n{n % 2}", "process": "p"},
            "disconnect": {"do": "disconnect", "actor": who, "network": f"n{n % 2}"},
            "offline": {"do": "offline", "target": who},
            "next": {"do": "next"},
            "attack": {"do": "attack", "actor": current, "target": foe},
            "sphere": {"do": "deploy", "target": who, "sphere": "battle",
                       "quadrant": ["north", "east", "south", "west"][n % 4]},
        }
        with contextlib.suppress(RulesError):
            enc.execute(commands[action], dice)
    replayed = Encounter.replay(POLEMOS, [Entry.from_json(e.to_json()) for e in enc.log])
    assert replayed.state == enc.state


def test_every_polemos_rule_and_ambiguity_is_covered() -> None:
    """The inventory's Polemos MECH and HOOK ids are all named by a scenario or a test (or, for
    HOOK, the code), and every AP-n is a ruling (`arbiter rulings polemos --coverage`)."""
    from arbiter.coverage import find_inventory, measure, parse_inventory

    path = find_inventory(ROOT)
    if path is None or not path.exists():
        pytest.skip("the rules inventory is not beside the project")
    coverage = measure("polemos", parse_inventory(path.read_text(encoding="utf-8")), ROOT)
    for cls in ("MECH", "HOOK", "ambiguity"):
        assert coverage.by_class[cls][1] == [], cls


@pytest.mark.rules("P-NET-22")
def test_a_personal_network_proxies_connectability_not_membership() -> None:
    """P-NET-22: a system on nia's personal network may connect to the networks nia is a
    member of, without signal of its own, but is not their member until it connects; and a
    network nia only hacked is not proxied."""
    enc = make(nia={"tags": ["networked"], "position": [0, 0]},
               tower={"kind": "item", "system": True, "position": [500, 0]},
               pad={"kind": "item", "system": True, "position": [1, 0]})
    enc.execute({"do": "network", "actor": "tower", "name": "city", "range": 50}, NONE)
    enc.execute({"do": "network", "actor": "tower", "name": "vault", "range": 50}, NONE)
    for net in ("city", "vault"):
        enc.execute({"do": "learn", "actor": "nia", "network": net}, NONE)
        enc.execute({"do": "learn", "actor": "pad", "network": net}, NONE)
    enc.execute({"do": "connect", "actor": "nia", "network": "city", "approved_by": "tower",
                 "in_range": True}, NONE)
    enc.execute({"do": "connect", "actor": "nia", "network": "vault", "hack": True,
                 "in_range": True}, NONE)
    enc.execute({"do": "learn", "actor": "pad", "network": "nia-pn"}, NONE)
    enc.execute({"do": "authorize", "actor": "nia", "network": "nia-pn", "system": "pad"},
                NONE)
    enc.execute({"do": "connect", "actor": "pad", "network": "nia-pn"}, NONE)
    assert isinstance(POLEMOS, PolemosRuleset)
    assert not POLEMOS.member_of(enc.state, "pad", "city")
    with pytest.raises(IllegalCommand, match="no wireless signal"):
        enc.execute({"do": "connect", "actor": "pad", "network": "vault", "hack": True},
                    NONE)
    enc.execute({"do": "connect", "actor": "pad", "network": "city", "hack": True}, NONE)
    assert "pad" in enc.state.extra["networks"]["city"]["hackers"]
