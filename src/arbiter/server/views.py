"""What each role may see: the game master everything, a player only what their characters
know.

A player's view of an encounter:

- **Concealed creatures are absent.** A creature is concealed from a player when it is not
  one of their characters and either the game master marked it ``hidden`` (until the GM
  reveals it, or the kernel does as its turn starts: ``EncounterState.reveal_on_turn``),
  or it has a concealing condition (``Ruleset.concealing``, the ruleset's own names:
  Hidden, zones' ``unseen``...) and is not on the side of one of the player's characters,
  unless one of the player's characters has detected it (``Ruleset.detected``: by default,
  the GM did not mark it hidden and each such condition's data lists that character in
  ``detected_by``; Polemos counts its searches and the GM's ``detect``). A ruleset may
  decide instead with its hook ``Ruleset.visible_to(state, entity, characters)`` (True or
  False; None, the default, leaves it to this rule). A concealed creature appears nowhere:
  not in the state, the turn order, the log, odds, error messages or WebSocket messages.
  In the log, keys and list items naming it are taken out of events (after
  ``Ruleset.public_event`` has rewritten what the rules say a player learns, such as
  zones' blind attacks), an event that names it in any other way is left out, and so is
  the game master's bookkeeping (``Ruleset.gm_only_events``); an
  entry whose command names it as the player sees the command (their own in full, anyone
  else's as its ``do`` and ``actor``) keeps its other events but not its command, an
  entry all of whose events are left out is left out itself (of the log, of ``text`` and
  of WebSocket messages: no placeholder counts the hidden), and an entry that lost
  anything about a concealed creature loses its dice too (their count would betray it).
  Naming it in a command gets the same answer as naming nobody. What the player wrote
  themselves (the strings of their own command) is never compared with a concealed
  creature's name: it comes back as sent; and in the state only a concealed creature's
  id, never its name, decides what is taken out (a guessed name cannot be tested).
- **Other creatures show their public face**: id, name, kind, side, conditions (name and
  level), a wound status (``unhurt``, ``wounded``, ``bloodied``, ``down``) instead of
  their health and stat block, and where they are on the map (:data:`MAP_FIELDS`:
  position, size, zone, engagement, altitude...). The player's own characters and those
  on their side are shown in full, less the game-master-only fields (``notes``,
  ``gm_notes``, ``secret``) and anything naming a concealed creature.
- **Log entries** keep their events and dice; for events about a creature not on the
  player's side, the stat block, exact health and game-master reasons are dropped, and an
  event that reads out its numbers (``Ruleset.private_events``) keeps only its target.
  Odds leave out creatures the player does not know of, and against a creature not on
  their side the chances that tell its Health (:data:`SECRET_ODDS_KEYS`).
  Who sent a command (``author``) and the arguments of commands not acted by the player's
  characters are game-master only. Of the state's ``extra`` mapping a player sees only
  the keys the ruleset declares public (``public_extra``: terrain, walls, the zones and
  their lights); the rest (detections, networks, pending reactions...) is game-master
  only. What the ruleset tells the map (``map_view``: footprints, reach, lines of sight,
  range bands) is computed for the creatures the reader sees, and sent as ``map``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

from ..core import EncounterState, Entity, Ruleset
from ..core.outcomes import STANDING
from ..core.ruleset import fog_hides, fog_of, revealed_squares
from ..store import LogRecord, Principal

GM_ONLY_FIELDS = frozenset({"notes", "gm_notes", "secret", "secrets"})
SECRET_EVENT_KEYS = frozenset({"health", "health_max", "spec", "stats", "old", "value",
                               "reason", "pipeline", "hp", "wounds"})
PUBLIC_EVENT_KEYS = {"initiative_set": frozenset({"value"})}
"""Keys of :data:`SECRET_EVENT_KEYS` that an event type shows anyone: a creature's
initiative is in every player's state (``initiative``)."""
SECRET_ODDS_KEYS = frozenset({"down", "dead"})
"""Odds that tell a target's Health (the chance one attack takes it down or kills it):
a player sees them only against their own side."""
PUBLIC_FIELDS = ("id", "name", "kind", "side")
MAP_FIELDS = ("position", "size", "facing", "zone", "group", "engagement", "altitude",
              "flying", "sphere", "quadrant", "mounted_on")
