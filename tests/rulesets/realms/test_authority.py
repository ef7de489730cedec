"""Who may set each argument of realms' player commands (docs/rulesets/realms.md, "What the
game master sets"): a player choosing a number or a fact the rules leave to the game master
is refused, naming the argument; the game master's same command still plays; a player who
leaves such a number out gets the rules' default; a closed vocabulary refuses a word it does
not hold, whoever sends it."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from arbiter.core import Command, Encounter, load_ruleset
from arbiter.dice import ForcedDice
from arbiter.scenario.runner import last_result

from ..authority import Player

REALMS = load_ruleset("realms")
PLAYER = frozenset({"nia", "kes"})
"""The player's characters: Nia and her companion Kes."""


PLAYING = Player(REALMS, PLAYER)
as_player, refused, invalid = PLAYING.send, PLAYING.refused, PLAYING.invalid


ACTORS: dict[str, dict[str, Any]] = {
    "nia": {"side": "heroes", "attack": 3, "evasion": 12, "strength": 2, "agility": 2,
            "defenses": {"might": 1, "reflex": 4},
            "skills": {"athletics": 0, "acrobatics": 0, "medicine": 0, "perceive": 0},
            "position": [0, 0], "shield": "buckler"},
    "kes": {"template": "hound", "companion_of": "nia", "side": "heroes", "position": [0, 1]},
    "orc": {"side": "foes", "evasion": 10, "health": 40, "shield": "buckler",
            "defenses": {"might": 0, "reflex": 0}, "position": [1, 0]},
    "ogre": {"side": "foes", "evasion": 30, "health": 40, "position": [5, 5]},
    "bo": {"side": "heroes", "health": 10, "position": [-1, 0]},
}


def scene() -> Encounter:
    """Nia's turn: Bo is Dying, Nia Staggered (to overcome), the ogre hidden (score 13)."""
    enc = Encounter.create(REALMS)
    for name, spec in ACTORS.items():
        enc.execute({"do": "add", "id": name, **spec}, ForcedDice([]))
    enc.execute({"do": "start", "initiative": {"nia": 20, "orc": 10, "ogre": 9, "bo": 8}},
                ForcedDice([]))
    enc.execute({"do": "damage", "target": "bo", "amount": 12}, ForcedDice([]))
    enc.execute({"do": "condition", "target": "nia", "name": "staggered"}, ForcedDice([]))
    enc.execute({"do": "condition", "target": "ogre", "name": "hidden", "score": 13},
                ForcedDice([]))
    assert enc.state.current == "nia"
    return enc


def played(payload: dict[str, Any], dice: list[int]) -> dict[str, Any]:
    """What the game master's ``payload`` did in a fresh scene (its first event)."""
    enc = scene()
    enc.execute(payload, ForcedDice(dice))
    return last_result(enc)


# -- the abuses ---------------------------------------------------------------------------
ATTACK: dict[str, Any] = {"do": "attack", "actor": "nia", "target": "orc"}


def test_a_player_gives_no_situational_bonus_and_the_gm_one_the_rules_could() -> None:
    invalid({**ATTACK, "bonus": 99}, "bonus")  # beyond what the rules give, whoever sends it
    refused({**ATTACK, "bonus": 10}, "bonus")
    refused({**ATTACK, "bonus": -1}, "bonus")
    enc = scene()
    plain = enc.odds(ATTACK)["hit"]
    assert plain == Fraction(7, 10)  # d20 + 3 against Evasion 10
    assert enc.odds({**ATTACK, "bonus": 10})["hit"] == 1
    assert played({**ATTACK, "bonus": 2}, [5, 1])["total"] == 10  # 5 + 3 + 2


DS_COMMANDS: list[dict[str, Any]] = [
    {"do": "skill", "actor": "nia", "skill": "athletics"},
    {"do": "climb", "actor": "nia", "spaces": 1},
    {"do": "swim", "actor": "nia", "spaces": 1},
    {"do": "stabilize", "actor": "nia", "target": "bo"},
    {"do": "overcome", "actor": "nia", "name": "staggered"},
    {"do": "search", "actor": "nia", "target": "ogre"},
]


@pytest.mark.parametrize("command", DS_COMMANDS, ids=[c["do"] for c in DS_COMMANDS])
def test_a_difficulty_score_is_the_game_masters(command: dict[str, Any]) -> None:
    refused({**command, "ds": 0}, "ds")
    as_player(command)  # left out, the command is the player's
    assert played({**command, "ds": 0}, [1])["ds"] == 0  # the GM's DS plays


