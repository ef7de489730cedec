"""What the compiled build (``make fast``, docs/performance.md) needs of the sources, checked
without a compiler: ``tests/sim/test_compiled.py`` builds and plays, but skips on a machine
without gcc, and a build takes minutes. A broken promise here fails in a second."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _compiled_files() -> list[Path]:
    spec = importlib.util.spec_from_file_location("arbiter_tools_fast", ROOT / "tools" / "fast.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [ROOT / "src" / rel for rel in module.sources(ROOT / "src")]


FILES = _compiled_files()


def _non_native(node: ast.ClassDef) -> bool:
    for deco in node.decorator_list:
        if (isinstance(deco, ast.Call) and getattr(deco.func, "id", "") == "mypyc_attr"
                and any(k.arg == "native_class" and isinstance(k.value, ast.Constant)
                        and k.value.value is False for k in deco.keywords)):
            return True
    return False


def _locals_of(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    names |= {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _captures(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """Nested functions and lambdas of ``fn`` that read a local of ``fn``."""
    outer = _locals_of(fn)
    found = []
    for node in ast.walk(fn):
        if node is fn or not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef
                                        | ast.Lambda):
            continue
        own = {a.arg for a in [*node.args.posonlyargs, *node.args.args,
                               *node.args.kwonlyargs]}
        used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Load)} - own
        if used & outer:
            kind = "lambda" if isinstance(node, ast.Lambda) else f"def {node.name}"
            found.append(f"{kind} (line {node.lineno}) reads {sorted(used & outer)}")
    return found


def test_the_build_lists_the_kernel_and_the_rulesets() -> None:
    rel = {f.relative_to(ROOT / "src").as_posix() for f in FILES}
    for module in ("arbiter/core/ruleset.py", "arbiter/core/copying.py",
                   "arbiter/rulesets/realms/pipeline.py", "arbiter/rulesets/zones/attacks.py",
                   "arbiter/rulesets/polemos/injuries.py", "arbiter/sim/engine.py"):
        assert module in rel


@pytest.mark.parametrize("path", FILES, ids=[f.relative_to(ROOT / "src").as_posix()
                                             for f in FILES])
def test_no_method_of_a_non_native_class_holds_a_closure(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and _non_native(node):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    problems += [f"{node.name}.{item.name}: {p}" for p in _captures(item)]
    assert not problems, ("mypyc cannot compile a closure in a method of a non-native class "
                          "(use a module function, functools.partial or a dict's __getitem__):"
                          "\n  " + "\n  ".join(problems))


def test_every_ruleset_class_is_declared_non_native() -> None:
    """A class on a ruleset's chain of mixins must be non-native: mypyc's native classes
    take one non-trait base."""
    missing = []
    for path in FILES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
            if (bases & {"Ruleset", "RealmsBase", "ZonesBase", "PolemosBase"}
                    or len(bases) > 1) and not _non_native(node):
                if node.name.endswith("Economy") or bases <= {"NamedTuple", "Generic"}:
                    continue
                missing.append(f"{path.name}: {node.name}")
    assert not missing, missing
