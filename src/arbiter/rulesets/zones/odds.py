"""Exact odds before rolling in zones: offense, defense and hit for ``attack`` and ``melee``,
success for ``roll``, inclusion chances for an AoE, the chance of high damage for a ``zaoe``,
and what a ``move`` costs and triggers."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import Command, EncounterState, Event, IllegalCommand
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from . import aoe as area
from . import payloads
from .attacks import Attacks  # the topic below (a chain)
from .model import (
    ALTITUDE,
    RULINGS,
    Shot,
    adjacent,
    creatures,
    engaged,
    engagements_in,
    outnumbering_counts,
)
from .movement import flank_hindrance, moved
from .rolls import success_odds
from .shots import plan_shot


@mypyc_attr(allow_interpreted_subclasses=True)
class Odds(Attacks):
    """``odds`` and the ``odds`` command."""

    def odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Exact chances before rolling: offense, defense and hit for ``attack`` and
        ``melee``, success for ``roll``, inclusion chances for an AoE, the chance of high
        damage for a ``zaoe``. The command is bound first, as ``preview`` does (a caller may
        ask without it)."""
        rulings = state.rulings
        a = self.bound(command).a
        if command.name == "roll":
            actor = self.creature(state, self.actor(state, command).id)
            on: str = a.stat
            h: int = a.hindrance
            if a.melee_interference:
                h += sum(self.interference(state, actor).values())
            p = success_odds(a.expr, actor.stat(on), h, rulings)
            return {"success": p, "failure": 1 - p}
        if command.name == "melee":
            actor = self.acting(state, command)
            target = self.creature(state, a.target)
            off = success_odds("1d20", actor.stat("DEX"), 2 if actor.has("cover") else 0,
                               rulings)
            dfn = success_odds("1d20", target.stat("DEX"), 2 if target.has("cover") else 0,
                               rulings)
            return {"offense": off, "defense": dfn, "hit": off * (1 - dfn),
                    "miss": 1 - off * (1 - dfn),
                    "outnumbering": outnumbering_counts(state, actor, target)}
        if command.name == "zaoe":
            return self._zaoe_odds(state, command)
        if command.name == "move":
            return self.move_odds(state, command)
        if command.name != "attack":
            return super().odds(state, command)
        shot = plan_shot(self, state, command)
        off = Fraction(0) if shot.blinded else (
            Fraction(1) if shot.aoe_source == "effect" else
            success_odds(shot.expr, shot.stat, sum(shot.hindrance.values()), rulings))
        out: dict[str, Any] = {"offense": off}
        aimed = shot.targets[0] if shot.targets else None
        if aimed is not None:
            target = aimed
            h = sum(flank_hindrance(self, state, target, shot.actor, shot.band).values())
            h += a.defense_hindrance
            dfn = success_odds("1d20", target.stat("DEX"), h, rulings)
            out["defense"] = dfn
            out["hit"] = off * (1 - dfn)
            out["miss"] = 1 - out["hit"]
        if shot.aoe is not None:
            out["inclusion"] = self._inclusion_odds(state, shot, off)
        return out

    def move_odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """What a ``move`` would cost and trigger, from ``do_move``'s own checks and events
        (it rolls nothing), or its refusal: where it ends (``zone``, ``engagement``,
        ``altitude``), the ``distance`` covered as a range band (ruling ZR-4: ``short``
        within the zone, ``medium`` to an adjacent zone, else ``long``; ``none`` for only a
        change of altitude), in turn-by-turn play what it uses (``uses``: the turn's
        movement) and whether a slowing action is still possible after it (ZR-7), and
        what it triggers: ``leaves_cover`` (Z-COV-10), the creatures whose engagement it
        leaves (``leaves_engagement``) and joins (``joins_engagement``)."""
        actor = self.acting(state, command)
        spent = self.use(state, actor.id, "move")
        events = moved(self, state, command, actor, spent, "moved")
        data = events[0].data
        before = {c.id for c in creatures(state) if c.id != actor.id and engaged(c, actor)}
        after = {c.id for c in creatures(state) if c.id != actor.id and c.zone == data["zone"]
                 and c.engagement == data["engagement"]}
        if (data["zone"], data["engagement"]) == (actor.zone, actor.engagement):
            distance = "none"
        elif data["zone"] == actor.zone:
            distance = "short"
        else:
            distance = "medium" if data["zone"] in adjacent(state, actor.zone) else "long"
        out: dict[str, Any] = {
            "zone": data["zone"], "engagement": data["engagement"],
            "altitude": data["altitude"], "distance": distance,
            "leaves_cover": any(e.type == "cover_left" for e in events),
            "leaves_engagement": sorted(before - after),
            "joins_engagement": sorted(after - before),
        }
        if "economy" in spent:
            out["uses"] = "the turn's movement"
            out["slowing_action_after"] = not RULINGS.chosen(state.rulings, "ZR-7", "no-move")
        return out

    def _inclusion_odds(self, state: EncounterState, shot: Shot,
                        off: Fraction) -> dict[str, Fraction]:
        """Each candidate's exact chance to be included (success and failure weighed)."""
        out: dict[str, Fraction] = {}
        direct = shot.targets[0] if shot.targets and shot.aoe == "burst" else None
        for success, weight in ((True, off), (False, 1 - off)):
            if weight == 0:
                continue
            plan = area.AoePlan(attacker=shot.actor, kind=shot.aoe or "burst", direct=direct,
                                engagements=shot.engagements, zone=shot.zone,
                                offense_success=success, caution=shot.caution and success,
                                beneficial=shot.weapon.beneficial, spread=bool(shot.spread),
                                altitude=direct.altitude if direct else 0)
            for c in area.candidates(state, plan):
                if direct is not None and c.id == direct.id and success:
                    p = Fraction(1)  # impact or a guaranteed area effect (Z-AOE-2)
                else:
                    chance, _ = area.chance_for(state, plan, c, state.rulings)
                    p = Fraction(1) if chance is None else area.inclusion_odds(chance)
                out[c.id] = out.get(c.id, Fraction(0)) + weight * p
        return out

    def _zaoe_odds(self, state: EncounterState, command: Command) -> dict[str, Any]:
        """Each creature's exact chance to take the high damage of a ZAoE (0: low or none)."""
        a = command.a
        actor = self.acting(state, command)
        weapon = actor.weapon(a.weapon)
        if weapon.zaoe is None:
            raise IllegalCommand(f"{weapon.name} does not say it uses ZAoE rules, so it never "
                                 "does", rule="Z-ZAO-1")
        zone: str = a.zone
        shape, size = weapon.zaoe.get("shape", "point"), weapon.zaoe.get("size", "lesser")
        affected = area.zaoe_zones(state, zone, size)
        people = [c for c in creatures(state) if c.zone in affected and not c.down]
        out: dict[str, Any] = {}
        high: dict[str, Fraction] = {}
        groups = engagements_in(state, zone)
        n = len(groups)
        random_pick = Fraction(min(n, 6), 6) * Fraction(1, n) if n else Fraction(0)
        aim = a.group
        aimed = next((c.engagement for c in creatures(state) if aim is not None and
                      (c.group == aim or c.engagement == aim)), None)
        offense = Fraction(0)
        if shape == "point" and size == "lesser" and aimed is not None \
                and weapon.zaoe.get("offense"):
            offense = success_odds(weapon.zaoe["offense"], actor.stat("DEX"),
                                   sum(self.interference(state, actor).values()),
                                   state.rulings)
            out["offense"] = offense
        units = area.pairs(people, state.rulings)
        for c in people:
            high_flyer = c.flying and c.altitude > ALTITUDE["engagement"]
            if shape == "cluster":
                unit = next(u for u in units if c in u)
                p = Fraction(0) if high_flyer else Fraction(1) if any(
                    u.vehicle or u.heavy for u in unit) else Fraction(1, 3)
            elif c.altitude > ALTITUDE["medium"]:
                p = Fraction(0)
            elif size == "greater" or high_flyer:
                p = Fraction(int(size == "greater" and c.zone == zone))
            else:
                hit_aim = Fraction(int(c.engagement == aimed))
                p = offense * hit_aim + (1 - offense) * random_pick
            high[c.id] = p
        out["high"] = high
        return out

    @command("Record in the log the exact odds of a command before it is rolled.",
             of=args.nested("the command whose odds are computed", required=True))
    def do_odds(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Record the exact odds of a command before it is rolled (the command is checked
        against its declaration as if issued directly)."""
        inner = self.bound(Command.from_json(command.a.of))
        odds = self.odds(state, inner)
        return [Event("odds_computed", {"of": inner.to_json(), "odds": _plain_odds(odds)})]

    @event("The odds of {of.do}: {odds}.", of=args.mapping("the command"),
           odds=args.mapping("the exact chances, as fractions"))
    def apply_odds_computed(self, state: EncounterState, data: payloads.OddsComputed) -> None:
        return None


def _plain_odds(value: Any) -> Any:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, dict):
        return {k: _plain_odds(v) for k, v in value.items()}
    return value
