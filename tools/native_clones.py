"""Write ``src/arbiter/native_clones.py``: a copying function for each native class of the
compiled build, read off the dataclass declarations.

    python tools/native_clones.py [--check]

The hot state (``Entity``, ``Condition``, ``EncounterState`` and the rulesets' creatures) is
made of native classes in the compiled build (``@mypyc_attr(allow_interpreted_subclasses=
True)``): compiled code reads their fields at fixed offsets instead of looking them up by
name. A native object has no ``__dict__`` to copy at once, though, and copying it one field
at a time by name cost more than the lookups saved (a realms creature has 60 fields). So
this script writes, for each of those classes, functions that copy one field by field with
plain attribute reads and writes on an instance made by the class's ``__new__``, which mypyc
compiles to direct reads and writes. Not a call of the constructor: the ``__init__`` that
``dataclasses`` writes stays interpreted in a native class, and took a realms creature's 63
arguments as a tuple, then set them one by one by name (8.8% of a compiled realms run):

- ``full_X(v)``: what :func:`arbiter.core.copying.clone` makes of ``v``;
- ``scratch_X(v)``: what a lookahead's scratch copy makes of it (the fields declared
  ``SHARED`` shared, those declared ``COPIED`` copied one level);
- ``fields_X(v)`` / ``build_X(fields)``: its fields as a dict, and back;
- ``ANNOTATIONS[X]``: the annotations of the fields it declares, as its source writes them
  (mypyc erases them to bare classes, and copying and the GM's overrides read them).

How each field is copied comes from ``copying``'s own reading of its annotation
(``_field_kinds``, ``_scratch_kinds``), so the copies are the ones the pure build makes;
``tests/core/test_native_clones.py`` checks that, and that the file is current (``--check``
says whether it is, and changes nothing).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
TARGET = SRC / "arbiter" / "native_clones.py"
SEARCHED = ["arbiter/core/model.py", "arbiter/rulesets/realms/model.py",
            "arbiter/rulesets/zones/model.py", "arbiter/rulesets/polemos/model.py"]
"""The modules whose native dataclasses get copying functions."""


def _is_native(node: ast.ClassDef) -> bool:
    """Decorated ``@mypyc_attr(allow_interpreted_subclasses=True)`` and ``@dataclass``."""
    native = dataclass = False
    for deco in node.decorator_list:
        if (isinstance(deco, ast.Call) and isinstance(deco.func, ast.Name)
                and deco.func.id == "mypyc_attr"):
            native = any(k.arg == "allow_interpreted_subclasses"
                         and isinstance(k.value, ast.Constant) and k.value.value is True
                         for k in deco.keywords)
        target = deco.func if isinstance(deco, ast.Call) else deco
        if isinstance(target, ast.Name) and target.id == "dataclass":
            dataclass = True
    return native and dataclass


def native_classes() -> list[tuple[str, str]]:
    """(module, class name) of every native dataclass in :data:`SEARCHED`, in order."""
    found = []
    for rel in SEARCHED:
        tree = ast.parse((SRC / rel).read_text(encoding="utf-8"))
        module = rel.removesuffix(".py").replace("/", ".")
        found += [(module, node.name) for node in tree.body
                  if isinstance(node, ast.ClassDef) and _is_native(node)]
    return found


def _copy_of(kind: str, name: str) -> str:
    """The expression that copies field ``name`` of ``v`` read as ``kind``."""
    if kind == "atomic":
        return f"v.{name}"
    if kind == "set":
        return f"set(v.{name})"
    if kind in ("dict", "list"):
        return f"v.{name}.copy()"
    return f"clone(v.{name})"


def source() -> str:
    sys.path.insert(0, str(SRC))
    from arbiter.core import copying

    lines = [
        '"""Copying functions for the native classes of the compiled build: written by',
        "``tools/native_clones.py`` from their declarations (do not edit; run it again).",
        "",
        "See that script, and :func:`arbiter.core.copying.native_copiers`, which uses them in",
        'the compiled build only (a class of the pure build has a ``__dict__`` to copy)."""',
        "",
        "from __future__ import annotations",
        "",
        "from collections.abc import Callable",
        "from typing import Any",
        "",
        "from arbiter.core.copying import clone",
    ]
    classes = native_classes()
    aliases: dict[tuple[str, str], str] = {}
    imported: dict[str, list[str]] = {}
    for module, name in classes:
        alias = f"{module.split('.')[-2]}_{name}" if module != "arbiter.core.model" else name
        aliases[module, name] = alias
        imported.setdefault(module, []).append(name if alias == name else f"{name} as {alias}")
    for module in sorted(imported):
        plain = sorted(n for n in imported[module] if " as " not in n)
        if plain:
            lines.append(f"from {module} import {', '.join(plain)}")
        # one line for each name imported under another (ruff's isort: no combined "as")
        lines += [f"from {module} import {n}" for n in sorted(imported[module]) if " as " in n]
    body: list[str] = []
    table: list[str] = []
    declared: list[str] = []
    for module, name in classes:
        kind = getattr(importlib.import_module(module), name)
        alias = aliases[module, name]
        fields = dataclasses.fields(kind)
        if any(not f.init for f in fields):
            raise SystemExit(f"{module}.{name}: a field outside __init__ cannot be copied here")
        names = [f.name for f in fields]
        kinds = copying._field_kinds(kind)  # the pure copy's own reading
        if kinds is None:
            raise SystemExit(f"{module}.{name}: an annotation does not resolve")
        scratch = copying._scratch_kinds(kind, kinds)
        # a class whose scratch copy copies every field as its full copy does (none of its
        # fields is shared or copied shallowly) has the one function for both
        same = all(_copy_of(scratch[n], n) == _copy_of(kinds[n], n) for n in names)
        for label, reading in (("full", kinds),) if same else (("full", kinds),
                                                               ("scratch", scratch)):
            body += ["", "", f"def {label}_{alias}(v: {alias}) -> {alias}:",
                     f"    n: {alias} = {alias}.__new__({alias})"]
            body += [f"    n.{n} = {_copy_of(reading[n], n)}" for n in names]
            body += ["    return n"]
        body += ["", "", f"def fields_{alias}(v: {alias}) -> dict[str, Any]:", "    return {"]
        body += [f'        "{n}": v.{n},' for n in names]
        body += ["    }"]
        body += ["", "", f"def build_{alias}(f: dict[str, Any]) -> {alias}:",
                 f"    n: {alias} = {alias}.__new__({alias})"]
        body += [f'    n.{n} = f["{n}"]' for n in names]
        body += ["    return n"]
        table += [f"    {alias}: (", f"        full_{alias},",
                  f"        {'full' if same else 'scratch'}_{alias},",
                  f"        fields_{alias},", f"        build_{alias},", "    ),"]
        own = inspect.get_annotations(kind)
        declared += [f"    {alias}: {{"]
        for f in fields:
            if f.name in own:
                if not isinstance(own[f.name], str):
                    raise SystemExit(f"{module}.{name}.{f.name}: the module must have "
                                     "'from __future__ import annotations'")
                declared.append(f"        {f.name!r}: {own[f.name]!r},")
        declared += ["    },"]
    lines += body
    lines += ["", "", "COPIERS: dict[type, tuple[Callable[[Any], Any], Callable[[Any], Any],",
              "                         Callable[[Any], dict[str, Any]],",
              "                         Callable[[dict[str, Any]], Any]]] = {"]
    lines += table
    lines += ["}", '"""(full copy, scratch copy, fields, build) of each class, by the class."""',
              "", "ANNOTATIONS: dict[type, dict[str, str]] = {"]
    lines += declared
    lines += ["}",
              '"""The annotations of the fields each class declares, as written in its',
              "source: mypyc keeps only bare classes in a native class's ``__annotations__``",
              "(``dict`` for ``dict[str, int]``, ``type`` for ``str | None``): see",
              '``copying.type_hints``."""', ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="say whether the file is current; change nothing")
    args = parser.parse_args(argv)
    text = source()
    current = TARGET.exists() and TARGET.read_text(encoding="utf-8") == text
    if args.check:
        print(f"{TARGET.relative_to(ROOT)}: {'current' if current else 'stale'}")
        return 0 if current else 1
    if not current:
        TARGET.write_text(text, encoding="utf-8")
    print(f"{TARGET.relative_to(ROOT)}: {'unchanged' if current else 'written'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
