"""What the compiled build (``make fast``, docs/performance.md) needs of the sources, checked
without a compiler: ``tests/sim/test_compiled.py`` builds and plays, but skips on a machine
without gcc, and a build takes minutes. A broken promise here fails in a second."""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

from ..support import script

ROOT = Path(__file__).resolve().parents[2]


def _compiled_files() -> list[Path]:
    return [ROOT / "src" / rel for rel in script("tools/fast.py").sources(ROOT / "src")]


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


def _allows_subclasses(node: ast.ClassDef) -> bool:
    return any(isinstance(deco, ast.Call) and getattr(deco.func, "id", "") == "mypyc_attr"
               and any(k.arg == "allow_interpreted_subclasses" and isinstance(k.value, ast.Constant)
                       and k.value.value is True for k in deco.keywords)
               for deco in node.decorator_list)


def test_a_class_of_more_than_one_base_is_declared_non_native() -> None:
    """mypyc's native classes take one base that is not a trait: a class of two is
    declared non-native."""
    missing = []
    for path in FILES:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and len(node.bases) > 1 and not _non_native(node):
                missing.append(f"{path.name}: {node.name}")
    assert not missing, missing


def test_the_ruleset_classes_are_native_on_one_base_and_open_to_subclasses() -> None:
    """``Ruleset``, each ``<X>Base``, each topic and each ruleset class of the compiled
    build is native (its own methods called through its vtable), on one base (a ruleset's
    topics are a chain, docs/extending.md), and allows interpreted subclasses: the demo
    ruleset and a test's subclass extend them, and their overrides are honoured."""
    from arbiter.core import Ruleset

    found, wrong = [], []
    for path in FILES:
        name = ".".join(path.relative_to(ROOT / "src").with_suffix("").parts)
        module = importlib.import_module(name)
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.ClassDef):
                continue
            kind = getattr(module, node.name, None)
            if isinstance(kind, type) and issubclass(kind, Ruleset):
                found.append(kind.__name__)
                if _non_native(node) or not _allows_subclasses(node) or len(node.bases) > 1:
                    wrong.append(f"{path.name}: {node.name}")
    assert {"Ruleset", "RealmsRuleset", "ZonesRuleset", "PolemosRuleset"} <= set(found)
    assert not wrong, wrong


def test_no_function_names_two_kinds_of_exception_alike() -> None:
    """``except A as err`` and ``except B as err`` in one function: mypyc types ``err`` by
    the first clause and raises ``TypeError`` when the second catches a ``B`` that is not an
    ``A`` (a batch with an unknown creature was a 500 in the compiled build). Each clause
    names its own."""
    found = []
    for path in FILES:
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            kinds: dict[str, set[str]] = {}
            for node in ast.walk(fn):
                if isinstance(node, ast.ExceptHandler) and node.name:
                    kind = ast.unparse(node.type) if node.type else "BaseException"
                    kinds.setdefault(node.name, set()).add(kind)
            found += [f"{path.name}:{fn.lineno} {fn.name}: {name} for {sorted(kind)}"
                      for name, kind in kinds.items() if len(kind) > 1]
    assert not found, found


def _entity_map(node: ast.expr) -> bool:
    """``state.entities``, ``entities``: an encounter's map of entities, as the code names it."""
    return (isinstance(node, ast.Attribute) and node.attr == "entities") or (
        isinstance(node, ast.Name) and node.id == "entities")


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT / "src")))
def test_no_compiled_code_reads_an_entity_map_by_get(path: Path) -> None:
    """Compiled, ``get`` on a dict reads its table past a subclass's own ``get`` (mypyc's
    ``CPyDict_Get``), so on a lookahead's scratch state it would hand out an entity without
    the copy ``copying.WritingEntities`` takes: an ``apply_*`` would change the state the
    lookahead came from. An entity is read by ``model.entity_at`` (or ``[]``), which the
    map's own class reads; ``copying.peek`` reads one without a copy on purpose."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [node.lineno for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
             and node.func.attr == "get" and _entity_map(node.func.value)
             and not (path.name == "model.py" and path.parent.name == "core")]
    assert not found, f"{path.name}: entities.get at lines {found}: use model.entity_at"
