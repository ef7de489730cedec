"""Request schemas: one JSON Schema per body, used to validate requests, to describe them in
``/openapi.json``, and to drive the fuzz tests.

The validator knows the part of JSON Schema these schemas use (type, properties, required,
additionalProperties, maxProperties, items, minItems, maxItems, minLength, maxLength,
pattern, minimum, maximum, enum) and reports the first problem with the field it is in:
``ValidationError("must be a whole number", "expected_version")``.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

Schema = dict[str, Any]

MAX_DEPTH = 24
ID = {"type": "string", "pattern": r"^[A-Za-z0-9_-]{1,64}$",
      "description": "letters, digits, '-' and '_'"}
NAME = {"type": "string", "minLength": 1, "maxLength": 200}
VERSION = {"type": "integer", "minimum": 0, "maximum": 2**53}
RULINGS = {"type": "object", "maxProperties": 200,
           "additionalProperties": {"type": "string", "maxLength": 200}}
COMMAND: Schema = {
    "type": "object",
    "description": "A command: 'do' names it, 'actor' is who acts, other keys are its "
                   "arguments (see the ruleset's commands).",
    "required": ["do"],
    "properties": {
        "do": {"type": "string", "pattern": r"^[a-z][a-z0-9_]{0,63}$"},
        "actor": {"type": "string", "minLength": 1, "maxLength": 64},
    },
    "maxProperties": 64,
    "additionalProperties": True,
}
DICE = {"type": "array", "maxItems": 500,
        "items": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
        "description": "Force the command's dice, in the order they are rolled (GM only)."}

SCHEMAS: dict[str, Schema] = {
    "CreateCampaign": {
        "type": "object", "required": ["name", "ruleset"], "additionalProperties": False,
        "properties": {"name": NAME, "ruleset": {"type": "string", "pattern": r"^[a-z0-9_]{1,40}$"},
                       "rulings": RULINGS},
    },
    "SetRulings": {
        "type": "object", "required": ["rulings"], "additionalProperties": False,
        "properties": {"rulings": RULINGS},
    },
    "SetRuling": {
        "type": "object", "required": ["value"], "additionalProperties": False,
        "properties": {"value": {"type": "string", "minLength": 1, "maxLength": 200},
                       "expected_version": VERSION},
    },
    "CreatePlayer": {
        "type": "object", "required": ["name", "characters"], "additionalProperties": False,
        "properties": {"name": NAME,
                       "characters": {"type": "array", "items": ID, "maxItems": 50}},
    },
    "CreateEncounter": {
        "type": "object", "required": ["name"], "additionalProperties": False,
        "properties": {"name": NAME, "rulings": RULINGS},
    },
    "AddActor": {
        "type": "object", "required": ["id"], "maxProperties": 64,
        "description": "A stat block: 'id', optionally 'template', and the ruleset's keys.",
        "properties": {"id": ID, "template": {"type": "string", "maxLength": 64},
                       "expected_version": VERSION},
        "additionalProperties": True,
    },
    "Submit": {
        "type": "object", "required": ["command"], "additionalProperties": False,
        "properties": {"command": COMMAND, "expected_version": VERSION, "dice": DICE},
    },
    "Odds": {
        "type": "object", "required": ["command"], "additionalProperties": False,
        "properties": {"command": COMMAND},
    },
    "Step": {
        "type": "object", "additionalProperties": False,
        "properties": {"expected_version": VERSION},
    },
    "CampaignFile": {
        "type": "object", "required": ["format", "v", "campaign", "tokens", "encounters"],
        "description": "A campaign exported by GET /api/campaigns/{campaign_id}/export.",
        "properties": {"format": {"type": "string", "enum": ["arbiter-campaign"]},
                       "v": {"type": "integer", "minimum": 1},
                       "campaign": {"type": "object"},
                       "tokens": {"type": "array"},
                       "encounters": {"type": "array"}},
        "additionalProperties": False,
    },
}


class ValidationError(Exception):
    def __init__(self, message: str, field: str | None) -> None:
        self.message = message
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
    "integer": (int,), "number": (int, float), "null": (type(None),),
}
_TYPE_WORDS = {"object": "an object", "array": "a list", "string": "text",
               "boolean": "true or false", "integer": "a whole number", "number": "a number",
               "null": "null"}


@cache
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text)


def _join(path: str, key: str | int) -> str:
    return f"{path}.{key}" if path else str(key)


def validate(value: Any, schema: Schema, path: str = "") -> None:
    """Raise :class:`ValidationError` naming the first field that breaks ``schema``."""
    kind = schema.get("type")
    if kind is not None:
        ok = isinstance(value, _TYPES[kind]) and not (
            kind in ("integer", "number") and isinstance(value, bool))
        if not ok:
            raise ValidationError(f"must be {_TYPE_WORDS[kind]}", path or None)
    if "enum" in schema and value not in schema["enum"]:
        raise ValidationError(f"must be one of {', '.join(map(str, schema['enum']))}",
                              path or None)
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            raise ValidationError("must not be empty" if schema.get("minLength") == 1 else
                                  f"must be at least {schema['minLength']} characters",
                                  path or None)
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            raise ValidationError(f"must be at most {schema['maxLength']} characters",
                                  path or None)
        if "pattern" in schema and not _pattern(schema["pattern"]).match(value):
            hint = schema.get("description") or f"match {schema['pattern']}"
            raise ValidationError(f"must be {hint}", path or None)
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise ValidationError(f"must be at least {schema['minimum']}", path or None)
        if "maximum" in schema and value > schema["maximum"]:
            raise ValidationError(f"must be at most {schema['maximum']}", path or None)
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            raise ValidationError(f"needs at least {schema['minItems']} items", path or None)
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise ValidationError(f"has more than {schema['maxItems']} items", path or None)
        if "items" in schema:
            for i, item in enumerate(value):
                validate(item, schema["items"], _join(path, i))
    if isinstance(value, dict):
        if "maxProperties" in schema and len(value) > schema["maxProperties"]:
            raise ValidationError(f"has more than {schema['maxProperties']} keys",
                                  path or None)
        for key in schema.get("required", ()):
            if key not in value:
                raise ValidationError("is required", _join(path, key))
        props: dict[str, Schema] = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                validate(item, props[key], _join(path, key))
            elif extra is False:
                known = ", ".join(props) or "none"
                raise ValidationError(f"unknown field (known: {known})", _join(path, key))
            elif isinstance(extra, dict):
                validate(item, extra, _join(path, key))


def depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (without recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
        else:
            deepest = max(deepest, level)
            continue
        deepest = max(deepest, level + 1)
    return deepest
