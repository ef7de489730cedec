"""A schema-driven fuzz of the API: requests drawn from /openapi.json (valid, nearly valid
and garbage), as the game master, a player or nobody. No answer may be a 5xx, and every
error is JSON with a message."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.server.openapi import OPERATIONS, Operation
from arbiter.server.schema import SCHEMAS

from .conftest import HIDDEN_ID, Table

JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                      st.floats(allow_nan=False, allow_infinity=False),
                      st.text(max_size=20))
ANY_JSON = st.recursive(JSON_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)
NAMES = st.sampled_from(["nia", "bram", "wolf", HIDDEN_ID, "ghost", "", "nia.health",
                         "DEMO-1", "max-damage", "double-dice", "guard", "demo"])
VALUE = st.one_of(NAMES, JSON_LEAF, ANY_JSON)
ARG_KEYS = ["target", "actor", "amount", "id", "name", "value", "path", "reason", "text",
            "level", "rounds", "initiative", "stats", "health", "template", "tags",
            "rulings", "hidden", "side", "damage", "defense", "attack", "source"]
COMMANDS = ["attack", "damage", "heal", "add", "remove", "start", "next", "end",
            "initiative", "condition", "uncondition", "override", "ruling", "note", "create",
            "fly"]


@st.composite
def commands(draw: st.DrawFn) -> dict[str, Any]:
    command: dict[str, Any] = {"do": draw(st.sampled_from(COMMANDS))}
    for key in draw(st.lists(st.sampled_from(ARG_KEYS), max_size=5, unique=True)):
        command[key] = draw(VALUE)
    return command


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values that mostly follow ``schema`` (the subset our schemas use)."""
    if schema is SCHEMAS["Submit"]["properties"]["command"]:
        return commands()
    if "anyOf" in schema:
        return st.one_of(*[from_schema(option) for option in schema["anyOf"]])
    kind = schema.get("type")
    if kind == "null":
        return st.none()
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if kind == "object":
        props = schema.get("properties", {})
        required = list(schema.get("required", []))
        optional = [k for k in props if k not in required]

        @st.composite
        def build(draw: st.DrawFn) -> dict[str, Any]:
            out = {k: draw(from_schema(props[k])) if k in props else draw(VALUE)
                   for k in required}
            for k in draw(st.lists(st.sampled_from(optional), unique=True)) if optional else []:
                out[k] = draw(from_schema(props[k]))
            if schema.get("additionalProperties") is not False and draw(st.booleans()):
                out[draw(st.sampled_from(ARG_KEYS))] = draw(VALUE)
            return out
        return build()
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {})), max_size=4)
    if kind == "string":
        return st.one_of(NAMES, st.text(max_size=schema.get("maxLength", 30)))
    if kind == "integer":
        return st.integers(schema.get("minimum", -5), min(schema.get("maximum", 50), 50))
    return VALUE


def bodies(op: Operation) -> st.SearchStrategy[Any]:
    if op.body is None:
        return st.one_of(st.none(), ANY_JSON)
    components = {**SCHEMAS}
    valid = from_schema(components[op.body])
    return st.one_of(valid, valid, valid, valid, ANY_JSON, st.binary(max_size=40))


@st.composite
def requests(draw: st.DrawFn, table: Table) -> tuple[str, str, dict[str, str], Any]:
    op = draw(st.sampled_from(OPERATIONS))
    path = op.path
    ids = {"campaign_id": [table.campaign] * 8 + ["c-0000000000", "..", "%00", "x" * 80],
           "encounter_id": [table.encounter] * 8 + ["e-0000000000", "a b", "%2e%2e"],
           "ruling_id": ["DEMO-1"] * 4 + ["NOPE", ""],
           "character_id": ["nia"] * 4 + ["ghost", "a b"],
           "creature_id": ["ghoul"] * 2 + ["wolf", "%00"]}
    for name, choices in ids.items():
        if f"{{{name}}}" in path:
            path = path.replace(f"{{{name}}}", draw(st.sampled_from(choices)))
    with_query: bool = draw(st.booleans())
    if op.query and with_query:
        values = st.sampled_from(["0", "3", "-1", "x", "99999999999"])
        path += "?" + "&".join(f"{q}={draw(values)}" for q in op.query)
    who = draw(st.sampled_from(["gm", "gm", "gm", "player", "player", "none", "junk"]))
    headers = {"gm": table.gm, "player": table.player, "none": {},
               "junk": {"Authorization": "Bearer " + "z" * 43}}[who]
    return op.method, path, headers, draw(bodies(op))


@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_no_request_gets_a_5xx(table: Table, data: st.DataObject) -> None:
    method, path, headers, body = data.draw(requests(table))
    if isinstance(body, bytes):
        response = table.client.request(method, path, headers=headers, content=body)
    elif body is None:
        response = table.client.request(method, path, headers=headers)
    else:
        response = table.client.request(method, path, headers=headers,
                                        content=json.dumps(body).encode())
    assert response.status_code < 500, (method, path, body, response.text)
    payload = response.json()
    if response.status_code >= 400:
        assert isinstance(payload["error"], str) and payload["error"]
        assert "field" in payload
    if headers is table.player:
        assert HIDDEN_ID not in response.text or HIDDEN_ID in json.dumps(body)


def test_a_nul_in_a_path_no_route_takes_is_a_404(table: Table) -> None:
    """Found by the fuzz test above: ``/api/campaigns/../bestiary/%00`` reaches the console's
    static files, whose path lookup raised on the NUL (a 500)."""
    headers = {"Authorization": f"Bearer {table.gm_token}"}
    for path in ("/api/campaigns/../bestiary/%00", "/%00", "/play/%00x"):
        response = table.client.get(path, headers=headers)
        assert response.status_code == 404, (path, response.status_code)
