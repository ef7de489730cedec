"""Persuasion and society in Polemos (P-SOC-*): the attitude modifier, item restrictions at a
location and knowing them abroad.
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Deferred,
    EncounterState,
    Event,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from . import payloads
from .checks import roll_skill, success
from .injuries import InjuryRules  # the topic below (a chain)
from .model import Creature


def restricted_items(state: EncounterState, actor: Creature, location: str | None) -> list[str]:
    banned = set(state.extra.get("restricted", {}).get(location or "", []))
    carried = [e for e in state.entities.values()
               if isinstance(e, Creature) and e.carried_by == actor.id]
    names = [g["name"] for g in actor.gear if banned & set(g["tags"])]
    return names + [e.id for e in carried if banned & e.tags]


@mypyc_attr(allow_interpreted_subclasses=True)
class SocialRules(InjuryRules):
    """Attitude and restricted items."""

    @command("The attitude modifier a speaker has with a listener: gear, the speaker's and "
             "the listener's attitudes.", actor="required",
             rules=("P-SOC-1", "P-SOC-2", "P-SOC-3", "P-SOC-4"),
             target=args.creature("the listener", required=True),
             groups=args.items("the listener's groups (default: its own)"),
             adjust=args.mapping("source to the value the GM gives it for this audience"),
             ignore=args.items("sources the GM ignores"))
    def do_attitude(self, state: EncounterState, command: Command,
                    dice: DiceSource) -> list[Event]:
        """The attitude modifier a speaker has with a listener (P-SOC-1, P-SOC-2), summed over
        its sources: the speaker's gear (``gear[].attitude``), the speaker's own ``attitude``
        toward the listener or its groups, and the listener's ``attitude`` toward the speaker
        or the speaker's groups (the GM's attitude factors of NPCs, P-SOC-4); the GM may
        scale, invert or ignore a source for this audience (P-SOC-3). See ``last.total`` and
        ``last.breakdown``."""
        a = command.a
        speaker = self.creature(state, self.actor(state, command).id)
        listener = self.creature(state, a.target)
        groups = [str(g) for g in (listener.groups if a.groups is None else a.groups)]
        adjust: dict[str, int] = {}
        for key, value in (a.adjust or {}).items():
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidCommand(f"attitude: adjust {key!r} to a whole number, not "
                                     f"{value!r}")
            adjust[str(key)] = value
        ignore = {str(s) for s in a.ignore or []}
        breakdown: list[dict[str, Any]] = []
        toward = [listener.id, *groups]
        for item in speaker.gear:
            value = sum(int(item["attitude"].get(g, 0)) for g in toward)
            if value:
                breakdown.append({"source": item["name"], "value": value})
        own = sum(speaker.attitude.get(g, 0) for g in toward)
        if own:
            breakdown.append({"source": speaker.id, "value": own})
        theirs = sum(listener.attitude.get(g, 0) for g in [speaker.id, *speaker.groups])
        if theirs:
            breakdown.append({"source": listener.id, "value": theirs})
        for name, value in adjust.items():
            hits = [b for b in breakdown if b["source"] == name]
            if not hits:
                raise InvalidCommand(f"attitude: no modifier from {name!r} to adjust (sources: "
                                     f"{', '.join(b['source'] for b in breakdown) or 'none'})")
            hits[0]["value"], hits[0]["adjusted"] = value, True
        kept = [b for b in breakdown if b["source"] not in ignore]
        return [Event("attitude_computed", {"actor": speaker.id, "target": listener.id,
                                            "total": sum(b["value"] for b in kept),
                                            "breakdown": kept})]

    @event("{actor}'s attitude modifier with {target}: {total}.",
           actor=args.creature("the speaker"), target=args.creature("the listener"),
           total=args.integer("the modifier"),
           breakdown=args.items("each source and its value"))
    def apply_attitude_computed(self, state: EncounterState,
                                data: payloads.AttitudeComputed) -> None:
        return None

    @command("Restrict item tags at a location or social situation (empty: lift them).",
             rules=("P-SOC-5",),
             location=args.text("the location", required=True, max_len=64),
             tags=args.items("item tags, e.g. military, magic", required=True))
    def do_restrict(self, state: EncounterState, command: Command,
                    dice: DiceSource) -> list[Event]:
        """The GM restricts item tags at a location or social situation (P-SOC-5); no tags
        lift every restriction there."""
        return [Event("restriction_set", {"location": command.a.location,
                                          "tags": [str(t) for t in command.a.tags]})]

    @event("Items tagged {tags} are restricted at {location}.",
           location=args.text("the location"), tags=args.items("the item tags"))
    def apply_restriction_set(self, state: EncounterState, data: payloads.RestrictionSet) -> None:
        state.extra.setdefault("restricted", {})[data["location"]] = list(data["tags"])

    @command("Does a character know a place's item restrictions? At home yes; abroad a "
             "knowledge roll.", who="player", when="any", actor="required",
             rules=("P-SOC-5", "P-SOC-6"),
             location=args.text("the location", required=True, max_len=64),
             foreign=args.flag("the GM's word that the culture is foreign to the character: "
                               "a knowledge roll (left out: at home, known)", who="gm"),
             skill=args.text("the knowledge skill (community, commerce or similar)",
                             default="community", max_len=64),
             target=args.integer("the GM's target number", lo=0, hi=99, default=8, who="gm"))
    def do_restrictions(self, state: EncounterState, command: Command,
                        dice: DiceSource) -> list[Event]:
        """Does a character know a place's item restrictions? At home they are known without
        a roll; in a foreign culture it takes a knowledge roll against the GM's target number
        (P-SOC-6)."""
        a = command.a
        actor = self.creature(state, self.actor(state, command).id)
        location = a.location
        tags = list(state.extra.get("restricted", {}).get(location, []))
        data: dict[str, Any] = {"actor": actor.id, "location": location, "known": True}
        if a.foreign:
            result = roll_skill(actor.skill(a.skill), 0, 0, self.ruling(state, "AP-2"), dice)
            data.update(roll=Deferred(result.to_json), total=result.total,
                        known=success(result.total, a.target, self.ruling(state, "AP-1")))
        data["tags"] = tags if data["known"] else None
        return [Event("restrictions_known", data)]

    @event("{actor} {known?knows|does not know} the item restrictions at {location}[ (roll "
           "{total})][: {tags}].",
           actor=args.creature("who"), location=args.text("the location"),
           known=args.flag("they are known"), roll=args.mapping("the knowledge roll"),
           total=args.integer("its total"),
           tags=args.items("the restricted item tags (none when not known)"),
           optional=("roll", "tags", "total"))
    def apply_restrictions_known(self, state: EncounterState,
                                 data: payloads.RestrictionsKnown) -> None:
        return None