@pytest.mark.rules("R-JMP-2", "R-SWM-1", "AR-16")
@pytest.mark.parametrize("command", DS_COMMANDS[:5], ids=[c["do"] for c in DS_COMMANDS[:5]])
def test_a_player_leaving_the_ds_out_rolls_against_the_seeds_base_ds(
        command: dict[str, Any]) -> None:
    """BASE_DS: 10 (R-JMP-2's base DS, R-SWM-1's calm water); every bonus here is 0, and
    meet or beat succeeds (AR-16)."""
    enc = scene()
    bonus = {"overcome": 1}.get(command["do"], 0)  # Might +1
    assert enc.odds(command)["success"] == Fraction(11 + bonus, 20)
    enc.execute(command, ForcedDice([9]))
    result = last_result(enc)
    assert result["ds"] == 10 and result["total"] == 9 + bonus


def test_a_search_left_without_a_ds_is_against_the_hiders_score() -> None:
    enc = scene()
    search = {"do": "search", "actor": "nia", "target": "ogre"}
    assert enc.odds(search)["success"] == Fraction(8, 20)  # d20 >= 13
    enc.execute(search, ForcedDice([13]))
    assert last_result(enc)["ds"] == 13 and last_result(enc)["found"] is True


def test_attack_against_names_evasion_or_a_defense() -> None:
    typo = {"do": "attack", "actor": "nia", "target": "ogre", "against": "evasoin"}
    invalid(typo, "against")
    enc = scene()  # the ogre stands 5 spaces off: beside nia, within her reach (RLM-11)
    enc.execute({"do": "place", "target": "ogre", "at": [1, -1]}, ForcedDice([]))
    enc.execute({"do": "attack", "actor": "nia", "target": "ogre"}, ForcedDice([20, 1]))
    assert last_result(enc)["score"] == 30
    as_player({**ATTACK, "against": "reflex"})  # which defense the attack is against: the player's
    assert played({**ATTACK, "against": "reflex"}, [1])["score"] == 10


@pytest.mark.parametrize(("payload", "field"), [
    ({"do": "overcome", "actor": "nia", "name": "staggered", "defense": "migth"}, "defense"),
    ({"do": "overcome", "actor": "nia", "name": "stagered"}, "name"),
    ({"do": "check", "actor": "nia", "target": "orc", "type": "slahsing"}, "type"),
    ({"do": "skill", "actor": "nia", "skill": "athletics", "target": "orc",
      "maneuver": "trip"}, "maneuver"),
    ({"do": "skill", "actor": "nia", "skill": "perceive", "sense": "smell"}, "sense"),
    ({"do": "search", "actor": "nia", "skill": "perceiv"}, "skill"),
    ({"do": "jump", "actor": "nia", "spaces": 9, "skill": "athletic"}, "skill"),
    ({"do": "swim", "actor": "nia", "spaces": 1, "skill": "swimming"}, "skill"),
    ({"do": "stabilize", "actor": "nia", "target": "bo", "method": "prayer"}, "method"),
], ids=["overcome-defense", "overcome-name", "check-type", "maneuver", "sense", "search-skill",
        "jump-skill", "swim-skill", "stabilize-method"])
def test_a_closed_vocabulary_refuses_a_word_it_does_not_hold(payload: dict[str, Any],
                                                             field: str) -> None:
    invalid(payload, field)


def test_the_closed_vocabularies_play_their_words() -> None:
    assert played({"do": "check", "target": "nia", "type": "psychic"}, [])["dr"] == 0
    assert played({"do": "overcome", "actor": "nia", "name": "staggered", "defense": "reflex"},
                  [6])["total"] == 10  # Reflex +4
    assert played({"do": "stabilize", "actor": "nia", "target": "bo", "method": "bandage"},
                  [])["stabilized"] is True


