"""The dice plan of a command: the dice it rolls, in order, what each is for and when it is
rolled, so a table that throws its own dice knows what to throw before it types them.

The plan is found, not declared: the command is decided (a pure function, nothing changes)
with :data:`SAMPLES` seeded dice sources, each roll recorded. Each die is named by the roll
it appears in among the events (``attack_roll``: "attack", zones' ``offense``, realms'
``d20`` of an ``attacked`` event: "attack"); a die no event shows is named by its faces. A
die rolled in every sample is rolled "always"; one rolled in some is rolled "on a hit", "on a
critical", "on a success" when that flag of the command's first event tells the samples
apart, else "sometimes". The work is bounded before it starts: :data:`SAMPLES` decisions, and
at most :data:`MOST_DICE` dice are kept from each.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..dice import RecordingDice, SeededDice
from .errors import RulesError
from .events import Command, Event
from .model import EncounterState
from .ruleset import Ruleset

SAMPLES = 24
"""Decisions sampled for a plan (seeds 0 to SAMPLES - 1: the same plan every time)."""
MOST_DICE = 60
"""Dice kept of one decision: a plan longer than this is cut (and says so)."""
FLAGS = {"critical": "a critical", "critical_level": "a critical", "hit": "a hit",
         "success": "a success"}
"""Flags of a command's first event that say when a die is rolled (the first that tells
the samples apart wins)."""
_DICE_TEXT = re.compile(r"^\s*(\d*)d(\d+)")


@dataclass(frozen=True, slots=True)
class Roll:
    """A roll an event shows: what it is for, and its dice as ``(faces, value)`` (faces 0:
    not shown)."""

    purpose: str
    dice: tuple[tuple[int, int], ...]


def _purpose(key: str, event: Event, parent: str) -> str:
    name = key.removesuffix("_roll").replace("_", " ")
    if name in ("d20", "roll", "rolled", "natural"):
        name = parent.replace("_", " ") if parent else _stem(event.type)
    return name


def _stem(event_type: str) -> str:
    """``attacked`` → ``attack``: the act an event reports."""
    word = event_type.split("_")[0]
    for end in ("ed", "d"):
        if word.endswith(end) and len(word) > len(end) + 2:
            return word[: -len(end)]
    return word


def _rolls(value: Any, event: Event, key: str = "", parent: str = "") -> Iterator[Roll]:
    """The rolls within an event's data, in the order they are written."""
    if isinstance(value, dict):
        dice = value.get("dice")
        if isinstance(dice, list) and dice and all(isinstance(d, dict) for d in dice):
            shown = tuple((int(d.get("faces", 0)), int(d.get("value", 0))) for d in dice
                          if d.get("fate") != "added")
            yield Roll(_purpose(key, event, parent), shown)
            return
        if isinstance(dice, str) and isinstance(value.get("rolled"), list):
            m = _DICE_TEXT.match(dice)
            faces = int(m.group(2)) if m else 0
            yield Roll(_purpose(key, event, parent),
                       tuple((faces, int(v)) for v in value["rolled"] if isinstance(v, int)))
            return
        for k, v in value.items():
            if k in ("d20", "roll") and isinstance(v, int) and not isinstance(v, bool):
                yield Roll(_purpose(k, event, key), ((20 if k == "d20" else 0, v),))
            else:
                yield from _rolls(v, event, k, key)
    elif isinstance(value, list):
        for item in value:
            yield from _rolls(item, event, key, parent)


def _named(rolled: list[tuple[int, int]], events: list[Event],
           unshown: Mapping[int, str]) -> list[str]:
    """Each rolled die's purpose: the rolls the events show, matched in order; a die none
    shows is named by ``unshown`` (the ruleset's ``dice_names``) or its faces."""
    names = [unshown.get(faces, f"d{faces}") for faces, _ in rolled]
    at = 0
    for event in events:
        for roll in _rolls(event.to_json()["data"], event):
            k = len(roll.dice)
            if not k:
                continue
            for start in range(at, len(rolled) - k + 1):
                window = rolled[start:start + k]
                if all(v == value and (f == 0 or f == faces)
                       for (f, v), (faces, value) in zip(roll.dice, window, strict=True)):
                    for n in range(start, start + k):
                        names[n] = roll.purpose
                    at = start + k
                    break
    return names


