"""Bounded work: no player and no stranger can slow the table (issue: bounded work).

Each test plays the input the tester used and asserts the refusal (status, the limit it
names) or that the work stays small. CPU times are the process's own clock (the server runs
in this process, docs in tests/security/test_api.py), with a margin of ten or more over
what the code takes, and far below what it took before the fix (figures in each test).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from arbiter import limits
from arbiter.core import Encounter, IllegalCommand, load_ruleset
from arbiter.core.catalogue import MAX_ITEMS
from arbiter.dice import ForcedDice
from arbiter.rulesets.polemos.grid import Walls, crossed
from arbiter.server import create_app, hub, uvicorn_options
from arbiter.server.hub import Hub, Subscriber
from arbiter.server.views import View

from ..server.conftest import Game, set_game
from .live import free_port

NONE = ForcedDice([])


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db=tmp_path / "b.db", rate_per_minute=10_000)) as c:
        yield c


def cpu_ms(fn: Any) -> tuple[Any, float]:
    began = time.process_time()
    out = fn()
    return out, (time.process_time() - began) * 1000


def command(game: Game, body: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
    r: httpx.Response = game.client.post(f"/api/encounters/{game.encounter}/commands",
                                         json={"command": body}, headers=headers)
    return r


# -- 1. Polemos: a far move on a map with one wall ----------------------------------------------
def polemos_with_a_wall(client: TestClient) -> Game:
    game = set_game(client, "polemos", [{"id": "scout", "template": "soldier"}], ["scout"])
    for body in ({"do": "place", "target": "scout", "at": [0, 0]},
                 {"do": "terrain", "squares": [[5, 7]], "what": "wall"}):
        assert command(game, body, game.gm).status_code == 201
    return game


def test_a_far_move_is_refused_before_any_path_is_looked_at(client: TestClient) -> None:
    """Before: 25 s of CPU (median of 3) and about 10 MB kept in the line cache per move to
    [99990, 3]; the encounter's lock held all along."""
    game = polemos_with_a_wall(client)
    r, ms = cpu_ms(lambda: command(game, {"do": "move", "actor": "scout", "to": [99990, 3]},
                                   game.player))
    assert r.status_code == 422, r.text
    assert r.json()["rule"] == "POL-5"
    assert f"at most {limits.MOVE_SQUARES} squares (limit MOVE_SQUARES)" in r.json()["error"]
    assert ms < 200


