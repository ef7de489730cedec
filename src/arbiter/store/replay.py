"""Rebuilding an encounter's state from its log, and what undo and redo would touch.

Undo and redo are records in the log, never deletions:

- ``undo`` (target ``k``) withdraws entry ``k``, the latest entry still in effect;
- ``redo`` (target ``k``) puts back entry ``k``, the entry most recently undone, provided no
  new entry was appended since (a new command clears what can be redone, as in an editor).

The state is the replay of the entries in effect, in log order. Because undo always takes
the latest entry in effect and redo the latest undone one, the entries in effect always
form the same sequence the commands were decided on, so a redone entry's recorded events
(and dice) apply exactly as they did the first time: redo never re-rolls.

>>> stacks([(1, "entry", None), (2, "entry", None), (3, "undo", 2), (4, "undo", 1)])
([], [2, 1])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .. import __version__ as ARBITER_VERSION
from ..core import EncounterState, Entry, Ruleset
from ..core.events import EVENT_SCHEMA
from ..core.invariants import CHECKING, apply_checked
from .codec import allow_module_prefix, decode_state, encode_state
from .errors import NothingToUndo, SnapshotError
from .store import LogRecord, RecordKind, Snapshot

SNAPSHOT_SCHEMA = 1
"""Schema version of a snapshot. A snapshot of another version, or written by another
Arbiter version or event schema, is not used: the state is replayed from the log instead
(and a new snapshot written), which is how an old snapshot is "upcast"."""


def stacks(rows: Iterable[tuple[int, RecordKind, int | None]]) -> tuple[list[int], list[int]]:
    """``(in_effect, undone)``: the entries in effect, oldest first, and the redo stack
    (the entry redo would put back last)."""
    active: list[int] = []
    undone: list[int] = []
    for seq, kind, target in rows:
        if kind == "entry":
            active.append(seq)
            undone.clear()
        elif kind == "undo":
            if not active or active[-1] != target:
                raise SnapshotError(f"undo record {seq} does not undo the latest entry")
            undone.append(active.pop())
        else:
            if not undone or undone[-1] != target:
                raise SnapshotError(f"redo record {seq} does not redo the latest undo")
            active.append(undone.pop())
    return active, undone


def undo_target(rows: Iterable[tuple[int, RecordKind, int | None]]) -> int:
    active, _ = stacks(rows)
    if len(active) <= 1:  # the first entry creates the encounter
        raise NothingToUndo("nothing to undo: no command has been played since the start")
    return active[-1]


def redo_target(rows: Iterable[tuple[int, RecordKind, int | None]]) -> int:
    _, undone = stacks(rows)
    if not undone:
        raise NothingToUndo("nothing to redo: no command was undone since the last one")
    return undone[-1]


def effective_entries(records: Sequence[LogRecord]) -> list[Entry]:
    """The entries in effect among ``records``, in log order.

    ``records`` start the log or follow a usable snapshot (one no later undo or redo
    reaches behind, see :func:`~arbiter.store.store.usable_snapshot`), so every marker in
    them targets an entry in them."""
    active: dict[int, LogRecord] = {}
    by_seq = {r.seq: r for r in records if r.kind == "entry"}
    for rec in records:
        if rec.kind == "entry":
            active[rec.seq] = rec
        elif rec.kind == "undo" and rec.target is not None:
            active.pop(rec.target, None)
        elif rec.kind == "redo" and rec.target in by_seq:
            active[rec.target] = by_seq[rec.target]
    return [active[seq].entry() for seq in sorted(active)]


def snapshot_meta(ruleset: Ruleset) -> dict[str, Any]:
    return {"arbiter": ARBITER_VERSION, "events": EVENT_SCHEMA, "ruleset": ruleset.name}


def _allow_ruleset_classes(ruleset: Ruleset) -> None:
    """A ruleset from another package may keep its own dataclasses in the state."""
    allow_module_prefix(type(ruleset).__module__.split(".")[0] + ".")


def make_snapshot(ruleset: Ruleset, seq: int, state: EncounterState) -> Snapshot:
    _allow_ruleset_classes(ruleset)
    return Snapshot(seq, SNAPSHOT_SCHEMA, snapshot_meta(ruleset), encode_state(state))


def snapshot_state(ruleset: Ruleset, snapshot: Snapshot | None) -> EncounterState | None:
    """The state a snapshot holds, or None when it is of another version (replay then)."""
    if snapshot is None or snapshot.v != SNAPSHOT_SCHEMA:
        return None
    if snapshot.meta != snapshot_meta(ruleset):
        return None
    _allow_ruleset_classes(ruleset)
    try:
        return decode_state(snapshot.payload)
    except (SnapshotError, TypeError, ValueError, KeyError):
        return None


def apply_entries(ruleset: Ruleset, state: EncounterState, entries: Iterable[Entry]) -> None:
    """Apply ``entries`` in order; with invariant checking on (the test suite), each is
    checked as :class:`~arbiter.core.Encounter` checks it (``core/invariants.py``)."""
    if CHECKING.on:
        for entry in entries:
            apply_checked(ruleset, state, entry)
        return
    evolve = ruleset.evolve
    for entry in entries:
        for event in entry.events:
            evolve(state, event)
