"""Reading an exported campaign file, checked whole before any of it is stored.

:func:`read_campaign_file` refuses a file with :class:`ExportFormatError` naming the first
bad place by its path in the document (``encounters.0.log.3.v``), or with
:class:`AlreadyExists` when the campaign is already in the store, and otherwise returns the
records to write. What it checks, in this order:

- the envelope (``format``, a known ``v``) and the shape of the document;
- at most :data:`~arbiter.limits.IMPORT_RECORDS` log records, counted before anything else
  is read;
- every value is plain JSON that the store can write back: finite numbers (Python's
  ``json`` reads ``1e400`` as infinity), valid Unicode, text keys;
- the campaign: its id is new to the store, its ruleset is installed and its rulings valid;
- tokens: each digest a SHA-256 in hex, none twice, a known role;
- the campaign's own log (its roster and bestiary, ``log``): numbered 1, 2, 3..., schema
  versions as below, every command one of the roster's, undo and redo markers that name
  the entry they would in play, and the whole log replaying;
- encounters: ids well formed, unique in the file and new to the store; each log numbered
  1, 2, 3..., every record's and event's schema version one this Arbiter reads (an older
  one must have an upcaster), the first record the ``create`` command (never undone, never
  repeated), undo and redo markers that name the entry they would in play, and the whole
  log replaying, including the commands that could still be redone.

An older file is brought up to date first, one version at a time (:data:`UPCASTERS`):
version 1 had no campaign log (no roster, no bestiary).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeGuard

from ..core import EncounterState, Entry, Event, RulesError, Ruleset, load_ruleset
from ..core import events as core_events
from ..core.events import Command, upcast
from ..core.roster import Roster, RosterState
from ..core.ruleset import RENAMED_EVENTS
from ..dice import ForcedDice
from ..limits import CAMPAIGN_IMAGE_BYTES, IMPORT_RECORDS
from .errors import AlreadyExists, ExportFormatError, StoreError
from .images import ImageError, StoredImage, clean_image
from .replay import stacks
from .store import (
    LOG_SCHEMA,
    CampaignRecord,
    EncounterRecord,
    EventStore,
    LogRecord,
    RecordKind,
    Role,
    TokenRecord,
)

EXPORT_FORMAT = "arbiter-campaign"
EXPORT_SCHEMA = 2
"""Schema version of the export document's envelope: 2 added the campaign's own log
(``log``: its roster and bestiary)."""
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
DIGEST_PATTERN = re.compile(r"[0-9a-f]{64}")
CREATE = "create"
"""The command that opens every encounter's log (:meth:`GameService.create_encounter`)."""


@dataclass(slots=True)
class CampaignImport:
    """What an import writes, every part of it checked."""

    campaign: CampaignRecord
    tokens: list[TokenRecord]
    encounters: list[tuple[EncounterRecord, list[LogRecord]]]
    log: list[LogRecord]
    """The campaign's own log (its roster and bestiary)."""
    images: list[StoredImage] = field(default_factory=list)
    """Its scene images, each checked and encoded again as an upload is."""


