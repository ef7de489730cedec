"""Simulation benchmark: complete encounters per second per core for every encounter file
under ``scenarios/encounters/`` whose ruleset loads, on the pure build and on the compiled
one (``make fast``), and the speed-up from 1 to 2 local worker processes. ``--profile``
prints the top entries of a cProfile of the hot path.

    python bench/sim.py [--json] [--seconds S] [--profile [N]] [--compiled auto|build|no]
                        [--calls] [FILE...]

``per_s_per_core`` is measured in one process (as ``--workers 1``) over at least
``--seconds`` seconds of CPU time; ``compiled_per_s_per_core`` the same in a process that
imports the compiled build (``PYTHONPATH=build/fast``; ``null`` when there is no fresh
build: ``--compiled build`` makes one first). ``speedup_2_workers`` is the wall time on one
worker over the wall time on two for the same runs (the pool's start-up included, as a user
meets it). ``--calls`` adds the Python function calls per encounter (cProfile's count, pure
build). A ruleset's own figure is that of its ``<ruleset>-4v4.yaml`` when there is one, else
the mean of its files (every file is listed under ``files``).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from arbiter.scenario import ScenarioError
from arbiter.sim import Job, SimError, Simulator, load_encounter, prepare, simulate

ROOT = Path(__file__).resolve().parents[1]
ENCOUNTERS = ROOT / "scenarios" / "encounters"
FAST = ROOT / "build" / "fast"


def jobs(files: list[Path]) -> tuple[list[tuple[Path, Job]], list[str]]:
    found, skipped = [], []
    for path in files:
        try:
            job = prepare(load_encounter(path))
            simulate(job, 20, workers=1)  # refuses an encounter that cannot end
            found.append((path, job))
        except (ScenarioError, SimError) as err:
            skipped.append(f"{path.name}: {err}")
        except Exception as err:  # a ruleset still being written
            skipped.append(f"{path.name}: {type(err).__name__}: {err}")
    return found, skipped


def per_second(job: Job, seconds: float) -> tuple[float, int]:
    """Runs per CPU second of this process: the median over batches of about a quarter of a
    second each, measured for at least ``seconds`` of CPU time after a warm-up, and the runs
    played. CPU time, not wall time, so that other work on a shared machine does not count;
    the median, so that a batch the machine slowed (its caches taken by another process) does
    not pull the figure down as it would a mean."""
    sim = Simulator(job)
    sim.play_batch(0, 5)
    start, runs = 5, 5
    began = time.process_time()
    sim.play_batch(start, start + runs)
    first = max(time.process_time() - began, 1e-4)
    start += runs
    size = max(5, round(runs * 0.25 / first))  # runs in a batch of about 0.25 s
    rates: list[float] = []
    elapsed, done = 0.0, 0
    while elapsed < seconds or len(rates) < 3:
        began = time.process_time()
        sim.play_batch(start, start + size)
        took = max(time.process_time() - began, 1e-6)
        rates.append(size / took)
        elapsed += took
        start += size
        done += size
    return statistics.median(rates), done


def speedup(job: Job, runs: int) -> float:
    began = time.perf_counter()
    simulate(job, runs, workers=1)
    one = time.perf_counter() - began
    began = time.perf_counter()
    simulate(job, runs, workers=2)
    two = time.perf_counter() - began
    return one / two


def _profiled(job: Job, runs: int, stream: io.StringIO | None = None) -> pstats.Stats:
    """cProfile's statistics of ``runs`` encounters, after a warm-up of five."""
    sim = Simulator(job)
    sim.play_batch(0, 5)
    profiler = cProfile.Profile()
    profiler.enable()
    sim.play_batch(5, 5 + runs)
    profiler.disable()
    return pstats.Stats(profiler, stream=stream)


