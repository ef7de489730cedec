"""The simulator against an earlier commit, measured in the same run on the same machine.

Issue 36's speed goals are rates per CPU second per core of the compiled build (realms 1,500,
zones 600, Polemos 600), set against what its base measured on the machine of that day
(28b59ca: realms 660, zones 289, Polemos 253). A rate moves with the machine (a slower host
gives the base and this checkout alike half of it), so the figure that carries from one
machine to another is the ratio to the base measured beside it: a goal is met where
this checkout is at least ``goal / base`` times the base in the same run (:data:`GOALS`).

    python bench/against.py [--rev 28b59ca] [--rounds 3] [--seconds 2] [--pure] [--json]
                            [--rulesets polemos,zones,realms]

It unpacks REV's sources (``git archive``) into a cache outside the checkout, compiles them
with REV's own ``tools/fast.py`` (about six minutes the first time, then kept), makes this
checkout's compiled build (``make fast``) when it is stale, and measures both in alternating
rounds: each figure is this checkout's ``bench/sim.py`` (the median of batches of about a
quarter of a second, CPU time) on the ruleset's four-against-four, in a process that imports
that build, and each ruleset's result is the median of its rounds. ``--pure`` measures the
pure packages of both too (the issue asks that the pure build be at least as fast as at its
base).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sim import ENCOUNTERS, FAST, ROOT, fresh_build, rates_in  # (bench/sim.py)

BASE = "28b59ca"
"""Issue 36's base: the commit its figures were measured on."""
GOALS: dict[str, tuple[float, float]] = {
    "realms": (660.0, 1500.0),
    "zones": (289.0, 600.0),
    "polemos": (253.0, 600.0),
}
"""Each ruleset's compiled rate at issue 36's base and its goal, both per CPU second per
core on the machine the issue was measured on: the goal is their ratio, on any machine."""
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arbiter" / "against"


@dataclass(frozen=True)
class Build:
    """A build to measure: its name, what goes first on ``PYTHONPATH``."""

    name: str
    path: Path


def full_rev(rev: str) -> str:
    """The commit ``rev`` names, in full (a clear error when this clone does not have it)."""
    run = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(f"against: no commit {rev!r} in {ROOT} ({run.stderr.strip()})")
    return run.stdout.strip()


def unpacked(commit: str, cache: Path) -> Path:
    """The sources of ``commit`` under ``cache`` (unpacked once)."""
    tree = cache / commit / "tree"
    if (tree / "src" / "arbiter").is_dir():
        return tree
    tree.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=tree.parent) as scratch:
        archive = Path(scratch) / "src.tar"
        subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), commit],
                       check=True)
        staged = Path(scratch) / "tree"
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
                tar.extractall(staged, filter="data")
            else:  # our own archive of our own commit
                tar.extractall(staged)
        staged.rename(tree)
    return tree


def compiled_base(tree: Path) -> Path:
    """``tree``'s compiled build, made by its own ``tools/fast.py`` when stale."""
    out = tree.parent / "fast"
    subprocess.run([sys.executable, str(tree / "tools" / "fast.py"), "--out", str(out),
                    "--if-stale"], check=True, stdout=subprocess.DEVNULL)
    return out


def compiled_here() -> Path:
    """This checkout's compiled build (``build/fast``), made when stale."""
    why = fresh_build(make=True)
    if why is not None:
        raise SystemExit(f"against: {why}")
    return FAST


def rate(build: Build, encounter: Path, seconds: float) -> float:
    """Encounters per CPU second of one core: this checkout's ``bench/sim.py`` on
    ``encounter``, in a process that imports ``build``."""
    rates = rates_in([str(build.path)], [encounter], seconds)
    if isinstance(rates, str):
        raise SystemExit(f"against: {build.name} on {encounter.name}: {rates}")
    return rates[encounter.name]


def compare(pairs: list[tuple[str, Build, Build]], rulesets: list[str], rounds: int,
            seconds: float) -> list[dict[str, Any]]:
    """For each ruleset and each (kind, base, here) pair: both builds measured in
    alternating rounds, their medians and ratio."""
    figures: dict[tuple[str, str, str], list[float]] = {}
    for index in range(rounds):
        for ruleset in rulesets:
            encounter = ENCOUNTERS / f"{ruleset}-4v4.yaml"
            for kind, base, here in pairs:
                # the two builds in turn, the first of them changing each round
                order = (base, here) if index % 2 == 0 else (here, base)
                for build in order:
                    value = rate(build, encounter, seconds)
                    figures.setdefault((ruleset, kind, build.name), []).append(value)
                    print(f"round {index + 1}: {ruleset} {kind} {build.name}: "
                          f"{value:,.1f}/s", file=sys.stderr, flush=True)
    rows: list[dict[str, Any]] = []
    for ruleset in rulesets:
        for kind, base, here in pairs:
            was = statistics.median(figures[(ruleset, kind, base.name)])
            now = statistics.median(figures[(ruleset, kind, here.name)])
            row: dict[str, Any] = {
                "ruleset": ruleset, "build": kind, "base": round(was, 1), "here": round(now, 1),
                "ratio": round(now / was, 2),
                "base_rounds": figures[(ruleset, kind, base.name)],
                "here_rounds": figures[(ruleset, kind, here.name)]}
            if kind == "compiled" and ruleset in GOALS:
                then, goal = GOALS[ruleset]
                row["goal_ratio"] = round(goal / then, 2)
                row["met"] = now / was >= goal / then
            elif kind == "pure":
                row["goal_ratio"] = 1.0  # at least as fast as at the base
                row["met"] = now >= was
            rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default=BASE, help=f"the commit to compare with ({BASE})")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (3)")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="CPU seconds of each measurement (2)")
    parser.add_argument("--rulesets", default=",".join(GOALS),
                        help="comma-separated (polemos,zones,realms)")
    parser.add_argument("--pure", action="store_true", help="the pure packages too")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args(argv)
    rulesets = [name.strip() for name in args.rulesets.split(",") if name.strip()]
    unknown = [name for name in rulesets if not (ENCOUNTERS / f"{name}-4v4.yaml").is_file()]
    if unknown:
        raise SystemExit(f"against: no four-against-four for {', '.join(unknown)} "
                         f"in {ENCOUNTERS}")
    if args.rounds < 1 or args.seconds <= 0:
        raise SystemExit("against: --rounds at least 1 and --seconds above 0")
    commit = full_rev(args.rev)
    tree = unpacked(commit, CACHE)
    pairs = [("compiled", Build(f"{args.rev} compiled", compiled_base(tree)),
              Build("here compiled", compiled_here()))]
    if args.pure:
        pairs.append(("pure", Build(f"{args.rev} pure", tree / "src"),
                      Build("here pure", ROOT / "src")))
    load = os.getloadavg()[0]
    rows = compare(pairs, rulesets, args.rounds, args.seconds)
    if args.json:
        print(json.dumps({"rev": commit, "load": round(load, 2), "rows": rows}, indent=2))
        return 0
    print(f"against {args.rev} ({commit[:12]}), {args.rounds} alternating rounds, "
          f"load {load:.2f}; encounters per CPU second per core, medians")
    for row in rows:
        goal = (f"; goal ×{row['goal_ratio']:.2f}: {'met' if row['met'] else 'NOT met'}"
                if "goal_ratio" in row else "")
        print(f"  {row['ruleset']:8} {row['build']:8} {row['base']:8,.1f} → "
              f"{row['here']:8,.1f}  ×{row['ratio']:.2f}{goal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
