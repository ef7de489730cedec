"""Running scenario files: the conformance suite of the rulesets (format: docs/scenarios.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..core import Command, Encounter, RulesError, Ruleset, load_ruleset
from ..core.paths import get_path
from ..dice import DiceSource, ForcedDice, SeededDice
from . import campaign as campaigns
from .campaign import STEP_KINDS, Campaign
from .errors import ScenarioError
from .loader import LineDict, LineList, load_yaml, plain

TOP_KEYS = {"ruleset", "rules", "rulings", "actors", "steps", "expect", "seed", "description",
            "title", "sim", "campaign"}
"""``sim`` holds simulator settings (docs/sim.md; ``run`` ignores it), ``campaign`` a roster
(docs/scenarios.md, "Campaign scenarios")."""
STEP_KEYS = {"dice", "expect", "error"}


@dataclass
class Failure:
    step: int
    line: int
    path: str
    expected: Any
    actual: Any
    message: str = ""

    def __str__(self) -> str:
        where = f"step {self.step} (line {self.line})" if self.step else f"line {self.line}"
        if self.message:
            return f"{where}: {self.message}"
        return f"{where}: {self.path}: expected {self.expected!r}, got {self.actual!r}"


@dataclass
class ScenarioResult:
    source: str
    title: str
    rules: list[str]
    steps: int = 0
    failures: list[Failure] = field(default_factory=list)
    encounter: Encounter | None = None
    """The encounter in play at the end (a campaign's latest)."""
    campaign: Campaign | None = None
    """A campaign scenario's roster and its log."""

    @property
    def passed(self) -> bool:
        return not self.failures


def _require(data: LineDict, key: str, kind: type, source: str) -> Any:
    if key not in data:
        raise ScenarioError(source, data.line, key, "missing")
    value = data[key]
    if not isinstance(value, kind):
        raise ScenarioError(source, data.lines[key], key, f"must be a {kind.__name__}")
    return value


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(actual, Fraction) and isinstance(expected, str):
        return str(actual) == expected.replace(" ", "")
    if isinstance(actual, bool) or isinstance(expected, bool):
        return actual is expected
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return set(expected) == set(actual) and all(_same(v, actual[k])
                                                    for k, v in expected.items())
    if isinstance(expected, list) and isinstance(actual, list | tuple):
        return len(expected) == len(actual) and all(map(_same, expected, actual))
    if isinstance(actual, set) and isinstance(expected, list):
        return set(expected) == actual
    return bool(expected == actual)


def last_result(encounter: Encounter) -> dict[str, Any]:
    """What ``last.*`` refers to: the data of the last command's events, merged in order."""
    if not encounter.log:
        return {}
    entry = encounter.log[-1]
    return campaigns.merged_result(entry.events, entry.dice)


def check(encounter: Encounter, expectations: LineDict, step: int, source: str,
          result: ScenarioResult, odds: Mapping[str, Any] | None = None,
          campaign: Campaign | None = None) -> None:
    """Check ``expectations`` (paths to values); with a ``campaign``, ``roster.ID.PATH``
    reads its characters and ``last.*`` the latest campaign command when nothing was played
    in the encounter since."""
    roots: dict[str, Any] = {"last": last_result(encounter)}
    if odds is not None:
        roots["odds"] = odds
    if campaign is not None:
        roots["roster"] = campaign.view()
        if campaign.last is not None:
            roots["last"] = campaign.last
    for path, expected in expectations.items():
        line = expectations.lines[path]
        head = path.split(".")[0]
        try:
            if head in roots:
                actual: Any = roots[head]
                for key in path.split(".")[1:]:
                    if isinstance(actual, Mapping) and key in actual:
                        actual = actual[key]
                    elif isinstance(actual, list) and key.isdigit() and int(key) < len(actual):
                        actual = actual[int(key)]
                    else:
                        what = "the roster" if head == "roster" else f"the {head} result"
                        raise KeyError(f"{path!r}: {what} has no {key!r}")
            else:
                actual = get_path(encounter.state, path)
        except KeyError as err:
            result.failures.append(Failure(step, line, path, plain(expected), None,
                                           str(err.args[0])))
            continue
        if not _same(plain(expected), actual):
            result.failures.append(Failure(step, line, path, plain(expected), actual))


def _dice_for(step: LineDict, source: str, seeded: SeededDice) -> DiceSource:
    if "dice" not in step:
        return seeded
    values = step["dice"]
    if not isinstance(values, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        raise ScenarioError(source, step.lines["dice"], "dice", "must be a list of whole numbers")
    return ForcedDice(values)


def _empty_dict() -> LineDict:
    out = LineDict()
    out.line, out.lines = 1, {}
    return out


def _empty_list() -> LineList:
    out = LineList()
    out.line, out.lines = 1, []
    return out


def run_scenario(data: Any, source: str) -> ScenarioResult:
    """Play one parsed scenario and check its expectations."""
    if not isinstance(data, LineDict):
        raise ScenarioError(source, 1, "", "a scenario is a mapping with 'ruleset' and 'steps'")
    unknown = set(data) - TOP_KEYS
    if unknown:
        key = sorted(unknown)[0]
        raise ScenarioError(source, data.lines[key], key,
                            f"unknown key (known: {', '.join(sorted(TOP_KEYS))})")
    name = _require(data, "ruleset", str, source)
    try:
        ruleset: Ruleset = load_ruleset(name)
    except RulesError as err:
        raise ScenarioError(source, data.lines["ruleset"], "ruleset", str(err)) from None
    rules = data.get("rules", [])
    result = ScenarioResult(source, str(data.get("title", "")), list(rules))
    try:
        encounter = Encounter.create(ruleset, data.get("rulings") or {})
    except RulesError as err:
        raise ScenarioError(source, data.lines.get("rulings", 1), "rulings", str(err)) from None
    result.encounter = encounter
    seeded = SeededDice(int(data.get("seed", 0)))
    campaign: Campaign | None = None
    if "campaign" in data:
        campaign = campaigns.setup(ruleset, data["campaign"], data.lines["campaign"],
                                   plain(data.get("rulings") or {}), source)
        result.campaign = campaign
    actors = data.get("actors") if "actors" in data else _empty_dict()
    if not isinstance(actors, LineDict):
        raise ScenarioError(source, data.lines.get("actors", 1), "actors", "must be a mapping")
    for actor_id, spec in actors.items():
        if not isinstance(spec, Mapping):
            raise ScenarioError(source, actors.lines[actor_id], actor_id,
                                "a stat block is a mapping")
        try:
            encounter.execute(Command("add", args={"id": actor_id, **plain(spec)}), seeded)
        except RulesError as err:
            message = str(err).removeprefix(f"{actor_id}: ")  # the key already names it
            raise ScenarioError(source, actors.lines[actor_id], actor_id, message) from None
    steps = data.get("steps") if "steps" in data else _empty_list()
    if not isinstance(steps, LineList):
        raise ScenarioError(source, data.lines.get("steps", 1), "steps", "must be a list")
    odds: dict[str, Any] | None = None
    for index, step in enumerate(steps, start=1):
        line = steps.lines[index - 1]
        if not isinstance(step, LineDict):
            raise ScenarioError(source, line, f"steps[{index}]", "a step is a mapping")
        result.steps += 1
        kinds = [k for k in step if k in STEP_KINDS]
        if "do" in step:
            _run_command(encounter, step, index, source, seeded, result)
            if campaign is not None:
                campaign.last = None
        elif "odds" in step:
            odds = _odds(encounter, step, index, source, result)
        elif kinds:
            encounter = _campaign_step(campaign, encounter, step, kinds, index, source,
                                       seeded, result)
            result.encounter = encounter
        elif "expect" not in step:
            also = ", or a campaign step: 'encounter', 'write_back' or 'time'" \
                if campaign is not None else ""
            raise ScenarioError(source, line, f"steps[{index}]",
                                f"a step needs 'do' (a command), 'odds' or 'expect'{also}")
        if "expect" in step:
            expectations = step["expect"]
            if not isinstance(expectations, LineDict):
                raise ScenarioError(source, step.lines["expect"], "expect", "must be a mapping")
            check(encounter, expectations, index, source, result, odds, campaign)
    if "expect" in data:
        if not isinstance(data["expect"], LineDict):
            raise ScenarioError(source, data.lines["expect"], "expect", "must be a mapping")
        check(encounter, data["expect"], 0, source, result, None, campaign)
    return result


def _campaign_step(campaign: Campaign | None, encounter: Encounter, step: LineDict,
                   kinds: list[str], index: int, source: str, seeded: SeededDice,
                   result: ScenarioResult) -> Encounter:
    """Play an ``encounter``, ``write_back`` or ``time`` step; the encounter in play after
    it. A malformed step is a ScenarioError at its line; a refusal by the rules fails the
    step unless its ``error`` expects it."""
    kind = kinds[0]
    line = step.lines[kind]
    if campaign is None:
        raise ScenarioError(source, line, kind,
                            "a campaign step: the file needs 'campaign: {characters: ...}'")
    if len(kinds) > 1:
        raise ScenarioError(source, step.lines[kinds[1]], kinds[1],
                            f"one campaign step at a time (this one is '{kind}')")
    allowed = {kind, "expect"} | ({"error"} if kind != "encounter" else set())
    for key in step:
        if key not in allowed:
            raise ScenarioError(source, step.lines[key], key,
                                f"unknown key beside '{kind}' (known: "
                                f"{', '.join(sorted(allowed))})")
    spec = step[kind]
    if kind == "encounter":
        return campaigns.start_encounter(campaign, spec, line, source, seeded)
    expected_error = step.get("error")
    unused: list[int] = []
    try:
        if kind == "write_back":
            campaigns.write_back(campaign, encounter, spec, line, source)
        else:
            command, forced = campaigns.time_command(spec, line, source)
            unused = campaigns.pass_time(campaign, command, forced, seeded)
    except RulesError as err:
        if expected_error is None and campaigns.malformed(err):
            where, key = campaigns.argument_line(err, spec, line)
            raise ScenarioError(source, where, key or kind, str(err)) from None
        if expected_error is None:
            result.failures.append(Failure(index, line, "", None, None,
                                           f"{kind} was refused: {err}"))
        elif str(expected_error) not in str(err):
            result.failures.append(Failure(index, step.lines["error"], "error",
                                           expected_error, str(err)))
        return encounter
    if expected_error is not None:
        result.failures.append(Failure(index, step.lines["error"], "error", expected_error,
                                       None, f"expected refusal containing "
                                       f"{expected_error!r}, but the {kind} step succeeded"))
    if unused:
        where = spec.lines["dice"] if isinstance(spec, LineDict) else line
        result.failures.append(Failure(index, where, "dice", None, None,
                                       f"forced dice not used: {unused}"))
    return encounter


def _odds(encounter: Encounter, step: LineDict, index: int, source: str,
          result: ScenarioResult) -> dict[str, Any] | None:
    """The exact odds of a command, without rolling it: checked as ``odds.KEY``."""
    payload = step["odds"]
    if not isinstance(payload, Mapping):
        raise ScenarioError(source, step.lines["odds"], "odds",
                            "a command mapping, e.g. {do: attack, actor: nia, target: orc}")
    try:
        return dict(encounter.odds(Command.from_json(plain(payload))))
    except RulesError as err:
        result.failures.append(Failure(index, step.line, "odds", None, None,
                                       f"no odds for {payload.get('do')}: {err}"))
        return None


def _run_command(encounter: Encounter, step: LineDict, index: int, source: str,
                 seeded: SeededDice, result: ScenarioResult) -> None:
    line = step.line
    payload = {k: plain(v) for k, v in step.items() if k not in STEP_KEYS}
    dice = _dice_for(step, source, seeded)
    expected_error = step.get("error")
    try:
        encounter.execute(Command.from_json(payload), dice)
    except RulesError as err:
        if expected_error is None:
            result.failures.append(Failure(index, line, "", None, None,
                                           f"{payload['do']} was refused: {err}"))
        elif str(expected_error) not in str(err):
            result.failures.append(Failure(index, line, "error", expected_error, str(err)))
        return
    if expected_error is not None:
        result.failures.append(Failure(index, line, "error", expected_error, None,
                                       f"expected refusal containing {expected_error!r}, "
                                       "but the command succeeded"))
    if isinstance(dice, ForcedDice) and dice.remaining:
        result.failures.append(Failure(index, step.lines["dice"], "dice", None, None,
                                       f"forced dice not used: {dice.remaining}"))


def run_file(path: Path) -> ScenarioResult:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ScenarioError(str(path), 1, "", f"cannot read: {err}") from None
    return run_scenario(load_yaml(text, str(path)), str(path))


def scenario_files(paths: Iterable[Path]) -> list[Path]:
    """Files named, and every ``*.yaml``/``*.yml`` under folders named, sorted."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml"))
        else:
            out.append(path)
    return out
