"""Conditions as data, for every installed ruleset (issue 37): each ``conditions.toml``
against the one schema (``arbiter.core.conditions``), and each ``condition_matrix.toml``
against the one matrix schema, played row by row by this one table-driven test.

A ruleset that ships a matrix ships its harness beside its tests,
``tests/rulesets/<name>/matrix.py``: a ``harness(matrix)`` function returning an object
with ``probes`` (the names it measures), ``measure(row, given)`` (the row's probe without
or with the row's condition) and ``gives(condition)`` (whether its way of giving a
condition gives it). Everything else (which rows, what each expects, the pairs no row
names, what a probe must be without any condition) is the matrix's data.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection, Mapping
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import msgspec
import pytest

from arbiter.core import Command, Encounter, RulesError, load_ruleset
from arbiter.core.conditions import (
    ConditionSpec,
    Matrix,
    MatrixRow,
    decode,
    decode_matrix,
    load_conditions,
    matrix_problems,
)
from arbiter.core.errors import SchemaError
from arbiter.core.rulings import RulingSet
from arbiter.coverage import PACKAGE_INVENTORY, read_package_inventory
from arbiter.dice import ForcedDice

from ..support import installed


class Harness(Protocol):
    """What a ruleset's ``tests/rulesets/<name>/matrix.py`` gives this test."""

    probes: Collection[str]

    def measure(self, row: MatrixRow, given: bool) -> Any: ...

    def gives(self, condition: str) -> bool: ...


def package(name: str) -> Path | None:
    return load_ruleset(name).package_dir


def conditioned() -> list[str]:
    """The installed rulesets whose package ships a ``conditions.toml``."""
    return [name for name in installed() if (p := package(name)) is not None
            and (p / "conditions.toml").is_file()]


def matrixed() -> list[str]:
    """The installed rulesets whose package ships a ``condition_matrix.toml``."""
    return [name for name in conditioned() if (p := package(name)) is not None
            and (p / "condition_matrix.toml").is_file()]


def catalogue(name: str) -> Mapping[str, ConditionSpec]:
    path = package(name)
    assert path is not None
    return load_conditions(path / "conditions.toml").condition


@cache
def matrix(name: str) -> Matrix:
    """The ruleset's matrix as the schema types it (a file that does not fit the types
    stops the collection, naming the row; what the types cannot say is a test of its own,
    ``test_every_matrix_is_well_formed``)."""
    path = package(name)
    assert path is not None
    return decode_matrix(path / "condition_matrix.toml")


@cache
def harness(name: str) -> Harness:
    module = importlib.import_module(f"tests.rulesets.{name}.matrix")
    made: Harness = module.harness(matrix(name))
    return made


def known_ids(name: str) -> set[str]:
    """The rule ids a condition or a row may name: the inventory's and the rulings'."""
    path = package(name)
    assert path is not None
    ids = set(read_package_inventory(path / PACKAGE_INVENTORY).rules) \
        if (path / PACKAGE_INVENTORY).is_file() else set()
    rulings = path / "rulings.toml"
    if rulings.is_file():
        ids |= {ruling.id for ruling in RulingSet.load(rulings)}
    return ids


# -- conditions.toml: one schema -----------------------------------------------------------

@pytest.mark.parametrize("name", conditioned())
def test_every_conditions_file_validates_against_the_one_schema(name: str) -> None:
    """The file decodes into the schema's types (no unknown key, every modifier and flag
    declared, a one-line text, rule ids), every rule id is the ruleset's, every exclusion
    names a condition or a tag, and the console's picker reads the same texts."""
    path = package(name)
    assert path is not None
    data = decode(path / "conditions.toml")
    ids = known_ids(name)
    tags = {tag for spec in data.condition.values() for tag in spec.tags}
    for cond, spec in data.condition.items():
        assert set(spec.rules) <= ids, (cond, sorted(set(spec.rules) - ids))
        assert set(spec.excludes) <= set(data.condition) | tags, cond
    assert load_ruleset(name).condition_texts == {
        cond: spec.text for cond, spec in data.condition.items()}


