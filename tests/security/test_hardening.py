"""Browser hardening (docs/server.md, "Browser hardening"): the security headers, no-store on
the API, and the Host and Origin checks against DNS rebinding and cross-site requests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from arbiter.server import create_app
from arbiter.server.hardening import CSP, allowed_hosts_for

HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """The app as ``arbiter serve --allowed-host arbiter.lan`` on 127.0.0.1 builds it, with
    the test client's Host name as one more allowed one."""
    hosts = (*(allowed_hosts_for("127.0.0.1", ["arbiter.lan"]) or ()), "testserver")
    with TestClient(create_app(db=tmp_path / "a.db", allowed_hosts=hosts)) as c:
        yield c


def campaign(client: TestClient, **headers: str) -> tuple[str, str, str]:
    """A demo campaign with one encounter: its id, the encounter's, the GM's token."""
    r = client.post("/api/campaigns", json={"name": "Ford", "ruleset": "demo"},
                    headers=headers)
    assert r.status_code == 201, r.text
    cid, token = r.json()["campaign"]["id"], r.json()["gm_token"]
    r = client.post(f"/api/campaigns/{cid}/encounters", json={"name": "Ambush"},
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 201, r.text
    return cid, r.json()["encounter"]["id"], token


@pytest.mark.parametrize("path", ["/", "/play/", "/app.js", "/style.css"])
def test_console_pages_carry_the_security_headers(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200
    for name, value in HEADERS.items():
        assert r.headers[name] == value, name
    assert r.headers["cache-control"] == "no-cache"  # the console's files stay revalidated


def test_api_answers_carry_the_headers_and_no_store(client: TestClient) -> None:
    cid, eid, token = campaign(client)
    gm = {"Authorization": f"Bearer {token}"}
    answers = [client.get("/api/health"), client.get(f"/api/encounters/{eid}", headers=gm),
               client.get(f"/api/encounters/{eid}/log", headers=gm),
               client.get(f"/api/campaigns/{cid}/export", headers=gm),
               client.get("/api/encounters/nope", headers=gm)]  # an error answer too
    assert [r.status_code for r in answers] == [200, 200, 200, 200, 404]
    for r in answers:
        for name, value in HEADERS.items():
            assert r.headers[name] == value, (r.request.url, name)
        assert r.headers["cache-control"] == "no-store", r.request.url


def test_a_foreign_host_is_refused(client: TestClient) -> None:
    r = client.get("/api/health", headers={"Host": "evil.example"})
    assert r.status_code == 400
    assert "evil.example" in r.json()["error"] and "--allowed-host" in r.json()["error"]
    assert r.headers["x-frame-options"] == "DENY"
    assert client.get("/", headers={"Host": "evil.example:8000"}).status_code == 400
    r = client.post("/api/campaigns", json={"name": "x", "ruleset": "demo"},
                    headers={"Host": "evil.example"})
    assert r.status_code == 400


@pytest.mark.parametrize("host", ["arbiter.lan", "ARBITER.LAN:8000", "127.0.0.1:8000",
                                  "localhost", "[::1]:8000"])
def test_allowed_hosts_pass(client: TestClient, host: str) -> None:
    assert client.get("/api/health", headers={"Host": host}).status_code == 200


def test_a_post_from_a_foreign_origin_is_refused(client: TestClient) -> None:
    r = client.post("/api/campaigns", json={"name": "x", "ruleset": "demo"},
                    headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    assert "evil.example" in r.json()["error"]
    for origin in ("null", "http://localhost.evil.example", "garbage"):
        r = client.post("/api/campaigns", json={"name": "x", "ruleset": "demo"},
                        headers={"Origin": origin})
        assert r.status_code == 403, origin
    # A read from a foreign page carries no state change: the browser's CORS rule keeps
    # its answer from the page.
    assert client.get("/api/health", headers={"Origin": "http://evil.example"}
                      ).status_code == 200


@pytest.mark.parametrize("origin", ["http://arbiter.lan:8000", "http://127.0.0.1:8000",
                                    "http://localhost"])
def test_a_post_from_an_allowed_origin_passes(client: TestClient, origin: str) -> None:
    campaign(client, Origin=origin)


def test_the_websocket_refuses_a_foreign_origin(client: TestClient) -> None:
    _, eid, token = campaign(client)
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(
            f"/api/encounters/{eid}/ws", headers={"Origin": "http://evil.example"}):
        pass
    assert refused.value.code == 1008
    with pytest.raises(WebSocketDisconnect), client.websocket_connect(
            f"/api/encounters/{eid}/ws", headers={"Host": "evil.example"}):
        pass
    with client.websocket_connect(f"/api/encounters/{eid}/ws",
                                  headers={"Origin": "http://arbiter.lan:8000"}) as ws:
        ws.send_json({"token": token})
        assert "state" in ws.receive_json()


def test_any_host_on_a_wildcard_address_still_checks_the_origin(tmp_path: Path) -> None:
    """``--host 0.0.0.0`` with no ``--allowed-host``: any Host, but an Origin must name the
    host the request was sent to."""
    assert allowed_hosts_for("0.0.0.0") is None
    with TestClient(create_app(db=tmp_path / "a.db", allowed_hosts=None)) as c:
        assert c.get("/api/health", headers={"Host": "box.lan"}).status_code == 200
        body = {"name": "x", "ruleset": "demo"}
        r = c.post("/api/campaigns", json=body,
                   headers={"Host": "box.lan:8000", "Origin": "http://evil.example"})
        assert r.status_code == 403
        r = c.post("/api/campaigns", json=body,
                   headers={"Host": "box.lan:8000", "Origin": "http://box.lan:8000"})
        assert r.status_code == 201, r.text


def test_serve_warns_on_a_wildcard_address_without_allowed_hosts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn

    from arbiter.server import run_server

    seen: list[object] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.append(app))
    run_server("0.0.0.0", 8000, tmp_path / "a.db", admin_token="t")
    assert "warning" in capsys.readouterr().err
    run_server("0.0.0.0", 8000, tmp_path / "a.db", admin_token="t",
               allowed_hosts=("box.lan",))
    assert "warning" not in capsys.readouterr().err
    with TestClient(seen[-1]) as c:  # type: ignore[arg-type]
        assert c.get("/api/health", headers={"Host": "box.lan"}).status_code == 200
        assert c.get("/api/health", headers={"Host": "evil.example"}).status_code == 400
        assert c.get("/api/health").status_code == 400  # serve never answers "testserver"


def test_an_unhandled_error_carries_the_headers_too(tmp_path: Path) -> None:
    """Starlette answers an exception nothing handled outside the middleware stack: the
    500 still carries the security headers and no-store, and says nothing of the error."""
    app = create_app(db=tmp_path / "a.db")

    async def boom(request: object) -> None:
        raise RuntimeError("secret detail")

    app.router.routes.insert(0, Route("/api/boom", boom))  # before the catch-alls
    with TestClient(app, raise_server_exceptions=False) as c:
        r = c.get("/api/boom")
    assert r.status_code == 500
    assert r.headers["content-security-policy"] == CSP
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["cache-control"] == "no-store"
    assert "secret detail" not in r.text and "internal error" in r.json()["error"]
