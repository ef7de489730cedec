"""The simulator against exact answers, across runners, and through its CLI."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from arbiter.core import Command, Condition, Encounter, EncounterState, Entity, Event, load_ruleset
from arbiter.core.copying import clone, run_copy
from arbiter.core.paths import get_path
from arbiter.core.registry import available
from arbiter.dice import SeededDice
from arbiter.scenario import ScenarioError
from arbiter.sim import (
    SimError,
    Simulator,
    Tally,
    get_policy,
    load_encounter,
    parse_encounter,
    prepare,
    simulate,
    wilson,
)
from arbiter.sim.cli import sim_command, sweep_command
from arbiter.sim.engine import run_seed
from arbiter.sim.hooks import STANDING, generic_damage, generic_status
from arbiter.sim.sweep import Vary

from .conftest import DEMO_4V4

Write = Callable[..., Path]

app = typer.Typer(pretty_exceptions_enable=False)
app.command("sim")(sim_command)
app.command("sweep")(sweep_command)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


# -- exact answers ----------------------------------------------------------------------
def test_duel_decided_by_one_attack_wins_with_the_exact_hit_probability(duel: Path) -> None:
    """P(the duellist wins) is the exact hit probability of the dice engine, within the 95%
    interval of 20,000 runs."""
    job = prepare(load_encounter(duel))
    state = Simulator(job).base
    hit = load_ruleset("demo").odds(state, Command("attack", "duellist", {"target": "dummy"}))
    assert str(hit["hit"]) == "3/10"
    result = simulate(job, 20_000, workers=2)
    summary = result.summary()
    lo, hi = summary["ci95"]["red"]
    assert lo <= float(hit["hit"]) <= hi
    assert summary["win_probability"]["blue"] == 0.0
    assert summary["unfinished"] == pytest.approx(1 - summary["win_probability"]["red"])
    assert summary["creatures"]["dummy"]["down"] == summary["win_probability"]["red"]
    assert summary["creatures"]["duellist"]["damage_dealt"] == pytest.approx(
        5 * summary["win_probability"]["red"])
    assert summary["rounds"]["max"] == 1


def test_wilson_interval_matches_the_textbook_values() -> None:
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(81, 263)
    assert lo == pytest.approx(0.2553, abs=1e-4)
    assert hi == pytest.approx(0.3662, abs=1e-4)


def test_tallies_merge_in_any_order_to_the_same_counts() -> None:
    sim = Simulator(prepare(load_encounter(DEMO_4V4)))
    parts = [sim.play_batch(a, b) for a, b in ((0, 3), (3, 8), (8, 12))]
    forward, backward = Tally(), Tally()
    for part in parts:
        forward.merge(copy.deepcopy(part))
    for part in reversed(parts):
        backward.merge(copy.deepcopy(part))
    assert forward == backward == sim.play_batch(0, 12)


# -- the fast path plays the table's rules -------------------------------------------------
def test_fast_path_reaches_the_state_of_the_event_sourced_path() -> None:
    """Same decide/evolve: a run without log or RecordingDice ends where Encounter.execute
    (with its log) ends, and replaying that log gives the same state again."""
    sim = Simulator(prepare(load_encounter(DEMO_4V4)))
    for index in range(3):
        fast = sim.play(index, Tally())
        logged = sim.logged(index)
        assert type(logged.state) is EncounterState
        assert fast == logged.state
        assert logged.log and all(entry.dice for entry in logged.log
                                  if entry.command.name == "attack")
        again = EncounterState(ruleset="")
        for event in [*sim.job.setup, *logged.events()]:
            sim.ruleset.evolve(again, event)
        assert again == logged.state


ENCOUNTERS = sorted(DEMO_4V4.parent.glob("*.y*ml"))


@pytest.mark.parametrize("path", ENCOUNTERS, ids=[p.name for p in ENCOUNTERS])
def test_fast_path_matches_the_table_path_on_every_shipped_encounter(path: Path) -> None:
    """Copy-on-write lookahead and structural copies change nothing, whatever the ruleset:
    the same runs played with a lookahead that deep-copies the whole state end the same."""
    encounter = load_encounter(path)
    name = encounter.data.get("ruleset")
    if isinstance(name, str) and name not in available():  # not installed: nothing else skips
        pytest.skip(f"{path.name}: ruleset {name!r} is not installed "
                    f"(installed: {', '.join(available())})")
    sim = Simulator(prepare(encounter, max_rounds=12))
    reference = copy.copy(sim.ruleset)

    def deep_lookahead(state: EncounterState, events: list[Event]) -> EncounterState:
        scratch = copy.deepcopy(state)
        for event in events:
            reference.evolve(scratch, event)
        return scratch

    reference.__dict__["lookahead"] = deep_lookahead
    for index in range(2):
        fast_tally, table_tally = Tally(), Tally()
        fast = sim.play(index, fast_tally)
        table = Encounter(reference, copy.deepcopy(sim.base))
        sim.play(index, table_tally, table)
        assert fast == table.state
        assert fast_tally == table_tally


@pytest.mark.parametrize("path", ENCOUNTERS, ids=[p.name for p in ENCOUNTERS])
def test_advance_gives_each_command_the_events_of_the_table_on_every_shipped_encounter(
        path: Path) -> None:
    """The fast path's ``Ruleset.advance`` (``next`` and a handler's ``past`` apply events
    in place as they are decided) gives each command of a run the events the table's
    ``decide`` logged for it, every value as the log keeps it, and the same state."""
    encounter = load_encounter(path)
    name = encounter.data.get("ruleset")
    if isinstance(name, str) and name not in available():
        pytest.skip(f"{path.name}: ruleset {name!r} is not installed "
                    f"(installed: {', '.join(available())})")
    sim = Simulator(prepare(encounter, max_rounds=12))
    for index in range(2):
        table = sim.logged(index)
        state = run_copy(sim.base)
        dice = SeededDice(run_seed(sim.job.seed, index))
        for entry in table.log:
            events = sim.ruleset.advance(state, entry.command, dice)
            assert [event.to_json() for event in events] == \
                [event.to_json() for event in entry.events], entry.command
        assert state == table.state and len(table.log) > 2


def test_scratch_lookahead_leaves_the_state_it_came_from_unchanged() -> None:
    sim = Simulator(prepare(load_encounter(DEMO_4V4)))
    state = sim.play(0, Tally())
    before = copy.deepcopy(state)
    hurt = Event("damaged", {"target": "alpha", "taken": 5, "health": -3, "pipeline": {}})
    scratch = sim.ruleset.lookahead(state, [hurt])
    assert get_path(scratch, "alpha.health") == -3
    assert state == before
    assert scratch.entities["nia"] is state.entities["nia"]  # untouched: shared
    assert dict(scratch.entities)["alpha"] is not state.entities["alpha"]


def test_generic_damage_counts_a_repeated_amount_once() -> None:
    attack = Command("attack", "nia", {"target": "orc"})
    events = [Event("attacked", {"actor": "nia", "target": "orc", "hit": True, "taken": 7}),
              Event("damaged", {"target": "orc", "taken": 7})]
    assert list(generic_damage(attack, events)) == [("nia", "orc", 7)]
    bleed = Event("dying_damage", {"target": "nia", "taken": 3})
    assert list(generic_damage(Command("next"), [bleed])) == [(None, "nia", 3)]


def test_generic_status_reads_health_flags_and_conditions() -> None:
    state = EncounterState(ruleset="x")
    assert generic_status(state, Entity("a", stats={"health": 0})) == "down"
    assert generic_status(state, Entity("b", stats={"health": 4})) == STANDING
    assert generic_status(state, Entity("c", conditions=[Condition("Dying")])) == "dying"
    assert generic_status(state, Entity("d", conditions=[Condition("dead")])) == "dead"
    assert generic_status(state, Entity("e", conditions=[Condition("unconscious")])) == "down"


def test_fast_copy_is_an_independent_copy() -> None:
    state = Simulator(prepare(load_encounter(DEMO_4V4))).logged(0).state
    copied = clone(state)
    assert copied == copy.deepcopy(state)
    nia = copied.entities["nia"]
    nia.stats["initiative"] = 99
    nia.tags.add("marked")
    copied.order.append("ghost")
    assert state.entities["nia"].stats["initiative"] == 3
    assert "marked" not in state.entities["nia"].tags
    assert "ghost" not in state.order


# -- determinism across runners --------------------------------------------------------------
def test_same_numbers_with_one_and_two_worker_processes() -> None:
    job = prepare(load_encounter(DEMO_4V4))
    one = simulate(job, 60, workers=1, batch=25)
    two = simulate(job, 60, workers=2, batch=7)
    assert one.tally == two.tally
    assert one.summary()["win_probability"] == two.summary()["win_probability"]


def test_dask_local_cluster_gives_the_numbers_of_the_local_runner() -> None:
    distributed = pytest.importorskip("distributed")
    job = prepare(load_encounter(DEMO_4V4), seed=5)
    local = simulate(job, 60, workers=1)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        remote = simulate(job, 60, scheduler=cluster.scheduler_address, batch=13)
    assert remote.tally == local.tally
    assert remote.summary()["ci95"] == local.summary()["ci95"]


def test_a_different_seed_gives_different_runs() -> None:
    job = prepare(load_encounter(DEMO_4V4))
    other = prepare(load_encounter(DEMO_4V4), seed=job.seed + 1)
    assert simulate(job, 20, workers=1).tally != simulate(other, 20, workers=1).tally


# -- encounter files, policies ---------------------------------------------------------------
def test_the_shipped_4v4_encounters_have_four_creatures_a_side() -> None:
    files = sorted(DEMO_4V4.parent.glob("demo-*.yaml"))
    assert DEMO_4V4 in files
    job = prepare(load_encounter(DEMO_4V4))
    sides = [side for _, side in job.sides]
    assert sorted(sides.count(s) for s in set(sides)) == [4, 4]


def test_sides_may_name_a_generic_policy(write: Write) -> None:
    text = DEMO_4V4.read_text(encoding="utf-8") + "sim: {policies: {heroes: default}}\n"
    job = prepare(load_encounter(write(text)))
    assert dict(job.policies) == {"heroes": "default", "beasts": "focus-fire"}
    assert simulate(job, 40, workers=1).tally.refused == 0


@pytest.mark.parametrize(("sim", "message"), [
    ("sim: {rounds: 3}", "enc.yaml:6: sim.rounds: unknown key"),
    ("sim: {max_rounds: 0}", "enc.yaml:6: sim.max_rounds: must be a whole number"),
    ("sim: {policies: {red: bold}}", "enc.yaml:6: sim.policies: no policy 'bold'"),
    ("sim: {policies: {green: passive}}", "enc.yaml:6: sim.policies: no side 'green'"),
])
def test_bad_sim_settings_name_file_line_and_key(write: Write, sim: str, message: str) -> None:
    text = ("ruleset: demo\nactors:\n  a: {side: red, health: 3}\n  b: {side: blue, health: 3}\n"
            f"seed: 1\n{sim}\n")
    with pytest.raises(ScenarioError, match=message.replace(".", r"\.")):
        prepare(load_encounter(write(text)))


def test_a_creature_without_a_side_is_refused() -> None:
    enc = parse_encounter("ruleset: demo\nactors:\n  a: {health: 3}\n  b: {side: x}\n", "t.yaml")
    with pytest.raises(ScenarioError, match=r"t\.yaml:3: a: give every creature a 'side'"):
        prepare(enc)


def test_one_side_is_nothing_to_simulate() -> None:
    enc = parse_encounter("ruleset: demo\nactors:\n  a: {side: x}\n  b: {side: x}\n", "t.yaml")
    with pytest.raises(SimError, match="needs two sides"):
        prepare(enc)


def test_policies_register_by_ruleset_and_generic_ones_apply_to_all() -> None:
    assert type(get_policy("demo")).__name__ == "FocusFire"
    assert type(get_policy("demo", "default")).__name__ == "AttackMostWounded"
    with pytest.raises(KeyError, match="no policy 'nope' for demo"):
        get_policy("demo", "nope")


def test_vary_parses_ranges_and_refuses_bad_ones() -> None:
    assert Vary.parse("orc.armor=2..5").values == [2, 3, 4, 5]
    assert Vary.parse("orc.armor = -1..3:2").values == [-1, 1, 3]
    for bad in ("orc.armor", "orc.armor=a..b", "orc.armor=5..1", "x=0..9:0", "x=0..100000"):
        with pytest.raises(SimError):
            Vary.parse(bad)


# -- the command line ------------------------------------------------------------------------
def test_sim_json_reports_runs_seed_odds_and_rounds(duel: Path, tmp_path: Path) -> None:
    plot = tmp_path / "out.png"
    code, out, _ = invoke("sim", str(duel), "--runs", "300", "--seed", "4", "--workers", "1",
                          "--json", "--plot", str(plot))
    assert code == 0
    data = json.loads(out)
    assert {"runs", "seed", "win_probability", "ci95", "rounds"} <= set(data)
    assert data["runs"] == 300 and data["seed"] == 4
    assert plot.stat().st_size > 1000


def test_sim_prints_a_table(duel: Path) -> None:
    code, out, _ = invoke("sim", str(duel), "--runs", "50", "--workers", "1")
    assert code == 0
    assert "red" in out and "95% interval" in out and "unfinished after 1 rounds" in out


def test_sweep_reports_win_probability_per_value(tmp_path: Path) -> None:
    plot = tmp_path / "sweep.png"
    code, out, _ = invoke("sweep", str(DEMO_4V4), "--vary", "alpha.armor=0..4:4", "--runs",
                          "40", "--workers", "1", "--json", "--plot", str(plot))
    assert code == 0, out
    data = json.loads(out)
    assert [row["value"] for row in data["rows"]] == [0, 4]
    assert plot.exists()


@pytest.mark.parametrize(("vary", "message"), [
    ("wolfy.armor=0..3", "no actor 'wolfy'"),
    ("alpha.wings=0..3", "unknown stat-block key(s) wings"),
    ("alpha.damage.dice=0..3", "alpha.damage is '2d6+3', not a mapping"),
    ("alpha.armor=3..1", "the range runs from 3 up to 1"),
    ("alpha.armor", "write PATH=A..B"),
])
def test_sweep_refuses_a_bad_vary_path(vary: str, message: str) -> None:
    code, _, err = invoke("sweep", str(DEMO_4V4), "--vary", vary, "--runs", "10")
    assert code == 2
    assert err.startswith("arbiter: error: ") and message in err and err.count("\n") == 1


def test_an_encounter_that_cannot_end_is_refused(write: Write) -> None:
    path = write("ruleset: demo\nactors:\n  a: {side: red}\n  b: {side: blue}\n"
                 "sim: {max_rounds: 3, policies: {red: passive, blue: passive}}\n")
    code, _, err = invoke("sim", str(path), "--runs", "100", "--workers", "1")
    assert code == 2
    assert "arbiter: error: the encounter cannot end: none of 20 trial runs ended within 3" \
        in err


@pytest.mark.parametrize(("text", "message"), [
    ("ruleset: nope\nactors: {}\n", "enc.yaml:1: ruleset: unknown ruleset 'nope'"),
    ("ruleset: demo\nactors:\n  a: {side: red, wings: 1}\n", "enc.yaml:3: a: unknown stat-block"),
    ("ruleset: demo\nactors: [}\n", "enc.yaml:2: not valid YAML"),
])
def test_malformed_encounters_exit_2_with_one_line(write: Write, text: str, message: str) -> None:
    code, _, err = invoke("sim", str(write(text)), "--runs", "10")
    assert code == 2
    assert err.startswith("arbiter: error: ") and message in err and err.count("\n") == 1


def test_a_scheduler_that_is_not_an_address_is_refused(duel: Path) -> None:
    code, _, err = invoke("sim", str(duel), "--runs", "10", "--scheduler", "localhost")
    assert code == 2 and "give the scheduler's address" in err


def test_memory_stays_flat_in_the_number_of_runs() -> None:
    """Runs are counted as they end, never kept: ten times the runs, about the same peak."""
    import tracemalloc

    job = prepare(load_encounter(DEMO_4V4))
    simulate(job, 10, workers=1)  # imports, caches and the simulator built outside the count
    peaks = {}
    tracemalloc.start()
    try:
        for runs in (25, 250):
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            result = simulate(job, runs, workers=1)
            assert result.tally.runs == runs
            peaks[runs] = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert peaks[250] < 1.5 * peaks[25] + 64 * 1024, peaks
