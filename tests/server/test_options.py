"""``GET /api/encounters/{eid}/options``: the legal options of a turn, for the asker.

On the demo table (nia and bram, heroes; a wolf; a hidden lurker): a player is answered
for their own character only, from what the player view shows; the game master for any
creature; a refused target carries the rule's reason; the default target is an enemy."""

from __future__ import annotations

from typing import Any

from .conftest import HIDDEN_ID, HIDDEN_NAME, Table


def _options(table: Table, actor: str, headers: dict[str, str]) -> Any:
    return table.client.get(f"/api/encounters/{table.encounter}/options?actor={actor}",
                            headers=headers)


def _start(table: Table) -> None:
    r = table.command({"do": "start", "initiative": {"nia": 20, "bram": 15, "wolf": 10,
                                                     HIDDEN_ID: 5}})
    assert r.status_code == 201, r.text


def test_a_player_gets_the_options_of_their_character_on_its_turn(table: Table) -> None:
    _start(table)
    r = _options(table, "nia", table.player)
    assert r.status_code == 200, r.text
    body = r.json()
    by_name = {o["command"]: o for o in body["options"]}
    assert set(by_name) == {"attack", "next"}  # the player's commands only
    attack = by_name["attack"]
    targets = {t["id"]: t for t in attack["targets"]}
    assert HIDDEN_ID not in targets and HIDDEN_NAME not in r.text  # only what nia's player sees
    assert targets["wolf"]["relation"] == "enemy" and targets["wolf"]["legal"]
    assert targets["bram"]["relation"] == "ally"
    assert targets["nia"] == {"id": "nia", "relation": "self", "distance": None,
                              "legal": False, "reason": "a creature cannot attack itself"}
    assert attack["suggested"] == "wolf"
    assert attack["targets"][0]["id"] == "wolf"  # enemies first
    assert body["version"] >= 1


def test_a_hidden_creature_answers_like_a_missing_one(table: Table) -> None:
    _start(table)
    hidden = _options(table, HIDDEN_ID, table.player)
    missing = _options(table, "ghost", table.player)
    assert hidden.status_code == missing.status_code == 422
    assert hidden.json()["error"].replace(HIDDEN_ID, "ghost") == missing.json()["error"]


def test_a_player_may_not_ask_for_another_creature(table: Table) -> None:
    _start(table)
    r = _options(table, "wolf", table.player)
    assert r.status_code == 403
    assert r.json() == {"error": "'wolf' is not one of your characters", "field": "actor"}
    assert _options(table, "nia;drop", table.player).status_code == 400


def test_off_turn_a_player_is_offered_nothing_the_turn_forbids(table: Table) -> None:
    r = table.command({"do": "start", "initiative": {"wolf": 20, "nia": 10, "bram": 5,
                                                     HIDDEN_ID: 1}})
    assert r.status_code == 201, r.text
    options = _options(table, "nia", table.player).json()["options"]
    assert [o["command"] for o in options] == []  # attack and next are on its turn only


def test_the_gm_is_answered_for_any_creature_with_the_reason_and_remedy(table: Table) -> None:
    _start(table)
    r = _options(table, "wolf", table.gm)
    assert r.status_code == 200, r.text
    attack = next(o for o in r.json()["options"] if o["command"] == "attack")
    assert not attack["legal"]  # it is nia's turn
    nia = next(t for t in attack["targets"] if t["id"] == "nia")
    assert nia["reason"] == "it is nia's turn, not wolf's"
    assert nia["remedy"] == {"text": "wait for its turn", "command": None}
    assert attack["suggested"] is None
    assert attack["no_default"].startswith("no enemy is a legal target now")
    assert {t["id"] for t in attack["targets"]} >= {HIDDEN_ID, "nia"}


def test_the_answer_is_the_same_until_the_state_changes(table: Table) -> None:
    _start(table)
    first = _options(table, "nia", table.player).json()
    assert _options(table, "nia", table.player).json() == first
    r = table.command({"do": "attack", "actor": "nia", "target": "wolf"}, dice=[1])
    assert r.status_code == 201, r.text
    after = _options(table, "nia", table.player).json()
    assert after["version"] > first["version"]


def test_a_downed_enemy_is_listed_but_never_the_default(table: Table) -> None:
    _start(table)
    r = table.command({"do": "damage", "target": "wolf", "amount": 200})
    assert r.status_code == 201, r.text
    attack = next(o for o in _options(table, "nia", table.player).json()["options"]
                  if o["command"] == "attack")
    wolf = next(t for t in attack["targets"] if t["id"] == "wolf")
    assert wolf["down"] is True
    assert attack["suggested"] is None  # bram is an ally: no default at all
    assert attack["no_default"] == "every enemy it could target is down"


def test_an_odds_question_about_a_state_already_gone_is_stale_not_refused(
        table: Table) -> None:
    """The console asks the odds of the state it shows; when the encounter has moved on
    (a turn ended meanwhile), the answer says so (200, nothing worked out) instead of a
    refusal by rules that no longer hold. (The game master's only: a player's versions lag
    on purpose while hidden creatures act.)"""
    _start(table)
    version = table.client.get(f"/api/encounters/{table.encounter}",
                               headers=table.gm).json()["version"]
    ask = {"command": {"do": "attack", "actor": "nia", "target": "wolf"}, "version": version}
    r = table.client.post(f"/api/encounters/{table.encounter}/odds", json=ask,
                          headers=table.gm)
    assert r.status_code == 200 and r.json()["odds"]["hit"]
    assert table.command({"do": "next"}).status_code == 201  # bram's turn now
    r = table.client.post(f"/api/encounters/{table.encounter}/odds", json=ask,
                          headers=table.gm)
    assert r.status_code == 200, r.text
    assert r.json()["stale"] is True and r.json()["odds"] is None
    assert r.json()["version"] > version
    del ask["version"]  # asked of the state now: the rules' refusal
    r = table.client.post(f"/api/encounters/{table.encounter}/odds", json=ask,
                          headers=table.gm)
    assert r.status_code == 422 and "turn" in r.json()["error"]
