"""Typed event payloads (``core/payloads.py``): each ``@event`` declaration makes its
payload's ``TypedDict``; the generated ``payloads.py`` modules are current; every
``apply_*`` method is annotated with its own event's class; a payload that is not as
declared is named field by field, at import and while checking."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from arbiter.core import Command, Encounter, Entry, Event, SchemaError, load_ruleset
from arbiter.core.catalogue import CARRIED, events_of
from arbiter.core.invariants import apply_checked
from arbiter.core.payloads import class_name, generated, problems
from arbiter.core.roster import Roster

from ..support import installed

KERNEL = Path(__file__).resolve().parents[2] / "src" / "arbiter" / "core"


def check_payloads(name: str) -> None:
    """The guard for one ruleset: its package's ``payloads.py`` is what its declarations
    make, and each of its ``apply_*`` methods takes its own event's payload class."""
    ruleset = load_ruleset(name)
    assert ruleset.package_dir is not None
    package = Path(ruleset.package_dir)
    target = package / "payloads.py"
    texts = generated()
    assert target in texts, f"{name} declares no event of its own"
    now = target.read_text(encoding="utf-8") if target.is_file() else ""
    assert now == texts[target], f"{target} is out of date: run arbiter payloads --write"
    check_annotations(sorted(package.glob("*.py")))


def check_annotations(files: list[Path]) -> None:
    wrong: list[str] = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("apply_"):
                continue
            if node.name == "apply_economy_of":  # the kernel rule of the carried economy
                continue
            data = node.args.args[2] if len(node.args.args) > 2 else None
            seen = ast.unparse(data.annotation) if data and data.annotation else "nothing"
            want = class_name(node.name.removeprefix("apply_"))
            if seen not in (f"payloads.{want}", f"kernel_payloads.{want}"):
                wrong.append(f"{path.name}:{node.lineno} {node.name}: {seen}, not {want}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", installed())
def test_each_ruleset_payloads_are_current_and_each_apply_takes_its_own(name: str) -> None:
    check_payloads(name)


def test_the_kernels_payloads_are_current_and_its_applies_take_them() -> None:
    target = KERNEL / "kernel_payloads.py"
    assert target.read_text(encoding="utf-8") == generated()[target], (
        "run arbiter payloads --write")
    check_annotations([KERNEL / "ruleset.py", KERNEL / "roster.py"])


def test_a_stale_payload_module_is_named_and_written_by_the_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from arbiter.cli import app
    from arbiter.core import payloads

    target = tmp_path / "payloads.py"
    monkeypatch.setattr(payloads, "generated", lambda: {target: "TEXT\n"})
    runner = CliRunner()
    stale = runner.invoke(app, ["payloads"])
    assert stale.exit_code == 2
    assert f"stale: {target}" in stale.output
    assert "1 payload module(s) differ from the declarations" in stale.output
    wrote = runner.invoke(app, ["payloads", "--write"])
    assert wrote.exit_code == 0 and target.read_text() == "TEXT\n"
    assert runner.invoke(app, ["payloads"]).exit_code == 0


# -- what a payload that is not as declared reads as ----------------------------------------
def spec_of(event_type: str) -> Any:
    return load_ruleset("realms").events[event_type]


def test_a_payload_as_declared_has_no_problem() -> None:
    spec = spec_of("damaged")
    ok = {"target": "nia", "cause": "damage", "taken": 3, "health": 7, "pipeline": {},
          "armor_uses": 1, "dr_uses": {}, "destabilize": False}
    assert problems(spec, ok) == []
    assert problems(spec, {**ok, "over_time": None, "economy": {"ap": 2}}) == []


@pytest.mark.parametrize(("change", "said"), [
    ({"taken": "3"}, ["taken: expected int | null, got str"]),
    ({"dr_uses": [1]}, ["dr_uses: expected object | null, got array"]),
    ({"extra": 1}, ["'extra' is not a field of 'damaged'"]),
])
def test_a_payload_not_as_declared_is_named_field_by_field(change: dict[str, Any],
                                                             said: list[str]) -> None:
    ok = {"target": "nia", "cause": "damage", "taken": 3, "health": 7, "pipeline": {},
          "armor_uses": 1, "dr_uses": {}, "destabilize": False}
    assert problems(spec_of("damaged"), {**ok, **change}) == said


def test_a_long_unknown_field_is_named_shortened() -> None:
    ok = {"target": "nia", "cause": "damage", "taken": 3, "health": 7, "pipeline": {},
          "armor_uses": 1, "dr_uses": {}, "destabilize": False}
    assert problems(spec_of("damaged"), {**ok, "x" * 10_000: 1}) == [
        f"'{'x' * 37}...' is not a field of 'damaged'"]


def test_every_required_field_that_is_missing_is_named() -> None:
    assert problems(spec_of("damaged"), {"target": "nia"}) == [
        "'cause' is missing", "'taken' is missing", "'health' is missing",
        "'pipeline' is missing", "'armor_uses' is missing", "'dr_uses' is missing"]


def test_economy_is_carried_by_every_event_and_optional_everywhere() -> None:
    kinds: list[type] = [Roster, *(type(load_ruleset(n)) for n in installed())]
    for kind in kinds:
        for spec in events_of(kind).values():
            for name in CARRIED:
                assert name in spec.fields and not spec.required(name), (spec.type, name)
                assert spec.to_json()["fields"][name]["required"] is False


def test_an_optional_name_that_is_not_a_field_is_refused_when_the_class_is_read() -> None:
    from arbiter.core.catalogue import event
    from arbiter.core.ruleset import Ruleset

    class Odd(Ruleset):
        name = "odd"

        @event("{who} waves.", who=args_creature(), optional=("whom",))
        def apply_waved(self, state: Any, data: Any) -> None:
            """An event that names an optional field it does not declare."""

    with pytest.raises(TypeError, match=r"Odd.apply_waved: optional names fields it does "
                                        r"not declare: whom"):
        events_of(Odd)


def args_creature() -> Any:
    from arbiter.core import catalogue

    return catalogue.creature("who")


def test_while_checking_an_event_not_as_declared_stops_before_it_applies() -> None:
    ruleset = load_ruleset("realms")
    encounter = Encounter.create(ruleset)
    before = encounter.state.version
    bad = Entry(9, Command("damage"), [Event("damaged", {"target": 5})], [])
    with pytest.raises(SchemaError, match=r"damage: event 'damaged' is not as declared: "
                                          r"'cause' is missing"):
        apply_checked(ruleset, encounter.state, bad)
    assert encounter.state.version == before
