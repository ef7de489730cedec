"""Encounter files for the simulator: a scenario file (docs/scenarios.md) with sides, plus
optional ``sim:`` settings, turned into a :class:`Job` that any worker process can play.

The scenario part is played once, exactly as ``arbiter run`` plays it (its actors, its
steps, with its seed); the simulation starts from the resulting state, so each run begins
from the same setup. Its events, not Python objects, travel to the workers.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core import Event, RulesError, load_ruleset
from ..core.paths import get_path
from ..scenario import ScenarioError, run_scenario
from ..scenario.loader import LineDict, LineList, load_yaml, plain
from .hooks import outcomes_for
from .policy import default_policy_name, get_policy, policy_names

SIM_KEYS = {"max_rounds", "policies"}
DEFAULT_MAX_ROUNDS = 100
MAX_ROUNDS_LIMIT = 10_000


class SimError(Exception):
    """Bad input to the simulator: a sentence saying what and where."""


@dataclass(frozen=True, slots=True)
class Job:
    """Everything a worker needs to play runs of one encounter: plain, picklable data."""

    ruleset: str
    setup: tuple[Event, ...]
    sides: tuple[tuple[str, str], ...]
    """(creature id, side) of every creature, in the order they were added."""
    policies: tuple[tuple[str, str], ...]
    """(side, policy name) for every side."""
    max_rounds: int
    seed: int
    key: str
    """A digest of all of the above: workers cache what they build from a job by it."""

    @property
    def side_of(self) -> dict[str, str]:
        return dict(self.sides)


@dataclass
class EncounterFile:
    """A parsed encounter file: its scenario part, its ``sim:`` settings, its source."""

    source: str
    data: LineDict
    max_rounds: int = DEFAULT_MAX_ROUNDS
    policies: dict[str, str] | None = None

    @property
    def ruleset(self) -> str:
        return str(self.data.get("ruleset", ""))

    @property
    def seed(self) -> int:
        seed = self.data.get("seed", 0)
        return seed if isinstance(seed, int) else 0

    def error(self, key: str, message: str, data: LineDict | None = None) -> ScenarioError:
        where = data if data is not None else self.data
        return ScenarioError(self.source, where.lines.get(key, where.line), key, message)


def load_encounter(path: Path | str) -> EncounterFile:
    """Read an encounter file; ScenarioError (file:line: key: what) when it is malformed."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ScenarioError(str(path), 1, "", f"cannot read: {err}") from None
    return parse_encounter(text, str(path))


def parse_encounter(text: str, source: str) -> EncounterFile:
    data = load_yaml(text, source)
    if not isinstance(data, LineDict):
        raise ScenarioError(source, 1, "", "an encounter is a mapping with 'ruleset' and 'actors'")
    scenario = LineDict({k: v for k, v in data.items() if k != "sim"})
    scenario.line, scenario.lines = data.line, {k: v for k, v in data.lines.items() if k != "sim"}
    out = EncounterFile(source, scenario)
    settings = data.get("sim")
    if settings is None:
        return out
    if not isinstance(settings, LineDict):
        raise ScenarioError(source, data.lines["sim"], "sim", "must be a mapping "
                            f"(keys: {', '.join(sorted(SIM_KEYS))})")
    for key in settings:
        if key not in SIM_KEYS:
            raise ScenarioError(source, settings.lines[key], f"sim.{key}",
                                f"unknown key (known: {', '.join(sorted(SIM_KEYS))})")
    if "max_rounds" in settings:
        rounds = settings["max_rounds"]
        if (not isinstance(rounds, int) or isinstance(rounds, bool)
                or not 1 <= rounds <= MAX_ROUNDS_LIMIT):
            raise ScenarioError(source, settings.lines["max_rounds"], "sim.max_rounds",
                                f"must be a whole number from 1 to {MAX_ROUNDS_LIMIT}")
        out.max_rounds = rounds
    if "policies" in settings:
        policies = settings["policies"]
        if not isinstance(policies, Mapping) or not all(
            isinstance(v, str) for v in policies.values()
        ):
            raise ScenarioError(source, settings.lines["policies"], "sim.policies",
                                "must map each side to a policy name")
        out.policies = {str(k): str(v) for k, v in policies.items()}
        out.data.lines["sim.policies"] = settings.lines["policies"]
    return out


def setup_part(data: LineDict) -> LineDict:
    """The scenario up to its first ``start`` step: actors and setup (zones, conditions...).

    An encounter file may be a whole scripted fight (a conformance scenario); the simulator
    rolls initiative and plays the turns itself, so the steps from ``start`` on and the
    final ``expect`` are left out.
    """
    steps = data.get("steps")
    if not isinstance(steps, LineList) and "expect" not in data:
        return data
    out = LineDict({k: v for k, v in data.items() if k != "expect"})
    out.line, out.lines = data.line, dict(data.lines)
    if isinstance(steps, LineList):
        cut = next((i for i, step in enumerate(steps)
                    if isinstance(step, Mapping) and step.get("do") == "start"), len(steps))
        kept = LineList(steps[:cut])
        kept.line, kept.lines = steps.line, steps.lines[:cut]
        out["steps"] = kept
    return out