# -- every other argument -------------------------------------------------------------------
GM_ONLY: list[tuple[dict[str, Any], str]] = [
    ({**ATTACK, "defend": True}, "defend"),
    ({**ATTACK, "unaware": True}, "unaware"),
    ({**ATTACK, "sees_fear_source": False}, "sees_fear_source"),
    ({**ATTACK, "target_sees_fear_source": False}, "target_sees_fear_source"),
    ({**ATTACK, "rm_allows": True}, "rm_allows"),
    ({"do": "skill", "actor": "nia", "skill": "perceive", "sense": "sight"}, "sense"),
    ({"do": "skill", "actor": "nia", "skill": "athletics", "bonus": 2}, "bonus"),
    ({"do": "skill", "actor": "nia", "skill": "athletics", "balance": False}, "balance"),
    ({"do": "skill", "actor": "nia", "skill": "athletics", "harmful": False}, "harmful"),
    ({"do": "skill", "actor": "nia", "skill": "athletics", "arms": False}, "arms"),
    ({"do": "skill", "actor": "nia", "skill": "athletics", "sees_fear_source": False},
     "sees_fear_source"),
    ({"do": "skill", "actor": "nia", "skill": "athletics", "rm_allows": True}, "rm_allows"),
    ({"do": "search", "actor": "nia", "bonus": 1}, "bonus"),
    ({"do": "search", "actor": "nia", "sense": "hearing"}, "sense"),
    ({"do": "search", "actor": "nia", "balance": True}, "balance"),
    ({"do": "search", "actor": "nia", "sees_fear_source": True}, "sees_fear_source"),
    ({"do": "overcome", "actor": "nia", "name": "staggered", "defense": "reflex"}, "defense"),
    ({"do": "move", "actor": "nia", "spaces": 2, "difficult": False}, "difficult"),
    ({"do": "move", "actor": "nia", "path": [[0, -1]], "forbid_larger": False},
     "forbid_larger"),
    ({"do": "climb", "actor": "nia", "spaces": 1, "rm_allows": True}, "rm_allows"),
    ({"do": "swim", "actor": "nia", "spaces": 1, "rm_allows": True}, "rm_allows"),
    ({"do": "stabilize", "actor": "nia", "target": "bo", "rm_allows": True}, "rm_allows"),
    ({"do": "mount", "actor": "nia", "target": "orc", "rm_allows": True}, "rm_allows"),
]


@pytest.mark.parametrize(("payload", "field"), GM_ONLY,
                         ids=[f"{p['do']}-{f}" for p, f in GM_ONLY])
def test_a_fact_the_rules_leave_to_the_game_master_is_refused_to_a_player(
        payload: dict[str, Any], field: str) -> None:
    refused(payload, field)
    REALMS.validate(Command.from_json(payload))  # the game master may send it


PLAYERS: list[dict[str, Any]] = [
    {**ATTACK, "weapon": "dagger", "against": "might"},
    {"do": "attack", "actor": "nia", "target": "orc", "reaction": "flank"},
    {"do": "skill", "actor": "nia", "skill": "athletics", "target": "orc",
     "maneuver": "grapple", "roller": "kes", "helper": "nia"},
    {"do": "search", "actor": "nia", "skill": "search", "roller": "kes"},
    {"do": "move", "actor": "nia", "path": [[0, -1], [1, -2]]},
    {"do": "move", "actor": "nia", "spaces": 2, "diagonals": 1},
    {"do": "jump", "actor": "nia", "spaces": 3, "vertical": True, "skill": "acrobatics"},
    {"do": "climb", "actor": "nia", "spaces": 1},
    {"do": "swim", "actor": "nia", "spaces": 1, "skill": "athletics"},
    {"do": "stabilize", "actor": "nia", "target": "bo", "method": "potion"},
    {"do": "overcome", "actor": "nia", "name": "staggered"},
    {"do": "spend_energy", "actor": "nia", "amount": 2},
    {"do": "check", "actor": "nia", "target": "orc", "type": "fire"},
    {"do": "mount", "actor": "nia", "target": "orc"},
    {"do": "dismount", "actor": "nia", "at": [0, 2]},
    {"do": "command", "actor": "nia", "target": "kes"},
]


@pytest.mark.parametrize("payload", PLAYERS, ids=[p["do"] for p in PLAYERS])
def test_what_the_rules_let_a_player_choose_is_the_players(payload: dict[str, Any]) -> None:
    as_player(payload)


def test_a_helper_is_a_companion_of_the_players_own() -> None:
    refused({"do": "skill", "actor": "nia", "skill": "athletics", "helper": "bo"}, "helper")
    refused({"do": "search", "actor": "nia", "helper": "bo"}, "helper")


def test_a_stat_block_names_only_the_rules_defenses() -> None:
    enc = Encounter.create(REALMS)
    with pytest.raises(Exception, match="no defense 'will'"):
        enc.execute({"do": "add", "id": "x", "defenses": {"will": 1}}, ForcedDice([]))
