"""The OpenAPI description served at ``/openapi.json``, built from the request schemas."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from ..core import available, load_ruleset
from .schema import SCHEMAS


@dataclass(frozen=True, slots=True)
class Operation:
    method: str
    path: str
    summary: str
    body: str | None = None
    role: str | None = None  # None: no token; "any": GM or player; "gm": game master only
    query: tuple[str, ...] = ()
    created: bool = False
    limited: bool = False  # rate-limited per client address (429)
    heavy: bool = False  # CPU-heavy, with a deadline (503)
    image: str = ""  # "in": the body is an image itself; "out": the answer is one


IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp")
"""The media types of scene and token images (``store/images.py``)."""


QUERY = {"after": {"type": "integer", "minimum": 0, "maximum": 2**53},
         "limit": {"type": "integer", "minimum": 1, "maximum": 500},
         "actor": {"type": "string", "pattern": r"^[A-Za-z0-9_-]{1,64}$"}}
"""The query parameters' schemas, as the routes check them."""


ROSTER_PICTURES = (
    ("characters", "character_id", "roster character", "whenever the character joins an "
     "encounter"),
    ("bestiary", "creature_id", "bestiary creature", "on each creature added from the entry"),
)
"""The campaign's two kinds of token picture: the folder of its route, the path parameter,
whose picture it is, and where it shows (one PUT and one DELETE operation each)."""

