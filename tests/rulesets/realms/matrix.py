"""The probes of the realms condition matrix (``condition_matrix.toml``), played by the one
table-driven test of every ruleset's matrix, ``tests/rulesets/test_conditions.py``: one
scene (``me`` in combat at the start of its turn, the condition given by ``foe``), each
probe a number or a permission of ``me`` (R-C-BLI, R-C-CHA, R-C-RES, R-C-DAZ, R-C-DEA,
R-C-DYI, R-C-FAI, R-C-GRA, R-C-HID, R-C-IMM, R-C-INV, R-C-PRO, R-C-TER, R-C-BLE, R-C-EXH,
R-C-EXP, R-C-FRI, R-C-STA, R-C-RSL, R-C-SLO, R-C-STU, R-C-SUS, R-C-WEA, R-CON-2, R-CON-3)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from arbiter.core import Encounter, RulesError, load_ruleset
from arbiter.core.conditions import Matrix, MatrixRow
from arbiter.dice import SeededDice
from arbiter.rulesets.realms.model import conditions_catalogue
from arbiter.scenario.runner import last_result

REALMS = load_ruleset("realms")
SOURCE = "foe"
"""Who gives every condition: the charmer, the source of fear, the outside force."""

ACTORS: dict[str, dict[str, Any]] = {
    "me": {"health": 40, "strength": 6, "agility": 4, "vitality": 6, "evasion": 12,
           "attack": 3, "weapon": "sword", "shield": "buckler", "side": "heroes",
           "position": [0, 0], "defenses": {"might": 2, "reflex": 3},
           "skills": {"athletics": 2, "acrobatics": 2, "perceive": 2, "acuity": 2,
                      "medicine": 2, "animal_handling": 2}},
    "foe": {"health": 40, "evasion": 10, "weapon": "sword", "side": "foes", "position": [1, 0],
            "skills": {"charisma": 0, "athletics": 0}},
    "archer": {"health": 40, "evasion": 10, "weapon": "bow", "side": "foes",
               "position": [6, 0]},
    "bystander": {"health": 40, "evasion": 10, "side": "foes", "position": [0, 6]},
    "pal": {"template": "hound", "companion_of": "me", "side": "heroes", "position": [2, 0]},
    "ally": {"health": 10, "side": "heroes", "position": [-1, -1]},
    "horse": {"template": "war_horse", "side": "heroes", "position": [-4, 4]},
}
INITIATIVE = {"me": 20, "foe": 15, "archer": 10, "bystander": 8, "ally": 3, "horse": 2}
REFUSED = "refused"
ALLOWED = "allowed"
FAILS = "fails"


def act(enc: Encounter, command: dict[str, Any]) -> bool:
    """Play ``command`` (seeded dice); False when the rules refuse it."""
    try:
        enc.execute(command, SeededDice(7))
    except RulesError:
        return False
    return True


def turn_of(enc: Encounter, who: str) -> None:
    """End turns until it is ``who``'s."""
    for _ in range(len(enc.state.order) + 1):
        if enc.state.current == who:
            return
        enc.execute({"do": "next"}, SeededDice(7))
    raise AssertionError(f"{who} never got a turn")


def last(enc: Encounter, command: dict[str, Any], key: str) -> Any:
    """One value of what ``command`` did, or ``refused``."""
    if not act(enc, command):
        return REFUSED
    return last_result(enc)[key]


def check(key: str, **me: Any) -> Probe:
    def run(enc: Encounter) -> Any:
        return last(enc, {"do": "check", "target": "me"}, key)
    return Probe(run, me)


def roll_bonus(command: dict[str, Any], turn: str = "me", **me: Any) -> Probe:
    """What a roll adds to its d20 (a d20 roll's number, whatever the die), ``fails``
    when it fails without a roll."""
    def run(enc: Encounter) -> Any:
        turn_of(enc, turn)
        if not act(enc, command):
            return REFUSED
        result = last_result(enc)
        if "total" not in result or result["total"] is None:
            return FAILS
        return result["total"] - result["d20"]
    return Probe(run, me)


def margin(attacker: str, **args: Any) -> Probe:
    """An attack on ``me``: what the attacker adds minus the score it must reach (how much
    easier ``me`` is to hit)."""
    def run(enc: Encounter) -> Any:
        turn_of(enc, attacker)
        if not act(enc, {"do": "attack", "actor": attacker, "target": "me", **args}):
            return REFUSED
        result = last_result(enc)
        return result["total"] - result["d20"] - result["score"]
    return Probe(run, {})


def score(against: str) -> Probe:
    """A Defense score of ``me`` (10 + the defense), as an attack against it reads it."""
    def run(enc: Encounter) -> Any:
        turn_of(enc, "foe")
        return last(enc, {"do": "attack", "actor": "foe", "target": "me", "against": against},
                    "score")
    return Probe(run, {})


