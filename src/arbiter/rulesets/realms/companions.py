"""Companions in realms (R-CMP-1, R-CMP-7..9): at most two per character, the dodge
with every AP left, and the command reaction."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from ...core import Command, Condition, EncounterState, Event, IllegalCommand, InvalidCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.model import entity_at
from ...dice import DiceSource
from . import payloads
from .actions import ActionRules  # the topic below (a chain)
from .model import AP_PER_TURN, RealmsCreature, ap_costs


@mypyc_attr(allow_interpreted_subclasses=True)
class CompanionRules(ActionRules):
    """Companions and dodging (a topic of ``RealmsRuleset``)."""

    def do_add(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Add a creature; a character has at most two companions (R-CMP-1)."""
        events = super().do_add(state, command, dice)
        owner = events[0].data["spec"].get("companion_of")
        if owner is not None:
            if owner not in state.entities:
                raise InvalidCommand(f"companion_of: no character {owner!r} here")
            count = sum(1 for e in state.entities.values()
                        if isinstance(e, RealmsCreature) and e.companion_of == owner)
            if count >= 2:
                raise IllegalCommand(f"{owner} already has two companions", rule="R-CMP-1")
        return events + self._added_down(state, events, dice)

    def _added_down(self, state: EncounterState, events: list[Event],
                    dice: DiceSource) -> list[Event]:
        """A creature added at 0 Health or below (a roster character's lasting state,
        ``health_now``) is Dying, or dead, as damage would have left it (R-DY-1, R-DTH-1)."""
        who = str(events[0].data["id"])
        after = self.lookahead(state, events)
        added = entity_at(after.entities, who)
        if not isinstance(added, RealmsCreature) or added.health > 0:
            return []
        return self.consequences(after, who, added.health, dice)

    @command("Ready a dodge with every AP left: +1 Evasion against that many attacks.",
             who="player", actor="required", cost="dodge", rules=("R-CMP-8",))
    def do_dodge(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Ready a dodge with every AP left: +1 Evasion against that many attacks (R-CMP-8)."""
        me = self.creature(state, self.actor(state, command).id)
        economy = self.pay(state, me, "dodge")
        spent = int(economy["ap"]) + ap_costs(state)["dodge"] if economy else AP_PER_TURN
        if economy is not None:
            economy["ap"] = 0
        cond = Condition("dodging", level=spent, source=me.id)
        return [Event("dodged", {"actor": me.id, "target": me.id, "ap": 0, "economy": economy,
                                 "automatic": False}),
                *self.gain(state, me, cond, dice, keep="new")]  # its own new dodge

    @event("{target} {automatic?dodges with its AP left (an uncommanded companion)|readies "
           "a dodge with every AP left}.",
           actor=args.creature("who dodges"), target=args.creature("who dodges"),
           ap=args.integer("AP left"), automatic=args.flag("the end-of-turn dodge of an "
                                                          "uncommanded companion"),
           optional=("actor",))
    def apply_dodged(self, state: EncounterState, data: payloads.Dodged) -> None:
        self._store_ap(state, data["target"], data["ap"])

    @command("Command a companion (a reaction): it acts as commanded instead of dodging.",
             who="player", when="any", actor="required", cost="command", rules=("R-CMP-9",),
             target=args.creature("the actor's companion", refers="own", required=True))
    def do_command(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """The command reaction (R-CMP-9): the companion then acts as commanded instead of
        dodging."""
        me = self.creature(state, self.actor(state, command).id)
        pet = self.creature(state, command.a.target)
        if pet.companion_of != me.id:
            raise IllegalCommand(f"{pet.id} is not {me.id}'s companion", rule="R-CMP-9")
        self.check_reaction(state, me, "command")  # a word: no arms needed (R-C-RES)
        economy = self.pay(state, me, "command", reaction=True)
        return [Event("commanded", {"actor": me.id, "target": pet.id, "economy": economy})]

    @event("{actor} commands {target}, which acts as commanded instead of dodging.",
           actor=args.creature("the character"), target=args.creature("its companion"))
    def apply_commanded(self, state: EncounterState, data: payloads.Commanded) -> None:
        self.creature(state, data["target"]).commanded = True
