"""One winner event for every ruleset: the kernel's ``side_won``, the ``outcome`` hook the
simulator asks, and the older logs (``encounter_won``) that must still replay.

Issue 19: realms told the end of a fight with ``side_won {"winner"}``, zones with
``encounter_won {"winner"}``, Polemos with ``encounter_won {"side"}`` (then
``combat_ended``); the kernel now declares ``side_won`` once and every seed ruleset emits
it where it emitted its own event.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from arbiter.core import EncounterState, Entry, Event, Ruleset, load_ruleset
from arbiter.core.catalogue import declaration
from arbiter.core.ruleset import RENAMED_EVENTS
from arbiter.sim import Simulator, load_encounter, prepare
from arbiter.sim.stats import DRAW, Tally

from ..support import installed

ROOT = Path(__file__).resolve().parents[2]
ENCOUNTERS = ROOT / "scenarios" / "encounters"
GOLDEN_SEED = 20261201
"""The seed of ``tests/sim/test_golden_logs.py``."""


def digest(entry: dict[str, Any]) -> str:
    """An entry's digest as ``tests/golden/logs.json`` keeps it."""
    text = json.dumps(entry, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# -- the event, declared once ---------------------------------------------------------------
@pytest.mark.parametrize("name", installed())
def test_side_won_is_the_kernels_event_in_every_ruleset(name: str) -> None:
    ruleset = load_ruleset(name)
    kernel = declaration(Ruleset.__dict__["apply_side_won"], "apply_side_won")
    assert ruleset.events["side_won"] is kernel
    assert "encounter_won" not in ruleset.events
    for klass in type(ruleset).__mro__:
        if klass is not Ruleset:
            assert "apply_side_won" not in vars(klass), klass
            assert "apply_encounter_won" not in vars(klass), klass


def test_outcome_reads_what_side_won_recorded_and_is_undecided_before() -> None:
    demo = load_ruleset("demo")
    state = EncounterState(ruleset="demo")
    assert demo.outcome(state) == (False, None)
    demo.evolve(state, Ruleset.side_won("red"))
    assert demo.outcome(state) == (True, "red") and state.extra["winner"] == "red"
    nobody = EncounterState(ruleset="demo")
    demo.evolve(nobody, Ruleset.side_won(None))
    assert demo.outcome(nobody) == (True, None)
    assert demo.describe("side_won", {"winner": "red"}, {}) == "The fight is over: red wins."
    assert demo.describe("side_won", {"winner": None}, {}) == "The fight is over."


# -- each seed ruleset emits it where its fight ends ----------------------------------------
@pytest.mark.parametrize(
    "stem, after",
    [
        ("realms-knight-and-hound", None),
        ("zones-ridge-ambush", None),
        ("polemos-street-fight", "combat_ended"),
    ],
)
def test_each_seed_ruleset_ends_its_fight_with_side_won(stem: str, after: str | None) -> None:
    sim = Simulator(prepare(load_encounter(ENCOUNTERS / f"{stem}.yaml"), seed=GOLDEN_SEED))
    for index in range(2):
        encounter = sim.logged(index)
        events = encounter.events()
        won = [i for i, e in enumerate(events) if e.type == "side_won"]
        assert len(won) == 1, [e.type for e in events]
        winner = events[won[0]].data["winner"]
        assert winner in set(sim.side_of.values())
        assert encounter.state.extra["winner"] == winner
        assert sim.ruleset.outcome(encounter.state) == (True, winner)
        following = events[won[0] + 1].type if won[0] + 1 < len(events) else None
        assert following == after
        tally = Tally()
        sim.play(index, tally)
        assert dict(tally.outcomes) == {winner: 1}  # the fast path ends where the log does


# -- logs written before replay to the same state -------------------------------------------
OLD_LAST_ENTRY = {
    # the digest of run 0's last entry in tests/golden/logs.json before the rename (the
    # entry holding the old event): the downgraded log below is the one the old code wrote
    "zones-ridge-ambush": ("winner", "6c6bbaf525de4e63"),
    "polemos-street-fight": ("side", "ef2666bd29737591"),
}


def written_the_old_way(entry: Entry, key: str) -> dict[str, Any]:
    """An entry as the code before the kernel event wrote it: ``encounter_won`` with the
    winner under ``key``."""
    out = entry.to_json()
    out["events"] = [
        {"type": "encounter_won", "v": e["v"], "data": {key: e["data"]["winner"]}}
        if e["type"] == "side_won"
        else e
        for e in out["events"]
    ]
    return out


@pytest.mark.parametrize("stem", sorted(OLD_LAST_ENTRY))
def test_a_log_written_the_old_way_replays_to_the_same_state(stem: str) -> None:
    key, old_digest = OLD_LAST_ENTRY[stem]
    sim = Simulator(prepare(load_encounter(ENCOUNTERS / f"{stem}.yaml"), seed=GOLDEN_SEED))
    new = sim.logged(0)
    old_log = [written_the_old_way(entry, key) for entry in new.log]
    assert digest(old_log[-1]) == old_digest
    assert digest(new.log[-1].to_json()) != old_digest
    old_events = [e for entry in old_log for e in entry["events"]]
    assert [e["type"] for e in old_events].count("encounter_won") == 1

    ruleset = load_ruleset(sim.job.ruleset)  # a fresh instance: nothing bound beforehand
    replayed = EncounterState(ruleset="")
    for event in sim.job.setup:
        ruleset.evolve(replayed, event)
    for stored in json.loads(json.dumps(old_log)):  # as read back from storage
        for event in Entry.from_json(stored).events:
            ruleset.evolve(replayed, event)
    assert replayed == new.state
    assert replayed.extra["winner"] == new.state.extra["winner"]
    assert ruleset.outcome(replayed) == (True, new.state.extra["winner"])

    old = next(e for e in old_events if e["type"] == "encounter_won")
    names = {k: e.name for k, e in new.state.entities.items()}
    assert (
        ruleset.describe("encounter_won", old["data"], names)
        == ruleset.describe("side_won", {"winner": new.state.extra["winner"]}, names)
        == (f"The fight is over: {new.state.extra['winner']} wins.")
    )


def test_an_old_event_with_nobody_left_standing_replays_as_a_draw() -> None:
    polemos, zones = load_ruleset("polemos"), load_ruleset("zones")
    for ruleset, data in ((polemos, {"side": None}), (zones, {"winner": None})):
        state = EncounterState(ruleset=ruleset.name)
        ruleset.evolve(state, Event("encounter_won", data))
        assert ruleset.outcome(state) == (True, None)
    assert RENAMED_EVENTS["encounter_won"][0] == "side_won"


def test_an_unknown_event_type_is_still_refused_by_name() -> None:
    from arbiter.core import SchemaError

    with pytest.raises(SchemaError, match="does not know the event type 'encounter_lost'"):
        load_ruleset("zones").evolve(
            EncounterState(ruleset="zones"), Event("encounter_lost", {"winner": "x"})
        )


# -- the simulator asks the ruleset ---------------------------------------------------------
def test_the_simulator_takes_the_rulesets_word_when_it_has_one(
    duel: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo never emits side_won: its duel is decided by who can still act. A ruleset
    whose rules end the fight at once (here: nobody wins) is believed at once."""
    sim = Simulator(prepare(load_encounter(duel)))
    generic = sim.play_batch(0, 50)
    assert DRAW not in generic.outcomes and generic.outcomes["red"] > 0

    monkeypatch.setattr(sim.ruleset, "outcome", lambda state: (True, None))
    decided = sim.play_batch(0, 50)
    assert dict(decided.outcomes) == {DRAW: 50}
    assert sum(decided.dealt.values()) == 0  # over before anyone acted


TALLIES = {
    # 40 runs of each shipped encounter at the golden seed, recorded before the simulator
    # asked the ruleset (outcomes, and a digest of the whole tally: rounds, statuses,
    # damage dealt and taken, refusals)
    "demo-4v4": ({"beasts": 19, "heroes": 21}, "8a08858f83a67e7d"),
    "polemos-4v4": ({"gang": 17, "militia": 23}, "3dbab7fa7fc18165"),
    "polemos-street-fight": ({"gang": 12, "militia": 28}, "4899e48bb75bd2ca"),
    "polemos-yard-raid": ({"gang": 40}, "51f02feec2027937"),
    "realms-4v4": ({"heroes": 20, "monsters": 20}, "3eab969ec04042c9"),
    # realms-ford-ambush recorded again when melee came to need reach (RLM-11): before, the
    # ogre and the wolf struck from 2 and 3 spaces after a walk that fell short
    "realms-ford-ambush": ({"heroes": 22, "monsters": 18}, "abcfaf3ad0b8f79a"),
    "realms-knight-and-hound": ({"bandits": 3, "heroes": 37}, "bfb6b91eced87826"),
    "zones-4v4": ({"crew": 25, "gang": 15}, "d6fd0211e0cdf3b6"),
    "zones-ridge-ambush": ({"crew": 10, "gang": 30}, "663cbdb9f99124ad"),
    "zones-yard-fight": ({"crew": 9, "gang": 31}, "cd079b39297becda"),
}


@pytest.mark.parametrize("stem", sorted(TALLIES))
def test_seeded_simulations_give_the_tallies_recorded_before(stem: str) -> None:
    sim = Simulator(prepare(load_encounter(ENCOUNTERS / f"{stem}.yaml"), seed=GOLDEN_SEED))
    t = sim.play_batch(0, 40)
    whole = {
        "outcomes": dict(t.outcomes),
        "rounds": {str(k): v for k, v in t.rounds.items()},
        "status": {k: dict(v) for k, v in t.status.items()},
        "dealt": dict(t.dealt),
        "taken": dict(t.taken),
        "refused": t.refused,
    }
    outcomes, whole_digest = TALLIES[stem]
    assert dict(t.outcomes) == outcomes
    assert (
        hashlib.sha256(json.dumps(whole, sort_keys=True).encode()).hexdigest()[:16] == whole_digest
    )
