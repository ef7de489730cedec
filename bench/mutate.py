"""Mutation testing of the rules (`make mutate`): mutmut changes one operator, number or
name at a time in the damage pipelines, condition and turn logic of the three rulesets and
runs the scenario suite and the ruleset tests against each change; a change no test notices
("survived") is a wrong rule nothing would catch. Prints the score per ruleset.

    python bench/mutate.py [--sample tenth|fifth|half|all] [--ruleset NAME ...]
                           [--workers N] [--keep] [--diffs FILE] [--json]

The modules mutmut may mutate, the killing tests and the tests left out (those that read the
rules' source text) are in ``[tool.mutmut]`` of pyproject.toml; the functions run are those
of ``TARGETS`` below. mutmut works in ``mutants/`` (a copy of src/, tests/ and scenarios/),
removed at the start of each run unless ``--keep`` is given (then the verdicts of functions
whose code did not change are reused and only the mutants not yet checked run).

``--sample`` runs a systematic share of the mutants, by the number mutmut gives each mutant
of a function: ``half`` those ending in an even digit, ``fifth`` those ending in 0 or 5,
``tenth`` those ending in 0. The score of a sample estimates the score of all.

The score is killed / (killed + survived + no tests): a mutant whose function no selected
test reaches counts as a survivor. A timeout counts as killed (the change made a rule loop).
mutmut 3 does not mutate decorated functions, so the bodies of ``@command`` and ``@event``
handlers are outside the run; the helpers they call (pipelines, checks, turn hooks) are in it.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUTMUT = Path(sys.executable).with_name("mutmut")

TARGETS: dict[str, dict[str, list[str]]] = {
    "realms": {
        "pipeline": ["*"],
        "base": [
            "dies",
            "RealmsBase.consequences",
            "RealmsBase.winner",
            "RealmsBase.stronger",
            "RealmsBase.gain",
            "RealmsBase.check_reaction",
            "RealmsBase.check_arms",
            "RealmsBase.check_movement",
            "RealmsBase.hurt",
            "RealmsBase.unseat",
        ],
        "turns": [
            "TurnRules.takes_turn",
            "TurnRules.initiative_order",
            "TurnRules.turn_start_events",
            "TurnRules.turn_end_events",
            "TurnRules.dying_damage",
            "TurnRules.stay_roll",
        ],
        "conditions": ["ConditionRules.potency_bonus"],
        "attacks": [
            "AttackRules.check_flank_reaction",
            "AttackRules.defend",
            "AttackRules.shield_amount",
        ],
        "mounts": ["unruly"],
    },
    "zones": {
        "damage": ["*"],
        "shots": ["_part", "critical_hit", "defense_roll"],
        "model": ["outnumbering_counts"],
        "base": ["cover_refusal"],
        "turns": ["Turns.takes_turn", "Turns.turn_end_events", "aftermath"],
        "conditions": ["Conditions.do_uncondition"],
        "movement": ["flanking_type", "flank_hindrance"],
        "cover": ["cover_bonus"],
    },
    "polemos": {
        "damage": ["*"],
        "base": [
            "PolemosBase._consequences",
            "PolemosBase._leave_turns",
            "PolemosBase._status_events",
            "PolemosBase.stack_condition",
            "PolemosBase._is_down",
            "PolemosBase._wound_effects",
            "PolemosBase._reset_bleeding",
        ],
        "conditions": ["cause_present", "expire_clock"],
        "injuries": ["round_effects", "per_round_damage", "bleeding_tick"],
        "lasting": ["LastingRules._per_round_active"],
        "turns": [
            "TurnRules.initiative_order",
            "TurnRules.next_turn",
            "TurnRules._passed_over",
            "TurnRules.turn_start_events",
            "TurnRules.turn_end_events",
            "TurnRules.apply_turn_started",
            "TurnRules.check_turn_end",
        ],
    },
}
"""Ruleset -> module -> functions ("Class.method", a module function's name, or "*" for the
whole module) whose mutants are run."""

SAMPLES = {"all": "*", "half": "*[02468]", "fifth": "*[05]", "tenth": "*0"}
KILLED = {"killed", "timeout", "segfault", "caught by type check"}
SURVIVED = {"survived", "no tests"}
RESULT_LINE = re.compile(r"^\s+(\S+): (.+)$")


def patterns(ruleset: str, sample: str) -> list[str]:
    """mutmut's names of the mutants to run: ``arbiter.rulesets.realms.rules.
    xǁRealmsRulesetǁhurt__mutmut_7`` for a method, ``...damage.x_armor__mutmut_3`` for a
    module function."""
    suffix = SAMPLES[sample]
    found = []
    for module, functions in TARGETS[ruleset].items():
        prefix = f"arbiter.rulesets.{ruleset}.{module}."
        for function in functions:
            if function == "*":
                found.append(f"{prefix}x*__mutmut_{suffix}")
            elif "." in function:
                cls, method = function.split(".")
                found.append(f"{prefix}xǁ{cls}ǁ{method}__mutmut_{suffix}")
            else:
                found.append(f"{prefix}x_{function}__mutmut_{suffix}")
    return found


@dataclass
class Tally:
    counts: dict[str, int] = field(default_factory=dict)
    survivors: list[str] = field(default_factory=list)

    def add(self, name: str, status: str) -> None:
        self.counts[status] = self.counts.get(status, 0) + 1
        if status in SURVIVED:
            self.survivors.append(name)

    @property
    def killed(self) -> int:
        return sum(n for status, n in self.counts.items() if status in KILLED)

    @property
    def judged(self) -> int:
        return self.killed + sum(n for s, n in self.counts.items() if s in SURVIVED)

    @property
    def score(self) -> float:
        return self.killed / self.judged if self.judged else 0.0


def results() -> dict[str, str]:
    """Every mutant's status as ``mutmut results --all true`` prints it."""
    out = subprocess.run(
        [str(MUTMUT), "results", "--all", "true"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = {}
    for line in out.splitlines():
        match = RESULT_LINE.match(line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def tally(statuses: dict[str, str], rulesets: list[str], sample: str) -> dict[str, Tally]:
    tallies = {}
    for ruleset in rulesets:
        wanted = patterns(ruleset, sample)
        t = Tally()
        for name, status in statuses.items():
            if any(fnmatch.fnmatchcase(name, p) for p in wanted):
                t.add(name, status)
        tallies[ruleset] = t
    return tallies


def show(names: list[str]) -> str:
    """The diff of each mutant, as ``mutmut show`` prints it."""
    return "\n".join(
        subprocess.run([str(MUTMUT), "show", name], cwd=ROOT, capture_output=True, text=True).stdout
        for name in names
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sample",
        choices=sorted(SAMPLES),
        default="tenth",
        help="run a systematic share of the mutants (default: tenth)",
    )
    parser.add_argument(
        "--ruleset",
        action="append",
        choices=sorted(TARGETS),
        help="only this ruleset (repeatable; default: all three)",
    )
    parser.add_argument("--workers", type=int, default=1, help="mutants run at once")
    parser.add_argument(
        "--keep", action="store_true", help="reuse mutants/ and the verdicts of unchanged functions"
    )
    parser.add_argument(
        "--recheck", action="store_true", help="rerun only the survivors of the last run"
    )
    parser.add_argument(
        "--report", action="store_true", help="run nothing: the scores of the last run"
    )
    parser.add_argument("--diffs", type=Path, help="write each survivor's diff to this file")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if not MUTMUT.exists():
        print(
            f"mutmut is not installed in {MUTMUT.parent} (run `make test` first to install "
            "the dev tools)",
            file=sys.stderr,
        )
        return 2
    rulesets = args.ruleset or list(TARGETS)
    wanted = [p for r in rulesets for p in patterns(r, args.sample)]
    work = ROOT / "mutants"
    args.keep = args.keep or args.recheck or args.report
    if not args.keep and work.exists():
        shutil.rmtree(work)
    work.mkdir(exist_ok=True)
    log = work / "mutmut.log"
    print(
        f"mutmut: {', '.join(rulesets)}, sample {args.sample}, {args.workers} worker(s); "
        f"log in {log.relative_to(ROOT)}",
        file=sys.stderr if args.json else sys.stdout,
        flush=True,
    )
    start = time.monotonic()
    names = wanted
    if args.keep and (work / "mutmut-stats.json").exists():
        # mutmut reruns every mutant it is given by name: give it only those not yet killed
        # (--recheck: only the survivors; --report: none).
        rerun = set() if args.report else SURVIVED if args.recheck else None
        names = [
            n
            for n, status in results().items()
            if (status in rerun if rerun is not None else status not in KILLED)
            and any(fnmatch.fnmatchcase(n, p) for p in wanted)
        ]
    run = None
    if names:
        with log.open("w", encoding="utf-8") as out:
            run = subprocess.run(
                [str(MUTMUT), "run", "--max-children", str(args.workers), *names],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
    elapsed = time.monotonic() - start
    if run is not None and run.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").replace("\r", "\n")
        lines = [ln for ln in tail.splitlines() if ln.strip() and "⠋" not in ln][-25:]
        print("\n".join(lines), file=sys.stderr)
        print(f"mutmut failed (exit {run.returncode}); the whole log is {log}", file=sys.stderr)
        return 1
    tallies = tally(results(), rulesets, args.sample)
    if args.diffs:
        args.diffs.write_text(
            show([n for t in tallies.values() for n in t.survivors]), encoding="utf-8"
        )
    if args.json:
        print(
            json.dumps(
                {
                    r: {
                        "score": round(t.score, 4),
                        "killed": t.killed,
                        "judged": t.judged,
                        **t.counts,
                        "survivors": t.survivors,
                    }
                    for r, t in tallies.items()
                },
                indent=2,
            )
        )
        return 0
    print(
        f"{'ruleset':<9}{'mutants':>8}{'killed':>8}{'survived':>9}{'no tests':>9}"
        f"{'not run':>8}{'score':>8}"
    )
    for ruleset, t in tallies.items():
        print(
            f"{ruleset:<9}{sum(t.counts.values()):>8}{t.killed:>8}"
            f"{t.counts.get('survived', 0):>9}{t.counts.get('no tests', 0):>9}"
            f"{t.counts.get('not checked', 0):>8}{t.score:>8.1%}"
        )
    print(
        f"{elapsed / 60:.1f} min; the survivors: `.venv/bin/mutmut results`, a diff: "
        "`.venv/bin/mutmut show NAME`"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
