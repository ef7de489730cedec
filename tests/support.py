"""What tests share: scenario files played once a session (the ``played`` fixture of
tests/conftest.py), the creature templates as their files hold them, and the project's
scripts (``tools/``, ``bench/``) loaded as modules."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import yaml

from arbiter.core import Ruleset, load_ruleset
from arbiter.core.registry import available
from arbiter.coverage import PACKAGE_INVENTORY
from arbiter.scenario import ScenarioResult, run_file


def installed() -> tuple[str, ...]:
    """Every installed ruleset (the ``arbiter.rulesets`` entry points), by name: what the
    guard tests parametrize over, so a ruleset added by docs/extending.md's steps is checked
    by each of them without editing one."""
    return tuple(available())


def seeds() -> tuple[str, ...]:
    """The installed rulesets of the one shape: those whose package ships an
    ``inventory.toml`` (its rule ids); the demo ruleset has none."""
    return tuple(name for name in installed() if has_inventory(load_ruleset(name)))


def marked_rules(test: Callable[..., object]) -> set[str]:
    """The inventory ids of ``test``'s ``@pytest.mark.rules(...)`` markers (pytest keeps a
    decorated function's marks in its ``pytestmark``)."""
    marks = getattr(test, "pytestmark", [])
    return {str(rid) for mark in marks if mark.name == "rules" for rid in mark.args}


def has_inventory(ruleset: Ruleset) -> bool:
    """Whether ``ruleset``'s package holds its own rules inventory."""
    return ruleset.package_dir is not None and (ruleset.package_dir / PACKAGE_INVENTORY).is_file()


class Played:
    """Each scenario file played once a session, as ``arbiter scenario`` plays it
    (``run_file``), for every test that checks something on its result: whether it passed,
    its encounter's log and final state. The tests that play a scenario another way (purity
    checked, under the scratch guard) play it themselves.

    What it gives is shared by the tests of the session: read it, never change it (replay
    its log, through JSON or on copies of its events, into an encounter of your own)."""

    def __init__(self) -> None:
        self._results: dict[Path, ScenarioResult] = {}

    def __call__(self, path: Path) -> ScenarioResult:
        key = path.resolve()
        result = self._results.get(key)
        if result is None:
            result = self._results[key] = run_file(path)
        return result


def templates_in_file(ruleset: Ruleset) -> dict[str, dict[str, object]]:
    """The creature templates written in ``ruleset``'s ``templates.yaml``, read with PyYAML
    alone (the ``schema`` line aside): what ``ruleset.templates`` must hold, all of it."""
    assert ruleset.package_dir is not None, f"{ruleset.name} is not a package"
    data = yaml.safe_load((ruleset.package_dir / "templates.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict) and data, f"{ruleset.name}: templates.yaml holds no templates"
    return {str(name): block for name, block in data.items() if name != "schema"}


ROOT = Path(__file__).resolve().parents[1]


def script(relative: str) -> ModuleType:
    """The project's script ``relative`` (``tools/fast.py``, ``bench/against.py``...) loaded
    as a module, once a session, with its own folder importable (a bench script imports
    ``bench/sim.py`` as ``sim``)."""
    path = ROOT / relative
    name = "arbiter_script_" + relative.removesuffix(".py").replace("/", "_")
    found = sys.modules.get(name)
    if found is not None:
        return found
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (a dataclass of the script looks its module up)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module
