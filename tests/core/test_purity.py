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
from arbiter.core.copying import scratch_copy, scratch_guard
from arbiter.dice import DiceSource
from arbiter.scenario import runner
from arbiter.scenario.loader import LineDict, load_yaml
from arbiter.sim import Simulator, load_encounter, prepare

from ..support import Played

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
    nested: int = 0
    """Calls made inside the outermost one in progress (a command's own decides and
    lookaheads), counted from 1 each time an outermost call starts."""
    skipped: int = 0

    def __str__(self) -> str:
        return f"{self.source}, {self.step}: {' > '.join(self.calls)}"

    def checks(self) -> bool:
        """Whether the call starting now is checked: every outermost call, the first
        :data:`ALL_NESTED` calls inside one, and past those the 128th, 256th, 512th... A
        long wait decides round after round on a state that grows (a wound a round), so
        checking every one of its nested calls against a deep copy costs the square of
        the wait; checking these costs at most about twice the last one, linear in it."""
        if not self.calls:
            self.nested = 0
            return True
        self.nested += 1
        n = self.nested
        if n <= ALL_NESTED or n & (n - 1) == 0:
            return True
        self.skipped += 1
        return False


ALL_NESTED = 64
"""Nested calls of one command checked one by one before the check thins out (every
scenario's command but the long waits' stays under it)."""


def deep_copy(state: EncounterState) -> EncounterState:
    """A copy that shares nothing mutable with ``state`` and uses none of
    arbiter.core.copying's cloners: what a pickle round trip gives (the same values, the
    same sharing between places of the state), built by :func:`private_copy` without the
    bytes in between (twice as fast, and the check copies the state around every call: a
    long wait's thousand fatigue wounds, thousands of times)."""
    out: EncounterState = private_copy(state, {})
    return out


ATOMIC: frozenset[type] = frozenset({int, str, float, bool, type(None), bytes, complex})
Copier = Callable[[Any, dict[int, Any]], Any]
_COPIERS: dict[type, Copier] = {}


def private_copy(value: Any, memo: dict[int, Any]) -> Any:
    """A deep copy of ``value`` as pickle makes one: plain containers and dataclasses
    without copy hooks copied here (an object met twice is copied once: ``memo``), a
    ``__reduce__`` that gives ``(callable, args)`` called again on copied arguments,
    anything else through pickle itself (``copy.deepcopy`` for what pickle refuses)."""
    if type(value) in ATOMIC:
        return value
    done = memo.get(id(value))
    if done is not None:
        return done
    kind = type(value)
    return (_COPIERS.get(kind) or _copier(kind))(value, memo)


def _copy_list(value: list[Any], memo: dict[int, Any]) -> list[Any]:
    out: list[Any] = []
    memo[id(value)] = out
    out += [item if type(item) in ATOMIC else private_copy(item, memo) for item in value]
    return out


