"""Campaign scenarios (docs/scenarios.md, "Campaign scenarios"): a roster of characters that
carry their state from one encounter to the next, and campaign time between encounters.

A file with ``campaign:`` holds roster characters (and, optionally, bestiary entries); its
steps may then start an encounter from roster characters (``encounter``), write back what
lasts of them (``write_back``) and let time pass (``time``), beside the ordinary steps.
Everything goes through :class:`~arbiter.core.roster.Roster`'s decide/evolve, the roster's
:meth:`~arbiter.core.roster.Roster.arrivals` and the ruleset's ``lasting``, as the server's
campaign routes do (``store/service.py``), with no store or server.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core import Command, Encounter, Event, IllegalCommand, InvalidCommand, RulesError, Ruleset
from ..core.roster import Roster, RosterState
from ..dice import DiceSource, ForcedDice, RecordingDice
from .errors import ScenarioError
from .loader import LineDict, LineList, plain

CAMPAIGN_KEYS = ("characters", "bestiary")
"""The keys of ``campaign:``."""
STEP_KINDS = ("encounter", "write_back", "time")
"""The campaign steps, by their key."""
ENCOUNTER_KEYS = ("name", "characters", "creatures", "rulings")
TIME_KEYS = ("amount", "unit", "activity", "characters", "dice")
WRITE_BACK_KEYS: tuple[str, ...] = ()


@dataclass
class Campaign:
    """A scenario's campaign: its roster and bestiary, the encounter in play, and what
    ``last.*`` refers to after a campaign step."""

    roster: Roster
    state: RosterState = field(default_factory=RosterState)
    rulings: dict[str, str] = field(default_factory=dict)
    encounters: int = 0
    """How many encounters ``encounter`` steps started."""
    name: str = ""
    """The name of the encounter in play (an ``encounter`` step's ``name``)."""
    last: dict[str, Any] | None = None
    """The result of the latest campaign command (``write_back``, ``time``); ``None`` when an
    encounter command came after it (then ``last.*`` is that command's)."""
    log: list[tuple[Command, list[Event]]] = field(default_factory=list)
    """Every campaign command and its events, in order."""

    @property
    def ruleset(self) -> Ruleset:
        return self.roster.ruleset

    def execute(self, command: Command, dice: DiceSource | None = None) -> list[Event]:
        """Decide a command of the roster and apply its events; ``last.*`` refers to it."""
        recorder = RecordingDice(dice) if dice is not None else None
        events = self.roster.decide(self.state, command, recorder)
        for event in events:
            self.roster.evolve(self.state, event)
        self.log.append((command, events))
        self.last = merged_result(events, recorder.rolls if recorder else [])
        return events

    def view(self) -> RosterView:
        return RosterView(self)


class RosterView(Mapping[str, Any]):
    """What ``roster.ID.PATH`` reads: each character as it would join an encounter now (its
    stat block, templates filled in, with its lasting state laid over), and under
    ``lasting`` its lasting state exactly as the roster keeps it."""

    def __init__(self, campaign: Campaign) -> None:
        self.campaign = campaign

    def __getitem__(self, ident: str) -> dict[str, Any]:
        campaign = self.campaign
        record = campaign.state.characters.get(ident)
        if record is None:
            raise KeyError(ident)
        spec = campaign.roster.joining(campaign.state, ident)
        spec.pop("id")
        whole = campaign.ruleset.expand_template(spec)
        return {"id": ident, **whole, "lasting": dict(record.get("lasting") or {})}

    def __iter__(self) -> Iterator[str]:
        return iter(self.campaign.state.characters)

    def __len__(self) -> int:
        return len(self.campaign.state.characters)


def merged_result(events: Sequence[Event], rolls: Sequence[tuple[int, int]]) -> dict[str, Any]:
    """What ``last.*`` refers to: the events' data merged in order, ``events`` (their types),
    ``dice`` (the values rolled) and ``event.TYPE`` (the first event of each type)."""
    merged: dict[str, Any] = {}
    for event in events:
        merged.update(event.data)
    merged["events"] = [e.type for e in events]
    merged["dice"] = [value for _, value in rolls]
    by_type: dict[str, Any] = {}
    for event in events:
        by_type.setdefault(event.type, event.data)
    merged["event"] = by_type
    return merged


def _keys(spec: LineDict, known: Sequence[str], source: str, what: str) -> None:
    for key in spec:
        if key not in known:
            listed = f"known: {', '.join(known)}" if known else "it takes no keys"
            raise ScenarioError(source, spec.lines[key], key, f"unknown key of {what} ({listed})")


def _mapping(value: Any, source: str, line: int, key: str, what: str) -> LineDict:
    if value is None:
        out = LineDict()
        out.line, out.lines = line, {}
        return out
    if not isinstance(value, LineDict):
        raise ScenarioError(source, line, key, f"must be a mapping ({what})")
    return value


def _ids(value: Any, source: str, line: int, key: str) -> LineList:
    if not isinstance(value, LineList) or not all(isinstance(v, str) for v in value):
        raise ScenarioError(source, line, key, "must be a list of character ids")
    return value


def _reason(err: RulesError) -> str:
    return str(err).removeprefix("command: ")


def setup(
    ruleset: Ruleset, data: Any, line: int, rulings: Mapping[str, str], source: str
) -> Campaign:
    """The campaign of ``campaign:`` (``line``): its bestiary entries saved, then its
    characters added to the roster, each refusal a ScenarioError at the entry's line."""
    spec = _mapping(data, source, line, "campaign", "characters: {id: stat block}")
    _keys(spec, CAMPAIGN_KEYS, source, "campaign")
    campaign = Campaign(Roster(ruleset, rulings), rulings=dict(rulings))
    for key, name in (("bestiary", "creature_save"), ("characters", "character_add")):
        entries = _mapping(
            spec.get(key), source, spec.lines.get(key, spec.line), key, "id: stat block"
        )
        for ident, block in entries.items():
            where = entries.lines[ident]
            if not isinstance(block, Mapping):
                raise ScenarioError(source, where, ident, "a stat block is a mapping")
            try:
                campaign.execute(Command(name, args={"id": ident, **plain(block)}))
            except RulesError as err:  # the key already names it
                raise ScenarioError(
                    source, where, ident, _reason(err).removeprefix(f"{ident}: ")
                ) from None
    campaign.last = None
    return campaign


def start_encounter(
    campaign: Campaign, data: Any, line: int, source: str, dice: DiceSource
) -> Encounter:
    """A new encounter (the ``encounter`` step at ``line``) under the campaign's rulings and
    the step's own: its roster characters join with their lasting state, as the server's
    new encounter does (:meth:`Roster.arrivals`), then its creatures (stat blocks, whose
    ``template`` may be a bestiary entry). Every refusal is a ScenarioError at the line of
    what was refused."""
    spec = _mapping(
        data, source, line, "encounter", "name, characters: [ids], creatures: {id: stat block}"
    )
    _keys(spec, ENCOUNTER_KEYS, source, "encounter")
    lines = spec.lines
    ruleset, roster, state = campaign.ruleset, campaign.roster, campaign.state
    rulings = _mapping(
        spec.get("rulings"), source, lines.get("rulings", line), "rulings", "ruling id: value"
    )
    try:
        encounter = Encounter.create(ruleset, {**campaign.rulings, **plain(rulings)})
    except RulesError as err:
        raise ScenarioError(source, lines.get("rulings", line), "rulings", str(err)) from None
    characters = (
        _ids(spec["characters"], source, lines["characters"], "characters")
        if "characters" in spec
        else LineList()
    )
    creatures = _mapping(
        spec.get("creatures"), source, lines.get("creatures", line), "creatures", "id: stat block"
    )
    for i, ident in enumerate(characters):
        where = characters.lines[i]
        if ident not in state.characters:
            shown = ", ".join(state.characters) or "none"
            raise ScenarioError(
                source,
                where,
                f"characters[{i + 1}]",
                f"no character {ident!r} in the campaign (it holds: {shown})",
            )
        if characters.index(ident) != i:
            raise ScenarioError(source, where, f"characters[{i + 1}]", f"{ident!r} is named twice")
    try:
        arrivals = roster.arrivals(state, list(characters), [])
    except RulesError as err:
        raise ScenarioError(source, lines["characters"], "characters", str(err)) from None
    for i, (_, args) in enumerate(arrivals):
        try:
            encounter.execute(Command.from_json(args), dice)
        except RulesError as err:
            raise ScenarioError(
                source,
                characters.lines[i],
                f"characters[{i + 1}]",
                f"{characters[i]} cannot join: {err}",
            ) from None
    for ident, block in creatures.items():
        where = creatures.lines[ident]
        if not isinstance(block, Mapping):
            raise ScenarioError(source, where, ident, "a stat block is a mapping")
        if ident in characters:
            raise ScenarioError(
                source, where, ident, "a roster character of this encounter has that id"
            )
        try:
            args = roster.resolve(state, plain(block), f"creatures.{ident}.template")
            encounter.execute(Command("add", args={**args, "id": ident}), dice)
        except RulesError as err:
            message = str(err).removeprefix(f"{ident}: ")  # the key already names it
            raise ScenarioError(source, where, ident, message) from None
    campaign.encounters += 1
    campaign.name = str(spec.get("name", f"encounter {campaign.encounters}"))
    campaign.last = None
    return encounter


def write_back(campaign: Campaign, encounter: Encounter, data: Any, line: int, source: str) -> None:
    """Write back the lasting state (``Ruleset.lasting``) of every roster character in
    ``encounter``, as the server's write-back does: one ``write_back`` of the roster.
    A RulesError when none is there."""
    spec = _mapping(data, source, line, "write_back", "write_back: {}")
    _keys(spec, WRITE_BACK_KEYS, source, "write_back")
    ruleset, listed = campaign.ruleset, campaign.state.characters
    lasting: dict[str, Any] = {}
    for ident, entity in encounter.state.entities.items():
        if ident in listed:
            try:
                lasting[ident] = json.loads(
                    json.dumps(ruleset.lasting(encounter.state, entity), allow_nan=False)
                )
            except (TypeError, ValueError) as err:
                raise IllegalCommand(
                    f"{ruleset.name} could not say what of {ident} lasts ({err})"
                ) from None
    if not lasting:
        shown = ", ".join(sorted(listed)) or "none"
        raise IllegalCommand(f"no character of the roster ({shown}) is in this encounter")
    campaign.execute(
        Command(
            "write_back",
            args={
                "encounter": f"e{campaign.encounters}",
                "name": campaign.name[:200],
                "version": len(encounter.log),
                "characters": lasting,
            },
        )
    )


def time_command(data: Any, line: int, source: str) -> tuple[Command, list[int] | None]:
    """The roster's ``advance_time`` of a ``time`` step, and its forced dice if given."""
    spec = _mapping(data, source, line, "time", "amount, unit, activity, characters, dice")
    _keys(spec, TIME_KEYS, source, "time")
    amount = spec.get("amount")
    if "amount" not in spec:
        raise ScenarioError(source, spec.line, "time", "amount: missing (how many units)")
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise ScenarioError(source, spec.lines["amount"], "amount", "must be a whole number")
    values: list[int] | None = None
    if "dice" in spec:
        given = spec["dice"]
        if not isinstance(given, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in given
        ):
            raise ScenarioError(
                source, spec.lines["dice"], "dice", "must be a list of whole numbers"
            )
        values = list(given)
    args = {k: plain(v) for k, v in spec.items() if k != "dice"}
    return Command("advance_time", args=args), values


def pass_time(
    campaign: Campaign, command: Command, values: list[int] | None, seeded: DiceSource
) -> list[int]:
    """Let the campaign's time pass (the roster's ``advance_time``) with ``values`` forced
    (else the scenario's seeded dice); the forced values left unused."""
    forced = ForcedDice(values) if values is not None else None
    campaign.execute(command, forced if forced is not None else seeded)
    return list(forced.remaining) if forced is not None else []


def malformed(err: RulesError) -> bool:
    """Whether a refusal names an argument of the command it refused (``field``): the step
    was written wrong (``unit: weeks``, a character the roster does not hold)."""
    return isinstance(err, InvalidCommand) and bool(getattr(err, "field", None))


def argument_line(err: RulesError, spec: Any, line: int) -> tuple[int, str]:
    """The line and key of what a refusal names in a step's mapping (``command.unit`` is
    the line of ``unit``, ``command.characters.1`` of that item), else the step's."""
    parts = str(getattr(err, "field", None) or "").removeprefix("command.").split(".")
    key = parts[0]
    if not isinstance(spec, LineDict) or key not in spec.lines:
        return line, key
    value = spec[key]
    if (
        isinstance(value, LineList)
        and len(parts) > 1
        and parts[1].isdigit()
        and int(parts[1]) < len(value)
    ):
        return value.lines[int(parts[1])], key
    return spec.lines[key], key


__all__ = [
    "CAMPAIGN_KEYS",
    "STEP_KINDS",
    "Campaign",
    "RosterView",
    "argument_line",
    "malformed",
    "merged_result",
    "pass_time",
    "setup",
    "start_encounter",
    "time_command",
    "write_back",
]
