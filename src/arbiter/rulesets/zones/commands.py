"""Argument helpers of the zones commands: range bands, flags and group lists."""

from __future__ import annotations

from typing import Any

from ...core import Command, InvalidCommand
from .model import RANGE_BANDS


def flag(command: Command, key: str, default: bool = False) -> bool:
    """A yes/no argument."""
    value = command.args.get(key, default)
    if not isinstance(value, bool):
        raise InvalidCommand(f"{command.name}: {key!r} must be true or false, not {value!r}")
    return value


def band(command: Command, key: str = "range") -> str | None:
    """A range band argument: engagement, short, medium or long."""
    value = command.args.get(key)
    if value is None:
        return None
    if value not in RANGE_BANDS:
        raise InvalidCommand(
            f"{command.name}: {key!r} must be one of {', '.join(RANGE_BANDS)}, not {value!r}"
        )
    return str(value)


def names(command: Command, key: str) -> list[str]:
    """A list of names (a single name is accepted as a list of one)."""
    if key not in command.args:
        return []
    value: Any = command.args[key]
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidCommand(f"{command.name}: {key!r} must be a list of names, not {value!r}")
    return list(value)


def choice(command: Command, key: str, options: tuple[str, ...], default: str | None) -> str | None:
    value = command.args.get(key, default)
    if value is not None and value not in options:
        raise InvalidCommand(
            f"{command.name}: {key!r} must be one of {', '.join(options)}, not {value!r}"
        )
    return None if value is None else str(value)
