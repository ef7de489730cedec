"""A ranged attack in zones, planned and checked before any die is rolled (Z-RA-*, Z-HND-1,
Z-UNA-1, Z-BLI-*, Z-THR-*, Z-FA-*, Z-EAO-*, Z-OVR-*, Z-PAO-1), and what every ranged hit
shares: critical hits (ruling ZR-3) and the target's defense roll (Z-RA-4, flanking)."""

from __future__ import annotations

from ...core import Command, DataMap, EncounterState, IllegalCommand, InvalidCommand
from ...dice import DiceSource
from .base import ZonesBase, names
from .damage import fraction_of
from .model import Creature, Effect, Shot, Weapon, allies, creatures, default_range, engaged
from .movement import flank_hindrance
from .rolls import roll_check

THROWN_OFFENSE = {"short": "1d12", "medium": "2d20", "long": "X"}
"""The offense dice of any thrown weapon: d12/2d20/X (Z-RA-6; 2d20 read by AZ-3, X by AZ-4)."""
ONE_HANDED_HINDRANCE = {"short": 1, "medium": 2, "long": 4}
"""Hindrance for a conventional ranged weapon wielded one-handed (Z-HND-1)."""
FULL_AUTO_AMMO = 10
ENERGY_AOE_DAMAGE, OVEREFFECT_DAMAGE, PROJECTILE_AOE_DAMAGE = 40, 120, 150
FULL_AUTO_SKILL = "Full-Auto Skill"


