"""Conditions in zones: the GM's conditions (a name conditions.toml lists, or ``custom``),
grapples (two-sided, ending cover: Z-COV-2, Z-RA-8) and ``down`` (ruling ZR-2)."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from ...core import Command, Condition, EncounterState, Event, IllegalCommand, InvalidCommand
from ...core import catalogue as args
from ...core.catalogue import command, extends
from ...core.model import entity_at
from ...dice import DiceSource
from .base import ZonesBase
from .invariants import Invariants  # the topic below (a chain)
from .model import Creature, condition_catalogue, unlisted_condition
from .turns import aftermath


@mypyc_attr(allow_interpreted_subclasses=True)
class Conditions(Invariants):
    """The GM's conditions and grapples."""

    @command("Two creatures are in a grapple (grappling itself is outside the excerpt); "
             "neither can use cover.", actor="required", rules=("Z-COV-2", "Z-RA-8", "Z-MI-1"),
             target=args.creature("the other creature in the grapple", required=True))
    def do_grapple(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Two creatures are in a grapple (the GM's word: grappling rules themselves are
        outside the excerpt); neither keeps cover."""
        actor = self.creature(state, self.actor(state, command).id)
        return _grapple_events(self, state, actor, self.creature(state, command.a.target))

    @command("End the actor's grapple (both creatures stop grappling).", actor="required",
             rules=("Z-RA-8",))
    def do_release(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """End a grapple, for both creatures."""
        actor = self.creature(state, self.actor(state, command).id)
        partner = actor.grappling()
        if partner is None:
            raise IllegalCommand(f"{actor.id} is not grappling")
        return [Event("condition_removed", {"target": w, "name": "grappling", "why": "released"})
                for w in (actor.id, partner)]

    @extends("Give a creature a condition of conditions.toml (another name only with "
             "custom: true).",
             name=args.text("the condition's name (conditions.toml, or any with custom)",
                            required=True, max_len=64),
             custom=args.flag("a condition conditions.toml does not list, given on purpose "
                              "(without it such a name is refused as a typo)"))
    def do_condition(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        """Give a condition (the GM), as in every ruleset, but: a name ``conditions.toml``
        does not list is refused (with the names it does list, nearest first) unless the GM
        gives it on purpose with ``custom: true``; cover is taken with the ``cover`` command
        or a stat block's ``cover``, which give its armor bonus (Z-COV-5); a grapple has two
        sides and ends cover (Z-COV-2), as ``grapple``; a creature marked ``down`` is out of
        the fight (ruling ZR-2), which may end the encounter."""
        a = command.a
        name: str = a.name
        listed = condition_catalogue()
        if name not in listed and not a.custom:
            raise InvalidCommand(unlisted_condition(name, listed, "zones"))
        if name == "cover":
            raise InvalidCommand("condition: cover is taken with the cover command (actor, "
                                 "environment or bonus) or a stat block's cover, which give "
                                 "its armor bonus (Z-COV-5)")
        if name == "grappling":
            target = self.creature(state, a.target)
            if a.source is None:
                raise InvalidCommand("condition: grappling names its 'source', the creature "
                                     "grappled (or use the grapple command)")
            partner = self.creature(state, a.source)
            if partner.id == target.id:
                raise InvalidCommand("condition: a creature cannot grapple itself")
            return _grapple_events(self, state, target, partner)
        events = super().do_condition(state, command, dice)
        return events + aftermath(self, state, events) if name == "down" else events

    def do_uncondition(self, state: EncounterState, command: Command,
                       dice: DiceSource) -> list[Event]:
        """Remove a condition (the GM); a grapple ends for both creatures, as ``release``."""
        events = super().do_uncondition(state, command, dice)
        if command.a.name == "grappling":
            target = self.creature(state, command.a.target)
            partner = entity_at(state.entities, target.grappling() or "")
            if isinstance(partner, Creature) and partner.grappling() == target.id:
                events.append(Event("condition_removed", {"target": partner.id,
                                                          "name": "grappling",
                                                          "why": "released"}))
        return events


def _grapple_events(rules: ZonesBase, state: EncounterState, actor: Creature,
                    target: Creature) -> list[Event]:
    """Two creatures in a grapple, each the other's source; neither keeps cover (Z-COV-2).
    A creature is in one grapple at a time (ruling ZR-11; the grapple condition names one
    partner): by default one already grappling another is refused, naming the release that
    frees it; under ``replace`` the earlier grapple is released first."""
    events: list[Event] = []
    for who, other in ((actor, target), (target, actor)):
        held = who.grappling()
        if held is None or held == other.id:
            continue
        if rules.ruling_is(state, "ZR-11", "one"):
            raise IllegalCommand(f"{who.id} is already in a grapple with {held}: release it "
                                 "first (one grapple at a time, ruling ZR-11)", rule="ZR-11",
                                 remedy=("release", f"release {who.id}'s grapple"))
        for w in (who.id, held):
            events.append(Event("condition_removed", {"target": w, "name": "grappling",
                                                      "why": "released"}))
    events += [Event("condition_added", {"target": a.id, "condition": Condition(
        "grappling", source=b.id).to_json()}) for a, b in ((actor, target), (target, actor))]
    for who in (actor, target):
        if who.has("cover"):  # no cover while grappling (Z-COV-2)
            events.append(Event("cover_left", {"target": who.id, "why": "grappling"}))
    return events
