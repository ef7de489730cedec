"""``POST /api/dice`` with a ``dialect``: the expression is read in that tool's notation, the
answer spells back what was read in Arbiter's notation, and an unknown dialect is a 422
that names the dialects there are."""

from __future__ import annotations

from starlette.testclient import TestClient


def test_a_dialect_changes_what_the_text_means_and_the_answer_says_how_it_was_read(
    client: TestClient,
) -> None:
    # d20 reads 4d6k3 as "keep the dice showing 3"; Arbiter as "keep the highest 3"
    r = client.post("/api/dice", json={"expression": "4d6k3", "dialect": "d20"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["read_as"] == body["expression"] == "4d6k=3"
    assert body["dialect"] == "d20"
    assert (body["min"], body["max"]) == (0, 12)
    plain = client.post("/api/dice", json={"expression": "4d6k3"}).json()
    assert plain["read_as"] == "4d6kh3" and plain["dialect"] == "arbiter"
    assert (plain["min"], plain["max"]) == (3, 18)


def test_roll20_inclusive_points_and_foundry_margin_of_success(client: TestClient) -> None:
    r = client.post("/api/dice", json={"expression": "3d6>4", "dialect": "roll20"})
    assert r.json()["read_as"] == "3d6>=4"
    assert r.json()["exact"]["3"] == "1/8"  # each die 4+ with chance 1/2
    r = client.post(
        "/api/dice", json={"expression": "2d6ms>=5", "dialect": "foundry", "roll": True}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["read_as"] == "(2d6-5)"
    assert (body["min"], body["max"]) == (-3, 7)
    assert body["roll"]["expression"] == "(2d6-5)"
    assert -3 <= body["roll"]["total"] <= 7


def test_an_unknown_dialect_is_refused_naming_the_known_ones(client: TestClient) -> None:
    r = client.post("/api/dice", json={"expression": "2d6", "dialect": "avrae"})
    assert r.status_code == 422, r.text
    body = r.json()
    for name in ("arbiter", "roll20", "foundry", "d20"):
        assert name in body["error"]
    assert body["field"] == "dialect"


def test_text_the_dialect_cannot_read_is_a_422_on_the_expression(client: TestClient) -> None:
    r = client.post("/api/dice", json={"expression": "4d6e6", "dialect": "roll20"})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "expression"
    assert "unexpected" in r.json()["error"]
