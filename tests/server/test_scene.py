"""The scene's image (issue 34): uploaded by the game master as a PNG, JPEG or WebP, checked
by its content and encoded again so only pixels are kept and served, set by a logged
``scene`` command (calibrated, undone, exported and imported like any other), and read by the
campaign's players."""

from __future__ import annotations

import io
import struct
import zlib
from typing import Any

import pytest
from PIL import Image
from starlette.testclient import TestClient

from arbiter.limits import CAMPAIGN_IMAGE_BYTES, IMAGE_BYTES, IMAGE_SIDE

from .test_table_dice import Table


def picture(kind: str = "PNG", size: tuple[int, int] = (96, 64), tail: bytes = b"") -> bytes:
    im = Image.new("RGB", size, (40, 90, 60))
    for x in range(0, size[0], 8):
        im.putpixel((x, 0), (250, 250, 250))
    out = io.BytesIO()
    im.save(out, kind)
    return out.getvalue() + tail


@pytest.fixture
def table(client: TestClient) -> Table:
    return Table(client, "realms", [{"id": "nia", "template": "knight", "side": "heroes"}],
                 ["nia"])


def put(table: Table, data: bytes, kind: str = "image/png",
        who: dict[str, str] | None = None) -> Any:
    return table.client.put(f"/api/encounters/{table.eid}/scene/image", content=data,
                            headers={**(who or table.gm), "Content-Type": kind})


def get(table: Table, who: dict[str, str]) -> Any:
    return table.client.get(f"/api/encounters/{table.eid}/scene/image", headers=who)


def test_an_uploaded_image_is_the_scene_for_the_gm_and_the_players(table: Table) -> None:
    r = put(table, picture())
    assert r.status_code == 201, r.text
    body = r.json()
    image = body["image"]
    assert (image["width"], image["height"], image["content_type"]) == (96, 64, "image/png")
    assert body["state"]["scene"] == {"image": image["hash"], "width": 96, "height": 64,
                                      "square": 64, "offset_x": 0, "offset_y": 0}
    assert body["record"]["text"] == ("The scene is set: a 96x64 background, a square is 64 "
                                      "pixels from (0, 0).")
    for who in (table.gm, table.player):
        got = get(table, who)
        assert got.status_code == 200
        assert got.headers["content-type"] == "image/png"
        assert Image.open(io.BytesIO(got.content)).size == (96, 64)
        state = table.client.get(f"/api/encounters/{table.eid}", headers=who).json()
        assert state["scene"]["image"] == image["hash"]
    assert put(table, picture()).status_code == 200  # the same image again: nothing to log
    stranger = {"Authorization": "Bearer nobody"}
    assert get(table, stranger).status_code == 401


def test_the_grid_is_calibrated_by_a_command_and_undone(table: Table) -> None:
    put(table, picture())
    r = table.post(table.gm, {"command": {"do": "scene", "square": 48, "offset_x": 12,
                                          "offset_y": -6}})
    assert r.status_code == 201, r.text
    scene = r.json()["state"]["scene"]
    assert (scene["square"], scene["offset_x"], scene["offset_y"]) == (48, 12, -6)
    r = table.post(table.player, {"command": {"do": "scene", "square": 10}})
    assert r.status_code == 403
    r = table.client.post(f"/api/encounters/{table.eid}/undo", headers=table.gm)
    assert r.status_code == 201
    state = table.client.get(f"/api/encounters/{table.eid}", headers=table.gm).json()
    assert state["scene"]["square"] == 64
    r = table.client.delete(f"/api/encounters/{table.eid}/scene/image", headers=table.gm)
    assert r.status_code == 201, r.text
    assert get(table, table.gm).status_code == 404


