"""The game service: decide → append → evolve against the store, for many clients at once.

It keeps the state of each encounter it has served in memory, at the version it was built
from. A command is decided on that state and appended with that version; when another
client (or another server process on the same PostgreSQL) appended first, the append is
refused, the state is brought up to date and the command decided again, up to a few times.
A client that names the version it saw (``expected_version``) gets the conflict reported
instead. Per encounter, commands run one at a time; encounters run in parallel.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from ..core import (
    Command,
    EncounterState,
    Entry,
    IllegalCommand,
    InvalidCommand,
    RulesError,
    Ruleset,
    load_ruleset,
)
from ..core.catalogue import InvalidArgument
from ..core.roster import Roster, RosterState
from ..core.ruleset import BATCH_LIMIT
from ..dice import DiceSource, ForcedDice, RecordingDice, SeededDice
from ..dice.sources import NoDice
from ..limits import CAMPAIGN_IMAGE_BYTES
from .errors import Conflict, NotFound, NothingToUndo, SnapshotError, StoreError
from .images import TOKEN_SIDE, StoredImage, clean_image
from .importing import EXPORT_FORMAT, EXPORT_SCHEMA, Deadline, read_campaign_file
from .replay import (
    apply_entries,
    effective_entries,
    make_snapshot,
    redo_target,
    snapshot_state,
    stacks,
    undo_target,
)
from .store import (
    CampaignRecord,
    EncounterRecord,
    EventStore,
    LogRecord,
    Role,
    TokenRecord,
    now,
)

log = logging.getLogger("arbiter.store")
T = TypeVar("T")

MAX_RETRIES = 40
"""A command that lost the race for its encounter's next log position (another server on
the same PostgreSQL database appended first) is decided again at least this many times..."""
RETRY_SECONDS = 10.0
"""...and for as long as this since its first try: contention alone never fails a client
(issue: bounded work; bench/postgres.py measures it)."""
BACK_OFF_SECONDS = (0.0005, 0.05)
"""The first and the longest wait before deciding again: a random time up to the first,
doubling with each try up to the longest ("full jitter"), so contenders spread out."""


def digest(token: str) -> str:
    """The SHA-256 of a token: what the store keeps instead of the token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_id(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(5)}"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking: the game master of a campaign, or a player and their characters."""

    campaign_id: str
    role: Role
    name: str
    characters: frozenset[str] = frozenset()

    @property
    def is_gm(self) -> bool:
        return self.role == "gm"

    @property
    def author(self) -> str:
        return "gm" if self.is_gm else f"player:{self.name}"


@dataclass(slots=True)
class Loaded:
    """An encounter's state in memory, as of log record ``version``."""

    encounter: EncounterRecord
    ruleset: Ruleset
    state: EncounterState
    version: int
    snapshot_seq: int


@dataclass(slots=True)
class RosterLoaded:
    """A campaign's roster and bestiary in memory, as of its own log's record ``version``."""

    campaign_id: str
    roster: Roster
    state: RosterState
    version: int


Listener = Callable[[Loaded, LogRecord], None]
Guard = Callable[[Loaded, Command], None]


class TypedThenRolled:
    """Dice typed at the table first, in order, then rolled by the server (``dice_rest``)."""

    __slots__ = ("rest", "typed")

    def __init__(self, typed: ForcedDice, rest: DiceSource) -> None:
        self.typed = typed
        self.rest = rest

    def roll(self, faces: int) -> int:
        return self.typed.roll(faces) if self.typed.remaining else self.rest.roll(faces)


def _dice_source(dice: Sequence[int] | None, source: Callable[[], DiceSource] | None,
                 rest: bool = False) -> tuple[RecordingDice, ForcedDice | None]:
    """The dice a command rolls, recorded: ``dice`` forced in order when given, else
    ``source()`` (default: a fresh seed from :mod:`secrets`); and the forced ones, if any.
    With ``rest``, the dice after the forced ones come from the source."""
    forced = ForcedDice(dice) if dice is not None else None
    rolled: DiceSource = source() if source else SeededDice(secrets.randbits(64))
    inner: DiceSource = rolled if forced is None else (
        TypedThenRolled(forced, rolled) if rest else forced)
    return RecordingDice(inner), forced


def _all_used(command: Command, forced: ForcedDice | None) -> None:
    """Refuse a command that left forced dice unused (they were meant for something)."""
    if forced is not None and forced.remaining:
        raise InvalidCommand(f"{command.name}: {len(forced.remaining)} forced dice value(s) "
                             f"left unused ({forced.used} used)")