def profile(job: Job, runs: int, top: int) -> str:
    out = io.StringIO()
    _profiled(job, runs, out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def calls_per_encounter(job: Job, runs: int = 40) -> float:
    """Python function calls per encounter, as cProfile counts them."""
    total: int = _profiled(job, runs).total_calls  # type: ignore[attr-defined]
    return total / runs


def fresh_build(make: bool) -> str | None:
    """None when the compiled build (``build/fast``) is fresh, made first when stale and
    ``make``; else why there is none."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import fast  # tools/fast.py
    finally:
        sys.path.pop(0)
    if fast.fresh(FAST):
        return None
    if not make:
        return "no fresh compiled build in build/fast (make fast, or --compiled build)"
    lack = fast.missing()
    if lack is not None:
        return f"cannot compile: {lack}"
    # in a process of its own whose output goes to stderr: mypyc, setuptools and the C
    # compiler write to stdout, which ``--json`` keeps for the report
    made = subprocess.run([sys.executable, str(ROOT / "tools" / "fast.py"), "--if-stale"],
                          stdout=sys.stderr, check=False)
    return None if made.returncode == 0 else f"the build failed (exit {made.returncode})"


def rates_in(path: list[str], files: list[Path], seconds: float) -> dict[str, float] | str:
    """Each file's encounters per second per core, measured by this script in a process
    that imports the package from ``path`` first (a build's directory); or why there is no
    figure."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "ARBITER_BENCH_PURE_ONLY": "1"}
    run = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--json",
                          "--seconds", str(seconds), "--compiled", "no",
                          *[str(f) for f in files]],
                         env=env, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        return f"the run on {os.pathsep.join(path)} failed: {run.stderr.strip()[-500:]}"
    report = json.loads(run.stdout)
    return {name: row["per_s_per_core"] for entry in report.values()
            for name, row in entry["files"].items()}


def compiled_rates(files: list[Path], seconds: float, mode: str) -> dict[str, float] | str:
    """Each file's encounters per second per core on the compiled build, measured in a
    process that imports it; or why there is no figure."""
    if mode == "no":
        return "not asked (--compiled no)"
    why = fresh_build(mode == "build")
    if why is not None:
        return why
    return rates_in([str(FAST), str(ROOT)], files, seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="encounter files (default: all)")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time to measure each file on one core")
    parser.add_argument("--profile", type=int, nargs="?", const=15, default=0,
                        help="print the top N cProfile entries of each file's hot path")
    parser.add_argument("--compiled", choices=("auto", "build", "no"), default="auto",
                        help="measure the compiled build too: when fresh (auto), after "
                             "building it when stale (build), or not (no)")
    parser.add_argument("--calls", action="store_true",
                        help="count Python function calls per encounter (pure build)")
    args = parser.parse_args(argv)
    inner = os.environ.get("ARBITER_BENCH_PURE_ONLY") == "1"  # the compiled half's process
    files = args.files or sorted(ENCOUNTERS.glob("*.y*ml"))
    found, skipped = jobs(files)
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    per_file: dict[str, dict[str, Any]] = {}
    for path, job in found:
        rate, runs = per_second(job, args.seconds)
        row: dict[str, Any] = {"ruleset": job.ruleset, "per_s_per_core": round(rate, 1),
                               "runs": runs}
        if not inner:
            gain = speedup(job, max(200, int(rate * args.seconds)))
            row["speedup_2_workers"] = round(gain, 2)
        if args.calls:
            row["calls_per_encounter"] = round(calls_per_encounter(job))
        per_file[path.name] = row
        if not args.json:
            calls = f", {row['calls_per_encounter']:,} calls/encounter" if args.calls else ""
            workers = (f", 1 → 2 workers: ×{row['speedup_2_workers']:.2f}"
                       if "speedup_2_workers" in row else "")
            print(f"{path.name} ({job.ruleset}): {rate:,.0f} encounters/s per core "
                  f"({runs:,} runs){workers}{calls}", flush=True)
        if args.profile:
            print(profile(job, max(50, int(rate)), args.profile), file=sys.stderr)
    compiled = compiled_rates([p for p, _ in found], args.seconds,
                              "no" if inner else args.compiled)
    if isinstance(compiled, str) and not inner and not args.json:
        print(f"compiled build: {compiled}", flush=True)
    for name, row in per_file.items():
        rate_c = compiled.get(name) if isinstance(compiled, dict) else None
        row["compiled_per_s_per_core"] = rate_c
        if rate_c is not None and not args.json:
            print(f"{name} compiled: {rate_c:,.0f} encounters/s per core "
                  f"(×{rate_c / row['per_s_per_core']:.2f} the pure build)", flush=True)
    report: dict[str, dict[str, Any]] = {}
    for name, row in per_file.items():
        entry = report.setdefault(row["ruleset"], {"files": {}})
        entry["files"][name] = row
    for ruleset, entry in report.items():
        rows = list(entry["files"].values())
        four = entry["files"].get(f"{ruleset}-4v4.yaml")
        if four is not None:  # the figure: the ruleset's four-against-four
            rows = [four]
            entry["encounter"] = f"{ruleset}-4v4.yaml"
        entry["per_s_per_core"] = round(statistics.mean(r["per_s_per_core"] for r in rows), 1)
        compiled_rows = [r["compiled_per_s_per_core"] for r in rows]
        entry["compiled_per_s_per_core"] = (
            None if None in compiled_rows else round(statistics.mean(compiled_rows), 1))
        if not inner:
            entry["speedup_2_workers"] = round(
                statistics.mean(r["speedup_2_workers"] for r in rows), 2)
        if isinstance(compiled, str) and not inner:
            entry["compiled_note"] = compiled
        if args.calls:
            entry["calls_per_encounter"] = round(
                statistics.mean(r["calls_per_encounter"] for r in rows))
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