@pytest.mark.parametrize("name", conditioned())
def test_a_cached_catalogue_is_read_only(name: str) -> None:
    """What the cached loader returns is shared by every encounter: neither the catalogue,
    nor a condition, nor its modifiers can be changed (issue 37)."""
    data = catalogue(name)
    first = next(iter(data))
    with pytest.raises(TypeError):
        data[first] = data[first]  # type: ignore[index]
    with pytest.raises(AttributeError):
        data[first].text = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        data[first].modifiers["evasion"] = 1  # type: ignore[index]
    assert catalogue(name) is data


@pytest.mark.parametrize("name", conditioned())
def test_the_condition_command_refuses_an_unlisted_name_naming_every_listed_one(
        name: str) -> None:
    """A name conditions.toml does not list is refused before anything happens (a typo),
    and the refusal names every condition the file lists."""
    ruleset = load_ruleset(name)
    assert ruleset.demo is not None, f"{name} ships no demo.yaml to find a creature in"
    actor, spec = ruleset.demo[1][0]
    enc = Encounter.create(ruleset)
    enc.execute({"do": "add", "id": actor, **spec}, ForcedDice([]))
    with pytest.raises(RulesError) as refused:
        ruleset.check(enc.state, ruleset.bound(Command(
            "condition", args={"target": actor, "name": "no-such-condition"})))
    message = str(refused.value)
    assert "no-such-condition" in message or "'name' must be one of" in message, message
    for listed in catalogue(name):
        assert listed in message, (listed, message)


