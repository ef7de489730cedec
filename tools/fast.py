"""The compiled build (``make fast``): the kernel, the rulesets and the simulator's hot path
compiled with mypyc into ``build/fast/``, beside the pure-Python package, which stays the
default and the reference.

    python tools/fast.py [--out build/fast] [--jobs N] [--if-stale]

It copies ``src/arbiter`` to ``OUT/arbiter`` and compiles the modules of :data:`COMPILED`
there in place (a compiled module's ``.so`` sits beside its ``.py``, and Python imports the
``.so``). Use it with ``PYTHONPATH=build/fast``: ``bench/sim.py`` measures both builds in one
run, and ``tests/sim/test_compiled.py`` checks that both write the same logs.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMPILED = [
    "arbiter/core",
    "arbiter/dice/parser.py",
    "arbiter/dice/roller.py",
    "arbiter/rulesets/realms",
    "arbiter/rulesets/zones",
    "arbiter/rulesets/polemos",
    "arbiter/sim/engine.py",
    "arbiter/sim/tactics",
]
"""What mypyc compiles (packages or modules, relative to the build's root). Everything else
(the server, the console, the CLI, the scenario runner) stays interpreted."""

EXCLUDED = {
    "arbiter/dice/ast.py",  # the parser's drafts change a node's __class__ (not native)
    "arbiter/core/catalogue.py",  # builds msgspec types at run time from typing forms
    "arbiter/core/deferred.py",  # a Mapping: compiled, a metaclass conflict
    "arbiter/core/registry.py",  # isinstance(x, Ruleset): compiled, a closed-world check
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
            if rel not in EXCLUDED and file.name != "__init__.py":  # (see below)
                found.append(rel)
    return found


def source_hash() -> str:
    """What a build is made from: every source file of the package, this script and the
    mypy (mypyc) version. ``OUT/STAMP`` holds it; a build whose stamp differs is stale."""
    import mypy.version

    digest = hashlib.sha256(mypy.version.__version__.encode())
    for file in [*sorted((ROOT / "src" / "arbiter").rglob("*.py")), Path(__file__)]:
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


def build(out: Path, jobs: int) -> None:
    from mypyc.build import mypycify
    from setuptools import setup

    target = out / "arbiter"
    shutil.copytree(ROOT / "src" / "arbiter", target, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    os.chdir(out)
    files = sources(out)
    wanted = {Path(f).with_suffix("").as_posix() for f in files}
    for stale in target.rglob("*"):  # what an earlier build compiled or copied, gone since
        rel = stale.relative_to(out)
        gone = (rel.as_posix().split(".")[0] not in wanted if stale.suffix == ".so"
                else stale.suffix == ".py" and not (ROOT / "src" / rel).exists())
        if gone:
            stale.unlink()
    began = time.perf_counter()
    # the project's mypy settings wherever ``out`` is (mypy looks for them from the working
    # directory up, and finds none from a directory outside the project)
    config = ["--config-file", str(ROOT / "pyproject.toml")]
    modules = mypycify([*config, *files], opt_level=os.environ.get("MYPYC_OPT_LEVEL", "3"),
                       debug_level="0")
    setup(name="arbiter-fast", ext_modules=modules,
          script_args=["build_ext", "--inplace", "--parallel", str(jobs), "--quiet"])
    (out / "STAMP").write_text(source_hash() + "\n", encoding="utf-8")
    print(f"compiled {len(files)} modules into {target} in "
          f"{time.perf_counter() - began:.0f} s", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "fast")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--if-stale", action="store_true",
                        help="build only when the sources changed since the last build")
    args = parser.parse_args(argv)
    lack = missing()
    if lack is not None:
        print(f"cannot compile: {lack}", file=sys.stderr)
        return 2
    out = args.out.resolve()
    if args.if_stale and fresh(out):
        print(f"{out} is up to date", file=sys.stderr)
        return 0
    out.mkdir(parents=True, exist_ok=True)
    build(out, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