def allowed(*commands: dict[str, Any], turn: str = "me") -> Probe:
    """Whether the last of ``commands`` is allowed after the others (played on ``turn``)."""
    def run(enc: Encounter) -> Any:
        turn_of(enc, turn)
        for command in commands[:-1]:
            enc.execute(command, SeededDice(7))
        return ALLOWED if act(enc, commands[-1]) else REFUSED
    return Probe(run, {})


def potency(name: str) -> Probe:
    """The potency of a condition ``foe`` gives ``me`` with potency 3."""
    def run(enc: Encounter) -> Any:
        enc.execute({"do": "condition", "target": "me", "name": name, "source": SOURCE,
                     "potency": 3, "keep": "new"}, SeededDice(7))
        return enc.state.entity("me").condition(name).data.get("potency")  # type: ignore[union-attr]
    return Probe(run, {})


def damage(kind: str) -> Probe:
    def run(enc: Encounter) -> Any:
        return last(enc, {"do": "damage", "target": "me", "amount": 10, "type": kind}, "taken")
    return Probe(run, {})


def ap_now(enc: Encounter) -> Any:
    return enc.state.entity("me").ap  # type: ignore[attr-defined]


def ap_gained(enc: Encounter) -> Any:
    enc.execute({"do": "next"}, SeededDice(7))
    return enc.state.entity("me").ap  # type: ignore[attr-defined]


def health_after_a_round(enc: Encounter) -> Any:
    enc.execute({"do": "next"}, SeededDice(7))
    turn_of(enc, "me")
    return enc.state.entity("me").health  # type: ignore[attr-defined]


def move_cost(enc: Encounter) -> Any:
    return last(enc, {"do": "move", "actor": "me", "path": [[0, -1], [0, -2]]}, "cost_halves")


class Probe:
    """A number or a permission of ``me``, measured in the scene (``me`` with ``extra``
    stat-block keys)."""

    def __init__(self, run: Callable[[Encounter], Any], extra: dict[str, Any]) -> None:
        self.run = run
        self.extra = extra


def _probe(fn: Callable[[Encounter], Any]) -> Probe:
    return Probe(fn, {})