def plan_shot(rules: ZonesBase, state: EncounterState, command: Command) -> Shot:
    """Check a ranged attack and work out its dice and Hindrance, rolling nothing.

    Every shot the tactics offer is planned here (and then decided from the plan), so the
    creatures' conditions are each scanned once and the arguments a plain shot lacks are
    looked at only when given."""
    a = command.a
    actor = rules.acting(state, command)
    named = a.weapon
    if isinstance(named, list):
        raise IllegalCommand("only one ranged weapon (or weapon-equivalent Ability) may "
                             "be involved in a single attack", rule="Z-RA-7")
    if named is not None and not isinstance(named, str):
        raise InvalidCommand(f"attack: 'weapon' must be a weapon's name, not {named!r}")
    weapon = actor.weapon(_default_ranged(actor) if named is None else named)
    if weapon.zaoe is not None:
        raise IllegalCommand(f"{weapon.name} is a zonewide AoE: use the zaoe command",
                             rule="Z-ZAO-1")
    kind = weapon.kind
    thrown = kind in ("thrown", "melee")
    unaimed, blind = a.unaimed, a.blind
    if unaimed and blind:
        raise IllegalCommand("a ranged attack cannot be both blind and unaimed",
                             rule="Z-BLI-7")
    competent_normally = actor.is_competent(weapon) and (
        kind != "melee" or weapon.throwing)
    if unaimed and not competent_normally:
        raise IllegalCommand(f"{actor.id} is not competent with {weapon.name}, so cannot "
                             "make an unaimed attack", rule="Z-UNA-1")
    competent = competent_normally and not unaimed and not blind
    full_auto = a.full_auto
    grapple = actor.condition("grappling")  # as ``grappling()`` and ``has`` read it
    partner = grapple.source if grapple is not None else None
    in_grapple = grapple is not None  # with a partner named or not
    if in_grapple and thrown:
        raise IllegalCommand(f"{actor.id} is in a grapple: only a non-thrown ranged weapon "
                             "can be used", rule="Z-RA-8")
    one_handed = a.one_handed or in_grapple
    marksmanship = names(command, "marksmanship", a.marksmanship) \
        if a.marksmanship is not None else []
    if marksmanship and not competent:
        raise IllegalCommand("an incompetent ranged attack cannot use Marksmanship "
                             f"Abilities ({', '.join(marksmanship)})", rule="Z-RA-5")
    blinded = actor.has("blinded")
    aoe_kind, source, impact, area_effect = aoe_mode(rules, state, command, actor, weapon,
                                                     full_auto, thrown)
    # targets
    targets = [rules.creature(state, t) for t in a.targets] if a.targets is not None else []
    if a.target is not None:
        targets.insert(0, rules.creature(state, a.target))
    spread = names(command, "spread", a.spread) if a.spread is not None else []
    spread_engagements = []
    for g in spread:
        members = [c for c in creatures(state) if (c.group == g or c.engagement == g)
                   and not c.down]
        if not members:
            raise InvalidCommand(f"attack: nobody standing is in group {g!r}")
        spread_engagements.append(members[0].engagement)
    engagement = a.engagement
    if blinded and rules.ruling_is(state, "AZ-26", "grapple-only"):
        raise IllegalCommand("ruling AZ-26 (grapple-only): the only ranged attack without "
                             "sight is against a grapple partner", rule="Z-RA-2")
    if blind:
        if rules.ruling_is(state, "AZ-26", "grapple-only"):
            raise IllegalCommand("ruling AZ-26 (grapple-only): blind attacks are not "
                                 "allowed", rule="Z-RA-2")
        if not competent_normally:
            raise IllegalCommand(f"{actor.id} must be normally competent with "
                                 f"{weapon.name} to attack blind", rule="Z-BLI-2")
        if blinded:
            raise IllegalCommand(f"{actor.id} is blinded: a blind attack needs an attacker "
                                 "who can otherwise see", rule="Z-BLI-2")
        if engagement is None:
            raise InvalidCommand("attack: a blind attack names the 'engagement' it aims at")
    if not targets and not blind and not (aoe_kind == "spray" or spread or blinded
                                          or a.group is not None):
        raise InvalidCommand("attack: missing argument 'target'")
    for t in targets:
        if t.down:
            raise IllegalCommand(f"{t.id} is already down")
        if t.id == actor.id:
            raise IllegalCommand("a creature cannot shoot itself")
    if len(targets) > 1 and not full_auto:
        raise IllegalCommand("a ranged attack has one target", rule="Z-RA-3")
    # sight (Z-RA-2, Z-RA-8, AZ-26)
    for t in targets:
        if t.has("unseen") and not allies(actor, t) and t.id != partner and not blind:
            raise IllegalCommand(f"{actor.id} cannot see {t.id}: a ranged attack needs a "
                                 "visible target", rule="Z-RA-2")
    # range
    first = targets[0] if targets else None
    zone = first.zone if first else actor.zone
    group_arg = a.group
    if first is None and group_arg is not None:
        members = [c for c in creatures(state) if c.group == group_arg and not c.down]
        if not members:
            raise InvalidCommand(f"attack: nobody standing is in group {group_arg!r}")
        first = members[0]
        zone = first.zone
    if blinded and not (aoe_kind and not spread and engagement in (None, actor.engagement)
                        and (first is None or engaged(actor, first))):
        raise IllegalCommand(f"{actor.id} is fully blinded: only an AoE at its own "
                             "engagement is possible", rule="Z-BLI-1")
    if blind:
        zone = actor.zone
        for c in creatures(state):
            if c.engagement == engagement:
                zone = c.zone
                break
    given = a.range  # the GM's (ruling ZR-4)
    if given is not None:
        range_band = given
    elif first is not None and not blind:
        range_band = default_range(state, actor, first)
    elif blind:
        range_band = "engagement" if engagement == actor.engagement and \
            zone == actor.zone else "short" if zone == actor.zone else "medium"
    else:
        range_band = "short"
    grapple_partner = first is not None and first.id == partner
    if range_band == "engagement" and rules.ruling_is(state, "AZ-7", "not-allowed") \
            and not grapple_partner:
        raise IllegalCommand("ruling AZ-7: no ranged attack at engagement range except "
                             "against a grapple partner", rule="Z-RA-6")
    values_band = "short" if range_band == "engagement" else range_band  # AZ-7
    if not competent:
        if values_band != "short":
            raise IllegalCommand(f"an incompetent ranged attack is only possible at short "
                                 f"range, not {range_band}", rule="Z-RA-5")
        if actor.mount:
            raise IllegalCommand(f"{actor.id} is mounted and cannot make an incompetent "
                                 "ranged attack", rule="Z-RA-5")
    if blind and values_band != "short":
        raise IllegalCommand("a blind attack needs the unseen target known to be within "
                             "short range", rule="Z-BLI-2")
    # full-auto (Z-FA-1, Z-FA-2, AZ-18)
    if full_auto:
        if weapon.full_auto_damage is None:
            raise IllegalCommand(f"{weapon.name} lists no full-auto damage and cannot fire "
                                 "full-auto", rule="Z-FA-2")
        limits = source != "projectile" or rules.ruling_is(state, "AZ-18",
                                                           "full-auto-limits")
        if limits and FULL_AUTO_SKILL not in actor.skills:
            if values_band != "short":
                raise IllegalCommand(f"without {FULL_AUTO_SKILL}, full-auto is only "
                                     f"possible at short range, not {range_band}",
                                     rule="Z-FA-1")
            if len(targets) > 1:
                raise IllegalCommand(f"without {FULL_AUTO_SKILL}, full-auto can only "
                                     "target a single character", rule="Z-FA-1")
    elif source == "projectile":
        raise IllegalCommand("a projectile AoE is fired in full-auto mode: add "
                             "full_auto: true", rule="Z-PAO-1")
    # STR requirement of thrown weapons (Z-THR-3)
    if thrown and actor.stat("STR") < weapon.requirement():
        raise IllegalCommand(f"{actor.id} has STR {actor.stat('STR')}, and throwing "
                             f"{weapon.name} needs {weapon.requirement()}", rule="Z-THR-3")
    # offense dice (Z-RA-5, Z-RA-6, AZ-4, AZ-5, AZ-6)
    if not competent:
        expr = "1d20"
    elif thrown:
        expr = THROWN_OFFENSE[values_band]
        if expr.upper() == "X" and rules.ruling_is(state, "AZ-4", "per-weapon"):
            expr = weapon.offense.get(values_band, "X")  # the weapon's own value (AZ-4)
    else:
        listed = weapon.offense.get(values_band)
        if listed is None:
            if rules.ruling_is(state, "AZ-5", "weapon-data"):
                raise IllegalCommand(f"{weapon.name} lists no offense dice at "
                                     f"{values_band} range", rule="Z-RA-6")
            listed = "1d20"
        expr = listed
    if expr.upper() == "X":
        raise IllegalCommand(f"{weapon.name} cannot attack at {range_band} range (X)" + (
            ": it lists no offense dice there (AZ-4 per-weapon)" if thrown and
            rules.ruling_is(state, "AZ-4", "per-weapon") else ""), rule="Z-RA-6")
    on = "DEX" if rules.ruling_is(state, "AZ-6", "always-dex") or not competent \
        else weapon.offense_stat
    hindrance: dict[str, int] = {}
    if one_handed and weapon.hands == 2 and not thrown and not weapon.ability:
        hindrance["one-handed"] = ONE_HANDED_HINDRANCE[values_band]
    if actor.interference or in_grapple:  # else there is none (Z-MI-1)
        hindrance.update(rules.interference(state, actor))
    other = a.hindrance  # the GM's
    if other:
        hindrance["other"] = other
    # caution (Z-AOE-8)
    caution = a.caution
    if caution and not aoe_kind:
        raise InvalidCommand("attack: caution only applies to an AoE")
    if caution and not competent:
        raise IllegalCommand("caution cannot be used with an incompetent weapon attack",
                             rule="Z-AOE-8")
    if caution and spread:
        raise IllegalCommand("no caution when an AoE spreads over several engagements",
                             rule="Z-AOE-11")
    # ammunition (Z-RA-3, Z-FA-2)
    cost = FULL_AUTO_AMMO if full_auto else weapon.ammo_per_shot
    left = actor.ammo.get(weapon.name)
    if left is not None and left < cost:
        raise IllegalCommand(f"{actor.id} has {left} rounds for {weapon.name} and needs "
                             f"{cost}", rule="Z-FA-2" if full_auto else "Z-RA-3")
    normal = normal_effect(actor, weapon, thrown, full_auto)
    unaimed_action = "major" if unaimed else "major/slowing"  # Z-RA-1, Z-UNA-1
    return Shot(actor=actor, weapon=weapon, targets=targets, band=range_band,
                competent=competent, unaimed=unaimed, blind=blind, thrown=thrown,
                one_handed=one_handed, full_auto=full_auto, expr=expr, on=on,
                stat=actor.stat(on), hindrance=hindrance, ammo_cost=cost, normal=normal,
                action=unaimed_action, aoe=aoe_kind, aoe_source=source, impact=impact,
                area=area_effect, engagement=engagement if blind else (
                    first.engagement if first else actor.engagement),
                zone=zone, spread=spread, caution=caution, blinded=blinded,
                grapple_partner=grapple_partner,
                engagements=tuple(spread_engagements) if spread else (
                    str(engagement if blind else first.engagement if first
                        else actor.engagement),))