"""Where a creature is, as the battle map draws it: part of the public face of a creature
the player can see (what their characters see on the table)."""
_BOUNDARY = "A-Za-z0-9_-"


def plain(value: Any) -> Any:
    """JSON-compatible values: dataclasses as mappings, sets sorted, fractions as text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((plain(v) for v in value), key=repr)
    if isinstance(value, Fraction):
        return str(value)
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return plain(to_json())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return repr(value)


def fraction_json(value: Fraction) -> dict[str, Any]:
    """An exact probability (or other fraction) for the wire: ``{"exact": "7/12", "float":
    0.5833..., "percent": 58.33}`` (``percent`` only between 0 and 1)."""
    out: dict[str, Any] = {"exact": str(value), "float": float(value)}
    if 0 <= value <= 1:
        out["percent"] = round(float(value) * 100, 2)
    return out


def odds_json(value: Any) -> Any:
    if isinstance(value, Fraction):
        return fraction_json(value)
    if isinstance(value, dict):
        return {str(k): odds_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [odds_json(v) for v in value]
    return plain(value)


def wound_status(entity: Entity) -> str | None:
    health, most = getattr(entity, "health", None), getattr(entity, "health_max", None)
    if not isinstance(health, int) or not isinstance(most, int) or most <= 0:
        return None
    if health <= 0:
        return "down"
    if health >= most:
        return "unhurt"
    return "wounded" if health * 2 > most else "bloodied"


def finder(records: Callable[[int, int], list[LogRecord]]) -> Callable[[int], LogRecord | None]:
    """A record by its seq, from a function giving ``limit`` records after a seq (the game
    service's ``records``, bound to an encounter)."""
    def find(seq: int) -> LogRecord | None:
        found = records(seq - 1, 1)
        return found[0] if found and found[0].seq == seq else None
    return find


def _pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    """A pattern matching any of ``terms`` as a whole word (None for no terms)."""
    ordered = sorted(terms, key=len, reverse=True)
    return (re.compile("|".join(f"(?<![{_BOUNDARY}]){re.escape(t)}(?![{_BOUNDARY}])"
                                for t in ordered)) if ordered else None)


def strings(value: Any) -> list[str]:
    """Every string in a JSON value, keys included."""
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            out.extend(str(k) for k in item)
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return out


def _marker_text(record: LogRecord) -> str:
    verb = "undoes" if record.kind == "undo" else "redoes"
    return f"The game master {verb} #{record.target}."


class _Mentioned(Exception):
    """A value names a concealed creature in free text."""


_SQUARE_KEY = re.compile(r"^(-?\d+),(-?\d+)$")


def _revealed_only(value: Any, revealed: frozenset[tuple[int, int]]) -> Any:
    """A map layer (terrain by ``"x,y"`` keys, or a list of ``[x, y]`` squares) with only
    its revealed squares; anything else as it is."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            m = _SQUARE_KEY.match(k) if isinstance(k, str) else None
            if m is None or (int(m[1]), int(m[2])) in revealed:
                out[k] = v
        return out
    if isinstance(value, list):
        return [v for v in value if not (
            isinstance(v, list) and len(v) == 2 and all(isinstance(c, int) for c in v)
            and (v[0], v[1]) not in revealed)]
    return value


class View:
    """The view of one encounter state for one principal."""

    def __init__(self, state: EncounterState, principal: Principal, ruleset: Ruleset,
                 find: Callable[[int], LogRecord | None] | None = None) -> None:
        """``find`` reads a record of the encounter's log by its seq (for an undo or a
        redo: the entry it names)."""
        self.find = find
        self.state = state
        self.ruleset = ruleset
        self.principal = principal
        self.gm = principal.is_gm
        self.own = {c for c in principal.characters if c in state.entities}
        self.sides = {state.entities[c].side for c in self.own} - {None}
        # the fog as this reader meets it: the GM's own; a player's with what their
        # characters see through it (the fog's ``vision``)
        self.fog = fog_of(state) if self.gm else ruleset.fog_seen_by(state, self.own)
        concealed: set[str] = set()
        if not self.gm:
            characters = frozenset(self.own)
            for entity in state.entities.values():
                verdict = ruleset.visible_to(state, entity, characters)
                if not (self._visible(entity) if verdict is None else verdict):
                    concealed.add(entity.id)
        self.concealed = frozenset(concealed)
        self.friends = {e.id for e in state.entities.values()
                        if e.id in self.own or (e.side is not None and e.side in self.sides)}
        terms: set[str] = set()
        for who in self.concealed:
            terms.add(who)
            name = state.entities[who].name
            if name:
                terms.add(name)
        self._secret = _pattern(terms)
        # what the state holds of a creature the player sees in full names others by id: a
        # text equal to a concealed creature's name there is the player's own free text
        self._ids = _pattern(self.concealed)

    def _visible(self, entity: Entity) -> bool:
        if entity.id in self.own:
            return True
        if fog_hides(self.fog, entity):
            return False  # standing in fog: absent, as a hidden creature is
        concealing = self.ruleset.concealing
        concealed = entity.hidden or any(c.name in concealing for c in entity.conditions)
        if not concealed:
            return True
        if not entity.hidden and entity.side is not None and entity.side in self.sides:
            return True  # a concealing condition does not hide a creature from its own side
        detected = self.ruleset.detected
        return any(detected(self.state, who, entity.id) for who in self.own)

    # -- questions ----------------------------------------------------------------------
    def projection(self) -> EncounterState:
        """The state as this principal may know it, for the questions a player asks before
        acting (odds, move previews, the legal options): a copy in which the concealed
        creatures do not exist (not in the entities, the order or the initiative; while one
        of them acts, nobody's turn). The rules then answer as they would with nobody
        there, and the game master adjudicates the surprise when the command is made. The
        game master's, and a player's who sees everyone, is the state itself."""
        if self.gm or not self.concealed:
            return self.state
        out = self.state.copy()
        hidden = self.concealed
        current = out.current
        for who in hidden:
            del out.entities[who]
        out.order = [w for w in out.order if w not in hidden]
        out.initiative = {k: v for k, v in out.initiative.items() if k not in hidden}
        out.turn_index = out.order.index(current) if current in out.order else -1
        return out

    def visible_ids(self) -> list[str]:
        return [e for e in self.state.entities if e not in self.concealed]

    def mentions_secret(self, text: str) -> bool:
        return self._secret is not None and self._secret.search(text) is not None

    def secret_in(self, value: Any) -> str | None:
        """The first concealed id or name that ``value`` names as a whole string."""
        if self._secret is None:
            return None
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                if item in self.concealed or self._secret.fullmatch(item):
                    return item
            elif isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
            elif isinstance(item, list | tuple):
                stack.extend(item)
        return None

    def _mentions(self, value: Any, said: frozenset[str] = frozenset()) -> bool:
        if self._secret is None:
            return False
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                if item not in said and self._secret.search(item):
                    return True
            elif isinstance(item, dict):
                stack.extend(str(k) for k in item)
                stack.extend(item.values())
            elif isinstance(item, list | tuple):
                stack.extend(item)
        return False

    # -- state --------------------------------------------------------------------------
    def entity(self, entity: Entity) -> dict[str, Any]:
        out = self._entity(entity)
        # what became of it, by the ruleset (``status``): for the GM and for the reader's
        # own side (of a foe, a player reads its wounds only: ``status``, unhurt to down)
        if entity.kind == "creature" and (self.gm or entity.id in self.friends):
            fate = self.ruleset.status(self.state, entity)
            if fate != STANDING:
                out["fate"] = fate
        return out

    def _entity(self, entity: Entity) -> dict[str, Any]:
        if self.gm:
            return plain(entity)  # type: ignore[no-any-return]
        if entity.id in self.friends:
            full: dict[str, Any] = plain(entity)
            shown: dict[str, Any] = self._soften(
                {k: v for k, v in full.items() if k not in GM_ONLY_FIELDS})
            return shown
        out: dict[str, Any] = {k: getattr(entity, k) for k in PUBLIC_FIELDS}
        out["conditions"] = [{"name": c.name, "level": c.level} for c in entity.conditions]
        status = wound_status(entity)
        if status is not None:
            out["status"] = status
        where = {k: plain(getattr(entity, k)) for k in MAP_FIELDS if hasattr(entity, k)}
        out.update(self._soften(where))
        return out

    def public_extra(self) -> dict[str, Any]:
        """The parts of the state's ``extra`` anyone at the table sees on the map (the
        ruleset's ``public_extra`` keys: terrain, walls, zones and their lights), with
        anything naming a concealed creature taken out."""
        keys: frozenset[str] = getattr(self.ruleset, "public_extra", frozenset())
        extra = self.state.extra
        shown = {k: plain(extra[k]) for k in sorted(keys) if k in extra}
        fog = self.fog
        if fog["enabled"]:  # the map under the fog is not shown: only revealed squares
            shown = {k: _revealed_only(v, revealed_squares(fog)) for k, v in shown.items()}
        softened: dict[str, Any] = self._soften(shown)
        return softened

    def map_json(self) -> dict[str, Any] | None:
        """What the ruleset tells the battle map about the creatures this principal sees
        (``map_view``: footprints, reach, lines of sight, range bands), or None when it
        tells nothing."""
        hook = getattr(self.ruleset, "map_view", None)
        if not callable(hook):
            return None
        view = plain(hook(self.state, self.visible_ids()))
        if self.gm:
            return view  # type: ignore[no-any-return]
        softened: dict[str, Any] = self._soften(view)
        return softened

    def shown_turn(self) -> tuple[int, str | None]:
        """The round and whose turn it is, as this principal may know them. While a
        concealed creature acts, a player sees the turn of the last creature they can see
        that acted before it (in the previous round if need be), so nothing tells them that
        someone unseen is acting; when nobody they can see has acted yet (concealed
        creatures open round 1), the turn as it would be without them: round 1, the first
        creature they can see in the order."""
        s = self.state
        current = s.current
        if current is None or current not in self.concealed:
            return s.round, current
        order = s.order
        index = s.turn_index
        for step in range(1, len(order) + 1):
            j = index - step
            round_ = s.round if j >= 0 else s.round - 1
            if round_ < 1:
                break
            who = order[j % len(order)]
            if who not in self.concealed:
                return round_, who
        for who in order[index:]:
            if who not in self.concealed:
                return s.round, who
        return s.round, None

    def names(self) -> dict[str, str]:
        """Creature names by id, of the creatures this principal can see."""
        return {e.id: e.name for e in self.state.entities.values()
                if e.id not in self.concealed}

    def state_json(self, encounter_id: str, version: int) -> dict[str, Any]:
        s = self.state
        hide = self.concealed
        round_, current = self.shown_turn()
        out: dict[str, Any] = {
            "encounter": encounter_id,
            "version": version,
            "role": self.principal.role,
            "ruleset": s.ruleset,
            "rulings": dict(s.rulings),
            "round": round_,
            "in_combat": s.in_combat,
            "current": current,
            "order": [e for e in s.order if e not in hide],
            "initiative": {k: v for k, v in s.initiative.items() if k not in hide},
            "entities": {e.id: self.entity(e) for e in s.entities.values() if e.id not in hide},
        }
        if self.gm:
            out["economy"] = plain(s.economy)
            out["extra"] = plain(s.extra)
            # the condition names that hide a creature from its enemies' players
            out["concealing"] = sorted(self.ruleset.concealing)
            out["reveal_on_turn"] = s.reveal_on_turn  # the console's checkbox
        else:
            out["characters"] = sorted(self.own)
            out["economy"] = {k: plain(v) for k, v in s.economy.items() if k in self.own}
            out["extra"] = self.public_extra()
        shown = self.map_json()
        if shown is not None:
            out["map"] = shown
        scene = s.extra.get("scene")
        if scene:  # the background image and the grid's place on it (``scene``)
            out["scene"] = plain(scene)
        tokens = {k: v for k, v in s.extra.get("tokens", {}).items()
                  if k in s.entities and k not in hide}
        if tokens:  # token pictures (content hashes), of the creatures this reader sees
            out["tokens"] = tokens
        fog = self.fog
        if fog["enabled"] or fog["squares"] or fog["zones"]:
            out["fog"] = plain(fog)  # what is revealed (the GM's map shades the rest)
        return out

    # -- log ----------------------------------------------------------------------------
    def record(self, record: LogRecord) -> dict[str, Any] | None:
        """A log record for this principal, with ``text``: its events as sentences written
        for the principal's role (``Ruleset.describe``); None when a player sees nothing of
        it (every event is about a concealed creature or is the game master's bookkeeping):
        such a record is left out of the player's log and WebSocket messages entirely."""
        if self.gm:
            out = record.to_json()
            if record.kind == "entry":
                out.pop("payload")
                out.update(record.payload)
                out["text"] = self.text(record.payload.get("events", []))
            else:
                out["text"] = _marker_text(record)
            return out
        if record.kind != "entry":
            # the undo or redo of an entry the player saw nothing of is nothing to them
            undone = (self.find(record.target) if self.find is not None
                      and record.target is not None else None)
            if undone is not None and undone.kind == "entry" and self.record(undone) is None:
                return None
            return {"seq": record.seq, "kind": record.kind, "target": record.target,
                    "text": _marker_text(record)}
        payload = record.payload
        command = dict(payload.get("command", {}))
        said = self._said(record, command)
        if command.get("actor") not in self.own:  # its arguments are the GM's alone
            command = {k: command[k] for k in ("do", "actor") if k in command}
        withheld = self._mentions(command, said)
        if withheld:  # a command naming a concealed creature: only its visible effects
            command = {}
        events = []
        whole = not withheld
        for event in payload.get("events", []):
            shown, intact = self._event(event, said)
            if shown is not None:
                events.append(shown)
            whole = whole and intact
        if not events and (payload.get("events") or withheld):
            return None
        # Dice only when nothing about a concealed creature was taken out (its rolls would
        # count it); what is kept from the player of a creature they see (its Health) is not
        # in the dice.
        out = {"seq": record.seq, "kind": "entry", "command": command, "events": events,
               "dice": payload.get("dice", []) if whole else [], "text": self.text(events)}
        if whole and "typed" in payload:  # how many of the dice were typed at the table
            out["typed"] = payload["typed"]
        return out

    def _said(self, record: LogRecord, command: Mapping[str, Any]) -> frozenset[str]:
        """The strings of a command the player sent themselves (a player's, for one of
        their characters): echoing them back tells nothing, so they are never compared with
        a concealed creature's id or name (else the answer would test a guess)."""
        if not record.author.startswith("player:") or command.get("actor") not in self.own:
            return frozenset()
        return frozenset(strings(command))

    def text(self, events: Iterable[dict[str, Any]]) -> str:
        """Events (as this principal sees them) as sentences for this principal's role."""
        names = self.names()
        describe = self.ruleset.describe
        out = []
        for event in events:
            data = event.get("data")
            if isinstance(data, dict):
                out.append(describe(str(event.get("type", "")), data, names, self.gm))
        return " ".join(s for s in out if s)

    def _event(self, event: dict[str, Any], said: frozenset[str] = frozenset()
               ) -> tuple[dict[str, Any] | None, bool]:
        """The event as this player may see it (None when it is about a concealed one, or
        the game master's bookkeeping: ``Ruleset.gm_only_events``), and whether nothing
        about a concealed creature was taken out of it."""
        data = event.get("data", {})
        if not isinstance(data, dict):
            return None, False
        if event.get("type") in self.ruleset.gm_only_events:
            return None, True
        intact = True
        if self.concealed:
            public = self.ruleset.public_event(str(event.get("type", "")), data,
                                               self.concealed)
            intact = public == data
            data = public
        subject = data.get("target", data.get("id"))
        if subject is None and isinstance(data.get("path"), str):
            subject = data["path"].split(".")[0]
        if subject is not None and subject not in self.friends:
            kind = str(event.get("type", ""))
            private = kind in self.ruleset.private_events
            secret = SECRET_EVENT_KEYS - PUBLIC_EVENT_KEYS.get(kind, frozenset())
            data = ({"target": subject} if private else
                    {k: v for k, v in data.items() if k not in secret})
        try:
            scrubbed = self._scrub(data, said)
        except _Mentioned:
            return None, False
        return {**event, "data": scrubbed}, intact and scrubbed == data

    def _scrub(self, value: Any, said: frozenset[str] = frozenset()) -> Any:
        """``value`` without keys or list items that are concealed ids or names; raises
        :class:`_Mentioned` when any other text names one. Strings in ``said`` (what the
        player sent) are kept as they are."""
        return self._clean(value, self._refuse_text, said)

    def _soften(self, value: Any) -> Any:
        """``value`` (a creature the player sees in full, the map) with nothing that names a
        concealed creature by its id (what the state refers to creatures by): keys and list
        items that are one's id are taken out, a text that is one's id becomes None (a
        condition's ``source``, a rider's mount), and a text that mentions one becomes
        "(out of sight)". A concealed creature's name is not looked for: in the state a
        text equal to it is free text the player wrote (a group, a place), and blanking it
        would let them test guesses."""
        return self._clean(value, self._soften_text, secret=self._ids)

    def _clean(self, value: Any, text: Callable[[str], Any],
               said: frozenset[str] = frozenset(),
               secret: re.Pattern[str] | bool | None = True) -> Any:
        """The walk both share: keys and list items naming a concealed creature (``secret``:
        by default its id or name) are taken out, every other text goes through ``text``;
        a string in ``said`` stays as it is."""
        pattern = self._secret if secret is True else secret
        if not isinstance(pattern, re.Pattern):
            return value
        if isinstance(value, str):
            return value if value in said else text(value)
        if isinstance(value, dict):
            return {k: self._clean(v, text, said, pattern) for k, v in value.items()
                    if not (isinstance(k, str) and k not in said and pattern.fullmatch(k))}
        if isinstance(value, list):
            return [self._clean(v, text, said, pattern) for v in value
                    if not (isinstance(v, str) and v not in said and pattern.fullmatch(v))]
        return value

    def _refuse_text(self, value: str) -> str:
        if self._secret is not None and self._secret.search(value):
            raise _Mentioned
        return value

    def _soften_text(self, value: str) -> str | None:
        if self._ids is None:
            return value
        if self._ids.fullmatch(value):
            return None
        return "(out of sight)" if self._ids.search(value) else value

    def records(self, records: Iterable[LogRecord]) -> list[dict[str, Any]]:
        """The records this principal sees (those a player sees nothing of left out)."""
        shown = (self.record(r) for r in records)
        return [r for r in shown if r is not None]

    # -- odds ---------------------------------------------------------------------------
    def odds(self, command_target: Any, odds: dict[str, Any]) -> dict[str, Any] | None:
        """The odds as this principal may see them: without keys and list items naming a
        concealed creature (a search's chance to find each hider lists only those the
        player knows of, so it tells nothing of the others), and without the chances that
        tell the Health of a target not on the player's side (:data:`SECRET_ODDS_KEYS`).
        None when any other text names a concealed creature."""
        if self.gm:
            return odds
        try:
            shown: dict[str, Any] = self._scrub(odds)
        except _Mentioned:
            return None
        if command_target in self.friends:
            return shown
        return {k: v for k, v in shown.items() if k not in SECRET_ODDS_KEYS}

    # -- errors -------------------------------------------------------------------------
    def error_text(self, message: str, said: Iterable[str] = ()) -> str:
        """An error message safe to show: no concealed name, no list that would hold one.

        ``said`` are the strings the player sent: echoing them back tells nothing, so they
        do not count (otherwise the answer would betray whether a guessed name exists)."""
        if self.gm:
            return message
        rest = message
        for text in sorted(said, key=len, reverse=True):
            if text:
                rest = rest.replace(text, "")
        if not self.mentions_secret(rest):
            return message
        return "that command is not possible here"


# -- a campaign's roster -----------------------------------------------------------------
class RosterView:
    """What a principal may read of a campaign's roster (``core/roster.py``), by the rules
    of the encounter view: the game master everything; a player their own characters (those
    their token names) and the characters on their side in full, less the game-master-only
    fields (``notes``...); any other character its public face (id, name, kind, side,
    conditions and a wound status, from the character as it would join an encounter); a
    character the game master marked ``hidden`` that is not theirs, not at all (it answers
    like one that does not exist)."""

    def __init__(self, characters: Mapping[str, Mapping[str, Any]], principal: Principal,
                 entity: Callable[[str], Entity]) -> None:
        self.characters = characters
        self.principal = principal
        self.entity = entity
        self.gm = principal.is_gm
        self.own = {c for c in principal.characters if c in characters}
        self.sides = {characters[c].get("side") for c in self.own} - {None}

    def character(self, ident: str) -> dict[str, Any] | None:
        """The character as this principal may read it; None when they may not know of it."""
        record = self.characters.get(ident)
        if record is None:
            return None
        if self.gm:
            return dict(record)
        if ident not in self.own and record.get("hidden"):
            return None
        if ident in self.own or (record.get("side") is not None
                                 and record.get("side") in self.sides):
            return {k: v for k, v in record.items() if k not in GM_ONLY_FIELDS}
        out: dict[str, Any] = {"id": ident, "name": record.get("name", ident),
                               "side": record.get("side")}
        try:
            entity = self.entity(ident)
        except Exception:  # a sheet that no longer builds shows its name only
            return out
        out.update({k: getattr(entity, k) for k in PUBLIC_FIELDS})
        out["conditions"] = [{"name": c.name, "level": c.level} for c in entity.conditions]
        status = wound_status(entity)
        if status is not None:
            out["status"] = status
        return out

    def roster(self) -> list[dict[str, Any]]:
        """Every character this principal may know of, in the roster's order."""
        shown = (self.character(ident) for ident in self.characters)
        return [c for c in shown if c is not None]


def campaign_record(record: LogRecord, describe: Callable[[str, dict[str, Any]], str]
                    ) -> dict[str, Any]:
    """A record of a campaign's own log (the game master's alone), with ``text``."""
    out = record.to_json()
    if record.kind != "entry":
        out["text"] = _marker_text(record)
        return out
    out.pop("payload")
    out.update(record.payload)
    out["text"] = " ".join(
        describe(str(e.get("type", "")), e.get("data", {})) for e in
        record.payload.get("events", []) if isinstance(e, dict)
        and isinstance(e.get("data"), dict))
    return out