def dice_plan(ruleset: Ruleset, state: EncounterState, command: Command) -> dict[str, Any]:
    """The plan of ``command`` on ``state``: ``{"dice": [{"faces", "count", "for", "when"}],
    "always": n, "most": m, "cut": bool}``. ``always`` dice are rolled whatever happens;
    ``most`` is the longest sequence seen. A command the rules refuse has no plan (the
    refusal is raised)."""
    samples: list[tuple[list[tuple[int, int]], list[str], dict[str, bool]]] = []
    cut = False
    for seed in range(SAMPLES):
        recorder = RecordingDice(SeededDice(seed))
        events = ruleset.decide(state, command, recorder)
        rolled = recorder.rolls[:MOST_DICE]
        cut = cut or len(recorder.rolls) > MOST_DICE
        first = events[0].data if events else {}
        flags = {f: bool(first.get(f)) for f in FLAGS if f in first}
        samples.append((rolled, _named(rolled, events, ruleset.dice_names), flags))
        if not recorder.rolls:
            break  # nothing rolled, so nothing random: every try would roll nothing
    # one step of the plan per (purpose, faces, occurrence), in the order first seen
    order: list[tuple[str, int, int]] = []
    present: dict[tuple[str, int, int], list[int]] = {}
    for n, (rolled, names, _) in enumerate(samples):
        seen: dict[tuple[str, int], int] = {}
        for (faces, _value), name in zip(rolled, names, strict=True):
            occurrence = seen.get((name, faces), 0)
            seen[(name, faces)] = occurrence + 1
            step = (name, faces, occurrence)
            if step not in present:
                present[step] = []
                order.append(step)
            present[step].append(n)
    steps: list[dict[str, Any]] = []
    for step in order:
        name, faces, _ = step
        when = _when(set(present[step]), samples)
        last = steps[-1] if steps else None
        if last and last["for"] == name and last["faces"] == faces and last["when"] == when:
            last["count"] += 1
        else:
            steps.append({"faces": faces, "count": 1, "for": name, "when": when})
    always = sum(s["count"] for s in steps if s["when"] == "always")
    return {"dice": steps, "always": always, "most": max(len(r) for r, _, _ in samples),
            "cut": cut}


def _when(rolled_in: set[int], samples: list[tuple[Any, Any, dict[str, bool]]]) -> str:
    if len(rolled_in) == len(samples):
        return "always"
    for flag in FLAGS:
        marks = [s[2].get(flag) for s in samples]
        if any(m is None for m in marks):
            continue
        if all(marks[n] == (n in rolled_in) for n in range(len(samples))):
            return f"on {FLAGS[flag]}"
        if all(marks[n] != (n in rolled_in) for n in range(len(samples))):
            return f"unless {FLAGS[flag]}"
    return "sometimes"


def plan_text(plan: dict[str, Any]) -> str:
    """The plan as the console says it: "2d6 attack · 2d6 defense · d12 · d6 damage on a
    hit"."""
    parts = []
    for step in plan["dice"]:
        dice = f"{step['count'] if step['count'] > 1 else ''}d{step['faces']}"
        name = "" if step["for"] == f"d{step['faces']}" else f" {step['for']}"
        when = "" if step["when"] == "always" else f" {step['when']}"
        parts.append(f"{dice}{name}{when}")
    return " · ".join(parts) if parts else "no dice"


def safe_plan(ruleset: Ruleset, state: EncounterState, command: Command) -> dict[str, Any] | None:
    """:func:`dice_plan`, or None when the rules refuse the command."""
    try:
        plan = dice_plan(ruleset, state, command)
    except RulesError:
        return None
    plan["text"] = plan_text(plan)
    return plan