def normal_effect(actor: Creature, weapon: Weapon, thrown: bool, full_auto: bool) -> Effect:
    """Damage and drive of a normal hit: full-auto damage (Z-FA-2), STR added when thrown
    (Z-THR-2; to drive too when the weapon says so)."""
    damage = weapon.full_auto_damage if full_auto and weapon.full_auto_damage else \
        weapon.damage
    drive = weapon.damage if weapon.energy else weapon.drive  # weapon.normal's, unbuilt
    if thrown and weapon.kind == "melee":
        damage += actor.stat("STR")
        if weapon.str_drive:
            drive += actor.stat("STR")
    if weapon.energy:
        drive = damage
    key = (damage, drive)
    effect = _EFFECTS.get(key)
    if effect is None:
        if len(_EFFECTS) >= 1024:
            _EFFECTS.clear()
        effect = _EFFECTS[key] = Effect(damage, drive)
    return effect


_EFFECTS: dict[tuple[int, int], Effect] = {}
"""Each normal effect made, by its damage and drive (bounded): an ``Effect`` is frozen, so
one is shared, and its ``dataclasses`` constructor runs interpreted (a Python frame for
each shot planned, in the compiled build too)."""


def aoe_mode(rules: ZonesBase, state: EncounterState, command: Command, actor: Creature,
             weapon: Weapon, full_auto: bool,
             thrown: bool) -> tuple[str | None, str | None, Effect | None, Effect | None]:
    """Which AoE (if any) the attack makes, and its impact and area effects."""
    rulings = state.rulings
    asked = command.a.aoe
    if weapon.aoe is not None:
        kind = asked or ("burst" if weapon.aoe == "both" else weapon.aoe)
        if weapon.aoe not in ("both", kind):
            raise IllegalCommand(f"{weapon.name} is a {weapon.aoe} AoE, not a {kind}",
                                 rule="Z-AOE-1")
        if weapon.effect is not None and weapon.impact is None and weapon.area is None:
            return kind, "effect", None, None
        return kind, "weapon", weapon.impact if kind == "burst" else None, weapon.area
    energy = weapon.energy or (weapon.type == "mixed"
                               and rules.ruling_is(state, "AZ-14", "any-damage"))
    if asked is None and not energy:
        return None, None, None, None  # neither an AoE asked for nor an overeffect
    normal = normal_effect(actor, weapon, thrown, False)
    threshold = normal.damage if rules.ruling_is(state, "AZ-13", "after-modifiers") \
        else weapon.damage
    if asked is not None:
        if weapon.aoe_types and asked not in weapon.aoe_types:
            raise IllegalCommand(f"{weapon.name} can only make a "
                                 f"{' or '.join(weapon.aoe_types)} AoE", rule="Z-EAO-3")
        if weapon.energy and threshold >= ENERGY_AOE_DAMAGE:
            fr = {"impact": "3/4", "area": "1/4", "spray": "1/3", **weapon.aoe_fractions}
            if asked == "burst":
                return "burst", "energy", _part(normal.damage, fr["impact"], rulings), \
                    _part(normal.damage, fr["area"], rulings)
            return "spray", "energy", None, _part(normal.damage, fr["spray"], rulings)
        fa = weapon.full_auto_damage
        if asked == "spray" and fa is not None and fa >= PROJECTILE_AOE_DAMAGE:
            return "spray", "projectile", None, Effect(
                fraction_of(fa, 1, 4, rulings), weapon.normal.drive)
        raise IllegalCommand(
            f"{weapon.name} cannot make an AoE: that needs an energy weapon of damage "
            f"{ENERGY_AOE_DAMAGE} or more, or a full-auto damage of {PROJECTILE_AOE_DAMAGE} "
            "or more (spray)", rule="Z-EAO-1")
    if energy and threshold >= OVEREFFECT_DAMAGE and not full_auto:
        area_part = weapon.aoe_fractions.get("overeffect", "1/6")
        return "burst", "overeffect", normal, _part(normal.damage, area_part, rulings)
    return None, None, None, None