def prepare(encounter: EncounterFile, *, seed: int | None = None,
            max_rounds: int | None = None) -> Job:
    """Play the scenario part once and check that the simulation can run.

    Raises ScenarioError for a malformed file and SimError for an encounter that cannot be
    simulated (fewer than two sides, a creature without a side, an unknown policy).
    """
    source, data = encounter.source, encounter.data
    name = data.get("ruleset")
    if isinstance(name, str):  # name a ruleset that fails to import, on the ruleset's line
        try:
            load_ruleset(name)
        except RulesError as err:
            raise encounter.error("ruleset", str(err)) from None
        except Exception as err:  # a ruleset package that does not import yet
            raise encounter.error("ruleset", f"ruleset {name!r} cannot be loaded: "
                                  f"{type(err).__name__}: {err}") from None
    result = run_scenario(setup_part(data), source)
    if not result.passed:
        raise ScenarioError(source, result.failures[0].line, "steps",
                            f"the setup does not play as written: {result.failures[0]}")
    assert result.encounter is not None
    state = result.encounter.state
    ruleset = result.encounter.ruleset
    sides: list[tuple[str, str]] = []
    actors = data.get("actors")
    for entity in state.entities.values():
        if entity.kind != "creature":
            continue
        if not entity.side:
            line = actors.lines.get(entity.id, data.line) if isinstance(actors, LineDict) else 1
            raise ScenarioError(source, line, entity.id,
                                "give every creature a 'side' (e.g. side: heroes)")
        sides.append((entity.id, str(entity.side)))
    outcomes = outcomes_for(ruleset.name)
    fighting = {side for who, side in sides if not outcomes.defeated(state, state.entities[who])}
    if len(fighting) < 2:
        raise SimError(f"{source}: nothing to simulate: a fight needs two sides with creatures "
                       f"able to act (sides: {', '.join(sorted(fighting)) or 'none'})")
    chosen = dict(encounter.policies or {})
    side_names = sorted({s for _, s in sides})
    for side in chosen:
        if side not in side_names:
            raise encounter.error("sim.policies", f"no side {side!r} "
                                  f"(sides: {', '.join(side_names)})")
    policies: list[tuple[str, str]] = []
    for side in side_names:
        policy = chosen.get(side) or default_policy_name(ruleset.name)
        try:
            get_policy(ruleset.name, policy)
        except KeyError as err:
            raise encounter.error("sim.policies", str(err.args[0])) from None
        policies.append((side, policy))
    needs_attack = [s for s, p in policies if p == "default"]
    if needs_attack and "attack" not in ruleset.commands():
        names = ", ".join(policy_names(ruleset.name))
        raise SimError(
            f"{source}: the generic 'default' policy plays 'attack', which {ruleset.name} "
            f"does not have; name a policy in sim.policies ({names}) "
            f"or write tactics for {ruleset.name} (docs/sim.md)")
    setup = tuple(e for entry in result.encounter.log for e in entry.events)
    rounds = max_rounds if max_rounds is not None else encounter.max_rounds
    if not 1 <= rounds <= MAX_ROUNDS_LIMIT:
        raise SimError(f"the round limit must be from 1 to {MAX_ROUNDS_LIMIT}, not {rounds}")
    run_seed = encounter.seed if seed is None else seed
    payload = json.dumps([ruleset.name, [e.to_json() for e in setup], sides, policies, rounds,
                          run_seed], sort_keys=True, default=str)
    key = hashlib.blake2b(payload.encode(), digest_size=16).hexdigest()
    return Job(ruleset.name, setup, tuple(sides), tuple(policies), rounds, run_seed, key)


# -- varying one value of a stat block -------------------------------------------------
def with_value(encounter: EncounterFile, path: str, value: Any) -> EncounterFile:
    """A copy of the encounter with ``path`` (``ACTOR.KEY[.KEY...]``, a stat-block key) set."""
    data = copy.deepcopy(encounter.data)
    actors = data.get("actors")
    parts = path.split(".")
    if len(parts) < 2 or not all(parts):
        raise SimError(f"--vary {path}: name an actor and a stat-block key, e.g. orc.armor")
    if not isinstance(actors, LineDict) or parts[0] not in actors:
        known = ", ".join(actors) if isinstance(actors, Mapping) else "none"
        raise SimError(f"--vary {path}: no actor {parts[0]!r} in {encounter.source} "
                       f"(actors: {known})")
    spec = actors[parts[0]]
    if not isinstance(spec, dict):
        raise SimError(f"--vary {path}: {parts[0]}'s stat block is not a mapping")
    node: dict[str, Any] = spec
    for depth, key in enumerate(parts[1:-1], start=1):
        child = node.get(key)
        if child is None:
            child = node[key] = {}
        if not isinstance(child, dict):
            raise SimError(f"--vary {path}: {'.'.join(parts[:depth + 1])} is {child!r}, "
                           "not a mapping")
        node = child
    node[parts[-1]] = value
    return EncounterFile(encounter.source, data, encounter.max_rounds, encounter.policies)


def check_vary_path(encounter: EncounterFile, path: str, value: Any) -> None:
    """Refuse a path the ruleset would silently ignore: the key must be in the stat block
    (or its template) already, or be readable on the built creature with the new value."""
    varied = with_value(encounter, path, value)
    parts = path.split(".")
    actors = encounter.data["actors"]
    spec = plain(actors[parts[0]])
    ruleset = load_ruleset(encounter.ruleset)
    with contextlib.suppress(RulesError):
        spec = ruleset.expand_template(spec)
    node: Any = spec
    for key in parts[1:]:
        if isinstance(node, Mapping) and key in node:
            node = node[key]
        else:
            break
    else:
        return
    try:
        result = run_scenario(varied.data, varied.source)
    except ScenarioError as err:
        raise SimError(f"--vary {path}: {err}") from None
    try:
        assert result.encounter is not None
        found = get_path(result.encounter.state, path)
    except KeyError:
        found = None
    if found != value:
        raise SimError(f"--vary {path}: {parts[0]} has no {'.'.join(parts[1:])!r} "
                       f"(stat-block keys: {', '.join(sorted(spec))})")
