"""The payload of each event ``arbiter.rulesets.demo`` declares, as a ``TypedDict`` for mypy.

Written by ``arbiter payloads --write`` from the ``@event`` declarations
(:mod:`arbiter.core.payloads`); do not edit by hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, Required, TypedDict

__all__ = [
    "Attacked",
    "Damaged",
    "Healed",
]

class Attacked(TypedDict, total=False):
    actor: Required[str]
    target: Required[str]
    hit: Required[bool]
    critical: Required[bool]
    attack: Required[Mapping[str, Any]]
    damage: NotRequired[Mapping[str, Any] | None]
    pipeline: NotRequired[Mapping[str, Any] | None]
    taken: NotRequired[int | None]
    health: NotRequired[int | None]
    economy: NotRequired[Mapping[str, Any] | None]


class Damaged(TypedDict, total=False):
    target: Required[str]
    taken: NotRequired[int | None]
    pipeline: NotRequired[Mapping[str, Any] | None]
    health: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]


class Healed(TypedDict, total=False):
    target: Required[str]
    healed: Required[int]
    health: Required[int]
    economy: NotRequired[Mapping[str, Any] | None]
