"""Conditions in realms: giving one, keeping the stronger, and their levels.

A condition comes by one path, ``RealmsBase.gain`` (R-CON-2..7, AR-36, AR-22); what each
changes is data (``conditions.toml``) folded into the derived numbers of ``model``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Command, Condition, Duration, EncounterState, Event, InvalidCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from . import payloads
from .companions import CompanionRules  # the topic below (a chain)
from .model import MAX_DS, RealmsCreature, conditions_catalogue, modifier, reduce_with_floor

CONDITIONS = tuple(sorted(conditions_catalogue()))
"""The conditions of ``conditions.toml``."""


def _strength(cond: Condition) -> tuple[int, int, int]:
    """AR-36: what makes a condition the stronger version: level, potency, then when it
    ends (one that does not end by the clock counts as lasting longest)."""
    ends = 10**9
    if cond.duration.kind == "timed" and cond.duration.round is not None:
        ends = cond.duration.round
    return cond.level, int(cond.data.get("potency", 0)), ends


@mypyc_attr(allow_interpreted_subclasses=True)
class ConditionRules(CompanionRules):
    """The ``condition`` command and its events (a topic of ``RealmsRuleset``)."""

    @event("{target} falls Dying and prone ({ap} AP).",
           target=args.creature("who"), ap=args.integer("AP left"))
    def apply_fell_dying(self, state: EncounterState, data: payloads.FellDying) -> None:
        me = self.creature(state, data["target"])
        me.dying_turns, me.stabilized = 0, False
        self._store_ap(state, me.id, data["ap"])

    @command("Give a creature a condition (one instance per name; the stronger replaces the "
             "weaker unless the RM says which to keep).",
             rules=("R-CON-2", "R-CON-3", "R-CON-4", "R-CON-5", "R-CON-6", "R-CON-7", "R-C-STU",
                    "R-C-HID", "R-C-CHA", "R-C-FAI", "R-C-DYI", "R-DY-1", "R-DY-2", "R-DTH-2",
                    "R-FLY-2", "R-MNT-3"),
             target=args.creature("who gets the condition", required=True),
             name=args.choice("the condition (conditions.toml)", *CONDITIONS, required=True),
             level=args.integer("its level (leveled conditions only)", lo=1, hi=99, default=1),
             rounds=args.integer("how many rounds it lasts (0: until removed)", lo=0, hi=10000,
                                 default=0),
             source=args.text("who or what causes it", max_len=64),
             potency=args.integer("its potency (R-CON-7)", lo=0, hi=999, default=0),
             keep=args.choice("the RM's choice between two versions (R-CON-6)", "new", "old"),
             score=args.integer("Hidden only: the Stealth or Hide Score a search must reach",
                                lo=0, hi=MAX_DS))
    def do_condition(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        """A condition comes by the one path (``gain``): the same one never stacks, the
        stronger replaces the weaker unless the RM says which to keep (R-CON-6); a potency
        takes what the target's conditions give its source."""
        catalogue = conditions_catalogue()
        a = command.a
        name: str = a.name
        target = self.creature(state, a.target)
        level: int = a.level
        entry = catalogue[name]
        if level < 1 or (level != 1 and not entry.leveled):
            raise InvalidCommand(f"condition: {name} takes no level other than 1"
                                 if not entry.leveled else "condition: level must be >= 1")
        rounds: int = a.rounds
        potency: int = a.potency
        data: dict[str, Any] = {"potency": potency} if potency else {}
        if a.score is not None:
            if "score" not in entry.flags:  # conditions.toml: Hidden's Stealth or Hide Score
                raise InvalidCommand("condition: only Hidden takes a score (its Stealth or "
                                     "Hide Score)")
            data["score"] = a.score
        source = a.source
        if potency:  # a potency from whoever gives the condition (R-CON-7)
            bonus = self.potency_bonus(target, name, source)
            if bonus:
                data.update(potency=potency + sum(v for _, v in bonus),
                            potency_modifiers=[list(x) for x in bonus])
        new = Condition(name=name, level=level, source=source,
                        duration=Duration.for_rounds(state, rounds) if rounds > 0 else Duration(),
                        data=data)
        return self.gain(state, target, new, dice, a.keep or "")

    def potency_bonus(self, target: RealmsCreature, name: str,
                      source: str | None) -> list[tuple[str, int]]:
        """What adds to the potency of a condition ``source`` gives ``target``: its charmer's
        +2 (R-C-CHA), an outside force's +1 to make a Faint creature prone or grapple it
        (R-C-FAI)."""
        out = []
        charmer = self.from_source(target, source, "source_potency")
        if charmer:
            out.append((f"{target.id} Charmed by {source}", charmer))
        if name in ("prone", "grappled") and source != target.id:
            outside = modifier(target, "outside_potency")
            if outside:
                out.append((f"{target.id} Faint", outside))
        return out

    @event("{target} is {condition.name} ({condition.level})"
           "[, replacing the earlier {replaced.name} ({replaced.level})].",
           target=args.creature("who"), condition=args.mapping("the condition"),
           replaced=args.mapping("the version it replaces"),
           optional=("replaced",))
    def apply_condition_added(  # type: ignore[override]  # the kernel's fields and more
            self, state: EncounterState, data: payloads.ConditionAdded) -> None:
        """The same condition never stacks: the version in the event replaces the old one,
        and the old duration does not continue (R-CON-4, R-CON-5)."""
        entity = state.entity(data["target"])
        new = Condition.from_json(data["condition"])
        entity.conditions = [x for x in entity.conditions if x.name != new.name] + [new]

    @event("{target} keeps its {name} ({kept.level}); the new one ({refused.level}) does not "
           "apply.",
           target=args.creature("who"), name=args.text("the condition"),
           kept=args.mapping("the version that stays"),
           refused=args.mapping("the version that does not apply"))
    def apply_condition_kept(self, state: EncounterState, data: payloads.ConditionKept) -> None:
        return None

    @event("{target} is knocked prone while flying and falls from {altitude} spaces.",
           target=args.creature("who"), altitude=args.integer("its altitude in spaces"))
    def apply_began_falling(self, state: EncounterState, data: payloads.BeganFalling) -> None:
        me = self.creature(state, data["target"])
        me.flying = False

    def stack_condition(self, existing: Condition | None, new: Condition) -> Condition:
        return new

    def stronger(self, state: EncounterState, old: Condition, new: Condition) -> bool:
        """AR-36: is ``new`` the stronger version? Level, then potency, then duration."""
        if self.ruling_is(state, "AR-36", "newest"):
            return True
        return _strength(new) >= _strength(old)

    def gain(self, state: EncounterState, target: RealmsCreature, new: Condition,
             dice: DiceSource, keep: str = "", *, dying: bool = False) -> list[Event]:
        """The one path by which a condition comes to a creature, whoever gives it (the
        GM's ``condition``, Dying and prone at 0 Health, a fall, an unseating, a failed swim,
        a dodge), so that a condition given again, or returning after it was removed, plays
        as when it was first given: a flyer falls instead of lying prone (R-FLY-2); the same
        condition never stacks, the stronger replaces (R-CON-4..7, AR-36; Exhaustion adds,
        AR-22); Stunned takes the AP it adds (R-C-STU); Exhausted above 10 dies (R-DTH-2);
        entering Dying drops to 1 AP and prone (R-DY-1, R-DY-2); a mount knocked prone
        unseats its riders (R-MNT-3). ``dying``: the prone of entering Dying, which a flyer
        gets as it begins to fall ("While dying, you are prone", R-C-DYI)."""
        name = new.name
        entry = conditions_catalogue()[name]
        events: list[Event] = []
        if name == "prone" and target.flying and target.altitude > 0:  # R-FLY-2
            events.append(Event("began_falling", {"target": target.id,
                                                  "altitude": target.altitude}))
            if not dying:
                return events
        old = target.condition(name)
        if old is not None:
            if entry.stack == "add" and self.ruling_is(state, "AR-22", "adds"):
                new = replace(new, level=old.level + new.level,  # AR-22: Exhaustion adds
                              duration=old.duration)  # R-CON-5: durations do not stack
            elif keep == "old" or (not keep and not self.stronger(state, old, new)):
                return [Event("condition_kept", {"target": target.id, "name": name,
                                                 "kept": old.to_json(),
                                                 "refused": new.to_json()})]
        if name == "dying" and old is None:  # R-DY-1, R-DY-2: 1 AP, and prone at once
            economy = state.economy.get(target.id) or self.economy.fresh(state, target.id)
            current = int(economy["ap"])
            ap = 1 if self.ruling_is(state, "AR-6", "set-to-one") else min(current, 1)
            events.append(Event("fell_dying", {"target": target.id, "ap": ap}))
            if not target.has("prone"):
                events += self.gain(state, target, Condition("prone", source=target.id), dice,
                                    dying=True)
        events.append(Event("condition_added", {"target": target.id, "condition": new.to_json(),
                                                "replaced": old.to_json() if old else None}))
        if name == "stunned":  # R-C-STU: Stun N removes N AP at once (R-CON-3 floor)
            economy = state.economy.get(target.id) or self.economy.fresh(state, target.id)
            # R-CON-4: a stun given again takes only the AP its level adds
            adds = max(new.level - target.stun_taken, 0)
            ap = reduce_with_floor(state, int(economy["ap"]), adds)
            events.append(Event("ap_lost", {"target": target.id, "ap": ap,
                                            "lost": int(economy["ap"]) - ap,
                                            "stun_taken": max(new.level, target.stun_taken)}))
        if entry.most is not None and new.level > entry.most:  # R-DTH-2: Exhausted above 10
            events.append(Event("died", {"target": target.id, "unsummoned": False,
                                         "why": f"{name.capitalize()} {new.level} is above "
                                                f"{entry.most}"}))
        if name == "prone" and old is None:  # R-MNT-3: knocked prone (not already lying)
            events += self.unseat(state, target, dice)
        return events


def set_level(me: RealmsCreature, name: str, level: int) -> None:
    """Give a condition a new level (removed at 0), as a new Condition: apply methods never
    change a Condition in place, so lookahead copies share them (model.py: COPIED)."""
    if level > 0:
        me.conditions = [replace(x, level=level) if x.name == name else x
                         for x in me.conditions]
    else:
        me.conditions = [x for x in me.conditions if x.name != name]
