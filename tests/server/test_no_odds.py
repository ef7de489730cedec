"""Odds: "no odds for this command" is an answer of its own, not an error to read words from.

A legal command the ruleset computes no odds for answers 200 with ``"odds": null`` and the
reason; a command the rules refuse right now answers 422 with the refusal the command itself
would get (so a console probing targets greys out what it may not do).
"""

from __future__ import annotations

from .conftest import Table


def odds(table: Table, command: dict[str, object], headers: dict[str, str] | None = None,
         ) -> tuple[int, dict[str, object]]:
    r = table.client.post(f"/api/encounters/{table.encounter}/odds",
                          json={"command": command}, headers=headers or table.gm)
    body: dict[str, object] = r.json()
    return r.status_code, body


def test_a_legal_command_without_odds_answers_null_with_the_reason(table: Table) -> None:
    status, body = odds(table, {"do": "damage", "target": "wolf", "amount": 3})
    assert status == 200, body
    assert body["odds"] is None
    assert body["reason"] == "demo computes no odds for 'damage'"
    assert body["command"] == {"do": "damage", "target": "wolf", "amount": 3}


def test_a_refused_command_answers_with_the_commands_own_refusal(table: Table) -> None:
    # the command itself is refused (nia cannot attack herself), and so are its odds
    r = table.command({"do": "attack", "actor": "nia", "target": "nia"})
    assert r.status_code == 422
    status, body = odds(table, {"do": "attack", "actor": "nia", "target": "nia"})
    assert status == 422
    assert body["error"] == r.json()["error"]


def test_odds_change_nothing(table: Table) -> None:
    before = table.client.get(f"/api/encounters/{table.encounter}", headers=table.gm).json()
    odds(table, {"do": "attack", "actor": "nia", "target": "wolf"})
    odds(table, {"do": "damage", "target": "wolf", "amount": 3})
    after = table.client.get(f"/api/encounters/{table.encounter}", headers=table.gm).json()
    assert after == before
