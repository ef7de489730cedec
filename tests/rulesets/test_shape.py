"""One shape for the three seed rulesets (issue 19): the same core modules with the same
meaning in each package, no module over 700 lines, no ``commands.py`` (it meant three
different things), no code generated with ``exec``, and no ruleset name outside
``rulesets/`` in the web front end or coverage."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from arbiter.core import Ruleset, load_ruleset

from ..support import seeds

SRC = Path(__file__).resolve().parents[2] / "src" / "arbiter"
SEEDS = seeds()
CORE_MODULES = {"__init__", "model", "base", "rules", "turns", "actions", "attacks",
                "damage", "conditions", "movement", "checks", "odds", "lasting", "invariants"}
"""Each seed ruleset's package has these modules, with the same meaning (docs/extending.md)."""
MOST_LINES = 700


def package(ruleset: str) -> Path:
    """The folder of ``ruleset``'s package, wherever it is installed."""
    folder = load_ruleset(ruleset).package_dir
    assert folder is not None, f"{ruleset} is not a package"
    return folder


def modules(ruleset: str) -> set[str]:
    return {p.stem for p in package(ruleset).glob("*.py")}


def check_core_modules(ruleset: str) -> None:
    """The guard: ``ruleset``'s package has the core modules and no ``commands.py``."""
    missing = CORE_MODULES - modules(ruleset)
    assert not missing, f"{ruleset} lacks {sorted(missing)}"
    assert "commands" not in modules(ruleset)


def check_module_sizes(folder: Path) -> None:
    """The guard: no module under ``folder`` is over :data:`MOST_LINES` lines."""
    long = {str(p.relative_to(folder)): n for p in folder.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MOST_LINES}
    assert not long, f"modules over {MOST_LINES} lines: {long}"


@pytest.mark.parametrize("ruleset", SEEDS)
def test_each_seed_ruleset_has_the_core_modules(ruleset: str) -> None:
    check_core_modules(ruleset)


@pytest.mark.parametrize("ruleset", SEEDS)
def test_the_end_of_the_fight_sits_in_turns(ruleset: str) -> None:
    """One shape: the kernel's ``side_won`` is emitted from ``turns.py`` alone in each seed
    ruleset (``base.py`` declares the hook it calls, ``end_of_fight`` or ``winner``)."""
    found = sorted(p.name for p in package(ruleset).glob("*.py")
                   if p.name != "turns.py" and "side_won(" in p.read_text(encoding="utf-8"))
    assert not found, f"{ruleset}: the fight ends outside turns.py, in {found}"


def test_no_ruleset_module_is_over_the_limit() -> None:
    check_module_sizes(SRC / "rulesets")


def test_nothing_is_generated_with_exec() -> None:
    found = [str(p.relative_to(SRC)) for p in SRC.rglob("*.py")
             if re.search(r"\bexec\(", p.read_text(encoding="utf-8"))]
    assert not found, found


def test_no_ruleset_is_named_in_the_web_front_end_or_coverage() -> None:
    # "zones" is also the word for a zoned map (map.js) and a state field: it counts only
    # where a ruleset is compared with it
    names = re.compile(r"\b(polemos|realms)\b|ruleset\W{1,8}['\"]zones['\"]")
    files = [*(SRC / "web").rglob("*.py"), *(SRC / "web").rglob("*.js"),
             *(SRC / "web").rglob("*.html"), SRC / "coverage.py"]
    found = {str(p.relative_to(SRC)): m.group(0) for p in files
             if (m := names.search(p.read_text(encoding="utf-8")))}
    assert not found, found


def topics(ruleset: str) -> tuple[type[Ruleset], list[type[Ruleset]]]:
    """``ruleset``'s class and every other ``Ruleset`` class its package defines (the base and
    the topic classes), found by importing each of its modules."""
    kind = type(load_ruleset(ruleset))
    root = kind.__module__.rsplit(".", 1)[0]
    found: list[type[Ruleset]] = []
    for stem in sorted(modules(ruleset)):
        module = importlib.import_module(f"{root}.{stem}" if stem != "__init__" else root)
        found += [value for value in vars(module).values()
                  if isinstance(value, type) and issubclass(value, Ruleset)
                  and value.__module__ == module.__name__ and value is not kind]
    return kind, found


@pytest.mark.parametrize("ruleset", SEEDS)
def test_the_topics_are_one_chain_that_the_order_does_not_change(ruleset: str) -> None:
    """Each topic class extends the one before it, and the ruleset extends the last: one
    base each, as the compiled build's native classes take (docs/performance.md, 35). Every
    topic the package defines is in the chain, and no two topics define the same name (a
    topic only fills in what ``base.py`` declares), so the order of the chain decides
    nothing."""
    kind, found = topics(ruleset)
    chain = kind.__mro__
    assert found and all(topic in chain for topic in found), \
        f"{ruleset}: topics outside the chain: {[t.__name__ for t in found if t not in chain]}"
    assert all(len(klass.__bases__) == 1 for klass in chain if klass is not object)
    base = next(klass for klass in chain if Ruleset in klass.__bases__)
    owners: dict[str, str] = {}
    for topic in chain[:chain.index(base)]:
        for name in vars(topic):
            if not name.startswith("__"):
                assert name not in owners, f"{ruleset}: {owners.get(name)} and " \
                    f"{topic.__name__} both define {name}"
                owners[name] = topic.__name__