OPERATIONS: tuple[Operation, ...] = (
    Operation("get", "/openapi.json", "This document"),
    Operation("get", "/api/health", "Whether the server and its store are ready, and which "
              "build of the rules engine it runs (compiled or pure)"),
    Operation("post", "/api/dice", "The exact distribution of a dice expression, and a roll "
              "of it when asked (no token; rate-limited)", "DiceRequest", limited=True,
              heavy=True),
    Operation("get", "/api/rulesets", "The installed rulesets, their commands and rulings"),
    Operation("get", "/api/rulesets/{ruleset}/commands",
              "A ruleset's command catalogue (arguments, who may issue, JSON Schema) and "
              "its event types"),
    Operation("post", "/api/campaigns", "Create a campaign; answers the game master's token",
              "CreateCampaign", created=True, limited=True),
    Operation("post", "/api/campaigns/import", "Import a campaign file from an export",
              "CampaignFile", created=True, limited=True, heavy=True),
    Operation("get", "/api/campaigns/{campaign_id}", "The campaign and its encounters",
              role="any"),
    Operation("get", "/api/campaigns/{campaign_id}/rulings", "The campaign's rulings",
              role="any"),
    Operation("put", "/api/campaigns/{campaign_id}/rulings",
              "Set the rulings new encounters start with", "SetRulings", "gm"),
    Operation("post", "/api/campaigns/{campaign_id}/players",
              "Issue a player token bound to characters", "CreatePlayer", "gm", created=True),
    Operation("get", "/api/campaigns/{campaign_id}/players", "The players", role="gm"),
    Operation("post", "/api/campaigns/{campaign_id}/encounters",
              "Create an encounter, with roster characters and creatures when given",
              "CreateEncounter", "gm", created=True),
    Operation("get", "/api/campaigns/{campaign_id}/export",
              "The whole campaign as one versioned JSON file", role="gm"),
    Operation("get", "/api/campaigns/{campaign_id}/templates",
              "The ruleset's creature templates, and the bestiary's", role="gm"),
    Operation("get", "/api/campaigns/{campaign_id}/characters",
              "The roster (your view: a player reads their own characters and their side's "
              "in full, the others' public face)", role="any"),
    Operation("post", "/api/campaigns/{campaign_id}/characters",
              "Add a character to the roster", "Character", "gm", created=True),
    Operation("get", "/api/campaigns/{campaign_id}/characters/{character_id}",
              "A character of the roster (your view)", role="any"),
    Operation("put", "/api/campaigns/{campaign_id}/characters/{character_id}",
              "Replace a character's sheet (its lasting state stays unless given)",
              "CharacterSheet", "gm"),
    Operation("delete", "/api/campaigns/{campaign_id}/characters/{character_id}",
              "Take a character off the roster", role="gm"),
    Operation("get", "/api/campaigns/{campaign_id}/bestiary", "The game master's bestiary",
              role="gm"),
    Operation("post", "/api/campaigns/{campaign_id}/bestiary",
              "Save a new creature in the bestiary (a template for the campaign's "
              "encounters)", "BestiaryEntry", "gm", created=True),
    Operation("get", "/api/campaigns/{campaign_id}/bestiary/{creature_id}",
              "A creature of the bestiary", role="gm"),
    Operation("put", "/api/campaigns/{campaign_id}/bestiary/{creature_id}",
              "Replace a creature of the bestiary", "BestiarySheet", "gm"),
    Operation("delete", "/api/campaigns/{campaign_id}/bestiary/{creature_id}",
              "Take a creature out of the bestiary", role="gm"),
    Operation("post", "/api/campaigns/{campaign_id}/time",
              "Let campaign time pass between encounters: each roster character heals or "
              "recovers as the ruleset says (one record of the campaign's own log)",
              "AdvanceTime", "gm", created=True),
    Operation("put", "/api/campaigns/{campaign_id}/settings",
              "Change the campaign's settings (its dice box's dialect)", "CampaignSettings",
              "gm"),
    Operation("get", "/api/campaigns/{campaign_id}/log",
              "The campaign's own log (roster and bestiary), with sentences", role="gm",
              query=("after", "limit")),
    Operation("post", "/api/campaigns/{campaign_id}/undo",
              "Undo the latest command in effect of the campaign's own log", "Step", "gm",
              created=True),
    Operation("post", "/api/campaigns/{campaign_id}/redo",
              "Redo the command of the campaign's own log undone last", "Step", "gm",
              created=True),
    Operation("get", "/api/encounters/{encounter_id}", "The encounter's state (your view)",
              role="any"),
    Operation("get", "/api/encounters/{encounter_id}/log", "The log (your view)",
              role="any", query=("after", "limit")),
    Operation("get", "/api/encounters/{encounter_id}/commands", "The commands you may send",
              role="any"),
    Operation("post", "/api/encounters/{encounter_id}/commands",
              "Submit a command: decided, stored durably, applied", "Submit", "any",
              created=True),
    Operation("post", "/api/encounters/{encounter_id}/actors",
              "Add a creature from a template or an inline stat block, or a roster "
              "character with its lasting state", "AddActor", "gm",
              created=True),
    Operation("post", "/api/encounters/{encounter_id}/odds",
              "Exact odds of a command's outcomes, before rolling", "Odds", "any", heavy=True),
    Operation("post", "/api/encounters/{encounter_id}/simulate",
              "Win odds: the fight played to its end many times from its current state "
              "(nothing changes)", "Simulate", "gm", heavy=True),
    Operation("post", "/api/campaigns/{campaign_id}/simulate",
              "Win odds of a new encounter (the body that would create it), not stored",
              "SimulateNew", "gm", heavy=True),
    Operation("get", "/api/encounters/{encounter_id}/options",
              "The legal options of a creature's turn now: each command you may give it, "
              "its targets (relation, distance, the rules' answer) and what makes a "
              "refused one legal", role="any", query=("actor",), heavy=True),
    Operation("post", "/api/encounters/{encounter_id}/undo",
              "Undo the latest command in effect", "Step", "gm", created=True),
    Operation("post", "/api/encounters/{encounter_id}/redo",
              "Redo the command undone last", "Step", "gm", created=True),
    Operation("get", "/api/encounters/{encounter_id}/rulings", "The encounter's rulings",
              role="any"),
    Operation("put", "/api/encounters/{encounter_id}/scene/image",
              "The scene's background: a PNG, JPEG or WebP (at most 10 MB and 8192 px a "
              "side), checked and encoded again, and set by a scene command", role="gm",
              created=True, heavy=True, image="in"),
    Operation("get", "/api/encounters/{encounter_id}/scene/image",
              "The scene's image (a player's is dark under the fog but where it is revealed)",
              role="any", heavy=True, image="out"),
    Operation("delete", "/api/encounters/{encounter_id}/scene/image",
              "The scene without its image (a scene command)", role="gm", created=True),
    Operation("post", "/api/encounters/{encounter_id}/scene/save",
              "Save the encounter's map (image and grid, terrain, fog) and where each "
              "creature stands in the campaign under a name", "SceneName", "gm",
              created=True),
    Operation("post", "/api/encounters/{encounter_id}/scene/load",
              "Draw a saved scene on the encounter's map and place the creatures of it "
              "that are here (one batch; not_here counts the others)", "SceneName", "gm",
              created=True),
    *(op for folder, ident, whose, shows in ROSTER_PICTURES for op in (
        Operation("put", f"/api/campaigns/{{campaign_id}}/{folder}/{{{ident}}}/image",
                  f"A {whose}'s token picture (scaled to 256 px; a picture command): it "
                  f"shows {shows}", role="gm", created=True, heavy=True, image="in"),
        Operation("delete", f"/api/campaigns/{{campaign_id}}/{folder}/{{{ident}}}/image",
                  f"The {whose}'s token without its picture", role="gm"))),
    Operation("get", "/api/campaigns/{campaign_id}/images/{image}",
              "A picture of the roster or the bestiary (a player's: of a character they "
              "may read)", role="any", image="out"),
    Operation("get", "/api/campaigns/{campaign_id}/scenes", "The campaign's saved scenes",
              role="gm"),
    Operation("put", "/api/encounters/{encounter_id}/creatures/{creature_id}/image",
              "A creature's token picture (scaled to 256 px; a token command)", role="gm",
              created=True, heavy=True, image="in"),
    Operation("delete", "/api/encounters/{encounter_id}/creatures/{creature_id}/image",
              "The creature's token without its picture (a token command)", role="gm",
              created=True),
    Operation("get", "/api/encounters/{encounter_id}/images/{image}",
              "A token picture of the encounter (a player's: of a creature they see)",
              role="any", image="out"),
    Operation("put", "/api/encounters/{encounter_id}/rulings/{ruling_id}",
              "Change one ruling in this encounter", "SetRuling", "gm", created=True),
    Operation("post", "/api/encounters/{encounter_id}/write-back",
              "Write back the lasting state of the roster's characters in the encounter "
              "(one record of the campaign's own log)", "Step", "gm", created=True),
)

