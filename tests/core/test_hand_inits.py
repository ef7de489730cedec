"""The dataclasses whose ``__init__`` is written out by hand take what their fields declare.

``dataclasses`` writes a class's ``__init__`` as Python source at import time, so in the
compiled build a native dataclass is still built by interpreted code: its arguments packed
into a tuple, then set one by one by name (a realms hit's ``DamageContext``, ``DamageCalc``
and ``DamageResult`` were 3.4% of a compiled run). The hot ones write ``__init__`` out, which
mypyc compiles (``@dataclass`` keeps an ``__init__`` the class defines; the rest, ``repr``,
``eq``, ``fields``, is still its own). Such an ``__init__`` repeats the field list, so this
test holds it to the declaration: every dataclass of the package with an ``__init__`` of its
own (found by discovery, not listed) takes its fields in order, with their defaults, and
sets each one to what it was given.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from typing import Any

import pytest

import arbiter
from arbiter.core import Entity
from arbiter.core.copying import native

pytestmark = pytest.mark.skipif(
    native(Entity), reason="a compiled __init__ has no signature to read: checked in the "
    "pure build (the compiled one is held to the golden logs by tests/sim/test_compiled.py)")

FOLDED: dict[str, dict[str, Any]] = {
    # what a former __post_init__ does, folded into the written __init__
    "arbiter.core.damage.DamageCalc": {"initial": lambda made: made.amount},
    "arbiter.rulesets.polemos.damage.DamageContext": {
        "absorbed": lambda made: [0] * len(made.armor_values)},
}
"""Fields whose value, when left out, is worked out from the others (by class)."""


def _written_out() -> list[type]:
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(arbiter.__path__, "arbiter."):
        if ".web" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for kind in vars(module).values():
            if (isinstance(kind, type) and kind.__module__ == module.__name__
                    and dataclasses.is_dataclass(kind) and "__init__" in vars(kind)):
                code = getattr(kind.__init__, "__code__", None)
                if code is None or code.co_filename != "<string>":  # not dataclasses' own
                    found[f"{kind.__module__}.{kind.__qualname__}"] = kind
    return [found[name] for name in sorted(found)]


WRITTEN = _written_out()


def _name(kind: type) -> str:
    return f"{kind.__module__}.{kind.__qualname__}"


def _sample(field: dataclasses.Field[Any], index: int) -> Any:
    """A value for ``field`` unlike its default (of its declared kind, so arithmetic on it
    in the ``__init__`` still works)."""
    hint = str(field.type)
    if hint == "bool":
        return field.default is not True
    if hint == "int":
        return 1000 + index
    if hint == "str":
        return f"given {index}"
    if hint.startswith(("list", "dict", "set", "frozenset", "tuple", "Mapping")):
        base = hint.split("[", 1)[0]
        made = {"list": [index], "dict": {"k": index}, "set": {index},
                "frozenset": frozenset({index}), "tuple": (index, index),
                "Mapping": {"k": index}}
        return made[base]
    return object()


def test_the_hot_dataclasses_write_their_init_out() -> None:
    names = {_name(kind) for kind in WRITTEN}
    assert {"arbiter.core.damage.DamageCalc", "arbiter.core.damage.StepRecord",
            "arbiter.core.model.Condition", "arbiter.rulesets.realms.pipeline.DamageContext",
            "arbiter.rulesets.zones.damage.Hit"} <= names


@pytest.mark.parametrize("kind", WRITTEN, ids=_name)
def test_a_written_init_takes_the_fields_in_order_with_their_defaults(kind: type) -> None:
    fields = [f for f in dataclasses.fields(kind) if f.init]
    params = list(inspect.signature(vars(kind)["__init__"]).parameters.values())[1:]
    assert [p.name for p in params] == [f.name for f in fields]
    folded = FOLDED.get(_name(kind), {})
    for field, param in zip(fields, params, strict=True):
        if field.default is not dataclasses.MISSING:
            if field.name not in folded:
                assert param.default == field.default, field.name
        elif field.default_factory is not dataclasses.MISSING:
            assert param.default is None, f"{field.name}: a factory's field defaults to None"
        else:
            assert param.default is inspect.Parameter.empty, f"{field.name} is required"


@pytest.mark.parametrize("kind", WRITTEN, ids=_name)
def test_a_written_init_sets_each_field_to_what_it_was_given(kind: type) -> None:
    fields = [f for f in dataclasses.fields(kind) if f.init]
    given = [_sample(f, i) for i, f in enumerate(fields)]
    made = kind(*given)
    for field, value in zip(fields, given, strict=True):
        assert getattr(made, field.name) is value, field.name


@pytest.mark.parametrize("kind", WRITTEN, ids=_name)
def test_a_written_init_defaults_what_is_left_out(kind: type) -> None:
    fields = [f for f in dataclasses.fields(kind) if f.init]
    required = [_sample(f, i) for i, f in enumerate(fields)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    made, again = kind(*required), kind(*required)
    folded = FOLDED.get(_name(kind), {})
    for field in fields[len(required):]:
        value = getattr(made, field.name)
        if field.name in folded:
            assert value == folded[field.name](made), field.name
        elif field.default_factory is not dataclasses.MISSING:
            assert value == field.default_factory(), field.name
            assert value is not getattr(again, field.name), f"{field.name} is shared"
        else:
            assert value == field.default, field.name
