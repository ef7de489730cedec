"""The compiled build (``make fast``): the kernel, the rulesets and the simulator's hot path
compiled with mypyc into ``build/fast/``, beside the pure-Python package, which stays the
default and the reference.

    python tools/fast.py [--out build/fast] [--jobs N]

It copies ``src/arbiter`` to ``OUT/arbiter`` and compiles the modules of :data:`COMPILED`
there in place (a compiled module's ``.so`` sits beside its ``.py``, and Python imports the
``.so``). Use it with ``PYTHONPATH=build/fast``: ``bench/sim.py`` measures both builds in one
run, and ``tests/sim/test_compiled.py`` checks that both write the same logs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMPILED = [
    "arbiter/core",
    "arbiter/dice/parser.py",
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
    "arbiter/dice/roller.py",  # makes its results with object.__new__ and slot stores
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
        if stale.suffix == ".so" and rel.as_posix().split(".")[0] not in wanted:
            stale.unlink()
        elif stale.suffix == ".py" and not (ROOT / "src" / rel).exists():
            stale.unlink()
    began = time.perf_counter()
    modules = mypycify(files, opt_level=os.environ.get("MYPYC_OPT_LEVEL", "3"),
                       debug_level="0")
    setup(name="arbiter-fast", ext_modules=modules,
          script_args=["build_ext", "--inplace", "--parallel", str(jobs), "--quiet"])
    print(f"compiled {len(files)} modules into {target} in "
          f"{time.perf_counter() - began:.0f} s", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "fast")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    build(args.out.resolve(), args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