class DeadlineExceeded(StoreError):
    """An import ran past its deadline and was stopped: nothing of it was stored (the
    check before the commit rolls the whole transaction back)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"this took longer than {seconds:g} s and was stopped; nothing was "
                         "stored: import a smaller file, or try again when the server is "
                         "less busy")


class Deadline:
    """When an import must be done by (``time.monotonic``), checked between its steps and
    once more just before it commits; :meth:`check` raises :class:`DeadlineExceeded`."""

    __slots__ = ("at", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def check(self) -> None:
        if time.monotonic() > self.at:
            raise DeadlineExceeded(self.seconds)


def _no_deadline() -> None:
    return None


def _fail(message: str, field: str | None) -> NoReturn:
    raise ExportFormatError(message, field)


def read_campaign_file(document: Any, store: EventStore,
                       deadline: Deadline | None = None) -> CampaignImport:
    """The records of an exported campaign, or the first reason it cannot be imported.
    With a ``deadline``, :class:`DeadlineExceeded` once it has passed (checked between
    steps, and record by record while logs replay)."""
    check = deadline.check if deadline is not None else _no_deadline
    check()
    doc = _upcast_export(document)
    campaign_doc, token_docs, encounter_docs = _shape(doc)
    _count_records(encounter_docs, len(doc["log"]))
    _scan(doc)
    check()
    campaign, ruleset = _campaign(campaign_doc)
    campaign_log = _campaign_log(doc["log"], ruleset, check)
    if store.has_campaign(campaign.id):
        raise AlreadyExists("campaign", campaign.id, "campaign.id")
    tokens = _tokens(token_docs, campaign.id)
    ids = _encounter_ids(encounter_docs)
    taken = store.taken_encounter_ids(ids)
    for i, eid in enumerate(ids):
        if eid in taken:
            _fail(f"an encounter {eid!r} already exists in this store (in another campaign); "
                  "an import never replaces one", f"encounters.{i}.id")
    encounters = [_encounter(e, i, ids[i], campaign.id, ruleset, check)
                  for i, e in enumerate(encounter_docs)]
    images = _images(doc.get("images", []), check)
    return CampaignImport(campaign, tokens, encounters, campaign_log, images)


def _images(docs: Any, check: Callable[[], None]) -> list[StoredImage]:
    """The campaign's scene images: each decoded, checked and encoded again as an upload
    is (``images.py``), kept under the hash the logs name it by."""
    if not isinstance(docs, list):
        _fail("must be a list of images", "images")
    out: list[StoredImage] = []
    seen: set[str] = set()
    total = 0
    for n, doc in enumerate(docs):
        here = f"images.{n}"
        if not isinstance(doc, dict) or not isinstance(doc.get("data"), str):
            _fail("an image is an object with hash, content_type, width, height and data "
                  "(base64)", here)
        key = doc.get("hash")
        if not isinstance(key, str) or not DIGEST_PATTERN.fullmatch(key) or key in seen:
            _fail("an image's hash is a SHA-256 in 64 lowercase hexadecimal digits, once "
                  "in the file", f"{here}.hash")
        seen.add(key)
        try:
            raw = base64.b64decode(doc["data"], validate=True)
        except (binascii.Error, ValueError):
            _fail("must be the image's bytes in base64", f"{here}.data")
        try:
            image = clean_image(raw)
        except ImageError as err:
            _fail(str(err), f"{here}.data")
        total += len(image.data)
        if total > CAMPAIGN_IMAGE_BYTES:
            _fail(f"the campaign's images take more than {CAMPAIGN_IMAGE_BYTES} bytes "
                  "together", here)
        out.append(StoredImage(key, image.content_type, image.width, image.height,
                               image.data))
        check()
    return out


# -- the envelope and the shape ---------------------------------------------------------
def _upcast_export(document: Any) -> dict[str, Any]:
    if not isinstance(document, dict):
        _fail("a campaign file is a JSON object", None)
    if document.get("format") != EXPORT_FORMAT:
        _fail(f"must be {EXPORT_FORMAT!r}", "format")
    version = document.get("v")
    if not _is_int(version) or version < 1:
        _fail("must be a schema version (a whole number from 1)", "v")
    if version > EXPORT_SCHEMA:
        _fail(f"schema version {version} is newer than this Arbiter reads ({EXPORT_SCHEMA})",
              "v")
    upcast: dict[str, Any] = document
    while version < EXPORT_SCHEMA:
        upcast = UPCASTERS[version](upcast)
        version += 1
    return upcast


def _v1_to_v2(document: dict[str, Any]) -> dict[str, Any]:
    """Version 1 had no campaign log: the campaign had no roster and no bestiary."""
    return {**document, "v": 2, "log": document.get("log", [])}


UPCASTERS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2}
"""How a campaign file of each older version becomes the next one."""


def _shape(doc: dict[str, Any]) -> tuple[dict[str, Any], list[Any], list[Any]]:
    campaign = doc.get("campaign")
    if not isinstance(campaign, dict):
        _fail("must be an object: the campaign's id, name, ruleset, rulings and created_at",
              "campaign")
    tokens = doc.get("tokens")
    if not isinstance(tokens, list):
        _fail("must be a list of tokens", "tokens")
    if not isinstance(doc.get("log"), list):
        _fail("must be a list of log records: the campaign's own log (its roster and "
              "bestiary)", "log")
    encounters = doc.get("encounters")
    if not isinstance(encounters, list):
        _fail("must be a list of encounters", "encounters")
    for i, enc in enumerate(encounters):
        if not isinstance(enc, dict):
            _fail("an encounter is an object with id, name, created_at and log",
                  f"encounters.{i}")
        if not isinstance(enc.get("log"), list):
            _fail("must be a list of log records", f"encounters.{i}.log")
    return campaign, tokens, encounters


def _count_records(encounters: list[Any], campaign_log: int = 0) -> None:
    """Refuse more than IMPORT_RECORDS records (the campaign's own log's first) before
    reading any of them."""
    total = campaign_log + sum(len(e["log"]) for e in encounters)
    if total <= IMPORT_RECORDS:
        return
    if campaign_log > IMPORT_RECORDS:
        _fail(f"a campaign file holds at most {IMPORT_RECORDS:,} log records, all logs "
              f"together; this one holds {total:,}", f"log.{IMPORT_RECORDS}")
    seen = campaign_log
    for i, enc in enumerate(encounters):
        if seen + len(enc["log"]) > IMPORT_RECORDS:
            _fail(f"a campaign file holds at most {IMPORT_RECORDS:,} log records, all "
                  f"encounters together; this one holds {total:,}",
                  f"encounters.{i}.log.{IMPORT_RECORDS - seen}")
        seen += len(enc["log"])


def _scan(doc: dict[str, Any]) -> None:
    """Refuse, at its path, the first value (in document order) that the store could not
    write back as JSON: infinity or NaN, text that is not valid Unicode, or a Python value
    that is not JSON.

    The usual case, a clean file, costs one ``json.dumps`` in C; only a file it refuses is
    walked value by value to find where."""
    try:
        json.dumps(doc, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except RecursionError:
        _fail("the file nests too deeply to be stored", None)
    except ValueError as err:
        if str(err).startswith("Circular reference"):
            _fail("a campaign file is a tree of JSON values; this one contains itself", None)
    except (TypeError, UnicodeEncodeError):
        pass
    else:
        return  # (keys that are numbers, which only a Python caller can pass, pass as text)
    # Each stack item: a value and its path as a linked (parent, key) pair, spelt out only
    # for an error.
    stack: list[tuple[Any, Any]] = [(doc, None)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            if not value.isascii() and not _is_unicode(value):
                _fail("text must be valid Unicode (it holds a lone surrogate)", _path(where))
        elif isinstance(value, float):
            if not math.isfinite(value):
                _fail(f"numbers must be finite, not {value!r} (a number too large for a "
                      "64-bit float, such as 1e400, reads as infinity)", _path(where))
        elif isinstance(value, dict):
            for key in value:
                if not isinstance(key, str):
                    _fail(f"keys must be text, not {_json_type(key)}", _path(where))
                if not key.isascii() and not _is_unicode(key):
                    _fail("keys must be valid Unicode (this one holds a lone surrogate)",
                          _path(where))
            for key, inner in reversed(value.items()):
                stack.append((inner, (where, key)))
        elif isinstance(value, list | tuple):
            for index in range(len(value) - 1, -1, -1):
                stack.append((value[index], (where, index)))
        elif value is not None and not isinstance(value, int):
            _fail(f"{type(value).__name__} is not a JSON value", _path(where))
    _fail("the file holds a value that cannot be written as JSON", None)


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _path(where: Any) -> str | None:
    parts: list[str] = []
    while where is not None:
        where, key = where
        parts.append(str(key))
    return ".".join(reversed(parts)) or None


# -- campaign and tokens ------------------------------------------------------------------
def _campaign(c: dict[str, Any]) -> tuple[CampaignRecord, Ruleset]:
    cid = _id(c.get("id"), "campaign.id")
    name = _text(c.get("name"), "campaign.name")
    ruleset_name = _text(c.get("ruleset"), "campaign.ruleset")
    rulings = c.get("rulings")
    if not isinstance(rulings, dict) or not all(type(v) is str for v in rulings.values()):
        _fail("must be an object of ruling ids and their chosen values (text)",
              "campaign.rulings")
    created_at = _text(c.get("created_at"), "campaign.created_at")
    try:
        ruleset = load_ruleset(ruleset_name)
    except RulesError as err:
        _fail(str(err), "campaign.ruleset")
    try:
        ruleset.rulings.resolve(rulings)
    except RulesError as err:
        _fail(str(err), "campaign.rulings")
    return CampaignRecord(cid, name, ruleset_name, dict(rulings), created_at), ruleset


def _tokens(docs: list[Any], campaign_id: str) -> list[TokenRecord]:
    out: list[TokenRecord] = []
    first: dict[str, int] = {}
    for j, t in enumerate(docs):
        here = f"tokens.{j}"
        if not isinstance(t, dict):
            _fail("a token is an object with digest, role, name, characters and created_at",
                  here)
        value = t.get("digest")
        if not isinstance(value, str) or not DIGEST_PATTERN.fullmatch(value):
            _fail("a token digest is a SHA-256 in 64 lowercase hexadecimal digits",
                  f"{here}.digest")
        if value in first:
            _fail(f"this token digest appears twice (first as tokens.{first[value]}.digest)",
                  f"{here}.digest")
        first[value] = j
        role = t.get("role")
        if role not in ("gm", "player"):
            _fail("a token's role is 'gm' or 'player'", f"{here}.role")
        name = _text(t.get("name"), f"{here}.name")
        characters = t.get("characters")
        if not isinstance(characters, list) or not all(type(x) is str for x in characters):
            _fail("must be a list of character ids (text)", f"{here}.characters")
        created_at = _text(t.get("created_at"), f"{here}.created_at")
        checked_role: Role = "gm" if role == "gm" else "player"
        out.append(TokenRecord(campaign_id, value, checked_role, name, tuple(characters),
                               created_at))
    return out


# -- encounters and their logs ------------------------------------------------------------
def _encounter_ids(docs: list[dict[str, Any]]) -> list[str]:
    ids: list[str] = []
    first: dict[str, int] = {}
    for i, e in enumerate(docs):
        eid = _id(e.get("id"), f"encounters.{i}.id")
        if eid in first:
            _fail(f"the encounter id {eid!r} appears twice (first as encounters.{first[eid]}"
                  ".id)", f"encounters.{i}.id")
        first[eid] = i
        ids.append(eid)
    return ids


def _encounter(e: dict[str, Any], i: int, eid: str, campaign_id: str, ruleset: Ruleset,
               check: Callable[[], None] = _no_deadline
               ) -> tuple[EncounterRecord, list[LogRecord]]:
    here = f"encounters.{i}"
    name = _text(e.get("name"), f"{here}.name")
    created_at = _text(e.get("created_at"), f"{here}.created_at")
    log_docs: list[Any] = e["log"]
    if not log_docs:
        _fail(f"a log starts with the {CREATE!r} command; an empty log is no encounter",
              f"{here}.log")
    records: list[LogRecord] = []
    entries: list[Entry | None] = []
    for j, r in enumerate(log_docs):
        check()
        record, entry = _record(r, j, f"{here}.log.{j}")
        _check_create(entry, j, f"{here}.log.{j}")
        records.append(record)
        entries.append(entry)
    if "version" in e and (not _is_int(e["version"]) or e["version"] != len(log_docs)):
        _fail(f"must be the number of the last log record ({len(log_docs)})",
              f"{here}.version")
    active, undone = _stacks(records, f"{here}.log")
    _replay(ruleset, entries, active, undone, f"{here}.log", check)
    return EncounterRecord(eid, campaign_id, name, len(records), created_at), records


def _record(r: Any, j: int, here: str, opening: bool = True
            ) -> tuple[LogRecord, Entry | None]:
    if not isinstance(r, dict):
        _fail("a log record is an object with seq, kind, v, author and created_at", here)
    seq = r.get("seq")
    if not _is_int(seq) or seq != j + 1:
        _fail(f"records are numbered 1, 2, 3... without gaps: this one must be {j + 1}",
              f"{here}.seq")
    kind = r.get("kind")
    if kind not in ("entry", "undo", "redo"):
        _fail("a record's kind is 'entry', 'undo' or 'redo'", f"{here}.kind")
    checked_kind: RecordKind = "entry" if kind == "entry" else (
        "undo" if kind == "undo" else "redo")
    version = r.get("v")
    if not _is_int(version) or version < 1:
        _fail("must be the record's schema version (a whole number from 1)", f"{here}.v")
    if version > LOG_SCHEMA:
        _fail(f"log record schema version {version} is newer than this Arbiter reads "
              f"({LOG_SCHEMA})", f"{here}.v")
    # Version 1 is the only record envelope so far; an older one would be upcast here.
    author = _text(r.get("author"), f"{here}.author")
    created_at = _text(r.get("created_at"), f"{here}.created_at")
    if checked_kind != "entry":
        marker = "an undo" if kind == "undo" else "a redo"
        if j == 0 and opening:
            _fail(f"a log starts with the {CREATE!r} command, which creates the encounter; "
                  f"this is {marker} record", f"{here}.kind")
        target = r.get("target")
        if not _is_int(target) or not 1 <= target < seq:
            _fail(f"{marker} record names the earlier entry it {kind}es (a record number "
                  f"from 1 to {seq - 1})", f"{here}.target")
        return LogRecord(seq, checked_kind, {}, target, author, created_at, LOG_SCHEMA), None
    if r.get("target") is not None:
        _fail("an entry has no target (only undo and redo do)", f"{here}.target")
    payload = r.get("payload")
    if not isinstance(payload, dict):
        _fail("an entry's payload is an object with command, events and dice",
              f"{here}.payload")
    entry = _entry(payload, seq, f"{here}.payload")
    return LogRecord(seq, "entry", payload, None, author, created_at, LOG_SCHEMA), entry


def _entry(payload: dict[str, Any], seq: int, here: str) -> Entry:
    command_doc: Any = payload.get("command")
    try:
        command = Command.from_json(command_doc)
    except RulesError as err:
        _fail(str(err), f"{here}.command")
    events_doc = payload.get("events")
    if not isinstance(events_doc, list):
        _fail("must be a list of events", f"{here}.events")
    events = [_event(ev, f"{here}.events.{k}") for k, ev in enumerate(events_doc)]
    dice_doc = payload.get("dice", [])
    if not isinstance(dice_doc, list):
        _fail("must be a list of [faces, value] pairs", f"{here}.dice")
    dice: list[tuple[int, int]] = []
    for m, pair in enumerate(dice_doc):
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(_is_int(x) for x in pair)):
            _fail("a die is a [faces, value] pair of whole numbers", f"{here}.dice.{m}")
        dice.append((pair[0], pair[1]))
    typed = payload.get("typed", 0)
    if not _is_int(typed) or not 0 <= typed <= len(dice):
        _fail("how many of the dice were typed at the table: a whole number from 0 to the "
              "number of dice", f"{here}.typed")
    extra = sorted(set(payload) - {"command", "events", "dice", "typed"})
    if extra:
        _fail(f"an entry's payload has command, events, dice and typed only, not "
              f"{extra[0]!r}", f"{here}.{extra[0]}")
    return Entry(seq, command, events, dice)


def _event(ev: Any, here: str) -> Event:
    if not isinstance(ev, dict):
        _fail("an event is an object with type, v and data", here)
    etype = ev.get("type")
    if not isinstance(etype, str) or not etype:
        _fail("must be the event's type (text)", f"{here}.type")
    version = ev.get("v")
    current = core_events.EVENT_SCHEMA
    if not _is_int(version) or version < 1:
        _fail("must be the event's schema version (a whole number from 1)", f"{here}.v")
    if version > current:
        _fail(f"event schema version {version} is newer than this Arbiter reads ({current})",
              f"{here}.v")
    data = ev.get("data")
    if not isinstance(data, dict):
        _fail("must be an object: the event's fields", f"{here}.data")
    if version == current:
        return Event(etype, dict(data), version)
    try:
        return Event(etype, upcast(etype, version, dict(data)), current)
    except RulesError as err:
        _fail(str(err), f"{here}.v")
    except Exception as err:  # an upcaster tripping on odd data
        _fail(f"event {etype!r} of schema version {version} cannot be upcast "
              f"({type(err).__name__}: {err})", f"{here}.data")


def _check_create(entry: Entry | None, j: int, here: str) -> None:
    """The first record is the ``create`` command, and no other record is."""
    if j == 0 and (entry is None or entry.command.name != CREATE):
        _fail(f"a log starts with the {CREATE!r} command, which creates the encounter",
              here if entry is None else f"{here}.payload.command.do")
    if j > 0 and entry is not None and entry.command.name == CREATE:
        _fail("only the first record of a log creates the encounter",
              f"{here}.payload.command.do")


def _stacks(records: list[LogRecord], here: str, opening: bool = True
            ) -> tuple[list[int], list[int]]:
    """The entries in effect and the redo stack, refusing a marker that play would not
    have written (as :func:`arbiter.store.replay.stacks`, naming the record). With
    ``opening``, the first record opens the log (an encounter's ``create``) for good."""
    active: list[int] = []
    undone: list[int] = []
    for j, rec in enumerate(records):
        if rec.kind == "entry":
            active.append(rec.seq)
            undone.clear()
        elif rec.kind == "undo":
            if rec.target == 1 and opening:
                _fail("the first record creates the encounter and cannot be undone",
                      f"{here}.{j}.target")
            if not active or active[-1] != rec.target:
                latest = f"({active[-1]})" if active else "(none is in effect here)"
                _fail(f"an undo withdraws the latest entry in effect {latest}, not record "
                      f"{rec.target}", f"{here}.{j}.target")
            undone.append(active.pop())
        else:
            if not undone or undone[-1] != rec.target:
                latest = f"({undone[-1]})" if undone else "(none is undone here)"
                _fail(f"a redo puts back the entry undone last {latest}, not record "
                      f"{rec.target}", f"{here}.{j}.target")
            active.append(undone.pop())
    assert (active, undone) == stacks((r.seq, r.kind, r.target) for r in records)
    return active, undone


def _replay(ruleset: Ruleset, entries: list[Entry | None], active: list[int],
            undone: list[int], here: str, check: Callable[[], None] = _no_deadline) -> None:
    """Apply the entries in effect, then (on a copy) those a redo would put back."""
    state = EncounterState(ruleset="")
    for seq in active:
        check()
        _apply(ruleset, state, entries[seq - 1], f"{here}.{seq - 1}")
        if seq == 1 and state.ruleset != ruleset.name:
            _fail(f"the first record must create a {ruleset.name!r} encounter, the campaign's "
                  f"ruleset (it leaves the encounter's ruleset {state.ruleset!r})",
                  f"{here}.0.payload.events")
    if undone:
        later = state.copy()
        for seq in reversed(undone):
            check()
            _apply(ruleset, later, entries[seq - 1], f"{here}.{seq - 1}")


def _apply(ruleset: Ruleset, state: EncounterState, entry: Entry | None, here: str) -> None:
    assert entry is not None  # only entries are in effect or can be redone
    for k, event in enumerate(entry.events):
        spec = ruleset.events.get(event.type)
        if spec is None and event.type not in RENAMED_EVENTS:
            _fail(f"{ruleset.name} has no event {event.type!r}", f"{here}.payload.events.{k}.type")
        wrong = spec.check(event.data) if spec is not None else []
        if wrong:  # the payload's declared type (core/payloads.py), before anything applies it
            _fail(f"event {event.type!r} is not as declared: {'; '.join(wrong[:5])}",
                  f"{here}.payload.events.{k}.data")
        try:
            ruleset.evolve(state, event)
        except Exception as err:  # any ruleset failure on odd data is the file's fault
            detail = str(err) if isinstance(err, RulesError) else (
                f"{type(err).__name__}: {err}")
            _fail(f"the log does not replay: event {event.type!r} cannot be applied "
                  f"({detail})", f"{here}.payload.events.{k}")


# -- the campaign's own log ----------------------------------------------------------------
def _campaign_log(docs: list[Any], ruleset: Ruleset,
                  check: Callable[[], None] = _no_deadline) -> list[LogRecord]:
    """The records of the campaign's own log (its roster and bestiary), checked: numbered,
    of known versions, commands of the roster, markers play would write, and replaying
    (the commands that could still be redone included)."""
    roster = Roster(ruleset)
    records: list[LogRecord] = []
    entries: list[Entry | None] = []
    for j, r in enumerate(docs):
        check()
        here = f"log.{j}"
        record, entry = _record(r, j, here, opening=False)
        if entry is not None and entry.command.name not in roster.catalogue:
            _fail(f"the campaign's log holds the roster's commands ({', '.join(roster.catalogue)}"
                  f"), not {entry.command.name!r}", f"{here}.payload.command.do")
        records.append(record)
        entries.append(entry)
    active, undone = _stacks(records, "log", opening=False)
    state = RosterState()
    for seq in active:
        check()
        _apply_roster(roster, state, entries[seq - 1], f"log.{seq - 1}")
    if undone:
        later = state.copy()
        for seq in reversed(undone):
            _apply_roster(roster, later, entries[seq - 1], f"log.{seq - 1}")
    return records


def _apply_roster(roster: Roster, state: RosterState, entry: Entry | None, here: str) -> None:
    """Apply a record of the campaign's log, refusing one play would not have written: the
    roster's commands are decided again on the state before them (with the record's own
    dice for campaign time) and must give the record's events exactly, so an event that no
    command makes (an id no route can reach, a payload of another shape) never lands."""
    assert entry is not None  # only entries are in effect or can be redone
    try:
        rolled = ForcedDice([value for _faces, value in entry.dice])
        made = roster.decide(state, entry.command, rolled)
    except RulesError as err:
        _fail(f"the command {entry.command.name!r} would be refused here ({err})",
              f"{here}.payload.command")
    except Exception as err:  # odd data is the file's fault
        _fail(f"the command {entry.command.name!r} cannot be decided again "
              f"({type(err).__name__}: {err})", f"{here}.payload.command")
    if _plain_events(made) != _plain_events(entry.events):
        _fail(f"the events are not those the command {entry.command.name!r} makes: play "
              "would not have written this record", f"{here}.payload.events")
    for k, event in enumerate(entry.events):
        try:
            roster.evolve(state, event)
        except Exception as err:  # odd data is the file's fault
            detail = str(err) if isinstance(err, RulesError) else (
                f"{type(err).__name__}: {err}")
            _fail(f"the log does not replay: event {event.type!r} cannot be applied "
                  f"({detail})", f"{here}.payload.events.{k}")


def _plain_events(events: list[Event]) -> list[Any]:
    """Events as the JSON they are stored as (type and data), to compare."""
    return [json.loads(json.dumps([e.type, e.data], sort_keys=True, default=str))
            for e in events]


# -- values -------------------------------------------------------------------------------
def _is_int(value: Any) -> TypeGuard[int]:
    return type(value) is int


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        _fail(f"must be text, not {_json_type(value)}", field)
    if "\x00" in value:
        _fail("text must not hold the NUL character", field)
    return value


def _id(value: Any, field: str) -> str:
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        _fail("ids are 1 to 64 letters, digits, '-' or '_'", field)
    return value


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


__all__ = ["EXPORT_FORMAT", "EXPORT_SCHEMA", "CampaignImport", "Deadline", "DeadlineExceeded",
           "read_campaign_file"]
