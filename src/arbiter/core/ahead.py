"""Looking ahead past a list of events that only grows (a turn start's, a tick's)."""

from __future__ import annotations

from .events import Event
from .model import EncounterState
from .ruleset import Ruleset


class Ahead:
    """``rules.lookahead(state, events)`` for a list of events that only grows (the events
    a turn start or a tick gathers one after another, looking ahead past those so far at
    each step): each call applies only the events added since the last one, to the scratch
    state of the last one, instead of copying ``state`` and applying all of them again.
    The states it returns are the lookahead's, for reading only (measured on polemos-4v4,
    with ``ROUND_EFFECTS_UNREAD``: about 50 copies a fight at turn starts before, 9 after)."""

    def __init__(self, rules: Ruleset, state: EncounterState,
                 unread: frozenset[str] = frozenset(), *, in_place: bool = False) -> None:
        self.rules = rules
        self.after = state
        self.applied = 0
        self.unread = unread
        """Event types that change nothing the reader of these states reads (nor anything
        another event's ``apply_*`` reads): left out."""
        self.origin = state if in_place else None
        """``in_place``: the events are the first of a turn start's result (``Ruleset.
        turn_start_events``), looked past in place where the simulator's ``advance`` owns
        the state (``Ruleset.started_past``: all of them applied, once); ``state`` is then
        read only as the state they lead to."""

    def of(self, events: list[Event]) -> EncounterState:
        """The state after ``events``: those of the last call, and any appended since."""
        origin = self.origin
        if origin is not None:
            owned = self.rules.started_past(origin, events)
            if owned is not None:
                return owned
            self.origin = None  # not owned: looked ahead, as without ``in_place``
        if len(events) > self.applied:
            new = events[self.applied:]
            if self.unread:
                new = [event for event in new if event.type not in self.unread]
            if new:
                self.after = self.rules.lookahead(self.after, new)
            self.applied = len(events)
        return self.after
