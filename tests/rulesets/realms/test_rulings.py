"""Every ruling with alternatives changes the outcome it names: the default and one
alternative, played on the same script with forced dice."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from arbiter.core import Encounter, RulesError, load_ruleset
from arbiter.core.paths import get_path
from arbiter.dice import ForcedDice, ForcedDiceError
from arbiter.scenario.runner import last_result

REALMS = load_ruleset("realms")

Step = tuple[dict[str, Any], list[int]]


def outcome(rulings: dict[str, str], actors: dict[str, dict[str, Any]], steps: list[Step],
            path: str) -> Any:
    enc = Encounter.create(REALMS, rulings)
    for name, spec in actors.items():
        enc.execute({"do": "add", "id": name, **spec}, ForcedDice([]))
    for command, dice in steps:
        enc.execute(command, ForcedDice(dice))
    if path.startswith("last."):
        value: Any = last_result(enc)
        for key in path.split(".")[1:]:
            value = value[key]
        return value
    return get_path(enc.state, path)


START: Step = ({"do": "start", "initiative": {"a": 20, "b": 10}}, [])
NEXT: Step = ({"do": "next"}, [])

CASES: list[tuple[str, str, dict[str, dict[str, Any]], list[Step], str, Any, Any]] = [
    # AR-2: dying damage at exactly 0 Health (R-DY-3)
    ("AR-2", "zero-too", {"a": {"health": 10}, "b": {}},
     [START, ({"do": "damage", "target": "a", "amount": 10}, []), NEXT, ({"do": "next"}, [2])],
     "a.health", 0, -2),
    # AR-3: dying damage at the end of the turn instead of the start (R-DY-3)
    ("AR-3", "end", {"a": {"health": 10}, "b": {}},
     [START, ({"do": "damage", "target": "a", "amount": 12}, []), ({"do": "next"}, [3])],
     "a.health", -2, -5),
    # AR-4: Susceptible adds to irreducible dying damage (R-DY-4)
    ("AR-4", "susceptible-applies", {"a": {"health": 10}, "b": {}},
     [START, ({"do": "condition", "target": "a", "name": "susceptible", "level": 2}, []),
      ({"do": "damage", "target": "a", "amount": 12}, []), NEXT, ({"do": "next"}, [1])],
     "a.health", -5, -7),
    # AR-7: healing from below 0 starts at 0 (R-STB-1)
    ("AR-7", "from-zero", {"a": {"health": 10}},
     [({"do": "damage", "target": "a", "amount": 16}, []),
      ({"do": "heal", "target": "a", "amount": 2}, [])], "a.health", -4, 2),
    # AR-13: armor resistance also counts as a Resistance source (R-RES-2)
    ("AR-13", "a-source", {"a": {"health": 50, "armor": {"dr": 1, "resist": ["fire"]}}},
     [({"do": "damage", "target": "a", "amount": 10, "type": "fire"}, [])],
     "last.taken", 8, 4),
    # AR-14: a reduction that changes nothing still uses a step (R-ARM-3)
    ("AR-14", "always", {"a": {"health": 50, "armor": {"dr": 4}}},
     [({"do": "damage", "target": "a", "amount": 1, "type": "fire"}, []),
      ({"do": "damage", "target": "a", "amount": 10, "type": "fire"}, [])],
     "last.taken", 6, 8),
    # AR-15: a second Defend in a turn halves the shield roll (R-SHD-1)
    ("AR-15", "halving-dr", {"a": {"attack": 10, "weapon": "greataxe"},
                             "b": {"health": 50, "shield": "round_shield"}},
     [START, ({"do": "attack", "actor": "a", "target": "b", "defend": True}, [1, 10, 5]),
      ({"do": "attack", "actor": "a", "target": "b", "defend": True}, [1, 10, 5])],
     "last.taken", 5, 7),
    # AR-17: odd falls round the increments up (R-FALL-1)
    ("AR-17", "ceil", {"a": {"health": 50}},
     [({"do": "fall", "target": "a", "spaces": 3}, [4, 4, 20])], "last.increments", 1, 2),
    # AR-18: every unspecified half rounds up: Speed from Agility 3 (R-MOV-1)
    ("AR-18", "all-up", {"a": {"agility": 3}},
     [({"do": "check", "target": "a"}, [])], "last.speed", 7, 8),
    # AR-21: AP gained are added to what is left (R-AP-1)
    ("AR-21", "add", {"a": {}, "b": {}}, [START, NEXT], "a.ap", 4, 8),
    # AR-22: Exhaustion replaces instead of adding (R-C-EXH)
    ("AR-22", "replaces", {"a": {}},
     [({"do": "condition", "target": "a", "name": "exhausted", "level": 2}, []),
      ({"do": "condition", "target": "a", "name": "exhausted", "level": 3}, [])],
     "a.conditions.exhausted.level", 5, 3),
    # AR-23: Exhaustion also lowers Agility in the Speed formula (R-C-EXH)
    ("AR-23", "agility-too", {"a": {"agility": 4}},
     [({"do": "condition", "target": "a", "name": "exhausted", "level": 2}, []),
      ({"do": "check", "target": "a"}, [])], "last.speed", 7, 6),
    # AR-24: Frightened penalties stack against a visible source (R-C-FRI)
    ("AR-24", "stack", {"a": {}, "b": {"evasion": 30}},
     [({"do": "condition", "target": "a", "name": "frightened", "level": 4, "source": "b"}, []),
      ({"do": "attack", "actor": "a", "target": "b"}, [10])], "last.total", 6, 4),
    # AR-25: the literal reading wastes the heal while bleeding (R-C-BLE)
    ("AR-25", "literal", {"a": {"health": 20}},
     [({"do": "damage", "target": "a", "amount": 10}, []),
      ({"do": "condition", "target": "a", "name": "bleed", "level": 2}, []),
      ({"do": "heal", "target": "a", "amount": 5}, [])], "a.health", 13, 10),
    # AR-26: Bleed restarts dying damage of a stabilized creature (R-STB-2)
    ("AR-26", "damage", {"a": {"health": 10}, "b": {}},
     [START, ({"do": "damage", "target": "a", "amount": 15}, []),
      ({"do": "heal", "target": "a", "amount": 1}, []),
      ({"do": "condition", "target": "a", "name": "bleed", "level": 1}, []), NEXT, NEXT],
     "a.stabilized", True, False),
    # AR-27: armor reduces damage from Energy below 0 (R-EN-1)
    ("AR-27", "armor-reduces", {"a": {"health": 20, "armor": {"dr": 2}}},
     [({"do": "drain_energy", "target": "a", "amount": 5}, [])], "last.taken", 5, 3),
    # AR-28: the minimum capacity is the size's factor (R-CAR-3)
    ("AR-28", "size-factor", {"a": {"strength": -2, "size": "tiny"}},
     [({"do": "check", "target": "a"}, [])], "last.capacity", 10, 25),
    # AR-30: jump by Strength only (R-JMP-1)
    ("AR-30", "strength", {"a": {"strength": 1, "agility": 4}},
     [({"do": "check", "target": "a"}, [])], "last.jump", 4, 1),
    # AR-31: the creature below takes the larger half (R-FALL-3)
    ("AR-31", "creature-ceil-half", {"a": {"health": 50}, "b": {"health": 50}},
     [({"do": "fall", "target": "a", "spaces": 2, "onto": "b"}, [3, 1, 1])],
     "b.health", 49, 48),
    # AR-32: moving through a larger enemy is forbidden (R-SIZ-4)
    ("AR-32", "forbidden", {"a": {"side": "x", "position": [0, 0]},
                            "b": {"side": "y", "size": "large", "position": [1, 0]}},
     [({"do": "move", "actor": "a", "path": [[1, 0], [2, 1]]}, [])], "a.position", [2, 1],
     "refused"),
    # AR-33: no Power Bonus on Overheal (R-HEAL-2)
    ("AR-33", "not-on-overheal", {"a": {"health": 10}, "b": {"power_bonus": 3}},
     [({"do": "heal", "target": "a", "amount": 2, "overheal": True, "power": True,
        "healer": "b"}, [])], "a.health", 15, 12),
    # AR-35: each flanker may react once (R-FLK-2)
    ("AR-35", "one-per-flanker",
     {"a": {"side": "x", "position": [0, 0], "agility": 4},
      "b": {"side": "y", "position": [1, 0]}, "c": {"side": "y", "position": [0, 1]}},
     [({"do": "start", "initiative": {"a": 20, "b": 10, "c": 5}}, []),
      ({"do": "move", "actor": "a", "path": [[-1, -1], [-2, -2]]}, []),
      ({"do": "attack", "actor": "b", "target": "a", "reaction": "flank"}, [1]),
      ({"do": "attack", "actor": "c", "target": "a", "reaction": "flank"}, [1])],
     "c.ap", "refused", 3),
    # AR-38: companions lowest Perceive first (R-CMP-5)
    ("AR-38", "lowest-first",
     {"a": {}, "p": {"companion_of": "a", "skills": {"perceive": 5}},
      "q": {"companion_of": "a", "skills": {"perceive": 1}}},
     [({"do": "start", "initiative": {"a": 3}}, [])], "order", ["a", "p", "q"], ["a", "q", "p"]),
    # AR-39: Deafened halves on its own instead of making Immunity with another source
    ("AR-39", "separate-halving", {"a": {"health": 50, "resist": ["sonic"]}},
     [({"do": "condition", "target": "a", "name": "deafened"}, []),
      ({"do": "damage", "target": "a", "amount": 9, "type": "sonic"}, [])],
     "last.taken", 0, 3),
    # AR-40: other damage reductions halve rounding down (R-DR-1)
    ("AR-40", "round-down", {"a": {"health": 50, "reductions": [{"name": "ward", "amount": 3}]}},
     [({"do": "damage", "target": "a", "amount": 10}, []),
      ({"do": "damage", "target": "a", "amount": 10}, [])], "last.taken", 8, 9),
    # AR-41: swim speed from Agility only (R-SWM-1)
    ("AR-41", "agility", {"a": {"agility": 2, "vitality": 6}},
     [({"do": "check", "target": "a"}, [])], "last.swim_speed", 3, 1),
    # AR-42: any excess gives DS 15 (R-JMP-2)
    ("AR-42", "once", {"a": {"strength": 1}},
     [({"do": "jump", "actor": "a", "spaces": 3}, [10])], "last.ds", 20, 15),
    # RLM-1: a natural 20 always hits
    ("RLM-1", "natural-20-1", {"a": {}, "b": {"evasion": 40}},
     [({"do": "attack", "actor": "a", "target": "b"}, [20, 1])], "last.hit", False, True),
    # RLM-2: a Critical Level adds the dice's maximum
    ("RLM-2", "added-maximum", {"a": {"weapon": "sword"}, "b": {"evasion": 5}},
     [({"do": "attack", "actor": "a", "target": "b"}, [15, 1, 1])], "last.taken", 2, 9),
    # RLM-3: quick: every action costs 1 AP
    ("RLM-3", "quick", {"a": {}, "b": {"evasion": 30}},
     [START, ({"do": "attack", "actor": "a", "target": "b"}, [1])], "a.ap", 2, 3),
    # RLM-4: Obscurity changes no number
    ("RLM-4", "recorded-only", {"a": {}, "b": {"evasion": 30}},
     [({"do": "condition", "target": "b", "name": "invisible"}, []),
      ({"do": "attack", "actor": "a", "target": "b"}, [10])], "last.total", 5, 10),
    # RLM-7: every attack needs the arms, a Restrained wolf's bite included (R-C-RES)
    ("RLM-7", "every-attack", {"a": {"template": "wolf"}, "b": {"evasion": 40}},
     [({"do": "condition", "target": "a", "name": "restrained"}, []),
      ({"do": "attack", "actor": "a", "target": "b"}, [1])], "last.hit", False, "refused"),
    # RLM-8: a rider of an unwilling mount rolls to stay on at the start of its turns
    ("RLM-8", "each-turn", {"a": {"template": "knight"},
                            "w": {"template": "war_horse", "willing": False, "level": 3}},
     [({"do": "start", "initiative": {"a": 20, "w": 10}}, []),
      ({"do": "mount", "actor": "a", "target": "w"}, [11]), NEXT, ({"do": "next"}, [1])],
     "a.mounted_on", "w", None),
    # RLM-6: a base critical range of +5
    ("RLM-6", "5", {"a": {"weapon": "dagger"}, "b": {"evasion": 10}},
     [({"do": "attack", "actor": "a", "target": "b"}, [16, 1, 1])], "last.critical_level", 0, 1),
]


def play(rulings: dict[str, str], actors: dict[str, dict[str, Any]], steps: list[Step],
         path: str) -> Any:
    try:
        return outcome(rulings, actors, steps, path)
    except (RulesError, ForcedDiceError):
        return "refused"


@pytest.mark.parametrize(("rid", "alternative", "actors", "steps", "path", "default", "other"),
                         CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_ruling_alternative_changes_the_outcome(
    rid: str, alternative: str, actors: dict[str, dict[str, Any]], steps: list[Step],
    path: str, default: Any, other: Any,
) -> None:
    assert alternative in REALMS.rulings.get(rid).choices
    assert play({}, actors, steps, path) == default
    assert play({rid: alternative}, actors, steps, path) == other


PACKAGE = Path(__file__).resolve().parents[3] / "src" / "arbiter" / "rulesets" / "realms"
SOURCES = sorted(PACKAGE.glob("*.py"))
DEFAULT_AT_CALL_SITE = re.compile(
    r'ruling\(\s*\w+,\s*"[A-Z]+-\d+",\s*"'  # ruling(state, "AR-8", "every-turn")
    r'|\bruling\(\s*"[A-Z]+-\d+",\s*"'  # ctx.ruling("AR-14", "only-if-reduced")
    r'|rulings\.get\(')  # state.rulings.get("AR-9", ...)
CHOICE_READ = re.compile(r'(?:ruling_is|chosen)\((?:[\w.]+,\s*)*"([A-Z]+-\d+)",\s*"([^"]+)"\)')


def test_no_ruling_default_is_written_at_a_call_site() -> None:
    """Every ruling is read through the one accessor (``Ruleset.ruling``/``ruling_is``,
    ``RulingSet.value``/``chosen``): no default typed in the code, no ``rulings.get``,
    and no helper of the package's own."""
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        assert not DEFAULT_AT_CALL_SITE.findall(text), path.name
        assert "def ruling(" not in text, path.name


def test_every_choice_the_code_compares_with_is_one_the_ruling_lists() -> None:
    reads = [m for path in SOURCES for m in CHOICE_READ.findall(path.read_text("utf-8"))]
    assert len(reads) > 40
    for rid, choice in reads:
        assert choice in REALMS.rulings.get(rid).choices, (rid, choice)