SKILL = {"do": "skill", "actor": "me", "ds": 0}
PROBES: dict[str, Probe] = {
    # each Speed type (R-MOV-1, R-CLB-1, R-SWM-1, R-FLY-1), and what movement costs
    "speed": check("speed"),
    "climb_speed": check("climb_speed"),
    "climb_speed_given": check("climb_speed", climb_speed=5),
    "swim_speed": check("swim_speed"),
    "swim_speed_given": check("swim_speed", swim_speed=5),
    "fly_speed": check("fly_speed"),
    "fly_speed_given": check("fly_speed", fly_speed=9),
    "jump_limit": check("jump"),
    "capacity": check("capacity"),
    "move_cost": _probe(move_cost),
    # defenses and being hit
    "evasion": check("evasion"),
    "might_score": score("might"),
    "reflex_score": score("reflex"),
    "hit_melee": margin("foe"),
    "hit_melee_unseen_source": margin("foe", target_sees_fear_source=False),
    "hit_ranged": margin("archer"),
    "hit_ranged_unseen_source": margin("archer", target_sees_fear_source=False),
    # each kind of roll
    "attack_bonus": check("attack"),
    "attack_roll": roll_bonus({"do": "attack", "actor": "me", "target": "bystander"}),
    "attack_roll_unseen_source": roll_bonus({"do": "attack", "actor": "me",
                                             "target": "bystander", "sees_fear_source": False}),
    "attack_roll_source": roll_bonus({"do": "attack", "actor": "me", "target": SOURCE}),
    "skill_roll": roll_bonus({**SKILL, "skill": "athletics"}),
    "skill_roll_in_view": roll_bonus({**SKILL, "skill": "athletics", "sees_fear_source": True}),
    "skill_roll_source": roll_bonus({**SKILL, "skill": "athletics", "target": SOURCE}),
    "acrobatics_roll": roll_bonus({**SKILL, "skill": "acrobatics"}),
    "balance_roll": roll_bonus({**SKILL, "skill": "athletics", "balance": True}),
    "climb_roll": roll_bonus({"do": "climb", "actor": "me", "spaces": 1, "ds": 0}),
    "sight_roll": roll_bonus({**SKILL, "skill": "acuity", "sense": "sight"}),
    "hearing_roll": roll_bonus({**SKILL, "skill": "acuity", "sense": "hearing"}),
    "might_roll": roll_bonus({**SKILL, "skill": "might"}),
    "reflex_roll": roll_bonus({**SKILL, "skill": "reflex"}),
    "charisma_of_source": roll_bonus({"do": "skill", "actor": SOURCE, "skill": "charisma",
                                      "ds": 0, "target": "me"}, turn=SOURCE),
    "grapple_by_source": roll_bonus({"do": "skill", "actor": SOURCE, "skill": "athletics",
                                     "ds": 0, "target": "me", "maneuver": "grapple"},
                                    turn=SOURCE),
    "potency_of_source": potency("suffocating"),
    "grappled_potency": potency("grappled"),
    "prone_potency": potency("prone"),
    # damage taken
    "damage_slashing": damage("slashing"),
    "damage_sonic": damage("sonic"),
    # Action Points and Health over a turn
    "ap_now": _probe(ap_now),
    "ap_gained": _probe(ap_gained),
    "health_after_a_round": _probe(health_after_a_round),
    # each kind of action, and targeting
    "act_attack": allowed({"do": "attack", "actor": "me", "target": "bystander"}),
    "act_attack_source": allowed({"do": "attack", "actor": "me", "target": SOURCE}),
    "act_harm_source": allowed({**SKILL, "skill": "athletics", "target": SOURCE,
                                "maneuver": "grapple"}),
    "act_harm_other": allowed({**SKILL, "skill": "athletics", "target": "bystander",
                               "maneuver": "grapple"}),
    "act_skill": allowed({**SKILL, "skill": "perceive"}),
    "act_skill_arms": allowed({**SKILL, "skill": "athletics", "arms": True}),
    "act_move": allowed({"do": "move", "actor": "me", "path": [[0, -1]]}),
    "act_jump": allowed({"do": "jump", "actor": "me", "spaces": 1}),
    "act_climb": allowed({"do": "climb", "actor": "me", "spaces": 1, "ds": 0}),
    "act_swim": allowed({"do": "swim", "actor": "me", "spaces": 1, "ds": 0}),
    "act_stabilize": allowed({"do": "damage", "target": "ally", "amount": 12},
                             {"do": "stabilize", "actor": "me", "target": "ally",
                              "method": "bandage"}),
    "act_mount": allowed({"do": "mount", "actor": "me", "target": "horse"}),
    "act_dodge": allowed({"do": "dodge", "actor": "me"}),
    # reactions
    "react_command": allowed({"do": "command", "actor": "me", "target": "pal"}),
    "react_defend": allowed({"do": "attack", "actor": "foe", "target": "me", "defend": True},
                            turn="foe"),
    "react_flank": allowed({"do": "move", "actor": "foe", "path": [[1, -1], [1, -2]]},
                           {"do": "attack", "actor": "me", "target": "foe",
                            "reaction": "flank"}, turn="foe"),
}


def scene(extra: dict[str, Any], condition: str | None, level: int) -> Encounter:
    """The encounter every probe plays in: ``me`` at the start of its turn, in combat,
    with ``condition`` (given by ``foe``) or none. Melee reach is left to the GM (RLM-11
    ``gm``): the bystander stands apart (neither a flanker nor the source) and is still
    attacked in melee, so that only the condition changes what a probe measures (reach:
    tests/rulesets/realms/test_reach.py)."""
    enc = Encounter.create(REALMS, {"RLM-11": "gm"})
    for name, spec in ACTORS.items():
        enc.execute({"do": "add", "id": name, **spec, **(extra if name == "me" else {})},
                    SeededDice(7))
    enc.execute({"do": "start", "initiative": INITIATIVE}, SeededDice(7))
    assert enc.state.current == "me"
    if condition is not None:
        args: dict[str, Any] = {"target": "me", "name": condition, "source": SOURCE}
        if conditions_catalogue()[condition].leveled:
            args["level"] = level
        enc.execute({"do": "condition", **args}, SeededDice(7))
    return enc


class RealmsMatrix:
    """The harness of the realms matrix (tests/rulesets/test_conditions.py's ``Harness``):
    a leveled condition at the row's level, else the matrix's (2)."""

    def __init__(self, matrix: Matrix) -> None:
        self.matrix = matrix
        self.probes = frozenset(PROBES)

    def measure(self, row: MatrixRow, given: bool) -> Any:
        if not given:
            return measure(row.probe, None, self.matrix.level)
        return measure(row.probe, row.condition, row.level or self.matrix.level)

    def gives(self, condition: str) -> bool:
        """The condition command gives ``me`` the condition (at the matrix's level)."""
        return scene({}, condition, self.matrix.level).state.entity("me").has(condition)


@cache
def measure(probe: str, condition: str | None, level: int) -> Any:
    spec = PROBES[probe]
    return spec.run(scene(spec.extra, condition, level))


def harness(matrix: Matrix) -> RealmsMatrix:
    return RealmsMatrix(matrix)
