"""The kernel's contract on every scenario file under scenarios/ (every ruleset and the shipped
encounters): ``decide`` (and ``odds``) never change the state they are given, and the state a
``lookahead`` returns equals applying the events to a deep copy.

Each scenario is played by ``run_scenario`` with its ruleset wrapped: a shallow copy whose own
``decide``, ``odds`` and ``lookahead`` (instance attributes) check every call, nested calls
included. ``type(ruleset).lookahead`` stays ``Ruleset.lookahead``, so the kernel still takes
its scratch states further in place (``Ruleset._then``, ``_begin_turn``) as in play.

Every scenario, and a few seeded runs of every shipped encounter, are also played with the
scratch guard on (``arbiter.core.copying.scratch_guard``): a value a lookahead's scratch
copy shares with its original (a field declared ``SHARED`` or ``COPIED``) that an apply
method changes in place raises there, naming the field.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from arbiter.core import Command, EncounterState, Event, RulesError, Ruleset, load_ruleset
from arbiter.core.copying import scratch_guard
from arbiter.dice import DiceSource
from arbiter.scenario import runner
from arbiter.scenario.loader import LineDict, load_yaml
from arbiter.sim import Simulator, load_encounter, prepare

ROOT = Path(__file__).resolve().parents[2] / "scenarios"
FILES = runner.scenario_files([ROOT])
T = TypeVar("T")
MAX_LINES = 12


@dataclass
class Where:
    """Where a check is: the scenario file, its step, and the calls in progress."""

    source: str
    step: str = "setup (create, actors)"
    calls: list[str] = field(default_factory=list)
    decides: int = 0
    lookaheads: int = 0

    def __str__(self) -> str:
        return f"{self.source}, {self.step}: {' > '.join(self.calls)}"


def deep_copy(state: EncounterState) -> EncounterState:
    """A copy that shares nothing with ``state`` and uses none of arbiter.core.copying's
    cloners: a pickle round trip (a few times faster than ``copy.deepcopy``, which takes
    over for what pickle refuses)."""
    try:
        out: EncounterState = pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        out = copy.deepcopy(state)
    return out


def describe(command: Command) -> str:
    actor = f" actor={command.actor}" if command.actor is not None else ""
    return f"{command.name}{actor} {command.args}"


def differences(before: Any, after: Any, path: str) -> Iterator[str]:
    """Where ``after`` differs from ``before``: dataclass fields and mapping keys, down to the
    values that differ."""
    if before == after:
        return
    if (dataclasses.is_dataclass(before) and not isinstance(before, type)
            and type(before) is type(after)):
        for f in dataclasses.fields(before):
            yield from differences(getattr(before, f.name), getattr(after, f.name),
                                   f"{path}.{f.name}")
    elif isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in {**before, **after}:
            if key not in after:
                yield f"{path}[{key!r}] removed (was {before[key]!r})"
            elif key not in before:
                yield f"{path}[{key!r}] added: {after[key]!r}"
            else:
                yield from differences(before[key], after[key], f"{path}[{key!r}]")
    else:
        yield f"{path}: {before!r} -> {after!r}"


def fail(where: Where, what: str, before: Any, after: Any, path: str) -> None:
    lines = list(differences(before, after, path)) or [f"{path}: {before!r} -> {after!r}"]
    if len(lines) > MAX_LINES:
        lines = [*lines[:MAX_LINES], f"... and {len(lines) - MAX_LINES} more"]
    pytest.fail(f"{where}: {what}\n  " + "\n  ".join(lines), pytrace=False)


def unchanged(before: EncounterState, state: EncounterState, where: Where, what: str) -> None:
    if vars(state) != vars(before):
        fail(where, f"{what} changed the state it was given", before, state, "state")


def read_only(where: Where, what: str, command: Command, state: EncounterState,
              call: Callable[[], T]) -> T:
    """``call()`` (a ``what``: decide or odds), checked to leave ``state`` as it was,
    refused or not."""
    before = deep_copy(state)
    where.calls.append(f"{what} {describe(command)}")
    try:
        try:
            out = call()
        except RulesError:
            unchanged(before, state, where, f"{what} (refused)")
            raise
        unchanged(before, state, where, what)
        return out
    finally:
        where.calls.pop()


def purity_checked(ruleset: Ruleset, where: Where) -> Ruleset:
    """A copy of ``ruleset`` whose decide, odds and lookahead check the kernel's contract."""
    checked = copy.copy(ruleset)
    checked._apply_table = {}  # the appliers get bound to the copy
    real_decide, real_odds = checked.decide, checked.odds
    real_lookahead, evolve = checked.lookahead, checked.evolve

    def decide(state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        where.decides += 1
        return read_only(where, "decide", command, state,
                         lambda: real_decide(state, command, dice))

    def odds(state: EncounterState, command: Command) -> dict[str, Any]:
        return read_only(where, "odds", command, state, lambda: real_odds(state, command))

    def lookahead(state: EncounterState, events: list[Event]) -> EncounterState:
        where.lookaheads += 1
        reference = deep_copy(state)
        label = f"lookahead {[e.type for e in events]}"
        where.calls.append(label)
        try:
            result = real_lookahead(state, events)
            unchanged(reference, state, where, "lookahead")
            for event in events:
                evolve(reference, event)
            if vars(result) != vars(reference):
                fail(where, "lookahead differs from the events applied to a deep copy "
                     "(expected -> got)", reference, result, "state")
        finally:
            where.calls.pop()
        return result

    vars(checked).update(decide=decide, odds=odds, lookahead=lookahead)
    return checked


def play_checked(
    path: Path, monkeypatch: pytest.MonkeyPatch, label: str,
    load: Callable[[str], Ruleset] = load_ruleset,
) -> tuple[Where, list[str]]:
    """Play one scenario file through ``run_scenario`` with its ruleset purity-checked
    (``label`` names the file in failures); the failures of its own expectations are
    returned, not raised."""
    where = Where(label)
    run_command, odds_step = runner._run_command, runner._odds

    def checked_ruleset(name: str) -> Ruleset:
        return purity_checked(load(name), where)

    def step_command(encounter: Any, step: LineDict, index: int, *rest: Any) -> None:
        where.step = f"step {index} (line {step.line})"
        run_command(encounter, step, index, *rest)

    def step_odds(encounter: Any, step: LineDict, index: int, *rest: Any) -> Any:
        where.step = f"step {index} (line {step.line})"
        return odds_step(encounter, step, index, *rest)

    monkeypatch.setattr(runner, "load_ruleset", checked_ruleset)
    monkeypatch.setattr(runner, "_run_command", step_command)
    monkeypatch.setattr(runner, "_odds", step_odds)
    result = runner.run_scenario(load_yaml(path.read_text(encoding="utf-8"), str(path)),
                                 str(path))
    return where, [str(f) for f in result.failures]


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_decide_is_pure_and_lookahead_matches_a_deep_copy(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where, failures = play_checked(path, monkeypatch, str(path.relative_to(ROOT.parent)))
    assert where.decides > 0, "the checked ruleset was not used"
    assert not failures, "\n".join(failures)  # checking changed no outcome



@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_every_scenario_keeps_the_promises_of_its_scratch_copies(path: Path) -> None:
    data = load_yaml(path.read_text(encoding="utf-8"), str(path))
    with scratch_guard():  # a broken promise raises BrokenPromise where it is broken
        result = runner.run_scenario(data, str(path))
    assert not result.failures, "\n".join(str(f) for f in result.failures)


ENCOUNTERS = sorted((ROOT / "encounters").glob("*.yaml"))


@pytest.mark.parametrize("path", ENCOUNTERS, ids=[p.name for p in ENCOUNTERS])
def test_shipped_encounters_keep_the_promises_in_play(path: Path) -> None:
    """The simulator's tactics look ahead far more than scenarios do: a few seeded runs of
    each shipped encounter with the guard on, which must change no outcome."""
    job = prepare(load_encounter(path))
    with scratch_guard():
        guarded = Simulator(job).play_batch(0, 4)
    assert guarded.runs == 4
    assert guarded == Simulator(job).play_batch(0, 4)


# -- the checks catch what they look for ----------------------------------------------------
DEMO: type[Ruleset] = type(load_ruleset("demo"))
SCENARIO = """ruleset: demo
actors:
  nia: {health: 5}
steps:
  - {do: note, text: hello}
"""


class ImpureDecide(DEMO):  # type: ignore[valid-type, misc]
    """Changes a creature while deciding."""

    def do_note(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        state.entities["nia"].health = 1  # type: ignore[attr-defined]
        return super().do_note(state, command, dice)  # type: ignore[no-any-return]


class WrongLookahead(DEMO):  # type: ignore[valid-type, misc]
    """A lookahead that forgets its events."""

    def do_note(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        self.lookahead(state, [Event("damaged", {"target": "nia", "health": 4})])
        return super().do_note(state, command, dice)  # type: ignore[no-any-return]

    def lookahead(self, state: EncounterState, events: list[Event]) -> EncounterState:
        return state


@pytest.mark.parametrize(
    ("kind", "message"),
    [(ImpureDecide, r"^t\.yaml, step 1 \(line 5\): decide note \{'text': 'hello'\}: decide "
                    r"changed the state it was given\n  state\.entities\['nia'\]\.health: "
                    r"5 -> 1$"),
     (WrongLookahead, r"^t\.yaml, step 1 \(line 5\): decide note \{'text': 'hello'\} > "
                      r"lookahead \['damaged'\]: lookahead differs from the events applied to "
                      r"a deep copy \(expected -> got\)\n  state\.entities\['nia'\]\.health: "
                      r"4 -> 5\n  state\.version: 3 -> 2$")],
)
def test_a_failure_names_the_file_step_command_and_field(
    kind: type[Ruleset], message: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(SCENARIO, encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match=message):
        play_checked(file, monkeypatch, "t.yaml", lambda name: kind())
