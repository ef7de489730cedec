"""The compiled build (``make fast``): the kernel, the rulesets and the simulator's hot path
compiled with mypyc into ``build/fast/``, beside the pure-Python package, which stays the
default and the reference.

    python tools/fast.py [--out build/fast] [--jobs N] [--if-stale]

It copies ``src/arbiter`` to ``OUT/arbiter`` and compiles the modules of :data:`COMPILED`
there in place (a compiled module's ``.so`` sits beside its ``.py``, and Python imports the
``.so``). Use it with ``PYTHONPATH=build/fast``: ``bench/sim.py`` measures both builds in one
run, and ``tests/sim/test_compiled.py`` checks that both write the same logs.

A build is known by the hash of what it is made from (:func:`source_hash`: the compiled
modules and every module of the package they import, the mypy settings and versions, this
script), and kept under that hash in a cache outside the checkout (:data:`CACHE`): a fresh
clone of sources built before, on this machine, copies the build in seconds instead of
compiling for minutes. The package's other files (the server, the console...) are copied
into ``OUT`` as they are each time, so changing them compiles nothing.
"""

from __future__ import annotations

import argparse
import ast
import fcntl
import hashlib
import importlib.metadata
import json
import os
import shutil
import sys
import sysconfig
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "arbiter"
CACHE = Path(os.environ.get("ARBITER_FAST_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
             / "arbiter" / "fast")
"""Where builds are kept by their :func:`source_hash` (``ARBITER_FAST_CACHE`` to move it)."""
KEPT = 4
"""How many builds the cache keeps (the most recently used; about 11 MB each)."""

COMPILED = [
    "arbiter/core",
    "arbiter/dice/parser.py",
    "arbiter/dice/roller.py",
    "arbiter/dice/sources.py",
    "arbiter/rulesets/realms",
    "arbiter/rulesets/zones",
    "arbiter/rulesets/polemos",
    "arbiter/sim/engine.py",
    "arbiter/sim/hooks.py",
    "arbiter/sim/tactics",
    "arbiter/native_clones.py",
]
"""What mypyc compiles (packages or modules, relative to the build's root). Everything else
(the server, the console, the CLI, the scenario runner) stays interpreted."""

EXCLUDED = {
    "arbiter/dice/ast.py",  # the parser's drafts change a node's __class__ (not native)
    "arbiter/core/catalogue.py",  # builds msgspec types at run time from typing forms
    "arbiter/core/registry.py",  # isinstance(x, Ruleset): compiled, a closed-world check
    "arbiter/core/conditions.py",  # msgspec Structs (a metaclass): the conditions.toml schema
    "arbiter/core/payloads.py",  # builds TypedDicts at run time from typing forms
    "arbiter/core/kernel_payloads.py",  # TypedDicts only: nothing to run
}
"""Modules under :data:`COMPILED` left interpreted. So is every ``__init__.py``: they only
import, and a compiled package ``__init__`` with per-module extensions imports itself again
while it loads (RecursionError)."""


def sources(root: Path) -> list[str]:
    found: list[str] = []
    for entry in COMPILED:
        path = root / entry
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            rel = file.relative_to(root).as_posix()
            if rel not in EXCLUDED and file.name not in ("__init__.py", "payloads.py"):
                # (__init__: see below; a ruleset's payloads.py holds TypedDicts only)
                found.append(rel)
    return found


def _module_file(name: str) -> Path | None:
    """The file of module ``arbiter.x.y`` under src/ (a package's ``__init__.py``)."""
    parts = name.split(".")
    if parts[0] != "arbiter":
        return None
    base = PACKAGE.parent.joinpath(*parts)
    for file in (base.with_suffix(".py"), base / "__init__.py"):
        if file.is_file():
            return file
    return None


def _imports(file: Path) -> list[str]:
    """The modules ``file`` imports anywhere (at the top, in a function, under
    ``TYPE_CHECKING``), relative imports made absolute, and ``module.name`` for every
    ``from module import name`` (it may be a submodule)."""
    rel = file.relative_to(PACKAGE.parent).with_suffix("")
    package = list(rel.parts if file.name == "__init__.py" else rel.parts[:-1])
    if file.name == "__init__.py":
        package = package[:-1]
    names: list[str] = []
    for node in ast.walk(ast.parse(file.read_bytes(), str(file))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            names.append(module)
            names += [f"{module}.{alias.name}" for alias in node.names]  # submodules
    return names


def _imported(file: Path) -> set[Path]:
    """The package's files that ``file`` imports, with the ``__init__.py`` of every package
    on the way: more than mypy reads for it, never less."""
    found: set[Path] = set()
    for name in _imports(file):
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):
            module_file = _module_file(".".join(parts[:depth]))
            if module_file is not None:
                found.add(module_file)
    return found


def inputs() -> list[Path]:
    """What mypyc reads to compile :data:`COMPILED`: those modules and, transitively, every
    module of the package they import."""
    todo = [PACKAGE.parent / rel for rel in sources(PACKAGE.parent)]
    todo += {folder / "__init__.py" for file in todo for folder in file.parents
             if folder.is_relative_to(PACKAGE) and (folder / "__init__.py").is_file()}
    seen: set[Path] = set()
    while todo:
        file = todo.pop()
        if file not in seen:
            seen.add(file)
            todo += _imported(file)
    return sorted(seen)


def _versions(files: list[Path]) -> list[str]:
    """``name==version`` of every installed distribution that ``files`` import from (their
    types are part of what mypyc compiles), and of mypy and mypyc's own."""
    provides = importlib.metadata.packages_distributions()
    tops = {name.split(".")[0] for file in files for name in _imports(file)}
    names = {dist for top in tops for dist in provides.get(top, [])}
    names |= {"mypy", "mypy_extensions", "setuptools"}
    out = []
    for name in sorted(names):
        try:
            out.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{name} (not installed)")
    return out


def source_hash() -> str:
    """What a build is made from: the files mypyc reads (:func:`inputs`), the project's mypy
    settings, the versions of Python and of the distributions those files import from (and
    of mypy), the optimisation level and this script. ``OUT/STAMP`` holds it; a build whose
    stamp differs is stale."""
    with (ROOT / "pyproject.toml").open("rb") as fh:
        settings = tomllib.load(fh).get("tool", {}).get("mypy", {})
    files = inputs()
    digest = hashlib.sha256(json.dumps(
        [sys.version, sysconfig.get_platform(), settings, _versions(files),
         os.environ.get("MYPYC_OPT_LEVEL", "3")], sort_keys=True).encode())
    for file in [*files, Path(__file__).resolve()]:
        digest.update(file.relative_to(ROOT).as_posix().encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


def fresh(out: Path) -> bool:
    """The build in ``out`` is of the sources as they are now."""
    stamp = out / "STAMP"
    return stamp.exists() and stamp.read_text(encoding="utf-8").strip() == source_hash()


def missing() -> str | None:
    """What this machine lacks to compile (a C compiler, the Python headers, mypyc), or
    None when it can."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler!r} is not on the PATH)"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.exists():
        return f"no Python headers ({headers} is missing)"
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypyc is not installed (pip install -e '.[dev]')"
    return None


def _compiled(out: Path) -> list[Path]:
    """The compiled files of the build in ``out`` (its intermediate ``build/`` aside)."""
    return sorted(p for p in out.rglob("*.so") if p.relative_to(out).parts[0] != "build")


def copy_package(out: Path) -> None:
    """``src/arbiter`` into ``OUT/arbiter`` as it is now, and nothing that has left it: the
    compiled files stay only for the modules compiled."""
    target = out / "arbiter"
    shutil.copytree(PACKAGE, target, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    wanted = {Path(f).with_suffix("").as_posix() for f in sources(out)}
    for stale in list(target.rglob("*")):  # what an earlier build compiled or copied, gone since
        rel = stale.relative_to(out)
        gone = (rel.as_posix().split(".")[0] not in wanted if stale.suffix == ".so"
                else stale.is_file() and not (ROOT / "src" / rel).exists()
                and "__pycache__" not in rel.parts)
        if gone:
            stale.unlink()


def build(out: Path, jobs: int) -> None:
    from mypyc.build import mypycify
    from setuptools import setup

    copy_package(out)
    for old in out.glob("*__mypyc*.so"):  # an earlier build's shared library
        old.unlink()
    here = Path.cwd()
    os.chdir(out)
    files = sources(out)
    began = time.perf_counter()
    # the project's mypy settings wherever ``out`` is (mypy looks for them from the working
    # directory up, and finds none from a directory outside the project)
    config = ["--config-file", str(ROOT / "pyproject.toml")]
    try:
        modules = mypycify([*config, *files], opt_level=os.environ.get("MYPYC_OPT_LEVEL", "3"),
                           debug_level="0")
        setup(name="arbiter-fast", ext_modules=modules,
              script_args=["build_ext", "--inplace", "--parallel", str(jobs), "--quiet"])
    finally:
        os.chdir(here)
    print(f"compiled {len(files)} modules into {out / 'arbiter'} in "
          f"{time.perf_counter() - began:.0f} s", file=sys.stderr)


def keep(out: Path, digest: str, cache: Path) -> None:
    """Put the build in ``out`` into the cache under ``digest`` (complete or not at all),
    leaving the :data:`KEPT` most recently used builds there."""
    entry = cache / digest
    if (entry / "STAMP").exists():
        return
    partial = cache / f".{digest}.{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    for file in _compiled(out):
        dest = partial / file.relative_to(out)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(file, dest)
    (partial / "STAMP").write_text(digest + "\n", encoding="utf-8")
    try:
        partial.rename(entry)
    except OSError:  # another process kept the same build meanwhile
        shutil.rmtree(partial, ignore_errors=True)
    builds = sorted((p for p in cache.iterdir() if (p / "STAMP").exists()),
                    key=lambda p: (p / "STAMP").stat().st_mtime, reverse=True)
    for old in builds[KEPT:]:
        shutil.rmtree(old, ignore_errors=True)


def restore(out: Path, digest: str, cache: Path) -> bool:
    """Copy the build kept under ``digest`` into ``out`` (its package copied first);
    False when the cache has none."""
    entry = cache / digest
    if not (entry / "STAMP").exists():
        return False
    copy_package(out)
    kept = {p.relative_to(entry) for p in entry.rglob("*.so")}
    for file in _compiled(out):
        if file.relative_to(out) not in kept:
            file.unlink()
    for rel in sorted(kept):
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(entry / rel, out / rel)
    os.utime(entry / "STAMP")  # recently used
    return True


def ensure(out: Path, jobs: int, cache: Path = CACHE) -> str:
    """The build of the sources as they are now in ``out``: already there, copied from the
    cache, or compiled (and kept in the cache). Says which."""
    digest = source_hash()
    out.mkdir(parents=True, exist_ok=True)
    stamp = out / "STAMP"
    if stamp.exists() and stamp.read_text(encoding="utf-8").strip() == digest:
        copy_package(out)
        how = "up to date"
    elif restore(out, digest, cache):
        how = f"copied from the cache ({cache / digest})"
    else:
        stamp.unlink(missing_ok=True)
        build(out, jobs)
        how = "compiled"
    stamp.write_text(digest + "\n", encoding="utf-8")
    try:
        cache.mkdir(parents=True, exist_ok=True)
        keep(out, digest, cache)
    except OSError as err:  # a read-only home: the build in ``out`` still serves
        print(f"the build is not kept in {cache}: {err}", file=sys.stderr)
    return how


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "fast")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--if-stale", action="store_true",
                        help="build only when the sources changed since the last build (the "
                             "build kept in the cache for these sources is copied instead)")
    parser.add_argument("--cache", type=Path, default=CACHE,
                        help=f"where builds are kept by the hash of their sources ({CACHE})")
    args = parser.parse_args(argv)
    lack = missing()
    if lack is not None:
        print(f"cannot compile: {lack}", file=sys.stderr)
        return 2
    out = args.out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    # one build of ``out`` at a time: ``make test`` starts one early, beside the checks, and
    # the compiled-build tests ask again; the second waits, then finds it up to date
    with open(out.parent / f".{out.name}.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not args.if_stale:
            (out / "STAMP").unlink(missing_ok=True)
            shutil.rmtree(args.cache.resolve() / source_hash(), ignore_errors=True)
        how = ensure(out, args.jobs, args.cache.resolve())
    print(f"{out}: {how}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
