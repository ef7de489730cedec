"""The Polemos action economy (P-ACT-*): a primary and a secondary action, minor, free and full
actions; using an ability (``act``), declaring actions and resolving them, multi-turn full
actions.

P-ACT-2: each turn grants one primary and one secondary action, in any order, either skipped.
P-ACT-3: a primary may be replaced by a secondary, never the reverse.
P-ACT-4: any number of minor actions on your own turn (not while another action resolves:
checked by the ruleset, which knows what is pending).
P-ACT-5: free actions at any time, even on others' turns.
P-ACT-6: a full action takes the whole turn: nothing else that turn, minor and free included.
P-ACT-7: an "N full" action locks the following turns (``channel``).
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    ActionEconomy,
    Command,
    EncounterState,
    Event,
    IllegalCommand,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.economy import Economy
from ...core.model import entity_at
from ...dice import DiceSource
from . import payloads
from .base import also
from .damage import choose_weapon
from .model import Creature
from .targets import (
    TARGET_RULES,
    TargetRules,  # the topic below (a chain)
    resolve_target,
    target_args,
)

KINDS = ("primary", "secondary", "minor", "free", "full")
"""Kinds of action in turn-by-turn play (P-ACT-2..7)."""


DEFAULT_KIND = {"attack": "primary", "take_cover": "minor", "bandage": "primary",
                "act": "primary"}


def kind_of(command: Command) -> str:
    """The kind of action a command takes: its ``kind`` argument (a bound command that
    declares one; each declares its default), else the one its name takes."""
    kind = getattr(command.a, "kind", None)
    if kind is None:
        return DEFAULT_KIND.get(command.name, "primary")
    if kind not in KINDS:
        raise InvalidCommand(f"{command.name}: kind must be one of {', '.join(KINDS)}, "
                             f"not {kind!r}")
    return str(kind)


class PolemosEconomy(ActionEconomy):
    def fresh(self, state: Any, who: str) -> Economy:
        entity = entity_at(state.entities, who) if state is not None else None
        if isinstance(entity, Creature) and entity.channel:
            # P-ACT-7: a multi-turn full action takes this whole turn too
            return {"primary": 0, "secondary": 0, "minor": 0, "free": 0, "full": True}
        return {"primary": 1, "secondary": 1, "minor": 0, "free": 0, "full": False}

    def spend(self, state: Any, who: str, kind: str, economy: Economy) -> Economy:
        out = dict(economy)
        own_turn = state.current == who
        if out.get("full") and (own_turn or kind != "free"):
            raise IllegalCommand(
                f"{who} is taking a full action, which takes the whole turn: no other "
                "action this turn, not even a minor or free one", rule="P-ACT-6")
        if kind == "primary":
            if out["primary"] < 1:
                raise IllegalCommand(
                    f"{who} has no primary action left this turn (a secondary action cannot "
                    "replace a primary one)", rule="P-ACT-3")
            out["primary"] -= 1
        elif kind == "secondary":
            if out["secondary"] >= 1:
                out["secondary"] -= 1
            elif out["primary"] >= 1:
                out["primary"] -= 1  # P-ACT-3: the primary is replaced by a secondary
            else:
                raise IllegalCommand(f"{who} has no secondary action left this turn",
                                     rule="P-ACT-2")
        elif kind == "minor":
            out["minor"] += 1
        elif kind == "free":
            out["free"] += 1
        elif kind == "full":
            if out["primary"] < 1 or out["secondary"] < 1 or out["minor"] or out["free"]:
                raise IllegalCommand(
                    f"{who} has already acted this turn; a full action takes the entire turn",
                    rule="P-ACT-6")
            out.update(primary=0, secondary=0, full=True)
        return out

    def describe(self, economy: Economy) -> str:
        if economy.get("full"):
            return "full action: nothing else this turn"
        return (f"primary {economy['primary']}, secondary {economy['secondary']}, "
                f"minor used {economy['minor']}, free used {economy['free']}")


@mypyc_attr(allow_interpreted_subclasses=True)
class ActionRules(TargetRules):
    """Using abilities, declaring and resolving actions, full actions."""

    @also(cost=args.mapping("what it costs, {sp, fp}: the ability's, the GM's (default: "
                            "nothing)", keys=("sp", "fp"), lo=0, hi=999, who="gm"),
          **target_args())
    @command("Use an ability: the action it takes, its target (checked when target_kind is "
             "given), whether it is an attack, its cost.", who="player", when="any",
             actor="required", cost="primary",
             rules=("P-GEN-2", "P-ACT-1", "P-ACT-2", "P-ACT-3", "P-ACT-4", "P-ACT-5",
                    "P-ACT-6", "P-ACT-7", "P-ATK-1", "P-ATK-2", "P-ATK-3", "P-ATK-4",
                    "P-ATK-5", "AP-5", "AP-6", "AP-21", *TARGET_RULES),
             ability=args.text("the ability's name", required=True, max_len=64),
             kind=args.choice("the action it takes (the ability's, the GM's)", *KINDS,
                              default="primary", who="gm"),
             turns=args.integer("turns of an \"N full\" action (the ability's, the GM's)", lo=1,
                                hi=100, default=1, who="gm"),
             willing=args.flag("the target is willing: not an attack (P-ATK-2; the GM's)",
                               who="gm"),
             affects=args.flag("it could affect its unwilling target (ruling AP-21; the "
                               "GM's; default: yes)", default=None, who="gm"),
             effects=args.integer("how many effects it applies (one attack, P-ATK-5; the "
                                  "ability's, the GM's)", lo=0, hi=100, default=1, who="gm"),
             combo=args.text("the combo ability it is a part of (P-TGT-12)", max_len=64))
    def do_act(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Use an ability: spend its action (P-ACT-*), check its target when its kind is
        given (P-TGT-*, P-RNG-*, P-REQ-*), say whether it is an attack (P-ATK-*) and pay
        its cost (at the end of an "N full" action, P-ACT-7)."""
        a = command.a
        actor = self.acting(state, command)
        ability: str = a.ability
        kind = kind_of(command)
        turns: int = a.turns
        if turns < 1 or (turns > 1 and kind != "full"):
            raise InvalidCommand("act: 'turns' is for full actions and at least 1")
        data = self.use(state, actor, kind, ability)
        target_name: str | None = a.target
        is_attack = False
        willing: bool = a.willing
        affects: bool = a.affects is not False  # AP-21 assume-yes: left out, it could
        if a.target_kind is not None:  # P-TGT-*, P-RNG-*, P-REQ-*
            data["targets"] = resolve_target(self, state, actor, command)
            target_name = data["targets"].get("target")
            if target_name is None:
                data["affected"] = data["targets"].get("affected", [])
                # P-ATK-1, P-ATK-2: every unwilling creature an area could affect is attacked
                if not willing and affects:
                    data["attacked"] = [who for who in data["affected"] if who != actor.id
                                        and state.entity(who).kind == "creature"]
                    is_attack = bool(data["attacked"])
        if target_name is not None:
            target = state.entity(target_name)
            if a.affects is None and not willing and self.ruling(state, "AP-21") == "declared":
                raise InvalidCommand("act: say whether the ability could affect its unwilling "
                                     "target ('affects: true/false', ruling AP-21)")
            # P-ATK-1..4: an unwilling target that the action could affect; P-ATK-5: one attack
            is_attack = target.id != actor.id and not willing and affects
            data["target"] = target.id
        cost = dict(a.cost or {})
        data.update(attack=is_attack, effects=a.effects, cost=cost)
        if turns > 1 and state.in_combat:
            data["channel"] = {"ability": ability, "turns": turns, "done": 0, "cost": cost}
        else:
            data["sp"] = max(actor.sp - cost.get("sp", 0), 0)
            data["fp"] = max(actor.fp - cost.get("fp", 0), 0)
        events = [Event("acted", data)]
        return events + self._consequences(state, events)

    @event("{actor} uses {ability}[ ({kind} action)][ on {target}][, affecting {affected}]"
           "[{attack?, an attack|}].",
           actor=args.creature("who acts"), ability=args.text("the ability"),
           kind=args.text("the kind of action"), round=args.integer("the round"),
           counts=args.flag("the use counts for once a round (P-ACT-1)"),
           targets=args.mapping("the target checked (see the target command)"),
           affected=args.creatures("what an area or selection reaches"),
           attacked=args.creatures("the unwilling creatures it attacks"),
           target=args.creature("the target"),
           attack=args.flag("it is an attack (P-ATK-1)"),
           effects=args.integer("effects applied"),
           cost=args.mapping("its cost: sp, fp"),
           channel=args.mapping("an N full action under way: ability, turns, done, cost"),
           sp=args.integer("SP after"), fp=args.integer("FP after"),
           optional=("affected", "attack", "attacked", "channel", "cost", "counts", "effects",
                     "fp", "round", "sp", "target", "targets"))
    def apply_acted(self, state: EncounterState, data: payloads.Acted) -> None:
        actor = self.creature(state, data["actor"])
        channel, sp, fp = data.get("channel"), data.get("sp"), data.get("fp")
        if channel is not None:
            actor.channel = dict(channel)
        if sp is not None and fp is not None:
            actor.sp, actor.fp = sp, fp
        for name in data.get("attacked") or []:  # an area's unwilling creatures
            hit = entity_at(state.entities, name)
            if isinstance(hit, Creature):
                hit.attacks_received += 1
        aimed = data.get("target")
        if data.get("attack") and aimed is not None:
            target = entity_at(state.entities, aimed)
            if isinstance(target, Creature):
                target.attacks_received += 1

    @command("Declare an action to resolve later; free actions may be declared on another's "
             "turn and resolve first.", who="player", when="any", actor="required",
             rules=("P-ACT-4", "P-ACT-5", "P-DTY-2"),
             action=args.nested("the declared command: {do: ..., and its arguments}",
                                required=True))
    def do_declare(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Declare an action to resolve later; free actions may be declared after others
        and resolve first (P-ACT-5)."""
        actor = self.acting(state, command)
        action = dict(command.a.action)
        action.setdefault("actor", actor.id)
        if action["actor"] != actor.id:
            raise InvalidCommand("declare: the declared action's actor must be the declarer")
        inner = self.bound(Command.from_json(action))
        kind = kind_of(inner)
        if kind != "free" and state.in_combat and state.current != actor.id:
            raise IllegalCommand(f"it is {state.current}'s turn, not {actor.id}'s; only free "
                                 "actions can be declared on another's turn", rule="P-ACT-5")
        if kind == "minor":
            raise IllegalCommand("minor actions are not declared: use them directly",
                                 rule="P-ACT-4")
        if inner.name == "attack":  # P-DTY-2: the damage type is chosen before resolution
            choose_weapon(self, actor, inner)
        elif not hasattr(self, f"do_{inner.name}") or inner.name in ("declare", "resolve"):
            raise InvalidCommand(f"declare: {inner.name!r} is not an action that can be "
                                 "declared")
        return [Event("declared", {"actor": actor.id, "command": action, "kind": kind})]

    @event("{actor} declares {command.do}[ ({kind} action)].",
           actor=args.creature("who declares"),
           command=args.mapping("the declared command"),
           kind=args.text("the kind of action"))
    def apply_declared(self, state: EncounterState, data: payloads.Declared) -> None:
        state.extra.setdefault("pending", []).append(
            {"actor": data["actor"], "command": data["command"], "kind": data["kind"]})

    @command("Resolve every declared action: free actions first, then the rest.",
             rules=("P-ACT-5",))
    def do_resolve(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Resolve every declared action: free actions first, then the rest (P-ACT-5)."""
        pending = list(state.extra.get("pending", []))
        if not pending:
            raise IllegalCommand("no action has been declared")
        ordered = [p for p in pending if p["kind"] == "free"] + \
                  [p for p in pending if p["kind"] != "free"]
        events: list[Event] = [Event("resolving", {"order": [p["actor"] for p in ordered]})]
        for item in ordered:
            scratch = self.lookahead(state, events)
            try:
                events += self.decide(scratch, Command.from_json(item["command"]), dice)
            except IllegalCommand as err:
                raise IllegalCommand(f"{item['actor']}'s declared {item['command']['do']} "
                                     f"cannot resolve: {err.reason}", rule=err.rule) from None
        return [*events, Event("resolved", {})]

    @event("The declared actions resolve, in order: {order}.",
           order=args.creatures("whose actions, in order"))
    def apply_resolving(self, state: EncounterState, data: payloads.Resolving) -> None:
        state.extra["pending"] = []

    @event("Every declared action is resolved.")
    def apply_resolved(self, state: EncounterState, data: payloads.Resolved) -> None:
        state.extra["pending"] = []

    @command("Withdraw the actor's declared actions before they resolve.", who="player",
             when="any", actor="required", rules=("P-ACT-5",))
    def do_withdraw(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Withdraw the actor's declared actions before they resolve (P-ACT-5)."""
        actor = self.creature(state, self.actor(state, command).id)
        if not any(p["actor"] == actor.id for p in state.extra.get("pending", [])):
            raise IllegalCommand(f"{actor.id} has declared nothing")
        return [Event("withdrawn", {"actor": actor.id})]

    @event("{actor} withdraws their declared actions.",
           actor=args.creature("who withdraws"))
    def apply_withdrawn(self, state: EncounterState, data: payloads.Withdrawn) -> None:
        state.extra["pending"] = [p for p in state.extra.get("pending", [])
                                  if p["actor"] != data["actor"]]

    @command("Cancel a multi-turn full action after its first full turn: no effect, no "
             "cost.", who="player", actor="required", rules=("P-ACT-7",))
    def do_cancel(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Cancel a multi-turn full action after its first full turn: no effect, no cost
        (P-ACT-7)."""
        actor = self.creature(state, self.actor(state, command).id)
        if not actor.channel:
            raise IllegalCommand(f"{actor.id} is not taking a multi-turn full action",
                                 rule="P-ACT-7")
        if int(actor.channel["done"]) < 1:
            raise IllegalCommand(
                f"{actor.channel['ability']} can only be cancelled after its first full turn",
                rule="P-ACT-7")
        return [Event("full_action_cancelled", {"actor": actor.id,
                                                "ability": actor.channel["ability"],
                                                "cost": {}})]

    @event("{actor} cancels {ability}: no effect, no cost.",
           actor=args.creature("who acts"), ability=args.text("the full action"),
           cost=args.mapping("the cost not paid (none)"))
    def apply_full_action_cancelled(self, state: EncounterState,
                                    data: payloads.FullActionCancelled) -> None:
        self.creature(state, data["actor"]).channel = None

    @event("{actor}'s full action goes on (turns done: {done}).",
           actor=args.creature("who acts"), done=args.integer("turns done"))
    def apply_full_action_progressed(self, state: EncounterState,
                                     data: payloads.FullActionProgressed) -> None:
        creature = self.creature(state, data["actor"])
        if creature.channel is not None:
            creature.channel = {**creature.channel, "done": data["done"]}

    @event("{actor} completes {ability}[: SP {sp}][, FP {fp}].",
           actor=args.creature("who acts"), ability=args.text("the full action"),
           cost=args.mapping("its cost: sp, fp"), sp=args.integer("SP after"),
           fp=args.integer("FP after"))
    def apply_full_action_completed(self, state: EncounterState,
                                    data: payloads.FullActionCompleted) -> None:
        creature = self.creature(state, data["actor"])
        creature.channel = None
        creature.sp, creature.fp = data["sp"], data["fp"]