def _copy_dict(value: dict[Any, Any], memo: dict[int, Any]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    memo[id(value)] = out
    for key, item in dict.items(value):
        out[key if type(key) in ATOMIC else private_copy(key, memo)] = (
            item if type(item) in ATOMIC else private_copy(item, memo))
    return out


def _copy_set(value: set[Any], memo: dict[int, Any]) -> set[Any]:
    out: set[Any] = set()
    memo[id(value)] = out
    out.update([item if type(item) in ATOMIC else private_copy(item, memo) for item in value])
    return out


def _copy_tuple(value: tuple[Any, ...], memo: dict[int, Any]) -> tuple[Any, ...]:
    out = tuple([item if type(item) in ATOMIC else private_copy(item, memo) for item in value])
    memo[id(value)] = out
    return out


def _copy_frozenset(value: frozenset[Any], memo: dict[int, Any]) -> frozenset[Any]:
    out = frozenset([item if type(item) in ATOMIC else private_copy(item, memo)
                     for item in value])
    memo[id(value)] = out
    return out


def _pickled(value: Any, memo: dict[int, Any]) -> Any:
    try:
        out = pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        out = copy.deepcopy(value)
    memo[id(value)] = out
    return out


KEPT = 0
"""The key of ``memo`` that holds what ``__reduce_ex__`` made for the copy (no object has
the id 0): the arguments it gave are memoized by their ids, which must not be reused by
the next object's while the copy runs (as ``copy.deepcopy`` keeps them alive)."""


def _reduced(value: Any, memo: dict[int, Any]) -> Any:
    reduced = value.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
    if type(reduced) is not tuple or len(reduced) != 2:
        return _pickled(value, memo)
    rebuild, arguments = reduced
    memo.setdefault(KEPT, []).append(reduced)  # alive, or a later one may get its id
    out = rebuild(*private_copy(arguments, memo))
    memo[id(value)] = out
    return out


def _hooked(kind: type) -> bool:
    """Whether ``kind`` changes how it is copied or pickled (``@dataclass(slots=True,
    frozen=True)``'s own pickling helpers aside: they do what pickle does anyway)."""
    for hook in ("__deepcopy__", "__copy__", "__reduce__", "__reduce_ex__", "__getstate__",
                 "__setstate__", "__getnewargs__", "__getnewargs_ex__", "__new__"):
        fn = getattr(kind, hook, None)
        if fn is None or fn is getattr(object, hook, None):
            continue
        if not getattr(fn, "__qualname__", "").startswith("_dataclass_"):
            return True
    return False


def _object_copier(kind: type) -> Copier:
    """For a dataclass without copy hooks: a function written for the class that makes a
    new instance with copies of the original's slots and ``__dict__``, as pickle's default
    reduction does (an unset slot stays unset)."""
    slots = [name for klass in kind.__mro__ for name in vars(klass).get("__slots__", ())
             if name not in ("__dict__", "__weakref__")]
    has_dict = any("__dict__" in vars(klass) for klass in kind.__mro__ if klass is not object)
    plain = getattr(kind, "__setattr__", None) is object.__setattr__  # not frozen: faster
    lines = ["def copy_object(value, memo):", "    out = new(kind)", "    memo[id(value)] = out"]
    for name in slots:  # a list copied here, not through two more calls (most are empty)
        lines += ["    try:", f"        item = value.{name}", "    except AttributeError:",
                  "        pass", "    else:",
                  "        if type(item) is list:",
                  "            done = memo.get(id(item))",
                  "            if done is None:",
                  "                done = memo[id(item)] = []",
                  "                if item:",
                  "                    done += [x if type(x) in ATOMIC else private_copy(x, memo)"
                  " for x in item]",
                  "            item = done",
                  "        elif type(item) not in ATOMIC:",
                  "            item = private_copy(item, memo)",
                  f"        out.{name} = item" if plain
                  else f"        setattr_(out, {name!r}, item)"]
    if has_dict:
        lines.append("    setattr_(out, '__dict__', copy_dict(value.__dict__, memo))")
    lines.append("    return out")
    namespace: dict[str, Any] = {"new": object.__new__, "kind": kind, "ATOMIC": ATOMIC,
                                 "private_copy": private_copy, "copy_dict": _copy_dict,
                                 "setattr_": object.__setattr__}
    exec("\n".join(lines), namespace)  # the code written above, from the class's slots
    fn: Copier = namespace["copy_object"]
    return fn


def _copier(kind: type) -> Copier:
    plain: dict[type, Copier] = {list: _copy_list, dict: _copy_dict, set: _copy_set,
                                 tuple: _copy_tuple, frozenset: _copy_frozenset}
    fn = plain.get(kind)
    if fn is None:
        if dataclasses.is_dataclass(kind) and not _hooked(kind):
            fn = _object_copier(kind)
        elif getattr(kind, "__reduce_ex__", None) is object.__reduce_ex__ and \
                getattr(kind, "__reduce__", None) is not object.__reduce__:
            fn = _reduced
        else:
            fn = _pickled
    _COPIERS[kind] = fn
    return fn


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
    if state != before:
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
    checked._apply_table = {}  # the appliers and handlers get bound to the copy
    checked._do_table = {}
    real_decide, real_odds = checked.decide, checked.odds
    real_lookahead, evolve = checked.lookahead, checked.evolve

    def decide(state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        where.decides += 1
        if not where.checks():
            return real_decide(state, command, dice)
        return read_only(where, "decide", command, state,
                         lambda: real_decide(state, command, dice))

    def odds(state: EncounterState, command: Command) -> dict[str, Any]:
        if not where.checks():
            return real_odds(state, command)
        return read_only(where, "odds", command, state, lambda: real_odds(state, command))

    def lookahead(state: EncounterState, events: list[Event]) -> EncounterState:
        where.lookaheads += 1
        if not where.checks():
            return real_lookahead(state, events)
        reference = deep_copy(state)
        label = f"lookahead {[e.type for e in events]}"
        where.calls.append(label)
        try:
            result = real_lookahead(state, events)
            unchanged(reference, state, where, "lookahead")
            for event in events:
                evolve(reference, event)
            if result != reference:
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


def _objects(value: Any, found: dict[int, Any]) -> dict[int, Any]:
    """Every object of ``value`` that is not atomic, by id (the containers, dataclass
    instances and tuples a state is made of)."""
    if type(value) in ATOMIC or id(value) in found:
        return found
    found[id(value)] = value
    if isinstance(value, dict):
        for key, item in dict.items(value):
            _objects(key, found)
            _objects(item, found)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _objects(item, found)
    elif dataclasses.is_dataclass(value):
        kind: type = type(value)
        for klass in kind.__mro__:
            for name in vars(klass).get("__slots__", ()):
                if hasattr(value, name) and name not in ("__dict__", "__weakref__"):
                    _objects(getattr(value, name), found)
        for item in getattr(value, "__dict__", {}).values():
            _objects(item, found)
    return found


STATES = [*ENCOUNTERS, ROOT / "polemos" / "per-round-waiting.yaml"]


@pytest.mark.parametrize("path", STATES, ids=[p.name for p in STATES])
def test_the_checks_copy_is_a_pickle_round_trip_that_shares_nothing(path: Path,
                                                                     played: Played) -> None:
    """``deep_copy``, of a played encounter's state and of a lookahead's copy-on-write
    scratch of it: equal to the pickle round trip it replaces, no object of the original in
    it (strings and numbers aside), and the places that shared an object share its copy."""
    encounter = played(path).encounter
    assert encounter is not None
    for state in (encounter.state, scratch_copy(encounter.state)):
        copied = deep_copy(state)
        assert type(copied) is type(state)
        assert copied == pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
        originals, copies = _objects(state, {}), _objects(copied, {})
        shared = [value for key, value in copies.items() if key in originals
                  and not (isinstance(value, tuple | frozenset) and value == ())]
        assert not shared, shared[:3]
        assert len(copies) == len(originals)  # one copy per object: sharing kept


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


def test_a_long_commands_nested_calls_are_checked_one_by_one_then_at_powers_of_two() -> None:
    """The check stays linear in a long wait (``Where.checks``): every outermost call, the
    first ALL_NESTED nested ones, then the 128th, 256th and 512th of a thousand."""
    where = Where("a long wait")
    assert where.checks()  # the outermost call
    where.calls.append("decide wait")
    checked = [n for n in range(1, 1001) if where.checks()]
    assert checked == [*range(1, ALL_NESTED + 1), 128, 256, 512]
    assert where.skipped == 1000 - len(checked)
    where.calls.clear()
    assert where.checks() and where.nested == 0  # the next command starts again from 1