ERROR_SCHEMA = {
    "type": "object", "required": ["error", "field"],
    "properties": {"error": {"type": "string"},
                   "field": {"type": ["string", "null"]},
                   "rule": {"type": "string"}, "version": {"type": "integer"}},
}


def command_schemas() -> dict[str, dict[str, Any]]:
    """The JSON Schema of every command of every installed ruleset, named
    ``ruleset.command``, from the command catalogue."""
    out: dict[str, dict[str, Any]] = {}
    for name in available():
        try:
            ruleset = load_ruleset(name)
        except Exception:  # a ruleset package that does not import is not offered
            continue
        for command, spec in ruleset.catalogue.items():
            out[f"{name}.{command}"] = {**spec.schema(), "x-who": spec.who,
                                        "x-when": spec.when}
    return out


@cache
def openapi_document(version: str) -> dict[str, Any]:
    """The whole document (built once: the routes and the catalogue do not change while
    the server runs). A command's body is any one of the commands of the encounter's
    ruleset (``components.schemas["ruleset.command"]``)."""
    commands = command_schemas()
    schemas: dict[str, Any] = {**SCHEMAS, **commands, "Error": ERROR_SCHEMA}
    schemas["Command"] = {"anyOf": [{"$ref": f"#/components/schemas/{k}"}
                                    for k in commands],
                          "description": SCHEMAS["Submit"]["properties"]["command"]
                          ["description"]}
    schemas["CreateCampaign"] = {**SCHEMAS["CreateCampaign"], "properties": {
        **SCHEMAS["CreateCampaign"]["properties"], "ruleset": {"enum": list(available())}}}
    for body in ("Submit", "Odds"):
        schemas[body] = {**SCHEMAS[body], "properties": {
            **SCHEMAS[body]["properties"], "command": {"$ref": "#/components/schemas/Command"}}}
    paths: dict[str, dict[str, Any]] = {}
    for op in OPERATIONS:
        params: list[dict[str, Any]] = [
            {"name": name, "in": "path", "required": True,
             "schema": {"type": "string", "pattern": r"^[A-Za-z0-9_-]{1,64}$"}}
            for name in ("campaign_id", "encounter_id", "ruling_id", "ruleset",
                         "character_id", "creature_id")
            if f"{{{name}}}" in op.path
        ]
        if "{image}" in op.path:
            params.append({"name": "image", "in": "path", "required": True,
                           "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"}})
        params += [{"name": q, "in": "query", "required": q == "actor", "schema": QUERY[q]}
                   for q in op.query]
        ok = "201" if op.created else "200"
        operation: dict[str, Any] = {
            "summary": op.summary,
            "operationId": f"{op.method}_{op.path.strip('/').replace('/', '_')}"
                           .replace("{", "").replace("}", ""),
            "parameters": params,
            "responses": {
                ok: {"description": "done", "content": {"application/json": {
                    "schema": {"type": "object"}}}},
                "4XX": {"description": "refused; the message says why and 'field' where",
                        "content": {"application/json": {
                            "schema": {"$ref": "#/components/schemas/Error"}}}},
            },
        }
        error = {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Error"}}}}
        if op.limited:
            operation["responses"]["429"] = {
                "description": "too many requests from this address (see Retry-After)",
                "headers": {"Retry-After": {"schema": {"type": "integer"}}}, **error}
        if op.heavy:
            operation["responses"]["503"] = {
                "description": "the work took longer than its deadline and was stopped",
                **error}
        if op.role is not None:
            operation["security"] = [{"token": []}]
            operation["x-role"] = op.role
        if op.image == "out":
            operation["responses"][ok] = {"description": "the image", "content": {
                kind: {"schema": {"type": "string", "format": "binary"}}
                for kind in IMAGE_TYPES}}
        if op.image == "in" and "scene" in op.path:
            operation["responses"]["200"] = {
                "description": "it is the scene's image already: nothing is logged",
                "content": {"application/json": {"schema": {"type": "object"}}}}
        if op.image == "in":
            operation["requestBody"] = {"required": True, "content": {
                kind: {"schema": {"type": "string", "format": "binary"}}
                for kind in IMAGE_TYPES}}
        if op.body is not None:
            operation["requestBody"] = {
                "required": op.body != "Step",
                "content": {"application/json": {
                    "schema": {"$ref": f"#/components/schemas/{op.body}"}}},
            }
        paths.setdefault(op.path, {})[op.method] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "Arbiter", "version": version,
                 "description": "Rules engine and game-master console. Tokens go in "
                                "'Authorization: Bearer TOKEN'. WebSocket: "
                                "/api/encounters/{encounter_id}/ws, first message "
                                "{\"token\": TOKEN}; then one 'update' message per log "
                                "record, filtered for your role."},
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"token": {"type": "http", "scheme": "bearer"}},
        },
    }
