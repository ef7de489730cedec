"""What the rulesets' roster tests share: a game service on a fresh SQLite store, a creature
of an encounter as its ruleset's own type, and a roster character's lasting state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from arbiter.core import Entity
from arbiter.store import EventStore, GameService

E = TypeVar("E", bound=Entity)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[GameService]:
    store = EventStore.open(tmp_path / "arbiter.db")
    try:
        yield GameService(store)
    finally:
        store.close()


def creature_of(service: GameService, eid: str, who: str, kind: type[E]) -> E:
    """Creature ``who`` of encounter ``eid``, checked to be the ruleset's ``kind``."""
    found = service.read(eid, lambda ld: ld.state.entities[who])
    assert isinstance(found, kind)
    return found


def lasting_of(service: GameService, cid: str, who: str) -> dict[str, Any]:
    """What roster character ``who`` of campaign ``cid`` carries, as stored."""
    return dict(service.roster(cid, lambda r: r.state.characters[who]["lasting"]))