class GameService:
    """Campaigns, tokens and encounters played through the store."""

    def __init__(self, store: EventStore, snapshot_every: int = 200,
                 cache_size: int = 512) -> None:
        self.store = store
        self.snapshot_every = snapshot_every
        self.cache_size = cache_size
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._locks: dict[str, threading.RLock] = {}
        self._locks_guard = threading.Lock()
        self._tokens: dict[str, list[TokenRecord]] = {}
        self._announced: dict[str, int] = {}
        self._rosters: dict[str, RosterLoaded] = {}
        self.listeners: list[Listener] = []

    # -- campaigns and tokens -----------------------------------------------------------
    def create_campaign(
        self, name: str, ruleset: str, rulings: Mapping[str, str] | None = None
    ) -> tuple[CampaignRecord, str]:
        """A new campaign and its game master's token (shown once, stored as a digest)."""
        rules = load_ruleset(ruleset)
        chosen = dict(rulings or {})
        rules.rulings.resolve(chosen)
        record = self.store.create_campaign(new_id("c-"), name, ruleset, chosen)
        token = self.issue_token(record.id, "gm", "game master", ())
        return record, token

    def set_campaign_rulings(self, campaign_id: str, rulings: Mapping[str, str]) -> None:
        campaign = self.store.campaign(campaign_id)
        load_ruleset(campaign.ruleset).rulings.resolve(rulings)
        self.store.set_campaign_rulings(campaign_id, dict(rulings))

    def issue_token(
        self, campaign_id: str, role: Role, name: str, characters: Sequence[str]
    ) -> str:
        token = secrets.token_urlsafe(32)
        self.store.add_token(TokenRecord(campaign_id, digest(token), role, name,
                                         tuple(characters), now()))
        self._tokens.pop(campaign_id, None)
        return token

    def authenticate(self, campaign_id: str, token: str) -> Principal | None:
        """The principal a token stands for in a campaign, compared in constant time.

        Tokens of a campaign are cached; an unknown token reloads them once (another
        server may have issued it)."""
        found = self.cached_principal(campaign_id, token)
        if found is None:
            self._tokens[campaign_id] = self.store.tokens(campaign_id)
            found = self.cached_principal(campaign_id, token)
        return found

    def cached_principal(self, campaign_id: str, token: str) -> Principal | None:
        """:meth:`authenticate` against the cached tokens only (no database access)."""
        records = self._tokens.get(campaign_id)
        if records is None:
            return None
        wanted = digest(token)
        found = None
        for rec in records:  # look at every record: the time does not tell which matched
            if hmac.compare_digest(rec.digest, wanted):
                found = rec
        if found is None:
            return None
        return Principal(campaign_id, found.role, found.name, frozenset(found.characters))

    def players(self, campaign_id: str) -> list[TokenRecord]:
        return [t for t in self.store.tokens(campaign_id) if t.role == "player"]

    # -- encounters ---------------------------------------------------------------------
    def create_encounter(
        self, campaign_id: str, name: str, rulings: Mapping[str, str] | None = None,
        characters: Sequence[str] = (), creatures: Sequence[Mapping[str, Any]] = (),
    ) -> EncounterRecord:
        """A new encounter; with ``characters`` (roster ids) and ``creatures``
        (``{"template", "id"?, "side"?}``, templates shipped or of the bestiary), its log's
        second record adds them (one entry: one undo). A refusal names what was asked for
        (``characters.1``, ``creatures.0.template``) and nothing is stored. A creature the
        GM hid is revealed when its turn starts (``reveal_on_turn``, on for the encounters
        the server makes; the GM turns it off with the command of that name)."""
        campaign = self.store.campaign(campaign_id)
        ruleset = load_ruleset(campaign.ruleset)
        chosen = {**campaign.rulings, **(rulings or {})}
        command = Command("create", args={"rulings": chosen, "reveal_on_turn": True})
        state = EncounterState(ruleset="")
        events = ruleset.decide(state, command, NoDice(command.name))
        entry = Entry(1, command, events, [])
        records = [LogRecord(1, "entry", _payload(entry), author="gm", created_at=now())]
        if characters or creatures:
            if len(characters) + len(creatures) > BATCH_LIMIT:
                raise InvalidArgument(f"at most {BATCH_LIMIT} characters and creatures join "
                                      "a new encounter", "creatures")
            arrivals = self.roster(campaign_id, lambda r: r.roster.arrivals(
                r.state, characters, creatures))
            apply_entries(ruleset, state, [entry])
            joined = _joining(ruleset, state, arrivals)
            records.append(LogRecord(2, "entry", _payload(joined), author="gm",
                                     created_at=now()))
        return self.store.create_encounter(new_id("e-"), campaign_id, name, records)

    @contextmanager
    def locked(self, encounter_id: str) -> Iterator[None]:
        with self._locks_guard:
            lock = self._locks.setdefault(encounter_id, threading.RLock())
        with lock:
            yield

    def _load(self, encounter_id: str) -> Loaded:
        encounter, snapshot, records = self.store.load(encounter_id)
        campaign = self.store.campaign(encounter.campaign_id)
        ruleset = load_ruleset(campaign.ruleset)
        state = snapshot_state(ruleset, snapshot)
        if state is None and snapshot is not None:  # another version: replay everything
            encounter, snapshot, records = encounter, None, self.store.records(encounter_id)
        if state is None:
            state = EncounterState(ruleset="")
        apply_entries(ruleset, state, effective_entries(records))
        last = records[-1].seq if records else (snapshot.seq if snapshot else 0)
        loaded = Loaded(encounter, ruleset, state, last, snapshot.seq if snapshot else 0)
        self._remember(loaded)
        self._announced.setdefault(encounter_id, last)  # listeners knew the log up to here
        return loaded

    def _remember(self, loaded: Loaded) -> None:
        self._cache[loaded.encounter.id] = loaded
        self._cache.move_to_end(loaded.encounter.id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _current(self, encounter_id: str, check: bool = True) -> Loaded:
        """The encounter in memory, brought up to the stored version when ``check``."""
        loaded = self._cache.get(encounter_id)
        if loaded is None:
            return self._load(encounter_id)
        if check:
            stored = self.store.version(encounter_id)
            if stored != loaded.version:
                # Another process appended: catch up, and tell this process's listeners.
                newer = self.store.records(encounter_id, after=loaded.version)
                if any(r.kind != "entry" for r in newer):
                    loaded = self._load(encounter_id)
                else:
                    apply_entries(loaded.ruleset, loaded.state, [r.entry() for r in newer])
                    loaded.version = newer[-1].seq if newer else loaded.version
                self._announce(loaded)
        return loaded

    def catch_up(self, encounter_id: str) -> None:
        """Bring the encounter up to the stored version, notifying listeners of what is new
        (called when another server process signals an append)."""
        with self.locked(encounter_id):
            if encounter_id in self._cache:
                self._current(encounter_id)

    def read(self, encounter_id: str, fn: Callable[[Loaded], T]) -> T:
        """``fn`` of the encounter's current state, with nobody changing it meanwhile."""
        with self.locked(encounter_id):
            return fn(self._current(encounter_id))

    def forget(self, encounter_id: str) -> None:
        self._cache.pop(encounter_id, None)

    # -- play ---------------------------------------------------------------------------
    def submit(
        self, encounter_id: str, command: Command, author: str = "gm",
        dice: Sequence[int] | None = None, expected_version: int | None = None,
        guard: Guard | None = None, source: Callable[[], DiceSource] | None = None,
        dice_rest: bool = False,
    ) -> tuple[Loaded, LogRecord]:
        """Decide ``command``, append it durably, apply it; the encounter and the record.

        ``dice`` forces the command's dice (all must be used); otherwise they are rolled
        from ``source()`` (default: a fresh seed from :mod:`secrets`). With ``dice_rest``,
        ``dice`` are the first dice (typed at the table) and the rest are rolled; the record
        says how many were typed (``typed`` in its payload). ``guard`` may refuse
        the command (it raises) after seeing the current state. With ``expected_version``
        a stale state is reported as :class:`Conflict`; without it the command is decided
        again on the newer state.
        """
        tried = -1
        # The retries keep the encounter's lock of this process: the commands waiting
        # here for it would lose the same race, and the one that lost goes on first.
        with self.locked(encounter_id):
            for _ in _attempts():
                loaded = self._current(encounter_id, check=expected_version is not None)
                tried = loaded.version
                if expected_version is not None and expected_version != loaded.version:
                    raise Conflict(encounter_id, expected_version, loaded.version)
                if guard is not None:
                    guard(loaded, command)
                entry = self._decide(loaded, _numbered(loaded, command,
                                                       self._bestiary(loaded, command)),
                                     dice, source, dice_rest)
                payload = _payload(entry)
                if dice is not None and dice_rest:
                    payload["typed"] = len(dice)
                record = LogRecord(loaded.version + 1, "entry", payload,
                                   author=author, created_at=now())
                try:
                    apply_entries(loaded.ruleset, loaded.state, [entry])
                except Exception as err:
                    self.forget(encounter_id)
                    log.exception("applying %s failed", command.name)
                    raise InvalidCommand(
                        f"{command.name}: the ruleset could not apply its events ({err})"
                    ) from None
                try:
                    self.store.append(encounter_id, loaded.version, [record])
                except Conflict:
                    self.forget(encounter_id)
                    if expected_version is not None:
                        raise
                    continue
                except BaseException:
                    self.forget(encounter_id)
                    raise
                loaded.version = record.seq
                self._maybe_snapshot(loaded)
                self._announce(loaded, record)
                return loaded, record
            raise Conflict(encounter_id, tried, self.store.version(encounter_id))

    def _bestiary(self, loaded: Loaded, command: Command) -> Command:
        """``command`` with the campaign's bestiary filled in: an ``add`` (or the adds of a
        ``batch``) whose template is not one the ruleset ships takes the bestiary entry's
        stat block instead (the ruleset knows only its own templates). The log keeps what
        was decided; its ``entity_added`` keeps the whole stat block, as always."""
        shipped = loaded.ruleset.templates

        def wanted(args: Any) -> bool:
            template = args.get("template") if isinstance(args, dict) else None
            return isinstance(template, str) and template not in shipped

        if command.name == "add":
            if not wanted(command.args):
                return command
        elif command.name == "batch":
            items = command.args.get("commands")
            if not isinstance(items, list) or not any(
                    isinstance(i, dict) and i.get("do") == "add" and wanted(i) for i in items):
                return command
        else:
            return command

        def fill(roster: RosterLoaded, args: dict[str, Any]) -> dict[str, Any]:
            if not wanted(args):
                return args
            kept: dict[str, Any] = {k: args[k] for k in ("do", "id", "initiative") if k in args}
            spec = {k: v for k, v in args.items() if k not in kept}
            return {**kept, **roster.roster.resolve(roster.state, spec)}

        def filled(roster: RosterLoaded) -> Command:
            if command.name == "add":
                return Command("add", command.actor, fill(roster, dict(command.args)))
            items = [fill(roster, i) if isinstance(i, dict) and i.get("do") == "add" else i
                     for i in command.args["commands"]]
            return Command("batch", command.actor, {**command.args, "commands": items})
        return self.roster(loaded.encounter.campaign_id, filled)

    def _decide(
        self, loaded: Loaded, command: Command, dice: Sequence[int] | None,
        source: Callable[[], DiceSource] | None, rest: bool = False,
    ) -> Entry:
        recorder, forced = _dice_source(dice, source, rest)
        try:
            events = loaded.ruleset.decide(loaded.state, command, recorder)
        except RulesError:
            raise
        except Exception as err:  # a ruleset tripping on odd input must not become a 500
            log.exception("%s failed to decide %s", loaded.ruleset.name, command.name)
            raise InvalidCommand(
                f"{command.name}: the {loaded.ruleset.name} ruleset could not decide this "
                f"command ({type(err).__name__}: {err})"
            ) from None
        _all_used(command, forced)
        return Entry(loaded.version + 1, command, events, list(recorder.rolls))

    def preview_state(self, encounter_id: str, command: Command | None = None,
                 guard: Guard | None = None,
                 project: Callable[[Loaded], EncounterState] | None = None,
                 ) -> tuple[Ruleset, EncounterState]:
        """The encounter's ruleset and a copy of its state (or of ``project`` of it), taken
        under its lock after ``guard`` saw it: previews work on it with the lock released,
        so a slow preview never holds a command up (issue: bounded work)."""
        with self.locked(encounter_id):
            loaded = self._current(encounter_id)
            if guard is not None and command is not None:
                guard(loaded, command)
            state = loaded.state if project is None else project(loaded)
            return loaded.ruleset, state.copy()

    def odds(self, encounter_id: str, command: Command, guard: Guard | None = None,
             project: Callable[[Loaded], EncounterState] | None = None) -> dict[str, Any]:
        """The odds of ``command`` on the encounter's state, or on ``project`` of it (a
        player's view of it: the server's odds route), computed on a :meth:`preview_state`
        (not under the encounter's lock)."""
        ruleset, state = self.preview_state(encounter_id, command, guard, project)
        try:
            # Odds of a command the rules would refuse now (no AP left, not engaged)
            # answer with the refusal (Ruleset.preview: the path scenarios take too).
            return ruleset.preview(state, command)
        except RulesError:
            raise
        except Exception as err:
            log.exception("%s failed to compute odds", ruleset.name)
            raise InvalidCommand(
                f"{command.name}: no odds for this command ({type(err).__name__}: {err})"
            ) from None

    def put_scene_image(self, encounter_id: str, data: bytes, author: str = "gm",
                        ) -> tuple[StoredImage, tuple[Loaded, LogRecord] | None]:
        """``data`` checked and encoded again (``images.py``; :class:`ImageError` if it is
        not an image kept here), stored in the encounter's campaign (:class:`TooMuch` past
        its limit) and set as the encounter's scene by a ``scene`` command: the image and
        the encounter and record, or None when it is the scene's image already."""
        image = clean_image(data)
        campaign_id = self.store.encounter(encounter_id).campaign_id
        self.store.put_image(campaign_id, image, CAMPAIGN_IMAGE_BYTES)
        with self.locked(encounter_id):
            scene = self.read(encounter_id,
                              lambda ld: dict(ld.state.extra.get("scene") or {}))
            if scene.get("image") == image.hash:
                return image, None
            return image, self.submit(encounter_id, Command("scene", args={
                "image": image.hash, "width": image.width, "height": image.height}), author)

    def put_token_image(self, encounter_id: str, creature: str, data: bytes,
                        author: str = "gm") -> tuple[StoredImage, tuple[Loaded, LogRecord]]:
        """``data`` as a creature's token picture: checked and encoded again, scaled down to
        :data:`~arbiter.store.images.TOKEN_SIDE`, kept in the campaign and set by a
        ``token`` command (refused as the rules refuse it: an unknown creature)."""
        image = clean_image(data, fit=TOKEN_SIDE)
        campaign_id = self.store.encounter(encounter_id).campaign_id
        self.read(encounter_id, lambda ld: ld.state.entity(creature))  # UnknownEntity
        self.store.put_image(campaign_id, image, CAMPAIGN_IMAGE_BYTES)
        return image, self.submit(encounter_id, Command("token", args={
            "target": creature, "image": image.hash}), author)

    def put_roster_picture(self, campaign_id: str, kind: str, ident: str, data: bytes,
                           author: str = "gm") -> tuple[StoredImage,
                                                        tuple[RosterLoaded, LogRecord]]:
        """``data`` as a roster character's (``kind`` ``character``) or a bestiary
        creature's (``creature``) token picture: checked and encoded again, scaled down to
        :data:`~arbiter.store.images.TOKEN_SIDE`, kept in the campaign and set by a
        ``picture`` command of its log (refused as the roster refuses it: not listed)."""
        image = clean_image(data, fit=TOKEN_SIDE)
        self.store.put_image(campaign_id, image, CAMPAIGN_IMAGE_BYTES)
        return image, self.roster_submit(campaign_id, Command("picture", args={
            "kind": kind, "id": ident, "image": image.hash}), author)

    def dice_plan(self, encounter_id: str, command: Command,
                  project: Callable[[Loaded], EncounterState] | None = None,
                  ) -> dict[str, Any] | None:
        """The dice ``command`` rolls, in order (``core/dice_plan.py``), on the encounter's
        state or on ``project`` of it; None when the rules refuse it."""
        from ..core.dice_plan import safe_plan

        ruleset, state = self.preview_state(encounter_id, project=project)
        try:
            return safe_plan(ruleset, state, command)
        except Exception:  # a ruleset tripping on odd input: no plan, never a 500
            log.exception("%s failed to plan the dice of %s", ruleset.name, command.name)
            return None

    def undo(self, encounter_id: str, author: str = "gm",
             expected_version: int | None = None) -> tuple[Loaded, LogRecord]:
        """Withdraw the latest command in effect (an ``undo`` record; nothing is deleted)."""
        return self._marker(encounter_id, "undo", author, expected_version)

    def redo(self, encounter_id: str, author: str = "gm",
             expected_version: int | None = None) -> tuple[Loaded, LogRecord]:
        """Put back the command undone last, with its recorded events and dice."""
        return self._marker(encounter_id, "redo", author, expected_version)

    def _marker(self, encounter_id: str, kind: str, author: str,
                expected_version: int | None) -> tuple[Loaded, LogRecord]:
        tried = -1
        for _ in _attempts():
            with self.locked(encounter_id):
                rows = self.store.markers(encounter_id)
                version = tried = rows[-1][0] if rows else 0
                if expected_version is not None and expected_version != version:
                    raise Conflict(encounter_id, expected_version, version)
                target = undo_target(rows) if kind == "undo" else redo_target(rows)
                record = LogRecord(version + 1, "undo" if kind == "undo" else "redo",
                                   target=target, author=author, created_at=now())
                try:
                    self.store.append(encounter_id, version, [record],
                                      drop_snapshots_from=target)
                except Conflict:
                    self.forget(encounter_id)
                    if expected_version is not None:
                        raise
                    continue
                finally:
                    self.forget(encounter_id)
                loaded = self._load(encounter_id)
                self._announce(loaded, record)
                return loaded, record
        raise Conflict(encounter_id, tried, self.store.version(encounter_id))

    def snapshot(self, encounter_id: str) -> int:
        """Write a snapshot of the encounter's current state now; its log position."""
        with self.locked(encounter_id):
            loaded = self._current(encounter_id)
            self.store.save_snapshot(encounter_id, make_snapshot(loaded.ruleset, loaded.version,
                                                                 loaded.state))
            loaded.snapshot_seq = loaded.version
            return loaded.version

    def _maybe_snapshot(self, loaded: Loaded) -> None:
        if loaded.version - loaded.snapshot_seq < self.snapshot_every:
            return
        try:
            self.store.save_snapshot(loaded.encounter.id,
                                     make_snapshot(loaded.ruleset, loaded.version, loaded.state))
            loaded.snapshot_seq = loaded.version
        except (SnapshotError, StoreError):
            log.warning("no snapshot of %s at %d", loaded.encounter.id, loaded.version)
            loaded.snapshot_seq = loaded.version  # try again a full interval later

    def _announce(self, loaded: Loaded, known: LogRecord | None = None) -> None:
        """Tell the listeners of every record up to ``loaded.version`` not told yet, in
        order: ``known`` when it is the only new one, else read from the store (records
        appended by another process, or by a command that raced this one)."""
        if not self.listeners:
            return
        eid = loaded.encounter.id
        last = self._announced.get(eid)
        if last is None:
            last = known.seq - 1 if known is not None else loaded.version
        if known is not None and known.seq == last + 1 == loaded.version:
            new = [known]
        elif loaded.version > last:
            new = self.store.records(eid, after=last, limit=loaded.version - last)
        else:
            new = []
        self._announced[eid] = loaded.version
        for record in new:
            self._notify(loaded, record)

    def _notify(self, loaded: Loaded, record: LogRecord) -> None:
        for listener in list(self.listeners):
            try:
                listener(loaded, record)
            except Exception:
                log.exception("a listener failed")

    def records(self, encounter_id: str, after: int = 0, limit: int | None = None
                ) -> list[LogRecord]:
        return self.store.records(encounter_id, after, limit)

    def in_effect(self, encounter_id: str) -> tuple[list[int], list[int]]:
        """The entries in effect and the redo stack (see :func:`arbiter.store.replay.stacks`)."""
        return stacks(self.store.markers(encounter_id))

    # -- the campaign's own log: its roster and bestiary -----------------------------------
    @staticmethod
    def _roster_lock(campaign_id: str) -> str:
        return f"campaign:{campaign_id}"  # never an encounter id (':' is not in an id)

    def _roster_load(self, campaign_id: str) -> RosterLoaded:
        campaign = self.store.campaign(campaign_id)
        roster = Roster(load_ruleset(campaign.ruleset), campaign.rulings)
        version, records = self.store.campaign_log(campaign_id)
        state = RosterState()
        for entry in effective_entries(records):
            for event in entry.events:
                roster.evolve(state, event)
        loaded = RosterLoaded(campaign_id, roster, state, version)
        self._rosters[campaign_id] = loaded
        return loaded

    def _roster_current(self, campaign_id: str, check: bool = True) -> RosterLoaded:
        loaded = self._rosters.get(campaign_id)
        if loaded is None or (
                check and self.store.campaign_log_version(campaign_id) != loaded.version):
            return self._roster_load(campaign_id)
        return loaded

    def roster(self, campaign_id: str, fn: Callable[[RosterLoaded], T]) -> T:
        """``fn`` of the campaign's roster and bestiary as stored now, with nobody changing
        them meanwhile."""
        with self.locked(self._roster_lock(campaign_id)):
            return fn(self._roster_current(campaign_id))

    def roster_locked(self, campaign_id: str) -> Any:
        """The lock of a campaign's own log (hold it to read what a change left)."""
        return self.locked(self._roster_lock(campaign_id))

    def roster_submit(
        self, campaign_id: str, command: Command, author: str = "gm",
        expected_version: int | None = None, dice: Sequence[int] | None = None,
        source: Callable[[], DiceSource] | None = None,
    ) -> tuple[RosterLoaded, LogRecord]:
        """Decide a command of the campaign's own log (roster and bestiary), append it
        durably, apply it; as :meth:`submit` does for an encounter (``dice`` and ``source``
        as there: only ``advance_time`` rolls, under the campaign's rulings)."""
        key = self._roster_lock(campaign_id)
        tried = -1
        for _ in _attempts():
            with self.locked(key):
                loaded = self._roster_current(campaign_id, check=expected_version is not None)
                tried = loaded.version
                if expected_version is not None and expected_version != loaded.version:
                    raise Conflict(campaign_id, expected_version, loaded.version,
                                   "the log of campaign")
                loaded.roster.rulings = dict(self.store.campaign(campaign_id).rulings)
                recorder, forced = _dice_source(dice, source)
                events = loaded.roster.decide(loaded.state, command, recorder)
                _all_used(command, forced)
                entry = Entry(loaded.version + 1, command, events, list(recorder.rolls))
                after = loaded.state.copy()
                for event in events:
                    loaded.roster.evolve(after, event)
                record = LogRecord(entry.seq, "entry", _payload(entry), author=author,
                                   created_at=now())
                try:
                    self.store.append_campaign(campaign_id, loaded.version, [record])
                except Conflict:
                    self._rosters.pop(campaign_id, None)
                    if expected_version is not None:
                        raise
                    continue
                except BaseException:
                    self._rosters.pop(campaign_id, None)
                    raise
                loaded.state, loaded.version = after, record.seq
                return loaded, record
        raise Conflict(campaign_id, tried, self.store.campaign_log_version(campaign_id),
                       "the log of campaign")

    def roster_undo(self, campaign_id: str, author: str = "gm",
                    expected_version: int | None = None) -> tuple[RosterLoaded, LogRecord]:
        """Withdraw the latest command in effect in the campaign's own log."""
        return self._roster_marker(campaign_id, "undo", author, expected_version)

    def roster_redo(self, campaign_id: str, author: str = "gm",
                    expected_version: int | None = None) -> tuple[RosterLoaded, LogRecord]:
        """Put back the command of the campaign's own log undone last."""
        return self._roster_marker(campaign_id, "redo", author, expected_version)

    def _roster_marker(self, campaign_id: str, kind: str, author: str,
                       expected_version: int | None) -> tuple[RosterLoaded, LogRecord]:
        key = self._roster_lock(campaign_id)
        tried = -1
        for _ in _attempts():
            with self.locked(key):
                version = tried = self.store.campaign_log_version(campaign_id)
                rows = self.store.campaign_markers(campaign_id)
                if expected_version is not None and expected_version != version:
                    raise Conflict(campaign_id, expected_version, version,
                                   "the log of campaign")
                active, undone = stacks(r for r in rows if r[0] <= version)
                if kind == "undo" and not active:
                    raise NothingToUndo("nothing to undo: the campaign's log has no command "
                                        "in effect")
                if kind == "redo" and not undone:
                    raise NothingToUndo("nothing to redo: no command of the campaign's log "
                                        "was undone since the last one")
                target = active[-1] if kind == "undo" else undone[-1]
                record = LogRecord(version + 1, "undo" if kind == "undo" else "redo",
                                   target=target, author=author, created_at=now())
                try:
                    self.store.append_campaign(campaign_id, version, [record])
                except Conflict:
                    if expected_version is not None:
                        raise
                    continue
                finally:
                    self._rosters.pop(campaign_id, None)
                return self._roster_load(campaign_id), record
        raise Conflict(campaign_id, tried, self.store.campaign_log_version(campaign_id),
                       "the log of campaign")

    def roster_records(self, campaign_id: str, after: int = 0, limit: int | None = None
                       ) -> list[LogRecord]:
        return self.store.campaign_records(campaign_id, after, limit)

    def write_back(self, encounter_id: str, author: str = "gm",
                   expected_version: int | None = None) -> tuple[RosterLoaded, LogRecord]:
        """Write back what lasts (``Ruleset.lasting``) of every roster character in the
        encounter, as it stands now: one ``write_back`` in the campaign's own log."""
        campaign_id = self.store.encounter(encounter_id).campaign_id
        listed = self.roster(campaign_id, lambda r: set(r.state.characters))

        def read(loaded: Loaded) -> tuple[str, int, dict[str, Any]]:
            lasting = {}
            for ident, entity in loaded.state.entities.items():
                if ident in listed:
                    try:
                        lasting[ident] = json.loads(json.dumps(
                            loaded.ruleset.lasting(loaded.state, entity), allow_nan=False))
                    except (TypeError, ValueError) as err:
                        raise InvalidCommand(f"{loaded.ruleset.name} could not say what of "
                                             f"{ident} lasts ({err})") from None
            return loaded.encounter.name, loaded.version, lasting
        name, version, lasting = self.read(encounter_id, read)
        if not lasting:
            shown = ", ".join(sorted(listed)) or "none"
            raise IllegalCommand(f"no character of the roster ({shown}) is in this encounter")
        command = Command("write_back", args={"encounter": encounter_id, "name": name,
                                              "version": version, "characters": lasting})
        return self.roster_submit(campaign_id, command, author, expected_version)

    # -- export and import --------------------------------------------------------------
    def export_campaign(self, campaign_id: str) -> dict[str, Any]:
        """The whole campaign as one JSON document; importing it gives it back exactly."""
        return {"format": EXPORT_FORMAT, "v": EXPORT_SCHEMA,
                **self.store.export_rows(campaign_id)}

    def import_campaign(self, document: Any, deadline: Deadline | None = None
                        ) -> CampaignRecord:
        """Store an exported campaign under its own ids, all of it or nothing.

        The whole document is checked before anything is written (see
        :mod:`arbiter.store.importing`): a bad one raises :class:`ExportFormatError` naming
        the first bad field (``encounters.0.log.3.v``), a campaign already in the store
        :class:`AlreadyExists`. With a ``deadline``, :class:`DeadlineExceeded` once it has
        passed, and then nothing is stored: it is checked while the file is read and once
        more inside the transaction, just before it commits (which rolls it back)."""
        checked = read_campaign_file(document, self.store, deadline)
        self.store.import_rows(checked.campaign, checked.tokens, checked.encounters,
                               checked.log,
                               before_commit=deadline.check if deadline is not None else None,
                               images=checked.images)
        self.imported(checked.campaign.id)
        return checked.campaign

    def imported(self, campaign_id: str) -> None:
        """Forget what is cached of a campaign just imported (here or by another process
        on the same database: the server imports big files in a child process)."""
        self._tokens.pop(campaign_id, None)
        self._rosters.pop(campaign_id, None)


def _back_off(attempt: int) -> None:
    """Wait a random time before try ``attempt`` + 1: up to BACK_OFF_SECONDS[0] doubled
    ``attempt`` - 1 times, at most BACK_OFF_SECONDS[1]."""
    first, longest = BACK_OFF_SECONDS
    ceiling = min(longest, first * 2 ** min(attempt - 1, 30))
    time.sleep(ceiling * secrets.randbelow(1_000_001) / 1_000_000)


def _attempts() -> Iterator[int]:
    """The tries of a command that may lose a race: 0, 1, 2..., each after the first
    after :func:`_back_off`; at least MAX_RETRIES of them, and more until RETRY_SECONDS
    have passed since the first (then the caller reports the :class:`Conflict`)."""
    began = time.monotonic()
    attempt = 0
    while attempt < MAX_RETRIES or time.monotonic() - began < RETRY_SECONDS:
        if attempt:
            _back_off(attempt)
        yield attempt
        attempt += 1


def _joining(ruleset: Ruleset, state: EncounterState,
             arrivals: Sequence[tuple[str, dict[str, Any]]]) -> Entry:
    """The second entry of a new encounter: the adds of ``arrivals``, one ``batch`` (or one
    ``add``), decided one after the other as a batch is; a refusal names the one refused."""
    events = []
    scratch = state.copy()
    for here, args in arrivals:
        command = Command.from_json(args)
        try:
            decided = ruleset.decide(scratch, command, NoDice(command.name))
        except RulesError as err:
            raise InvalidArgument(str(err), here) from None
        except Exception as err:  # a ruleset tripping on odd input must not become a 500
            raise InvalidArgument(f"{ruleset.name} could not add it ({type(err).__name__}: "
                                  f"{err})", here) from None
        for event in decided:
            ruleset.evolve(scratch, event)
        events += decided
    if len(arrivals) == 1:
        return Entry(2, Command.from_json(arrivals[0][1]), events, [])
    return Entry(2, Command("batch", args={"commands": [a for _, a in arrivals]}), events, [])


def _payload(entry: Entry) -> dict[str, Any]:
    data = entry.to_json()
    data.pop("seq", None)
    return data


def _numbered(loaded: Loaded, asked: Command, command: Command) -> Command:
    """``command`` (``asked`` with the bestiary filled in) with each creature it adds under
    a name no other creature bears: a second creature of one template or bestiary entry is
    "Salt raider 2" (``roster.numbered_name``). A name the game master typed is kept."""
    from ..core.roster import numbered_name

    if command.name not in ("add", "batch"):
        return command
    shipped = loaded.ruleset.templates
    names = {e.name or e.id for e in loaded.state.entities.values()}

    def named(given: Any, args: Any) -> Any:
        if not isinstance(args, dict) or args.get("do", "add") != "add":
            return args
        if isinstance(given, dict) and "name" in given:
            names.add(str(given["name"]))
            return args
        name = args.get("name")
        template = args.get("template")
        if name is None and isinstance(template, str) and template in shipped:
            name = shipped[template].get("name")
        if not isinstance(name, str):
            return args
        unique = numbered_name(name, names)
        names.add(unique)
        return args if unique == name else {**args, "name": unique}

    if command.name == "add":
        args = named(asked.args, dict(command.args))
        return command if args == command.args else Command("add", command.actor, args)
    items = command.args.get("commands")
    if not isinstance(items, list):
        return command
    given = asked.args.get("commands")
    before = given if isinstance(given, list) and len(given) == len(items) else items
    out = [named(g, i) for g, i in zip(before, items, strict=True)]
    return command if out == items else Command("batch", command.actor,
                                                {**command.args, "commands": out})


__all__ = ["GameService", "Loaded", "NotFound", "Principal", "RosterLoaded", "digest"]
