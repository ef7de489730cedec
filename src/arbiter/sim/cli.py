"""The ``arbiter sim`` and ``arbiter sweep`` commands (registered by ``arbiter.cli``).

Bad input exits with status 2 and one line, ``arbiter: error: ...``, on standard error.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from ..core import RulesError
from ..core.invariants import InvariantBroken, checking
from ..scenario import ScenarioError
from .encounter import (
    EncounterFile,
    SimError,
    check_vary_path,
    load_encounter,
    prepare,
    with_value,
)
from .runner import Result, simulate
from .sweep import Vary

console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)

EncounterArg = Annotated[Path, typer.Argument(
    help="Encounter file: a scenario file with sides, and optional sim: settings.")]
RunsOpt = Annotated[int, typer.Option("--runs", help="How many encounters to play.")]
SeedOpt = Annotated[int | None, typer.Option(
    help="Base seed (default: the file's seed); run i rolls dice seeded from (seed, i).")]
WorkersOpt = Annotated[int | None, typer.Option(
    help="Local worker processes (default: one per core; 1 runs in this process).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the results as JSON.")]
PlotOpt = Annotated[Path | None, typer.Option(help="Write a plot (PNG) to this file.")]
SchedulerOpt = Annotated[str | None, typer.Option(
    help="Run on a Dask cluster: the scheduler's address, e.g. tcp://10.0.0.5:8786.")]


def fail(message: str) -> NoReturn:
    """Report bad input in one line and exit with status 2."""
    err_console.print(f"arbiter: error: {message}", markup=False)
    raise typer.Exit(2)


@contextmanager
def _errors() -> Iterator[None]:
    try:
        yield
    except (ScenarioError, SimError, RulesError) as err:
        fail(str(err))
    except InvariantBroken as err:  # --check found a defect of the rules
        fail(f"the rules broke an invariant: {err}")


@contextmanager
def _progress(total: int, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar with ETA on a terminal (standard error); silent otherwise."""
    if not err_console.is_terminal:
        yield lambda n: None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=err_console, transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


def _emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def _check_scheduler(scheduler: str | None) -> None:
    if scheduler is not None and "://" not in scheduler:
        fail(f"--scheduler {scheduler!r}: give the scheduler's address, e.g. "
             "tcp://10.0.0.5:8786")


def _pct(p: float) -> str:
    return f"{p * 100:.1f}%"


def _print_result(result: Result, source: str) -> None:
    s = result.summary()
    where = f"{s['workers']} worker(s)" if not result.scheduler else result.scheduler
    console.print(f"{source} ({s['ruleset']}): {s['runs']:,} runs, seed {s['seed']}, "
                  f"{s['seconds']:.2f} s ({s['runs_per_second']:,.0f} runs/s on {where})",
                  markup=False)
    sides = Table(title="outcome")
    for col in ("side", "policy", "wins", "95% interval"):
        sides.add_column(col)
    for side, p in s["win_probability"].items():
        lo, hi = s["ci95"][side]
        sides.add_row(side, s["policies"].get(side, ""), _pct(p), f"{_pct(lo)} – {_pct(hi)}")
    if s["draw"]:
        sides.add_row("(draw)", "", _pct(s["draw"]), "")
    if s["unfinished"]:
        sides.add_row(f"(unfinished after {s['max_rounds']} rounds)", "", _pct(s["unfinished"]),
                      "")
    console.print(sides)
    r = s["rounds"]
    console.print(f"rounds: mean {r['mean']:.2f}, median {r['median']}, 90% between "
                  f"{r['p5']} and {r['p95']}, range {r['min']}–{r['max']}", markup=False)
    creatures = Table(title="creatures at the end (damage per run)")
    for col in ("creature", "side", "down", "dying", "dead", "dealt", "taken"):
        creatures.add_column(col, justify="left" if col in ("creature", "side") else "right")
    for who, c in s["creatures"].items():
        creatures.add_row(who, c["side"], _pct(c["down"]), _pct(c["dying"]), _pct(c["dead"]),
                          f"{c['damage_dealt']:.1f}", f"{c['damage_taken']:.1f}")
    console.print(creatures)
    if s["refused_commands"]:
        first = s.get("first_refusal", {})
        console.print(f"note: {s['refused_commands']:,} command(s) chosen by the tactics were "
                      f"refused (first, run {first.get('run')}: {first.get('message')})",
                      markup=False)