def test_the_longest_move_allowed_is_fast_and_still_meets_the_walls(client: TestClient) -> None:
    """A move of MOVE_SQUARES squares tests only the walls near its line (the wall index),
    and finds one there exactly as walking the line square by square does."""
    game = polemos_with_a_wall(client)
    far = limits.MOVE_SQUARES
    assert command(game, {"do": "terrain", "squares": [[far // 2, 0]], "what": "window"},
                   game.gm).status_code == 201
    r, ms = cpu_ms(lambda: command(game, {"do": "move", "actor": "scout", "to": [far, 0]},
                                   game.player))
    assert r.status_code == 422 and r.json()["rule"] == "P-REQ-5", r.text
    assert ms < 200
    r, ms = cpu_ms(lambda: command(game, {"do": "move", "actor": "scout", "to": [far, 2]},
                                   game.player))
    assert r.status_code == 201, r.text  # that line passes beside the window
    assert ms < 200
    assert (far // 2, 0) not in crossed((0, 0), (far, 2))


SQUARE = st.tuples(st.integers(-40, 40), st.integers(-40, 40))


@settings(max_examples=200, deadline=None)
@given(a=SQUARE, b=SQUARE, walls=st.lists(SQUARE, max_size=80))
def test_the_wall_index_finds_what_walking_the_line_finds(
        a: tuple[int, int], b: tuple[int, int], walls: list[tuple[int, int]]) -> None:
    index = Walls(walls)
    assert index.on_line(a, b) == [s for s in crossed(a, b) if s in set(walls)]
    far = (a[0] * 4 + 70, b[1] * 3)  # a long line: never walked, only the walls near it
    assert index.on_line(a, far) == [s for s in crossed(a, far) if s in set(walls)]


def test_a_long_line_of_sight_is_never_cached() -> None:
    from arbiter.rulesets.polemos import grid

    before = grid._crossed.cache_info().currsize
    crossed((0, 0), (5000, 3))
    assert grid._crossed.cache_info().currsize == before


# -- 2. painted maps ----------------------------------------------------------------------------
def paint(game: Game, n: int, ruleset_args: dict[str, Any]) -> list[httpx.Response]:
    squares = [[x, y] for y in range(2, 1000) for x in range(200)][:n]
    return [command(game, {"do": "terrain", "squares": squares[i:i + MAX_ITEMS],
                           **ruleset_args}, game.gm)
            for i in range(0, len(squares), MAX_ITEMS)]


def test_a_map_holds_at_most_map_squares_and_a_long_move_over_it_is_fast(
        client: TestClient) -> None:
    """Before: 5.9 s for one 1,000-step realms move on a 40,000-square map (15 s at 60,000):
    the difficult terrain was read again at every step."""
    game = set_game(client, "realms", [{"id": "nia", "template": "knight"}], ["nia"])
    assert command(game, {"do": "place", "target": "nia", "at": [0, 0]},
                   game.gm).status_code == 201
    assert all(r.status_code == 201 for r in paint(game, limits.MAP_SQUARES, {}))
    r = command(game, {"do": "terrain", "squares": [[0, 5000], [1, 5000]]}, game.gm)
    assert r.status_code == 422, r.text
    assert f"at most {limits.MAP_SQUARES} (limit MAP_SQUARES)" in r.json()["error"]
    assert command(game, {"do": "terrain", "squares": [[0, 2]], "clear": True},
                   game.gm).status_code == 201  # clearing is always allowed
    path = [[x, 1] for x in range(1, 1001)]
    r, ms = cpu_ms(lambda: command(game, {"do": "move", "actor": "nia", "path": path},
                                   game.player))
    assert r.status_code == 201, r.text
    assert ms < 1500


def test_one_terrain_command_paints_at_most_paint_squares(client: TestClient) -> None:
    assert limits.PAINT_SQUARES == MAX_ITEMS
    game = set_game(client, "realms", [{"id": "nia", "template": "knight"}], ["nia"])
    squares = [[x, 0] for x in range(limits.PAINT_SQUARES + 1)]
    r = command(game, {"do": "terrain", "squares": squares}, game.gm)
    assert r.status_code == 422, r.text
    assert str(limits.PAINT_SQUARES) in r.json()["error"]


def test_a_polemos_map_holds_at_most_map_squares() -> None:
    enc = Encounter.create(load_ruleset("polemos"), {})
    squares = [[x, y] for y in range(1000) for x in range(200)][:limits.MAP_SQUARES]
    for i in range(0, len(squares), MAX_ITEMS):
        enc.execute({"do": "terrain", "squares": squares[i:i + MAX_ITEMS]}, NONE)
    enc.execute({"do": "terrain", "squares": [[0, 0]], "what": "smoke"}, NONE)  # repainted
    with pytest.raises(IllegalCommand, match="at most 40000 \\(limit MAP_SQUARES\\)"):
        enc.execute({"do": "terrain", "squares": [[0, 5000]]}, NONE)


# -- 3. WebSocket ---------------------------------------------------------------------------------
def test_the_ninth_subscription_of_one_token_is_refused(client: TestClient) -> None:
    game = set_game(client, "demo", [{"id": "nia", "template": "guard"}], ["nia"])
    token = game.player["Authorization"].removeprefix("Bearer ")
    url = f"/api/encounters/{game.encounter}/ws"
    with contextlib.ExitStack() as stack:
        for _ in range(limits.WS_PER_TOKEN):
            ws = stack.enter_context(client.websocket_connect(url))
            ws.send_json({"token": token})
            assert ws.receive_json()["type"] == "hello"
        with client.websocket_connect(url) as ws:
            ws.send_json({"token": token})
            message = ws.receive_json()
            assert message["type"] == "error"
            assert "at most 8 at once (limit WS_PER_TOKEN)" in message["error"]
            closed = ws.receive()
            assert closed["type"] == "websocket.close" and closed["code"] == 4429
            assert "WS_PER_TOKEN" in closed["reason"]
        gm = game.gm["Authorization"].removeprefix("Bearer ")
        with client.websocket_connect(url) as ws:  # another token has its own count
            ws.send_json({"token": gm})
            assert ws.receive_json()["type"] == "hello"
    with client.websocket_connect(url) as ws:  # the closed ones were given back
        ws.send_json({"token": token})
        assert ws.receive_json()["type"] == "hello"


def test_a_socket_sending_too_many_messages_is_closed(client: TestClient) -> None:
    game = set_game(client, "demo", [{"id": "nia", "template": "guard"}], ["nia"])
    with client.websocket_connect(f"/api/encounters/{game.encounter}/ws") as ws:
        ws.send_json({"token": game.player["Authorization"].removeprefix("Bearer ")})
        assert ws.receive_json()["type"] == "hello"
        for _ in range(limits.WS_MESSAGES_PER_SECOND + 1):
            ws.send_text('{"type": "ping"}')
        answers = [ws.receive_json() for _ in range(limits.WS_MESSAGES_PER_SECOND + 1)]
        assert [a["type"] for a in answers] == ["pong"] * limits.WS_MESSAGES_PER_SECOND + [
            "error"]
        assert "(limit WS_MESSAGES_PER_SECOND)" in answers[-1]["error"]
        closed = ws.receive()
        assert closed["type"] == "websocket.close" and closed["code"] == 4429


def test_each_view_is_rendered_once_per_principal_not_per_socket(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    game = set_game(client, "demo", [{"id": "nia", "template": "guard"}], ["nia"])
    api = client.app.state.api  # type: ignore[attr-defined]
    built: list[str] = []
    real = View

    def counting(state: Any, principal: Any, ruleset: Any) -> Any:
        built.append(principal.role)
        return real(state, principal, ruleset)
    monkeypatch.setattr(hub, "View", counting)
    url = f"/api/encounters/{game.encounter}/ws"
    with contextlib.ExitStack() as stack:
        for token in [game.player["Authorization"]] * 5 + [game.gm["Authorization"]] * 3:
            ws = stack.enter_context(client.websocket_connect(url))
            ws.send_json({"token": token.removeprefix("Bearer ")})
            assert ws.receive_json()["type"] == "hello"
        assert api.hub.count(game.encounter) == 8
        r = command(game, {"do": "add", "id": "wolf", "template": "wolf"}, game.gm)
        assert r.status_code == 201, r.text
    assert sorted(built) == ["gm", "player"]


def test_the_hub_counts_per_token_and_per_address() -> None:
    h = Hub(per_token=2, per_address=3)
    loop: Any = None
    subs = [Subscriber("e", None, loop, token=t, address="10.0.0.1")  # type: ignore[arg-type]
            for t in ("a", "a", "a", "b", "c")]
    assert [h.reserve(s) for s in subs[:2]] == [None, None]
    assert "limit WS_PER_TOKEN" in (h.reserve(subs[2]) or "")
    assert h.reserve(subs[3]) is None
    assert "limit WS_PER_ADDRESS" in (h.reserve(subs[4]) or "")
    h.release(subs[0])
    assert h.reserve(subs[4]) is None


# -- 4. two consoles press Next at the same moment ---------------------------------------------
def test_two_nexts_with_the_same_expected_version_end_one_turn(client: TestClient) -> None:
    game = set_game(client, "demo", [{"id": "nia", "template": "guard"},
                                     {"id": "wolf", "template": "wolf"}], ["nia"])
    r = command(game, {"do": "start"}, game.gm)
    assert r.status_code == 201, r.text
    version = r.json()["version"]
    url = f"/api/encounters/{game.encounter}/commands"
    body = {"command": {"do": "next"}, "expected_version": version}
    first = client.post(url, json=body, headers=game.gm)
    second = client.post(url, json=body, headers=game.gm)
    assert first.status_code == 201, first.text
    assert second.status_code == 409, second.text
    assert second.json()["field"] == "expected_version"
    assert client.get(f"/api/encounters/{game.encounter}",
                      headers=game.gm).json()["version"] == version + 1


def test_the_console_sends_the_version_it_shows_with_each_turn_change() -> None:
    source = (Path(__file__).parents[2] / "src/arbiter/web/static/app.js").read_text()
    assert "expected_version: S.state ? S.state.version" in source
    for button in ("start", "end"):
        assert f'turnChange({{ do: "{button}" }})' in source
    assert 'turnChange({ do: "next" })' in source
    assert "the turn had already changed" in source


# -- 5. X-Forwarded-For ---------------------------------------------------------------------------
def test_forwarded_for_is_read_only_from_a_trusted_proxy(tmp_path: Path) -> None:
    dice = {"expression": "2d6"}
    with TestClient(create_app(db=tmp_path / "x.db", rate_per_minute=2)) as c:
        answers = [c.post("/api/dice", json=dice,
                          headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code
                   for i in range(3)]
        assert answers == [200, 200, 429]  # one budget: the peer's own
    with TestClient(create_app(db=tmp_path / "y.db", rate_per_minute=2,
                               trusted_proxies=("testclient",))) as c:
        answers = [c.post("/api/dice", json=dice,
                          headers={"X-Forwarded-For": f"1.2.3.4, 10.0.0.{i}"}).status_code
                   for i in range(3)]
        assert answers == [200, 200, 200]  # the proxy's header names each client


def test_a_loopback_client_cannot_claim_another_address_on_the_real_server(
        tmp_path: Path) -> None:
    """uvicorn as ``arbiter serve`` runs it: by default uvicorn itself would take any
    loopback client's X-Forwarded-For as its address."""
    port = free_port()
    config = uvicorn.Config(create_app(db=tmp_path / "live.db", rate_per_minute=2),
                            host="127.0.0.1", port=port, lifespan="on",
                            **uvicorn_options())  # type: ignore[arg-type]
    server = uvicorn.Server(config)
    import threading

    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                    break
            time.sleep(0.05)
        answers = [httpx.post(f"{base}/api/dice", json={"expression": "2d6"}, timeout=10,
                              headers={"X-Forwarded-For": f"10.0.0.{i}"}).status_code
                   for i in range(3)]
        assert answers == [200, 200, 429]
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_serve_passes_the_trusted_proxies_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    import arbiter.server
    from arbiter.cli import app as cli

    given: dict[str, Any] = {}
    monkeypatch.setattr(arbiter.server, "run_server", lambda **kw: given.update(kw))
    result = CliRunner().invoke(cli, ["serve", "--trusted-proxy", "10.0.0.9",
                                      "--trusted-proxy", "::1"])
    assert result.exit_code == 0, result.output
    assert given["trusted_proxies"] == ("10.0.0.9", "::1")
    assert CliRunner().invoke(cli, ["serve"]).exit_code == 0
    assert given["trusted_proxies"] == ()
    assert uvicorn_options()["proxy_headers"] is False
