"""Stealth and detection in Polemos (P-STL-*, P-REQ-1..3, P-REQ-7): hiding, appearing,
searching, the GM's word on detection, packing items away.
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Condition,
    Deferred,
    EncounterState,
    Event,
    IllegalCommand,
    kernel_payloads,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from . import payloads
from .actions import KINDS
from .checks import roll_skill, success
from .model import Creature
from .social import SocialRules  # the topic below (a chain)


@mypyc_attr(allow_interpreted_subclasses=True)
class StealthRules(SocialRules):
    """Hiding, searching and detecting."""

    @command("Hide by sneaking or camouflage: 2D6 + [stealth] is the detection defense "
             "searchers must reach.", who="player", actor="optional", cost="primary",
             rules=("P-STL-1", "P-STL-2"),
             target=args.creature("what hides or is camouflaged (default: the actor): the "
                                  "actor itself or one of the player's own", refers="own"),
             method=args.choice("sneak or camouflage", "sneak", "camouflage", default="sneak"),
             defense=args.integer("a set detection defense instead of the roll", lo=0, hi=99,
                                  who="gm"),
             kind=args.choice("the kind of action it takes (with an actor)", *KINDS,
                              default="primary", who="gm"))
    def do_hide(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Hide by sneaking or camouflage (P-STL-2): a creature hides as its own action, or
        the GM camouflages an object; the [stealth] roll, or the GM's set number, is the
        detection defense searchers must reach."""
        a = command.a
        hider = self.creature(state, a.target or self.actor(state, command).id)
        method = a.method
        data: dict[str, Any] = {"target": hider.id, "method": method}
        if command.actor is not None:  # sneaking is the hider's own action
            data.update(self.use(state, self.acting(state, command), a.kind, method))
        if a.defense is not None:
            data["defense"] = a.defense
        else:
            result = roll_skill(hider.skill("stealth"), 0, 0, self.ruling(state, "AP-2"), dice)
            data.update(defense=result.total, roll=Deferred(result.to_json))
        return [Event("hid", data)]

    @event("{target} hides ({method})[: detection defense {defense}].",
           player="{target} hides ({method}).",
           target=args.creature("who hides"), method=args.text("sneak or camouflage"),
           defense=args.integer("the detection defense searchers must reach"),
           roll=args.mapping("the [stealth] roll"),
           actor=args.creature("who acts"), ability=args.text("the action used"),
           kind=args.text("the kind of action"), round=args.integer("the round"),
           counts=args.flag("the use counts for once a round (P-ACT-1)"),
           optional=("ability", "actor", "counts", "kind", "roll", "round"))
    def apply_hid(self, state: EncounterState, data: payloads.Hid) -> None:
        hider = self.creature(state, data["target"])
        hider.hidden = True
        hider.conditions = [c for c in hider.conditions if c.name != "hidden"]
        hider.conditions.append(Condition("hidden", 1, ("stealth",), None,
                                          data={"defense": data["defense"],
                                                "method": data["method"]}))
        for found in state.extra.get("detected", {}).values():
            if hider.id in found:
                found.remove(hider.id)

    @command("A hidden creature or object stops hiding: everyone may target it again.",
             rules=("P-STL-1",),
             target=args.creature("who stops hiding", required=True))
    def do_appear(self, state: EncounterState, command: Command,
                  dice: DiceSource) -> list[Event]:
        """Stop hiding (P-STL-1): everyone may target it again."""
        target = self.creature(state, command.a.target)
        if not target.hidden:
            raise IllegalCommand(f"{target.id} is not hidden")
        return [Event("appeared", {"target": target.id})]

    @event("{target} is no longer hidden.", target=args.creature("who appears"))
    def apply_appeared(self, state: EncounterState, data: payloads.Appeared) -> None:
        target = self.creature(state, data["target"])
        target.hidden = False
        target.conditions = [c for c in target.conditions if c.name != "hidden"]

    @command("Search actively for hidden objects: 2D6 + [search] against each one's "
             "detection defense.", who="player", actor="required", cost="primary",
             rules=("P-STL-3", "P-STL-4", "P-STL-5", "POL-8", "AP-31"),
             range=args.integer("how far it searches, in squares (default: everywhere)",
                                lo=0, hi=200_000),
             detection_modifier=args.integer("the GM's modifier to hidden objects' detection "
                                             "defense (P-STL-5)", lo=-20, hi=20, default=0,
                                             who="gm"),
             stealth_modifier=args.integer("the GM's modifier to the searcher's total "
                                           "(P-STL-5)", lo=-20, hi=20, default=0, who="gm"),
             blind_spots=args.creatures("what the GM rules out of sight (P-STL-4)", who="gm"),
             kind=args.choice("the kind of action it takes", *KINDS, default="primary",
                              who="gm"),
             bonus=args.integer("bonus dice (read by the odds only)", lo=0, hi=20, who="gm"),
             penalty=args.integer("penalty dice (read by the odds only)", lo=0, hi=20,
                                  who="gm"),
             dice_mod=args.integer("bonus (+) or penalty (-) dice (read by the odds only)",
                                   lo=-20, hi=20, who="gm"))
    def do_search(self, state: EncounterState, command: Command,
                  dice: DiceSource) -> list[Event]:
        """Search actively for hidden objects (P-STL-3; the search area ability, AP-31): the
        [search] roll, with the GM's modifiers (P-STL-5), against each hidden object's
        detection defense (ruling POL-8), but what the GM rules out of sight (P-STL-4)."""
        a = command.a
        actor = self.acting(state, command)
        use = self.use(state, actor, a.kind, "search")
        reach = a.range
        blind = set(a.blind_spots or ())
        hidden = [e for e in state.entities.values() if isinstance(e, Creature)
                  and (e.hidden or e.has("hidden"))
                  and e.id != actor.id and not self.detected(state, actor.id, e.id)
                  and e.id not in blind]
        if reach is not None:
            hidden = [e for e in hidden
                      if (self.range_between(state, actor, e, strict=False) or 0) <= reach]
        result = roll_skill(actor.skill("search"), 0, 0, self.ruling(state, "AP-2"), dice)
        total = result.total + a.stealth_modifier
        shift = a.detection_modifier
        ties = self.ruling(state, "AP-1")
        found = []  # not whom it missed: a player's log would show that entry lose it
        gm = self.ruling(state, "POL-8") == "gm-decides"
        for entity in hidden:
            cond = entity.condition("hidden")
            defense = int(cond.data["defense"]) if cond and "defense" in cond.data \
                else entity.skill("detection_defense")
            if not gm and success(total, defense + shift, ties):
                found.append(entity.id)
        return [Event("acted", {**use, "attack": False, "effects": 1, "cost": {}}),
                Event("searched", {"actor": actor.id, "total": total,
                                   "roll": Deferred(result.to_json), "found": found})]

    @event("{actor} searches[ ({total})] and finds: {found}.",
           actor=args.creature("who searches"), total=args.integer("the search total"),
           roll=args.mapping("the [search] roll"),
           found=args.creatures("the hidden objects detected"))
    def apply_searched(self, state: EncounterState, data: payloads.Searched) -> None:
        known = state.extra.setdefault("detected", {}).setdefault(data["actor"], [])
        known.extend(f for f in data["found"] if f not in known)

    def do_detect(self, state: EncounterState, command: Command,
                  dice: DiceSource) -> list[Event]:
        """The GM's judgement of detection (P-REQ-3). Knowing only the region something is in
        is not detecting it."""
        actor = self.creature(state, self.actor(state, command).id)
        target = self.creature(state, command.a.target)
        return [Event("detection_set", {"actor": actor.id, "target": target.id,
                                        "detected": command.a.detected})]

    def apply_detection_set(self, state: EncounterState,
                            data: kernel_payloads.DetectionSet) -> None:
        known = state.extra.setdefault("detected", {}).setdefault(data["actor"], [])
        if data["detected"] and data["target"] not in known:
            known.append(data["target"])
        elif not data["detected"] and data["target"] in known:
            known.remove(data["target"])

    @command("Take a carried item out of its container, or pack it away.", who="player",
             actor="required", rules=("P-REQ-7", "P-REQ-8"),
             item=args.creature("the item the actor carries", required=True),
             packed=args.flag("pack it away instead", default=False))
    def do_unpack(self, state: EncounterState, command: Command,
                  dice: DiceSource) -> list[Event]:
        """Take an item out of its container, or pack it away: only what the actor carries
        (P-REQ-7, P-REQ-8)."""
        actor = self.creature(state, self.actor(state, command).id)
        item = self.creature(state, command.a.item)
        if item.carried_by != actor.id:
            raise IllegalCommand(f"{actor.id} does not carry {item.id}", rule="P-REQ-8")
        return [Event("packed", {"item": item.id,
                                 "packed": command.a.packed})]

    @event("{item} is {packed?packed away|taken out}.", item=args.creature("the item"),
           packed=args.flag("packed away"))
    def apply_packed(self, state: EncounterState, data: payloads.Packed) -> None:
        self.creature(state, data["item"]).packed = data["packed"]