def critical_hit(rules: ZonesBase, state: EncounterState, command: Command, shot: Shot,
                 offense: DataMap) -> tuple[bool, str | None]:
    """A critical hit (ruling ZR-3: the GM's ``critical``, or a natural 1 by that ruling),
    unless the attack cannot inflict one."""
    asked = command.a.critical
    if offense["success"] and rules.ruling_is(state, "ZR-3", "natural-1"):
        asked = asked or all(v == 1 for v in offense["rolled"])
    if not asked:
        return False, None
    if shot.blind:
        return False, "blind attacks cannot inflict critical hits (Z-BLI-4)"
    if shot.full_auto:
        return False, "full-auto attacks cannot inflict critical hits (Z-FA-3)"
    return True, None


def defense_roll(rules: ZonesBase, state: EncounterState, command: Command, attacker: Creature,
                 target: Creature, range_band: str, dice: DiceSource) -> DataMap:
    """The target's defense roll: always d20 on DEX (Z-RA-4), with flanking Hindrance."""
    hindrance = flank_hindrance(rules, state, target, attacker, range_band)
    extra = command.a.defense_hindrance  # the GM's
    if extra:
        hindrance["other"] = extra
    return roll_check("1d20", "DEX", target.stat("DEX"), hindrance, dice, state.rulings)


def _part(damage: int, fraction: str, rulings: dict[str, str]) -> Effect:
    """A fraction of the damage, as an energy effect whose drive equals its damage."""
    num, _, den = fraction.partition("/")
    value = fraction_of(damage, int(num), int(den or 1), rulings)
    return Effect(value, value)


def _default_ranged(actor: Creature) -> str:
    for name, spec in actor.weapons.items():
        if spec.get("kind", "ranged") in ("ranged", "thrown") and not spec.get("zaoe"):
            return name
    raise InvalidCommand(f"attack: {actor.id} has no ranged weapon; name the 'weapon'")
