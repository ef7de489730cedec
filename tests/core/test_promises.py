"""The promises the performance tricks rest on (docs/performance.md, "Tricks and their
promises"), each broken on purpose here so that its guard is seen to catch it, and kept by
the code paths that used to break them."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping
from typing import Any

import pytest

from arbiter.core import Command, load_ruleset
from arbiter.core.encounter import Encounter
from arbiter.core.invariants import checking
from arbiter.dice import SeededDice
from arbiter.rulesets.polemos.model import area_facts


def areas(enc: Encounter) -> Any:
    return enc.state.entities["vera"].areas  # type: ignore[attr-defined]


def polemos_with_vera() -> Encounter:
    enc = Encounter.create(load_ruleset("polemos"))
    enc.execute({"do": "add", "id": "vera", "template": "soldier", "side": "crew"},
                SeededDice(1))
    return enc


def test_a_body_area_changed_in_place_is_caught_by_the_area_facts_guard() -> None:
    """``area_facts`` keeps a map's facts by its identity: a vitality set in place breaks
    that, and under checking (the suite's mode) the next call says so."""
    mine = areas(polemos_with_vera())
    assert area_facts(mine) == (False, 3, 44)
    mine["head"].vitality = 0  # the promise broken
    with checking(), pytest.raises(AssertionError, match="changed in place"):
        area_facts(mine)


def test_an_override_of_a_body_area_replaces_the_map_and_the_facts_follow() -> None:
    """Found by this test: the GM's override of ``vera.areas.head.vitality`` set it in the
    shared map, so the kept facts went stale (no vital area at 0 while the head was). Now
    ``set_path`` copies what it goes through, and a lookahead changes nothing real."""
    enc = polemos_with_vera()
    before = areas(enc)
    assert area_facts(before) == (False, 3, 44)
    override = {"do": "override", "path": "vera.areas.head.vitality", "value": 0,
                "reason": "a sniper's shot"}
    entry = enc.decide(override, SeededDice(2))
    assert before["head"].vitality == 4  # deciding changed nothing
    ruleset = enc.ruleset
    ruleset.lookahead(enc.state, entry.events)
    assert areas(enc) is before and before["head"].vitality == 4
    with checking():
        enc.apply(entry)
        assert areas(enc) is not before and before["head"].vitality == 4
        assert area_facts(areas(enc)) == (True, 0, 40)


def test_two_threads_checking_zones_attacks_keep_their_own_memo(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """zones' check→decide memo: a plan made by ``check`` is reused by ``decide`` of the same
    command on the same state, in the same thread only. Another thread's check in between
    (the server's odds route runs in a pool) neither steals it nor hands over its own."""
    from arbiter.rulesets.zones import attacks, shots

    ruleset = load_ruleset("zones")
    encounters = []
    for _ in range(2):
        enc = Encounter.create(ruleset)
        for spec in ({"id": "ash", "template": "soldier", "side": "crew"},
                     {"id": "bandit", "template": "bandit", "side": "gang"}):
            enc.execute({"do": "add", **spec}, SeededDice(1))
        encounters.append(enc)
    planned: list[str] = []
    real = shots.plan_shot

    def counting(rules: object, state: object, command: Command) -> object:
        planned.append(threading.current_thread().name)
        return real(rules, state, command)  # type: ignore[arg-type]
    monkeypatch.setattr(shots, "plan_shot", counting)
    commands = [Command.from_json({"do": "attack", "actor": "ash", "target": "bandit"})
                for _ in encounters]
    ruleset.check(encounters[0].state, commands[0])  # this thread's plan
    other = threading.Thread(target=ruleset.check, args=(encounters[1].state, commands[1]),
                             name="other")
    other.start()
    other.join()
    assert planned == ["MainThread", "other"]
    ruleset.decide(encounters[0].state, commands[0], SeededDice(3))
    assert planned == ["MainThread", "other"], "decide planned again: the memo was lost"
    assert attacks.memo_of(ruleset) is None  # used once, then gone


def loaders() -> list[tuple[str, Any]]:
    """Every cached loader of the installed rulesets that takes no argument (a data file
    read once and shared by every caller), by its module and name."""
    import importlib
    import inspect
    import pkgutil

    import arbiter.rulesets

    found = []
    for info in pkgutil.walk_packages(arbiter.rulesets.__path__, "arbiter.rulesets."):
        module = importlib.import_module(info.name)
        for name, fn in vars(module).items():
            if getattr(fn, "__module__", None) != info.name or not hasattr(fn, "cache_info"):
                continue
            with contextlib.suppress(TypeError, ValueError):
                if not inspect.signature(fn).parameters:
                    found.append((f"{info.name}.{name}", fn))
    return sorted(found)


def changeable(value: Any, where: str = "") -> str | None:
    """Where inside ``value`` something could be changed in place (a dict, a list, a set),
    or None."""
    if isinstance(value, dict | list | set | bytearray):
        return where or "the value itself"
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = changeable(item, f"{where}[{key!r}]")
            if found:
                return found
    elif isinstance(value, tuple | frozenset):
        for index, item in enumerate(value):
            found = changeable(item, f"{where}[{index}]")
            if found:
                return found
    return None


def test_every_cached_loader_returns_a_value_no_caller_can_change() -> None:
    """Cached loaders return read-only values (``core/content.frozen``): a caller that
    changed one would change the rules of every encounter in the process. Found by
    discovery, so a new loader of a new ruleset is held too."""
    found = loaders()
    assert len(found) >= 10, [name for name, _ in found]
    for name, fn in found:
        where = changeable(fn())
        assert where is None, f"{name}() can be changed in place at {where}"


def test_every_data_file_realms_loads_once_is_read_only() -> None:
    """realms' ``load_toml(name)`` (cached per file) for each data file of the package."""
    from pathlib import Path

    from arbiter.rulesets.realms import model

    names = sorted(p.name for p in Path(model.__file__).parent.glob("*.toml"))
    assert "weapons.toml" in names
    for name in names:
        where = changeable(model.load_toml(name))
        assert where is None, f"load_toml({name!r}) can be changed in place at {where}"


def test_changing_a_cached_catalogue_is_refused() -> None:
    """The promise broken on purpose: writing into a loaded catalogue raises."""
    from arbiter.rulesets.polemos.model import weapon_catalogue
    from arbiter.rulesets.zones.model import catalogue

    weapons = weapon_catalogue()
    some = next(iter(weapons))
    with pytest.raises(TypeError):
        weapons[some]["rating"] = 99  # type: ignore[index]
    with pytest.raises(TypeError):
        catalogue()["rifle"]["damage"] = "1d100"  # type: ignore[index]
