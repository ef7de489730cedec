"""The fast path: play one run of a job with the ruleset's own ``decide`` and ``evolve``.

Nothing is persisted: no log, no entries, no RecordingDice; the dice are a plain
:class:`~arbiter.dice.SeededDice` seeded from (the job's seed, the run's index). The rules
are the table's: every command goes through ``Ruleset.decide`` and every event through
``Ruleset.evolve``, so a run is a game that could be replayed at the table.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from ..core import Command, Encounter, EncounterState, Entry, RulesError, load_ruleset
from ..core.copying import own_fully, run_copy
from ..core.invariants import CHECKING, apply_checked
from ..core.model import entity_at
from ..dice import SeededDice
from .encounter import Job
from .hooks import outcomes_for
from .policy import Policy, get_policy
from .stats import DRAW, UNFINISHED, Tally

START = Command("start")
NEXT = Command("next")


def run_seed(seed: int, index: int) -> int:
    """The seed of run ``index``: a hash of both, the same on every worker and machine.

    >>> run_seed(7, 0) == run_seed(7, 0) != run_seed(7, 1)
    True
    """
    digest = hashlib.blake2b(f"{seed}/{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


class Simulator:
    """Plays runs of one job. Built once per worker process and reused for every batch."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.ruleset = load_ruleset(job.ruleset)
        self.outcomes = outcomes_for(job.ruleset)
        self.policies: dict[str, Policy] = {
            side: get_policy(job.ruleset, name) for side, name in job.policies
        }
        self.side_of = job.side_of
        self.members: dict[str, list[str]] = {}
        """Each side's creatures, in the order they were added."""
        for member, its_side in job.side_of.items():
            self.members.setdefault(its_side, []).append(member)
        base = EncounterState(ruleset="")
        for event in job.setup:
            self.ruleset.evolve(base, event)
        self.base = base

    def play(self, index: int, tally: Tally, log: Encounter | None = None) -> EncounterState:
        """Play run ``index`` to its end (or the round limit) and count it into ``tally``.

        With ``log`` (an Encounter holding a copy of the setup state, see :meth:`logged`)
        the same run goes through ``Encounter.execute`` instead: the event-sourced path,
        with RecordingDice and a log, for showing or checking one run.
        """
        ruleset = self.ruleset if log is None else log.ruleset
        job = self.job
        # the ruleset's methods called on it, not bound into locals: its class is native in the
        # compiled build, so a call is direct (a bound method is a call by name each time)
        defeated, damage = self.outcomes.defeated, self.outcomes.damage
        # the ruleset's own ``is_down`` (unless its tactics registered another): called on
        # the ruleset, a native call, not through the bound method the outcomes hold
        own_down = defeated == ruleset.is_down
        side_of, policies = self.side_of, self.policies
        dice = SeededDice(run_seed(job.seed, index))
        state = run_copy(self.base) if log is None else log.state
        dealt, taken = tally.dealt, tally.taken
        sides_in_order = self.members

        checked = CHECKING.on  # the debug mode (``arbiter sim --check``): invariants too

        def run(command: Command) -> None:
            if log is None:
                if checked:
                    events = ruleset.decide(state, command, dice)
                    own_fully(state)
                    apply_checked(ruleset, state, Entry(0, command, events, []))
                else:  # decide and evolve, ``next`` in place (the run owns its state)
                    events = ruleset.advance(state, command, dice)
            else:
                events = log.execute(command, dice).events
            for dealer, target, amount in damage(command, events):
                taken[target] += amount
                if dealer is not None:
                    dealt[dealer] += amount

        able: dict[str, str | None] = {}  # each side's creature last found able to act

        def over() -> str | None:
            """The outcome: the ruleset's when its rules have decided the fight (its
            ``side_won``), else the simulator's own when fewer than two sides can still act
            by the outcomes hooks (a ruleset that never decides, or a side out of the fight
            before the rules say so), else None."""
            done, winner = ruleset.outcome(state)
            if done:
                return DRAW if winner is None else winner
            entities = state.entities
            first: str | None = None
            for side, members in sides_in_order.items():
                # the creature found able to act last time, looked at first: a side's look
                # does not grow with the creatures that went down before it
                who = able.get(side)
                entity = entity_at(entities, who) if who is not None else None
                if entity is None or (ruleset.is_down(state, entity) if own_down
                                      else defeated(state, entity)):
                    who = None
                    for member in members:  # one creature able to act is enough
                        entity = entity_at(entities, member)
                        if entity is not None and not (ruleset.is_down(state, entity)
                                                       if own_down else defeated(state, entity)):
                            who = member
                            break
                    able[side] = who
                if who is not None:
                    if first is not None:  # two sides can still act
                        return None
                    first = side
            return DRAW if first is None else first

        if not state.in_combat:
            run(START)
        outcome = over()
        turns = 0
        while outcome is None:
            who = state.current
            if state.round > job.max_rounds or who is None:
                outcome = UNFINISHED
                break
            policy = policies.get(side_of.get(who, ""))
            ended: str | None = None
            if policy is not None:
                for command in policy.choose(state, state.entities[who], ruleset):
                    try:
                        run(command)
                    except RulesError as err:
                        tally.refuse(index, f"{command}: {err}")
                        break
                    ended = over()
                    if ended is not None:
                        break
            if ended is None:
                run(NEXT)
                turns += 1
                ended = over()
            outcome = ended
        tally.runs += 1
        tally.turns += turns
        tally.outcomes[outcome] += 1
        tally.rounds[min(state.round, job.max_rounds)] += 1
        status_of, statuses = self.outcomes.status, tally.status
        for who in side_of:
            entity = entity_at(state.entities, who)
            status = status_of(state, entity) if entity is not None else "down"
            counts = statuses.get(who)
            if counts is None:  # made once a creature (a default argument: every run, each)
                counts = statuses[who] = Counter()
            counts[status] += 1
        return state

    def logged(self, index: int) -> Encounter:
        """Run ``index`` played through the event-sourced path, as at the table: the
        registered ruleset, a state rebuilt from the setup events, RecordingDice and a log.
        The log starts after the setup."""
        state = EncounterState(ruleset="")
        for event in self.job.setup:
            self.ruleset.evolve(state, event)
        encounter = Encounter(self.ruleset, state)
        self.play(index, Tally(), encounter)
        return encounter

    def play_batch(self, start: int, stop: int) -> Tally:
        tally = Tally()
        for index in range(start, stop):
            self.play(index, tally)
        return tally


_CACHE: dict[str, Simulator] = {}


def simulator_for(job: Job) -> Simulator:
    """The process's simulator for ``job`` (built on first use, by the job's digest)."""
    sim = _CACHE.get(job.key)
    if sim is None:
        if len(_CACHE) >= 8:
            _CACHE.clear()
        sim = _CACHE[job.key] = Simulator(job)
    return sim


def run_batch(job: Job, start: int, stop: int) -> Tally:
    """Play runs ``start`` to ``stop - 1`` of ``job``: the unit of work sent to workers."""
    return simulator_for(job).play_batch(start, stop)