GOOD = '''schema = 1
[modifier]
evasion = "its Evasion"
[flag]
no_reactions = "no Reactions"
'''
BAD = {
    "an unknown key": ('[condition.x]\ntext = "X."\nrules = []\ncolour = "red"\n',
                       "condition 'x': Object contains unknown field `colour`"),
    "no text": ('[condition.x]\nrules = []\n',
                "condition 'x': Object missing required field `text`"),
    "no rules": ('[condition.x]\ntext = "X."\n',
                 "condition 'x': Object missing required field `rules`"),
    "a wrong type": ('[condition.x]\ntext = "X."\nrules = "R-1"\n',
                     "condition 'x': Expected `array`, got `str` - at `$.rules`"),
    "an unknown table": ('[colour]\nx = 1\n[condition.x]\ntext = "X."\nrules = []\n',
                         "Object contains unknown field `colour`"),
    "no conditions": ('', "no [condition.NAME] tables"),
    "an undeclared modifier": (
        '[condition.x]\ntext = "X."\nrules = []\nmodifiers = { speed = -1 }\n',
        "modifier 'speed' is not declared in [modifier] (declared: evasion)"),
    "an undeclared flag": ('[condition.x]\ntext = "X."\nrules = []\nflags = ["blind"]\n',
                           "flag 'blind' is not declared in [flag] (declared: no_reactions)"),
    "a level form without levels": (
        '[condition.x]\ntext = "X."\nrules = []\nmodifiers = { evasion = "-level" }\n',
        "follows the level, but the condition has no levels"),
    "a form that is no form": (
        '[condition.x]\ntext = "X."\nrules = []\nleveled = true\n'
        'modifiers = { evasion = "-twice-level" }\n',
        "is neither an integer nor one of level, +level, -level, -half-level"),
    "a boolean modifier": (
        '[condition.x]\ntext = "X."\nrules = []\nmodifiers = { evasion = true }\n',
        "condition 'x': Expected `int | str`, got `bool`"),
    "an empty text": ('[condition.x]\ntext = " "\nrules = []\n',
                      "text must be one non-empty line"),
    "a stacking of its own": ('[condition.x]\ntext = "X."\nrules = []\nstack = "sum"\n',
                              "condition 'x': Invalid enum value 'sum' - at `$.stack`"),
    "a duration of its own": ('[condition.x]\ntext = "X."\nrules = []\nduration = "ever"\n',
                              "condition 'x': Invalid enum value 'ever' - at `$.duration`"),
    "a most without levels": ('[condition.x]\ntext = "X."\nrules = []\nmost = 10\n',
                              "most = 10 needs levels"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_the_schema_refuses_a_bad_conditions_file_naming_what_is_wrong(
        case: str, tmp_path: Path) -> None:
    """A file that breaks the schema is refused when read, naming the file, the condition
    and what is wrong (a typo is never silently ignored by the rules)."""
    body, message = BAD[case]
    path = tmp_path / "conditions.toml"
    path.write_text(GOOD + body)
    with pytest.raises(SchemaError, match=str(path)) as err:
        decode(path)
    assert message in str(err.value), str(err.value)


def test_a_good_conditions_file_reads_with_its_defaults(tmp_path: Path) -> None:
    """What a condition leaves out takes the schema's default; a modifier reads by level."""
    path = tmp_path / "conditions.toml"
    path.write_text(GOOD + '[condition.x]\ntext = "X."\nrules = ["R-1"]\nleveled = true\n'
                    'modifiers = { evasion = "-half-level" }\nflags = ["no_reactions"]\n')
    spec = load_conditions(path).condition["x"]
    assert (spec.stack, spec.duration, spec.tags, spec.most) == ("max", "until_removed", (),
                                                                 None)
    assert [spec.modifier("evasion", level) for level in (1, 2, 5)] == [0, -1, -2]
    assert spec.modifier("speed", 3) == 0 and spec.flags == {"no_reactions"}


# -- condition_matrix.toml: one schema, one table-driven test ----------------------------

def cases() -> list[tuple[str, MatrixRow]]:
    return [(name, row) for name in matrixed() for row in matrix(name).row]


def unnamed() -> list[tuple[str, MatrixRow]]:
    """The (condition, probe) pairs no row names, of the matrices that say these stay
    unchanged, as rows that say so."""
    out: list[tuple[str, MatrixRow]] = []
    for name in matrixed():
        table = matrix(name)
        if table.unnamed != "unchanged":
            continue
        named = {(row.condition, row.probe) for row in table.row}
        out += [(name, MatrixRow(condition=cond, probe=probe, rules=(), same=True,
                                 seed="(the seed names no such effect)"))
                for cond in catalogue(name) for probe in table.probe
                if (cond, probe) not in named]
    return out


def probes() -> list[tuple[str, str]]:
    """Each probe that declares what it must be without a condition."""
    return [(name, probe) for name in matrixed()
            for probe, spec in matrix(name).probe.items() if spec.baseline != "any"]


def sound(kind: str, value: Any) -> bool:
    """Whether a probe's value without any condition is what its declaration says."""
    if kind == "allowed":
        return bool(value == "allowed")
    if kind == "number":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "working":
        return value not in ("refused", [], 0)
    return True


def play(name: str, row: MatrixRow) -> None:
    table = matrix(name)
    played = harness(name)
    baseline = played.measure(row, False)
    assert sound(table.probe[row.probe].baseline, baseline), (row.probe, baseline)
    if row.without is not msgspec.UNSET:
        assert baseline == row.without, (row.seed, baseline)
    got = played.measure(row, True)
    rules = ", ".join(row.rules) or "no rule id"
    assert got == row.expected(baseline), f"{row.seed} ({rules}; {row.note}): " \
        f"without {baseline!r}, with {got!r}"


@pytest.mark.parametrize(("name", "row"), cases(), ids=[f"{n}:{r.ident}" for n, r in cases()])
def test_a_condition_changes_what_the_seed_says_and_nothing_else(name: str,
                                                                 row: MatrixRow) -> None:
    """Each row of each matrix: the probe without the condition (sound, and the row's
    ``without`` when it states one), then with it: the baseline moved by ``change``, or
    ``becomes``, or the same."""
    play(name, row)


@pytest.mark.parametrize(("name", "row"), unnamed(),
                         ids=[f"{n}:{r.condition}-{r.probe}" for n, r in unnamed()])
def test_a_condition_leaves_alone_what_the_seed_does_not_name(name: str,
                                                               row: MatrixRow) -> None:
    """Every (condition, probe) pair without a row, where the matrix says such pairs stay
    unchanged: the probe is the same with the condition as without it."""
    play(name, row)


@pytest.mark.parametrize(("name", "probe"), probes(), ids=[f"{n}:{p}" for n, p in probes()])
def test_every_probe_is_sound_without_a_condition(name: str, probe: str) -> None:
    """The scene is sound: without a condition, an action probed is allowed, a number is a
    number, a measure works (so a refusal or a change is the condition's doing)."""
    table = matrix(name)
    row = next((r for r in table.row if r.probe == probe), None) or MatrixRow(
        condition=next(iter(catalogue(name))), probe=probe, seed="-", rules=(), same=True)
    assert sound(table.probe[probe].baseline, harness(name).measure(row, False))


@pytest.mark.parametrize("name", matrixed())
def test_every_matrix_is_well_formed(name: str) -> None:
    """The one matrix schema: each row names a condition of conditions.toml and a declared
    probe, one verdict its ``says`` agrees with, the seed's sentence, the ruleset's rule
    ids; every condition has rows; no case twice; every kind of effect the matrix lists
    has a row; its harness measures exactly the declared probes."""
    table = matrix(name)
    assert matrix_problems(table, catalogue(name)) == []
    ids = known_ids(name)
    for row in table.row:
        assert row.rules or row.says in ("silent", "ruling") or row.note, row.ident
        assert set(row.rules) <= ids, (row.ident, sorted(set(row.rules) - ids))
        if row.says == "ruling":
            assert "ruling" in row.seed, row.ident
    assert set(harness(name).probes) == set(table.probe)


def conditions_of_matrices() -> list[tuple[str, str]]:
    return [(name, cond) for name in matrixed() for cond in catalogue(name)]


@pytest.mark.parametrize(("name", "condition"), conditions_of_matrices(),
                         ids=[f"{n}:{c}" for n, c in conditions_of_matrices()])
def test_the_matrix_gives_each_condition(name: str, condition: str) -> None:
    """The harness's way of giving a condition does give it (the rows measure what they
    say)."""
    assert harness(name).gives(condition), condition


def test_the_matrix_schema_refuses_a_bad_row() -> None:
    """A row with two verdicts, an unknown probe or condition, a verdict its ``says``
    contradicts, a level on a condition without levels, or a case twice is named."""
    specs = {"a": ConditionSpec(text="A.", rules=()),
             "b": ConditionSpec(text="B.", rules=(), leveled=True)}
    probe = {"p": {"text": "a probe"}}

    def problems(*rows: dict[str, Any], **top: Any) -> list[str]:
        table = msgspec.convert({"probe": probe, "row": list(rows), **top}, Matrix)
        return matrix_problems(table, specs)

    base = {"probe": "p", "seed": "S.", "rules": []}
    assert problems({"condition": "a", **base, "same": True},
                    {"condition": "b", **base, "change": 1}) == []
    assert problems({"condition": "a", **base, "same": True, "change": 1},
                    {"condition": "b", **base, "same": True}) == [
        "row a-p: exactly one of same, change or becomes"]
    assert problems({"condition": "a", **base, "level": 2, "same": True, "says": "changes"},
                    {"condition": "b", **base, "same": True}) == [
        "row a2-p: says changes but expects no change",
        "row a2-p: a level, but a has no levels"]
    assert problems({"condition": "z", **{**base, "probe": "q"}, "becomes": 1},
                    {"condition": "a", **base, "same": True},
                    {"condition": "a", **base, "same": True}) == [
        "row z-q: no condition 'z' in conditions.toml",
        "row z-q: probe 'q' is not declared in [probe]",
        "row a-p: two rows for one case", "condition 'b' has no row"]
    assert problems({"condition": "a", **base, "same": True}, unnamed="forbidden",
                    kinds=["sight"]) == [
        "condition 'b' has no row", "no row for b and p (every pair needs one)",
        "no row measures a probe of kind 'sight'"]


def test_a_matrix_row_that_does_not_fit_the_schema_is_named(tmp_path: Path) -> None:
    """A row with an unknown key or a wrong type is refused naming its number, condition
    and probe."""
    path = tmp_path / "condition_matrix.toml"
    path.write_text('schema = 1\n[probe.p]\ntext = "a probe"\n'
                    '[[row]]\ncondition = "a"\nprobe = "p"\nseed = "S."\nrules = []\n'
                    'same = true\n'
                    '[[row]]\ncondition = "a"\nprobe = "p"\nseed = "S."\nrules = []\n'
                    'delta = 1\n')
    with pytest.raises(SchemaError, match=r"row 2 \(a/p\): Object contains unknown field "
                       "`delta`"):
        decode_matrix(path)
