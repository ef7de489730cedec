"""Running many encounters: in this process, on local worker processes, or on a Dask cluster.

Runs are split into batches ``[start, stop)``; a batch's result is a :class:`Tally` of
counts, merged as it arrives, so memory stays flat in the number of runs. Run ``i`` rolls
dice seeded from (seed, i) alone, so the numbers are the same whatever the batching, the
number of workers or the machines.
"""

from __future__ import annotations

import importlib
import importlib.util
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from .encounter import Job, SimError
from .engine import run_batch, simulator_for
from .stats import UNFINISHED, Tally

Progress = Callable[[int], None]
"""Called with the number of runs just finished."""

PROBE_RUNS = 20
"""Runs played in this process first, to refuse an encounter that never ends."""


@dataclass(frozen=True, slots=True)
class Result:
    """The merged tally of a simulation, with how it was run."""

    job: Job
    tally: Tally
    seconds: float
    workers: int
    scheduler: str | None = None

    def summary(self) -> dict[str, Any]:
        out = {"runs": self.tally.runs, "seed": self.job.seed, "ruleset": self.job.ruleset,
               "max_rounds": self.job.max_rounds, "policies": dict(self.job.policies)}
        out.update(self.tally.summary(self.job.side_of))
        out["seconds"] = round(self.seconds, 3)
        out["runs_per_second"] = round(self.tally.runs / self.seconds, 1) if self.seconds else 0
        out["workers"] = self.workers
        if self.scheduler:
            out["scheduler"] = self.scheduler
        return out


def batches(start: int, stop: int, size: int) -> Iterator[tuple[int, int]]:
    for first in range(start, stop, size):
        yield first, min(first + size, stop)


def batch_size(runs: int, workers: int) -> int:
    """About 16 batches per worker (a smooth progress bar, little overhead), 10 to 2,000."""
    return max(10, min(2000, runs // max(1, workers * 16) or 1))


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def simulate(
    job: Job,
    runs: int,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    batch: int | None = None,
    progress: Progress | None = None,
) -> Result:
    """Play ``runs`` encounters of ``job`` and merge their tallies.

    ``workers``: local processes (default: one per core; 1 plays in this process).
    ``scheduler``: the address of a Dask scheduler (``tcp://host:port``) to run on instead.
    Raises SimError when no probe run ends within the round limit.
    """
    if runs < 1:
        raise SimError(f"--runs must be at least 1, not {runs}")
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise SimError(f"--workers must be at least 1, not {workers}")
    began = time.perf_counter()
    note = progress or (lambda n: None)
    probe = min(runs, PROBE_RUNS)
    tally = run_batch(job, 0, probe)
    if tally.outcomes[UNFINISHED] == probe:
        raise SimError(
            f"the encounter cannot end: none of {probe} trial runs ended within "
            f"{job.max_rounds} rounds (raise sim.max_rounds, or check that each side "
            f"can defeat the other; policies: "
            f"{', '.join(f'{s}={p}' for s, p in job.policies)})")
    note(probe)
    size = batch or batch_size(runs - probe, workers)
    if probe < runs:
        if scheduler is not None:
            _on_dask(job, probe, runs, size, scheduler, tally, note)
        elif workers == 1:
            sim = simulator_for(job)
            for start, stop in batches(probe, runs, size):
                sim_tally = sim.play_batch(start, stop)
                tally.merge(sim_tally)
                note(stop - start)
        else:
            _on_processes(job, probe, runs, size, workers, tally, note)
    return Result(job, tally, time.perf_counter() - began,
                  workers if scheduler is None else 0, scheduler)


def _context(job: Job) -> Any:
    """forkserver where there is one (safe with the progress bar's thread, and quick: the
    server imports the simulator and the job's ruleset once), else spawn."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    preload = ["arbiter.sim.engine"]
    for module in (f"arbiter.rulesets.{job.ruleset}", f"arbiter.sim.tactics.{job.ruleset}"):
        if job.ruleset.isidentifier() and importlib.util.find_spec(module) is not None:
            preload.append(module)
    context.set_forkserver_preload(preload)
    return context


def _on_processes(job: Job, start: int, stop: int, size: int, workers: int, tally: Tally,
                  note: Progress) -> None:
    pending: dict[Future[Tally], int] = {}
    work = batches(start, stop, size)
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context(job)) as pool:
        def submit() -> bool:
            item = next(work, None)
            if item is None:
                return False
            pending[pool.submit(run_batch, job, *item)] = item[1] - item[0]
            return True

        for _ in range(workers * 2):
            if not submit():
                break
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    count = pending.pop(future)
                    tally.merge(future.result())
                    note(count)
                    submit()
        except BaseException:  # an error or Ctrl-C: drop the batches not started yet
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _on_dask(job: Job, start: int, stop: int, size: int, address: str, tally: Tally,
             note: Progress) -> None:
    try:  # typed as Any: distributed's API is not annotated
        distributed: Any = importlib.import_module("distributed")
    except ImportError as err:  # pragma: no cover - distributed is a dependency
        raise SimError(f"--scheduler needs the 'distributed' package: {err}") from None
    try:
        client = distributed.Client(address, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise SimError(f"cannot reach the Dask scheduler at {address}: {err}") from None
    try:
        slots = max(2, 2 * sum(client.nthreads().values()))
        work = batches(start, stop, size)
        job_future = client.scatter(job, broadcast=True)
        futures = distributed.as_completed(loop=client.loop)
        sizes: dict[Any, int] = {}

        def submit() -> bool:
            item = next(work, None)
            if item is None:
                return False
            future = client.submit(run_batch, job_future, *item, pure=False)
            sizes[future.key] = item[1] - item[0]
            futures.add(future)
            return True

        for _ in range(slots):
            if not submit():
                break
        for future in futures:
            tally.merge(future.result())
            note(sizes.pop(future.key))
            future.release()
            submit()
    finally:
        client.close()
