"""Simulation benchmark: complete encounters per second per core for every encounter file
under ``scenarios/encounters/`` whose ruleset loads, and the speed-up from 1 to 2 local
worker processes. ``--profile`` prints the top entries of a cProfile of the hot path.

    python bench/sim.py [--json] [--seconds S] [--profile [N]] [FILE...]

``per_s_per_core`` is measured in one process (as ``--workers 1``) over at least
``--seconds`` seconds of CPU time; ``speedup_2_workers`` is the wall time on one worker
over the wall time on two for the same runs (the pool's start-up included, as a user meets
it). A ruleset's own figure is that of its ``<ruleset>-4v4.yaml`` when there is one, else
the mean of its files (every file is listed under ``files``).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from arbiter.scenario import ScenarioError
from arbiter.sim import Job, SimError, Simulator, load_encounter, prepare, simulate

ROOT = Path(__file__).resolve().parents[1]
ENCOUNTERS = ROOT / "scenarios" / "encounters"


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
    """Runs per CPU second of this process, over at least ``seconds`` of CPU time (after a
    warm-up). CPU time, not wall time, so that other work on a shared machine does not count.
    """
    sim = Simulator(job)
    sim.play_batch(0, 5)
    runs, elapsed, start = 10, 0.0, 5
    done = 0
    while elapsed < seconds:
        began = time.process_time()
        sim.play_batch(start, start + runs)
        elapsed += time.process_time() - began
        start += runs
        done += runs
        runs = min(runs * 2, max(10, int(runs * seconds / max(elapsed, 1e-3))))
    return done / elapsed, done


def speedup(job: Job, runs: int) -> float:
    began = time.perf_counter()
    simulate(job, runs, workers=1)
    one = time.perf_counter() - began
    began = time.perf_counter()
    simulate(job, runs, workers=2)
    two = time.perf_counter() - began
    return one / two


def profile(job: Job, runs: int, top: int) -> str:
    sim = Simulator(job)
    sim.play_batch(0, 5)
    profiler = cProfile.Profile()
    profiler.enable()
    sim.play_batch(5, 5 + runs)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="encounter files (default: all)")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time to measure each file on one core")
    parser.add_argument("--profile", type=int, nargs="?", const=15, default=0,
                        help="print the top N cProfile entries of each file's hot path")
    args = parser.parse_args(argv)
    files = args.files or sorted(ENCOUNTERS.glob("*.y*ml"))
    found, skipped = jobs(files)
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    per_file: dict[str, dict[str, Any]] = {}
    for path, job in found:
        rate, runs = per_second(job, args.seconds)
        gain = speedup(job, max(200, int(rate * args.seconds)))
        per_file[path.name] = {"ruleset": job.ruleset, "per_s_per_core": round(rate, 1),
                               "speedup_2_workers": round(gain, 2), "runs": runs}
        if not args.json:
            print(f"{path.name} ({job.ruleset}): {rate:,.0f} encounters/s per core "
                  f"({runs:,} runs), 1 → 2 workers: ×{gain:.2f}", flush=True)
        if args.profile:
            print(profile(job, max(50, int(rate)), args.profile), file=sys.stderr)
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
        entry["speedup_2_workers"] = round(
            statistics.mean(r["speedup_2_workers"] for r in rows), 2)
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