def sim_command(
    encounter: EncounterArg,
    runs: RunsOpt,
    seed: SeedOpt = None,
    workers: WorkersOpt = None,
    as_json: JsonOpt = False,
    plot: PlotOpt = None,
    scheduler: SchedulerOpt = None,
    campaign: Annotated[Path | None, typer.Option(
        help="A campaign file (arbiter campaign export) whose roster characters join.")
    ] = None,
    characters: Annotated[str | None, typer.Option(
        help="Roster characters of --campaign that join, with what they carry: id1,id2.")
    ] = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Debug mode: check the ruleset's invariants after every event and "
        "command of every run (one process, slower); a broken one stops with its name, "
        "rule, command and event.")] = False,
) -> None:
    """Play an encounter many times: win odds per side, rounds, who falls, damage."""
    _check_scheduler(scheduler)
    with _errors(), checking(check):
        loaded = load_encounter(encounter)
        if campaign is not None or characters is not None:
            loaded = _with_roster(loaded, campaign, characters)
        job = prepare(loaded, seed=seed)
        with _progress(runs, encounter.name) as note:
            result = simulate(job, runs, workers=1 if check else workers,
                              scheduler=scheduler, progress=note)
    summary = result.summary()
    if plot is not None:
        from .plot import plot_sim

        try:
            plot_sim(summary, plot, title=f"{encounter.name}: {runs:,} runs, seed {job.seed}")
        except (OSError, ValueError) as err:
            fail(f"--plot {plot}: {err}")
    if as_json:
        _emit_json(summary)
    else:
        _print_result(result, str(encounter))
        if plot is not None:
            console.print(f"plot written to {plot}", markup=False)


def _with_roster(loaded: EncounterFile, campaign: Path | None,
                 characters: str | None) -> EncounterFile:
    """The encounter with roster characters of a campaign file added to its actors, each
    as it would join an encounter (its stat block with its lasting state)."""
    from ..cli import read_roster

    if campaign is None or not characters:
        fail("--campaign FILE and --characters id1,id2 go together")
    roster = read_roster(campaign)
    ruleset = roster.roster.ruleset.name
    if ruleset != loaded.ruleset:
        fail(f"--campaign {campaign}: a {ruleset} campaign, and {loaded.source} is "
             f"{loaded.ruleset or 'of no ruleset'}")
    actors = loaded.data.get("actors")
    if not isinstance(actors, dict):
        fail(f"{loaded.source}: the encounter has no 'actors' mapping to add characters to")
    data = copy.deepcopy(loaded.data)
    actors = data["actors"]
    for ident in [c.strip() for c in characters.split(",") if c.strip()]:
        if ident in actors:
            fail(f"--characters: {ident!r} is already an actor of {loaded.source}")
        try:
            spec = roster.roster.joining(roster.state, ident)
        except RulesError as err:
            fail(f"--characters: {err}")
        spec.pop("id")
        actors[ident] = spec
    return EncounterFile(loaded.source, data, loaded.max_rounds, loaded.policies)


def sweep_command(
    encounter: EncounterArg,
    vary: Annotated[str, typer.Option(
        "--vary", help="PATH=A..B[:STEP]: a stat-block value to vary, e.g. orc.armor=0..6.")],
    runs: RunsOpt,
    seed: SeedOpt = None,
    workers: WorkersOpt = None,
    as_json: JsonOpt = False,
    plot: PlotOpt = None,
    scheduler: SchedulerOpt = None,
) -> None:
    """Simulate an encounter across a range of one value: win probability against it."""
    _check_scheduler(scheduler)
    rows: list[dict[str, Any]] = []
    with _errors():
        spec = Vary.parse(vary)
        base = load_encounter(encounter)
        check_vary_path(base, spec.path, spec.values[0])
        jobs = []
        for value in spec.values:
            try:
                jobs.append((value, prepare(with_value(base, spec.path, value), seed=seed)))
            except (ScenarioError, SimError) as err:
                raise SimError(f"--vary {spec.path}={value}: {err}") from None
        with _progress(runs * len(jobs), f"{encounter.name} {spec.path}") as note:
            for value, job in jobs:
                result = simulate(job, runs, workers=workers, scheduler=scheduler,
                                  progress=note)
                summary = result.summary()
                rows.append({"value": value, "win_probability": summary["win_probability"],
                             "ci95": summary["ci95"], "draw": summary["draw"],
                             "unfinished": summary["unfinished"],
                             "rounds_mean": summary["rounds"]["mean"]})
    if plot is not None:
        from .plot import plot_sweep

        try:
            plot_sweep(rows, spec.path, plot,
                       title=f"{encounter.name}: win probability against {spec.path} "
                             f"({runs:,} runs each)")
        except (OSError, ValueError) as err:
            fail(f"--plot {plot}: {err}")
    if as_json:
        _emit_json({"path": spec.path, "runs": runs, "seed": jobs[0][1].seed, "rows": rows})
        return
    sides = sorted({s for row in rows for s in row["win_probability"]})
    table = Table(title=f"{encounter}: {runs:,} runs per value, seed {jobs[0][1].seed}")
    table.add_column(spec.path, justify="right", no_wrap=True)
    for side in sides:
        table.add_column(f"{side} wins (95%)", justify="right", no_wrap=True)
    table.add_column("rounds", justify="right")
    for row in rows:
        cells = [str(row["value"])]
        for side in sides:
            lo, hi = row["ci95"][side]
            cells.append(f"{_pct(row['win_probability'][side])} "
                         f"({lo * 100:.1f}–{hi * 100:.1f})")
        table.add_row(*cells, f"{row['rounds_mean']:.2f}")
    console.print(table)
    if plot is not None:
        console.print(f"plot written to {plot}", markup=False)