def test_what_is_not_a_png_jpeg_or_webp_is_refused(table: Table) -> None:
    r = put(table, b"GIF89a" + b"\0" * 40, "image/png")
    assert r.status_code == 415
    assert r.json()["error"] == ("not a PNG, JPEG or WebP image (its content says so, "
                                 "whatever its name or type)")
    r = put(table, picture(), "text/html")
    assert r.status_code == 415 and r.json()["field"] == "content-type"
    r = put(table, picture()[:60])
    assert r.status_code == 422 and "cannot be read" in r.json()["error"]
    assert get(table, table.gm).status_code == 404


def test_too_large_a_file_or_image_is_refused_before_decoding(table: Table) -> None:
    r = put(table, b"\x89PNG\r\n\x1a\n" + b"\0" * (IMAGE_BYTES + 1))
    assert r.status_code == 413
    # a tiny file declaring 20000 x 20000 pixels: refused from its header
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))
    bomb = (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", 20_000, 20_000, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))
    assert len(bomb) < 200
    r = put(table, bomb)
    assert r.status_code == 413
    assert r.json()["error"] == (f"the image declares more pixels than {IMAGE_SIDE}x"
                                 f"{IMAGE_SIDE}: at most {IMAGE_SIDE} a side")
    r = put(table, picture(size=(IMAGE_SIDE + 1, 2)))  # within Pillow's bound, past ours
    assert r.status_code == 413
    assert r.json()["error"] == (f"the image is {IMAGE_SIDE + 1}x2 pixels: at most "
                                 f"{IMAGE_SIDE} a side")
    assert CAMPAIGN_IMAGE_BYTES >= IMAGE_BYTES


@pytest.mark.parametrize("kind", ["PNG", "JPEG", "WEBP"])
def test_a_polyglot_comes_back_as_pixels_only(table: Table, kind: str) -> None:
    script = b"<script>alert(document.cookie)</script>"
    mime = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}[kind]
    r = put(table, picture(kind, tail=script), mime)
    assert r.status_code == 201, r.text
    got = get(table, table.player)
    assert got.headers["content-type"] == mime
    assert script not in got.content and b"<script" not in got.content
    assert got.headers["x-content-type-options"] == "nosniff"
    assert Image.open(io.BytesIO(got.content)).format == kind


def test_export_and_import_carry_the_images(table: Table) -> None:
    image = put(table, picture("WEBP")).json()["image"]
    exported = table.client.get(f"/api/campaigns/{table.cid}/export", headers=table.gm)
    assert exported.status_code == 200, exported.text
    document = exported.json()
    assert [i["hash"] for i in document["images"]] == [image["hash"]]
    document["campaign"]["id"] = "c-copy"
    for n, enc in enumerate(document["encounters"]):
        enc["id"] = f"e-copy-{n}"
    r = table.client.post("/api/campaigns/import", json=document)
    assert r.status_code == 201, r.text
    # the same tokens come with the campaign: its game master reads the image there
    got = table.client.get("/api/encounters/e-copy-0/scene/image", headers=table.gm)
    assert got.status_code == 200 and got.headers["content-type"] == "image/webp"
    # encoded again as it came in (a WebP's pixels are lossy, its size is the same)
    assert Image.open(io.BytesIO(got.content)).size == (96, 64)


def test_an_imported_image_is_checked_as_an_upload(table: Table) -> None:
    put(table, picture())
    document = table.client.get(f"/api/campaigns/{table.cid}/export", headers=table.gm).json()
    document["campaign"]["id"] = "c-bad"
    for n, enc in enumerate(document["encounters"]):
        enc["id"] = f"e-bad-{n}"
    document["images"][0]["data"] = "R0lGODlhAQABAAAAACw="  # a GIF
    r = table.client.post("/api/campaigns/import", json=document)
    assert r.status_code == 422
    assert r.json()["field"] == "images.0.data"
    assert "not a PNG, JPEG or WebP" in r.json()["error"]


def test_a_players_image_is_dark_under_the_fog(table: Table) -> None:
    """Under fog, the image a player receives is dark but for the revealed squares (the
    scene's calibration places them on it); the game master's is whole."""
    put(table, picture(size=(128, 64)))  # two squares of 64 pixels side by side
    r = table.post(table.gm, {"command": {"do": "fog", "enabled": True, "squares": [[1, 0]]}})
    assert r.status_code == 201, r.text
    shown = Image.open(io.BytesIO(get(table, table.player).content)).convert("RGB")
    whole = Image.open(io.BytesIO(get(table, table.gm).content)).convert("RGB")
    assert shown.getpixel((20, 30)) == (35, 35, 43)  # square (0, 0): fog
    assert shown.getpixel((90, 30)) == whole.getpixel((90, 30)) == (40, 90, 60)  # revealed
    assert get(table, table.player).headers["cache-control"] == "no-store"
    table.post(table.gm, {"command": {"do": "fog", "squares": [[0, 0]]}})
    shown = Image.open(io.BytesIO(get(table, table.player).content)).convert("RGB")
    assert shown.getpixel((20, 30)) == (40, 90, 60)


def test_the_grid_demos_open_on_a_scene_drawn_for_them(tmp_path: Any) -> None:
    from arbiter.core import load_ruleset
    from arbiter.scenes import SQUARE, demo_scene, scene_module
    from arbiter.store import EventStore, GameService
    from arbiter.web.demo import create_demo_tables

    service = GameService(EventStore.open(tmp_path / "demo.db"))
    tables = {t.ruleset: t for t in create_demo_tables(service)}
    for ruleset, table in tables.items():
        scene = service.read(table.encounter, lambda ld: ld.state.extra.get("scene"))
        if scene_module(load_ruleset(ruleset)) is None:
            assert scene is None
            continue
        assert scene is not None
        assert scene["square"] == SQUARE and (scene["width"], scene["height"]) == (1024, 640)
        kept = service.store.image(table.campaign, scene["image"])
        assert kept is not None and kept.content_type == "image/png"
    realms = load_ruleset("realms")
    assert demo_scene(realms) == demo_scene(realms)  # drawn the same every time


def test_a_token_picture_is_scaled_kept_and_shown_to_who_sees_the_creature(
        client: TestClient) -> None:
    table = Table(client, "realms", [
        {"id": "nia", "template": "knight", "side": "heroes"},
        {"id": "imp", "template": "fire_imp", "side": "brigands", "hidden": True}], ["nia"])
    url = f"/api/encounters/{table.eid}/creatures/%s/image"
    r = table.client.put(url % "nia", content=picture("JPEG", size=(600, 400)),
                         headers={**table.gm, "Content-Type": "image/jpeg"})
    assert r.status_code == 201, r.text
    nia = r.json()["image"]
    assert (nia["width"], nia["height"]) == (256, 171)  # scaled down to 256 a side
    assert r.json()["record"]["text"] == "Knight's token has a new picture."  # its name
    r = table.client.put(url % "imp", content=picture("PNG", size=(64, 64)),
                         headers={**table.gm, "Content-Type": "image/png"})
    imp = r.json()["image"]
    seen = table.client.get(f"/api/encounters/{table.eid}", headers=table.player).json()
    assert seen["tokens"] == {"nia": nia["hash"]}  # the hidden imp's is not there
    pictures = f"/api/encounters/{table.eid}/images/%s"
    assert table.client.get(pictures % nia["hash"], headers=table.player).status_code == 200
    assert table.client.get(pictures % imp["hash"], headers=table.player).status_code == 404
    assert table.client.get(pictures % imp["hash"], headers=table.gm).status_code == 200
    r = table.client.put(url % "ghost", content=picture(), headers={**table.gm,
                                                                   "Content-Type": "image/png"})
    assert r.status_code == 422 and "ghost" in r.json()["error"]
    r = table.client.delete(url % "nia", headers=table.gm)
    assert r.status_code == 201
    assert "tokens" not in table.client.get(f"/api/encounters/{table.eid}",
                                            headers=table.player).json()
