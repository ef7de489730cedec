"""Each performance trick of docs/performance.md ("Tricks and their promises") measured
alone: instructions per encounter, counted with callgrind (which the machine's load does not
move), with the trick on and off, on the 4v4 encounter of each ruleset it concerns (pure
build, fixed seeds, ``PYTHONHASHSEED=0``).

    python bench/tricks.py [--json] [--runs N] [--warmup N] [--only 2,10,...]
                           [--rulesets realms,zones,...] [--jobs J] [--seconds S]

A trick that a monkeypatch can switch off (its cache, memo or fast path replaced by the plain
equivalent in the measuring process) is measured in one process per ruleset: the
instructions of ``--runs`` encounters (seeds ``warmup`` .. ``warmup + runs - 1``) after
``--warmup`` encounters, counted only while those runs play (callgrind's collection is
toggled on inside ``atexit._run_exitfuncs``, which plays them, and dumped after each), for
the trick on (the baseline, measured first and again last: the difference shows what the
order of the measurements moves) and off. A trick that cannot be switched off so is
measured by a temporary edit of its source in a scratch clone (``git clone`` of this tree
into a temporary directory, the edit made there, the baseline measured in the clone);
``EDITS`` holds each edit. Every configuration must end its runs with the same tally as
the baseline (the same outcomes, rounds, damage): a trick off changes speed only.

``gain`` is (off - on) / off: the share of an encounter's instructions the trick saves.
Trick 1 is also measured where it acts most, a copy of a state after a fight (the store
makes one per command); trick 20 on the first parse of plain sums (``DICE_EXPRESSIONS``);
trick 21 needs a fresh compiled build (``--compiled PATH``). Trick 9, a memo of parsed
arguments, measured under 5% and was dropped (issue 37): it is no longer listed.
``--seconds S`` adds a second, noisy figure: encounters per CPU second on and off
(``bench/sim.py``'s median of quarter-second batches), outside callgrind.
"""

from __future__ import annotations

import argparse
import atexit
import copy
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ENCOUNTERS = ROOT / "scenarios" / "encounters"
SEED_RULESETS = ("realms", "zones", "polemos")


# -- switching a trick off in this process ---------------------------------------------------
class Patches:
    """Attributes replaced for one measurement, and put back after it."""

    def __init__(self) -> None:
        self.undo: list[tuple[Any, str, Any]] = []

    def set(self, owner: Any, name: str, value: Any) -> None:
        self.undo.append((owner, name, owner.__dict__[name] if isinstance(owner, type)
                          else getattr(owner, name)))
        setattr(owner, name, value)

    def everywhere(self, old: Any, new: Any) -> int:
        """Replace ``old`` by ``new`` in every module of the package that holds it by name
        (``from x import f`` binds its own name): the number of names replaced."""
        count = 0
        for module_name, module in list(sys.modules.items()):
            if not module_name.startswith("arbiter") or module is None:
                continue
            for name, value in list(vars(module).items()):
                if value is old:
                    self.set(module, name, new)
                    count += 1
        if count == 0:
            raise LookupError(f"{old!r} is held by no module of the package")
        return count

    def restore(self) -> None:
        for owner, name, value in reversed(self.undo):
            setattr(owner, name, value)
        self.undo.clear()


def _forget_caches() -> None:
    """Empty every cache a trick fills, so that each measurement builds its own (the
    warm-up runs fill them again)."""
    from arbiter.core import copying

    for kind in [k for k in copying._CLONERS if dataclasses.is_dataclass(k)]:
        del copying._CLONERS[kind]
    copying._SCRATCH_CLONERS.clear()
    copying._SCRATCH_SHARED.clear()
    copying._SCRATCH_PLANS.clear()
    try:
        from arbiter.rulesets.polemos import attacks, damage, grid, model
        from arbiter.rulesets.zones import model as zmodel
    except ImportError:
        return
    model._AREA_FACTS.clear()
    attacks._EXPECTED.clear()
    damage._TYPE_NAMES.clear()
    for fn in (attacks.attack_odds, grid._crossed, model._parse_damage_type):
        getattr(fn, "cache_clear", print)()  # (not while trick 13 is off)
    zmodel._WEAPONS.clear()
    zmodel._WEAPONS_BY_CONTENT.clear()


def off_cloner(p: Patches) -> None:  # 1
    from arbiter.core import copying

    p.set(copying, "_dataclass_cloner", lambda kind: copy.deepcopy)


def off_cow(p: Patches) -> None:  # 2
    from arbiter.core import copying

    p.everywhere(copying.scratch_copy, copying.clone)


def off_shared(p: Patches) -> None:  # 3
    from arbiter.core import copying

    p.set(copying, "scratch_promises", lambda kind: (frozenset(), frozenset()))
    p.set(copying, "_SHARED_EXTRA", {})


def off_empty_lookahead(p: Patches) -> None:  # 4
    from arbiter.core import copying
    from arbiter.core.ruleset import Ruleset

    def lookahead(self: Any, state: Any, events: list[Any]) -> Any:
        return copying.apply_to_scratch(self.evolve, copying.scratch_copy(state), events)

    p.set(Ruleset, "lookahead", lookahead)


def off_further(p: Patches) -> None:  # 5
    from arbiter.core.ruleset import Ruleset

    p.set(Ruleset, "_further", lambda self, scratch, events: self.lookahead(scratch, events))


def off_peek(p: Patches) -> None:  # 6
    from arbiter.core import copying

    def peek(entities: Any, key: str) -> Any:
        return entities.get(key)

    p.everywhere(copying.peek, peek)


def off_table(p: Patches) -> None:  # 8
    from arbiter.core.ruleset import Ruleset

    def evolve(self: Any, state: Any, event: Any) -> Any:
        fn = getattr(self, f"apply_{event.type}")
        data = event.data
        fn(state, data)
        for field, rule in self._carried_rules:
            if field in data:
                rule(state, data)
        state.version += 1
        return state

    p.set(Ruleset, "evolve", evolve)


def off_memo(p: Patches) -> None:  # 10
    from arbiter.rulesets.zones.attacks import Attacks

    p.set(Attacks, "_checked_plan", lambda self, state, command: None)


def off_early_check(p: Patches) -> None:  # 11 (with 10 off: no check plans anything)
    from arbiter.rulesets.zones.attacks import Attacks

    def check(self: Any, state: Any, command: Any) -> None:
        super(Attacks, self).check(state, command)

    off_memo(p)
    p.set(Attacks, "check", check)


def off_area_facts(p: Patches) -> None:  # 12
    from arbiter.rulesets.polemos import model

    p.everywhere(model.area_facts, model._area_facts)


def off_polemos_caches(p: Patches) -> None:  # 13
    from arbiter.rulesets.polemos import attacks, damage, grid, model

    odds = attacks.attack_odds.__wrapped__
    for fn in (attacks.attack_odds, grid._crossed, model._parse_damage_type):
        p.everywhere(fn, fn.__wrapped__)

    def expected_damage(attack_value: int, defense_value: int, defense_dice: int, rule2: str,
                        ties: str, modifier: int, threshold: int) -> Any:
        hit, _, _, mean = odds(attack_value, 0, 0, defense_value, defense_dice, 0, rule2,
                               ties, modifier, threshold)
        return float(hit * mean), hit * mean

    # kept in plain dicts (attacks._EXPECTED, damage._TYPE_NAMES): worked out each time
    p.everywhere(attacks.expected_damage, expected_damage)
    p.everywhere(damage.type_name, lambda text: str(model.DamageType.parse(text)))


def off_far_skip(p: Patches) -> None:  # 15
    import arbiter.rulesets.polemos.rules  # noqa: F401  (every topic module)

    steps = next(vars(m)["_status_steps"] for n, m in list(sys.modules.items())
                 if n.startswith("arbiter.rulesets.polemos.") and "_status_steps" in vars(m))
    low = (float("-inf"),) * 4

    def status_steps(fatigue_rule: str, stress_rule: str) -> Any:
        return steps(fatigue_rule, stress_rule)[0], low

    p.everywhere(steps, status_steps)


def off_weapons(p: Patches) -> None:  # 16
    from arbiter.core.errors import IllegalCommand
    from arbiter.rulesets.zones.model import Creature, Weapon

    def weapon(self: Any, name: str) -> Any:
        if name not in self.weapons:
            known = ", ".join(self.weapons) or "none"
            raise IllegalCommand(f"{self.id} has no weapon {name!r} (weapons: {known})")
        return Weapon.from_spec(name, self.weapons[name])

    p.set(Creature, "weapon", weapon)


def off_loaders(p: Patches) -> None:  # 19
    import importlib
    import inspect
    import pkgutil

    import arbiter.rulesets

    for info in pkgutil.walk_packages(arbiter.rulesets.__path__, "arbiter.rulesets."):
        module = importlib.import_module(info.name)
        for fn in list(vars(module).values()):
            if getattr(fn, "__module__", None) != info.name or not hasattr(fn, "cache_info"):
                continue
            try:
                takes = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            if not takes:
                p.everywhere(fn, fn.__wrapped__)


@dataclasses.dataclass(frozen=True)
class Trick:
    number: int
    name: str
    rulesets: tuple[str, ...]
    off: Callable[[Patches], None] | None = None
    """Switches it off in this process (None: by an edit, or not at all)."""
    how: str = ""
    """How it is switched off, or why it is not measured."""
    base: int | None = None
    """A trick also off in the reference (11's early answer is measured with 10 off)."""


EDITS: dict[int, list[tuple[str, str, str]]] = {
    7: [("src/arbiter/core/events.py", "@dataclass(slots=True)\nclass Event:",
         "@dataclass(slots=True, frozen=True)\nclass Event:")],
    18: [("src/arbiter/sim/engine.py",
          "            first: str | None = None\n"
          "            for side, members in sides_in_order.items():\n"
          "                for who in members:  # one creature able to act is enough for its side\n"
          "                    entity = entities.get(who)\n"
          "                    if entity is not None and not defeated(state, entity):\n"
          "                        if first is not None:  # two sides can still act\n"
          "                            return None\n"
          "                        first = side\n"
          "                        break\n"
          "            return DRAW if first is None else first\n",
          "            able = [side for side, members in sides_in_order.items()\n"
          "                    if [who for who in members if entities.get(who) is not None\n"
          "                        and not defeated(state, entities[who])]]\n"
          "            return None if len(able) > 1 else able[0] if able else DRAW\n")],
}
"""The temporary edits that switch off a trick no monkeypatch reaches: (path, old, new),
made in a scratch clone (``old`` must occur once)."""

ALL = SEED_RULESETS
TRICKS: tuple[Trick, ...] = (
    Trick(1, "a cloner per dataclass instead of deepcopy", ALL, off_cloner,
          "copying._dataclass_cloner gives copy.deepcopy"),
    Trick(2, "copy-on-write lookahead", ALL, off_cow,
          "scratch_copy is a full clone (every entity copied)"),
    Trick(3, "SHARED and COPIED field metadata", ALL, off_shared,
          "no field is declared shared or copied"),
    Trick(4, "a lookahead with no events is the state itself", ALL, off_empty_lookahead,
          "a scratch copy even with no events"),
    Trick(5, "next/start take one scratch further in place", ALL, off_further,
          "each step copies the scratch again through lookahead"),
    Trick(6, "copying.peek", ("realms",), off_peek, "peek is entities.get (copies)"),
    Trick(7, "slotted, not frozen, events", ALL, None,
          "edit: Event frozen=True (a Command keeps its bound arguments, set later)"),
    Trick(8, "evolve's table bound once", ALL, off_table, "getattr per event"),
    Trick(10, "zones check→decide memo", ("zones",), off_memo, "decide plans again"),
    Trick(11, "zones check answers before any roll", ("zones",), off_early_check,
          "check decides with throw-away dice (with 10 off too)", base=10),
    Trick(12, "Polemos area facts by identity", ("polemos",), off_area_facts,
          "worked out at each call"),
    Trick(13, "Polemos grid/odds/damage caches", ("polemos",), off_polemos_caches,
          "each lru_cache function called through __wrapped__"),
    Trick(14, "the wall index built once per map", ("polemos",), None,
          "not measured: a bound on work (a far move 25 s → 0.07 ms), kept for security"),
    Trick(15, "_consequences skips creatures far from thresholds", ("polemos",),
          off_far_skip, "every creature's status events worked out"),
    Trick(16, "zones weapon(name) built once per spec", ("zones",), off_weapons,
          "Weapon.from_spec at each call"),
    Trick(17, "realms damage/AR-8/d20 shortcuts", ("realms",), None,
          "not measured alone: the code has no slower path left to switch to "
          "(measured with 18 when it came in)"),
    Trick(18, "end-of-fight check stops at one creature per side", ALL, None,
          "edit: every creature of every side looked at"),
    Trick(19, "cached data loaders", ALL, off_loaders,
          "every loader called through __wrapped__ (reads and freezes its file)"),
    Trick(20, "the dice parser's fast path for a plain sum", ("dice",), None,
          "dice._simple_sum gives None (first parse of plain sums, not an encounter)"),
    Trick(21, "the compiled build", ALL, None, "PYTHONPATH=build/fast against the pure build"),
)

DICE_EXPRESSIONS = ("1d20+5", "3d6+2d4-1", "2d6", "1d8+3", "4d6kh3", "1d100", "2d20kh1+7",
                    "d6+d8+d10", "10d6", "1d12-1")


# -- inside callgrind ------------------------------------------------------------------------
def _tally_key(tally: Any) -> str:
    return repr((tally.runs, sorted(tally.outcomes.items()), sorted(tally.rounds.items()),
                 sorted(tally.dealt.items()), sorted(tally.taken.items()), tally.refused))


def _measured(play: Callable[[], Any]) -> Any:
    """``play()`` with callgrind counting (collection is on only inside
    ``atexit._run_exitfuncs``, and a dump follows it)."""
    box: list[Any] = []
    atexit.register(lambda: box.append(play()))
    atexit._run_exitfuncs()
    if not box:
        raise RuntimeError("the measured runs raised (see above)")
    return box[0]


def worker(ruleset: str, configs: list[int | str], runs: int, warmup: int) -> None:
    """Plays each configuration (0: every trick on) in turn and prints, per dump, what it
    was and the tally it ended with."""
    from arbiter.sim import Simulator, load_encounter, prepare

    out: list[dict[str, Any]] = []
    if ruleset == "dice":
        from arbiter.dice import parser

        for config in configs:
            p = Patches()
            if config == 20:
                p.everywhere(parser._simple_sum, lambda text: None)
            for expression in DICE_EXPRESSIONS:  # warm what is not per expression
                parser.parse_uncached(expression)
            parser._TERMS.clear()  # a first parse of each expression
            trees = _measured(lambda: [str(parser.parse_uncached(e)) for e in DICE_EXPRESSIONS])
            p.restore()
            out.append({"config": config, "tally": repr(trees)})
        print(json.dumps(out))
        return
    if ruleset.endswith("/copy"):  # a state copy (the store's, once per command)
        from arbiter.core.copying import clone

        state = Simulator(prepare(load_encounter(
            ENCOUNTERS / f"{ruleset.split('/')[0]}-4v4.yaml"))).logged(0).state
        for config in configs:
            p = Patches()
            if config == 1:
                off_cloner(p)
            _forget_caches()
            clone(state)
            copies = _measured(lambda: [clone(state) for _ in range(runs)])
            p.restore()
            out.append({"config": config, "tally": repr(copies[0] == state)})
        print(json.dumps(out))
        return
    job = prepare(load_encounter(ENCOUNTERS / f"{ruleset}-4v4.yaml"))
    for config in configs:
        p = Patches()
        for number in [int(n) for n in str(config).split("+")]:  # "4+8": both off
            trick = next((t for t in TRICKS if t.number == number), None)
            if trick is not None and trick.off is not None:
                trick.off(p)
            elif number > 0:
                raise ValueError(f"trick {number} cannot be switched off in this process")
        _forget_caches()
        try:
            sim = Simulator(job)
            sim.play_batch(0, warmup)
            tally = _measured(partial(sim.play_batch, warmup, warmup + runs))
            out.append({"config": config, "tally": _tally_key(tally)})
        except Exception as err:  # a trick off that breaks the rules: say so
            out.append({"config": config, "error": f"{type(err).__name__}: {err}"})
        finally:
            p.restore()
            _forget_caches()
    print(json.dumps(out))


# -- the driver ------------------------------------------------------------------------------
def callgrind(ruleset: str, configs: list[int | str], runs: int, warmup: int,
              pythonpath: str | None = None) -> list[dict[str, Any]]:
    """Runs :func:`worker` under callgrind: each configuration with its instructions."""
    with tempfile.TemporaryDirectory(prefix="tricks-") as tmp:
        out = Path(tmp) / "cg.out"
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        env.pop("ARBITER_SCRATCH_GUARD", None)
        if pythonpath is not None:
            env["PYTHONPATH"] = pythonpath
        else:
            env.pop("PYTHONPATH", None)
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no",
             "--toggle-collect=atexit_run_exitfuncs", "--dump-after=atexit_run_exitfuncs",
             f"--callgrind-out-file={out}", sys.executable, str(Path(__file__).resolve()),
             "--worker", ruleset, "--configs", ",".join(map(str, configs)),
             "--runs", str(runs), "--warmup", str(warmup)],
            env=env, capture_output=True, text=True, check=False, cwd=ROOT)
        if run.returncode != 0:
            raise RuntimeError(f"{ruleset}: the worker failed: {run.stderr[-2000:]}")
        rows: list[dict[str, Any]] = json.loads(run.stdout.strip().splitlines()[-1])
        for i, row in enumerate(rows, start=1):
            text = (Path(f"{out}.{i}")).read_text()
            found = re.search(r"^totals: (\d+)", text, re.M)
            if found is None:
                raise RuntimeError(f"{ruleset}: no totals in dump {i}")
            count = int(found.group(1))
            row["per_encounter"] = count / (len(DICE_EXPRESSIONS) if ruleset == "dice"
                                            else runs)
        return rows


@contextmanager
def scratch_clone(edits: list[tuple[str, str, str]]) -> Iterator[Path]:
    """A clone of this tree's last commit with ``edits`` made (removed after)."""
    tmp = Path(tempfile.mkdtemp(prefix="tricks-clone-"))
    try:
        subprocess.run(["git", "clone", "-q", str(ROOT), str(tmp / "x")], check=True)
        for path, old, new in edits:
            file = tmp / "x" / path
            text = file.read_text()
            if text.count(old) != 1:
                raise RuntimeError(f"{path}: the edit's text occurs {text.count(old)} times")
            file.write_text(text.replace(old, new))
        yield tmp / "x"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def compiled_path(build: Path) -> str | None:
    """``build`` when it holds a compiled build of the sources as they are, else None."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import fast  # tools/fast.py
    finally:
        sys.path.pop(0)
    return str(build) if fast.fresh(build) else None


def rate(ruleset: str, config: int, seconds: float) -> float:
    """Encounters per CPU second with ``config`` off (0: all on), as bench/sim.py measures."""
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); import sim, tricks\n"
            f"from arbiter.sim import load_encounter, prepare\n"
            f"p = tricks.Patches()\n"
            f"t = [t for t in tricks.TRICKS if t.number == {config}]\n"
            f"t and t[0].off(p); tricks._forget_caches()\n"
            f"job = prepare(load_encounter({str(ENCOUNTERS / f'{ruleset}-4v4.yaml')!r}))\n"
            f"print(sim.per_second(job, {seconds})[0])")
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("PYTHONPATH", None)
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    return float(run.stdout.split()[-1])


def measure(rulesets: list[str], only: set[int] | None, runs: int, warmup: int,
            jobs: int, seconds: float, save: Path | None = None,
            compiled: Path = ROOT / "build" / "fast") -> list[dict[str, Any]]:
    """A row per trick and ruleset. With ``save``, each process's figures are kept there
    (and a later run with the same ``save`` reuses them: delete the directory to measure
    again)."""
    chosen = [t for t in TRICKS if only is None or t.number in only]
    plans: list[tuple[str, Callable[[], list[dict[str, Any]]]]] = []
    for ruleset in [*rulesets, "dice"]:
        here = [t for t in chosen if ruleset in t.rulesets]
        patched = [t.number for t in here if t.off is not None]
        bases = sorted({t.base for t in here if t.base is not None} - set(patched))
        if ruleset == "dice":
            if here:
                plans.append(("dice", partial(callgrind, "dice", [0, 20, 0], 1, 0)))
            continue
        configs: list[int | str] = [0, *bases, *patched, 0]
        plans.append((ruleset, partial(callgrind, ruleset, configs, runs, warmup)))
        for t in here:
            if t.number in EDITS:
                plans.append((f"{ruleset}#{t.number}",
                              partial(_edited, ruleset, t.number, runs, warmup)))
        if any(t.number == 1 for t in here):
            plans.append((f"{ruleset}/copy", partial(callgrind, f"{ruleset}/copy", [0, 1, 0],
                                                     runs, 0)))
        if any(t.number == 21 for t in here):
            path = compiled_path(compiled)
            if path is not None:
                plans.append((f"{ruleset}#21", partial(_compiled, ruleset, runs, warmup, path)))
    def done(plan: tuple[str, Callable[[], list[dict[str, Any]]]]) -> list[dict[str, Any]]:
        name, play = plan
        kept = save / f"{name.replace('/', '-')}.json" if save is not None else None
        if kept is not None and kept.exists():  # measured by an earlier, interrupted run
            found: list[dict[str, Any]] = json.loads(kept.read_text())
            return found
        try:
            rows = play()
        except RuntimeError as err:  # one process failed: the others' figures still count
            print(f"{name}: {err}", file=sys.stderr)
            return []
        if kept is not None:
            kept.write_text(json.dumps(rows))
        return rows

    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(jobs) as pool:
        results = dict(zip([name for name, _ in plans], pool.map(done, plans), strict=True))
    rows: list[dict[str, Any]] = []
    for t in chosen:
        places = [r for r in [*rulesets, "dice"] if r in t.rulesets]
        if t.number == 1:  # and where it acts most: the store's copy of a state per command
            places += [f"{r}/copy" for r in places]
        for ruleset in places:
            row: dict[str, Any] = {"trick": t.number, "name": t.name, "ruleset": ruleset,
                                   "how": t.how, "on": None, "off": None, "gain_pct": None}
            mine = results.get(ruleset, [])
            reference = [r for r in mine if r["config"] == (t.base or 0)]
            if t.number in EDITS or t.number == 21:
                edited = results.get(f"{ruleset}#{t.number}")
                if edited:
                    clone_base = [r for r in edited if r["config"] == 0]
                    reference = clone_base[:1] if t.number in EDITS else reference
                    off = [r for r in edited if r["config"] == (-t.number if t.number in EDITS
                                                                  else 21)]
                else:
                    off = []
            else:
                off = [r for r in mine if r["config"] == t.number]
            if reference and off:
                on_n, off_n = reference[0]["per_encounter"], off[0]["per_encounter"]
                if t.number == 21:  # the compiled build is the "on" side
                    on_n, off_n = off_n, on_n
                row["on"], row["off"] = round(on_n), round(off_n)
                row["gain_pct"] = round(100 * (off_n - on_n) / off_n, 1)
                if "error" in off[0]:
                    row["error"] = off[0]["error"]
                row["same_tally"] = off[0].get("tally") == reference[0].get("tally")
            if len([r for r in mine if r["config"] == 0]) == 2:
                first, last = [r["per_encounter"] for r in mine if r["config"] == 0]
                row["baseline_drift_pct"] = round(100 * (last - first) / first, 2)
            if seconds and t.off is not None and ruleset in SEED_RULESETS:
                row["per_s_on"] = round(rate(ruleset, t.base or 0, seconds), 1)
                row["per_s_off"] = round(rate(ruleset, t.number, seconds), 1)
            rows.append(row)
    return rows


def _compiled(ruleset: str, runs: int, warmup: int, path: str) -> list[dict[str, Any]]:
    """The baseline on the compiled build in ``path`` (config 21)."""
    return [{**row, "config": 21} for row in callgrind(ruleset, [0], runs, warmup, path)]


def _edited(ruleset: str, number: int, runs: int, warmup: int) -> list[dict[str, Any]]:
    """The baseline of a clone, then of the clone with trick ``number``'s edit (config
    ``-number``)."""
    with scratch_clone([]) as plain:
        base = callgrind(ruleset, [0], runs, warmup, str(plain / "src"))
    with scratch_clone(EDITS[number]) as edited:
        off = callgrind(ruleset, [0], runs, warmup, str(edited / "src"))
    return [*base, *[{**row, "config": -number} for row in off]]


def _where(place: str) -> str:
    """What a row counts: an encounter of a ruleset's 4v4, a state copy, a first parse."""
    if place == "dice":
        return "a first parse of a plain sum"
    if place.endswith("/copy"):
        return f"a copy of a {place.split('/')[0]} state after a fight"
    return f"a {place}-4v4 encounter"


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table: instructions per unit of work, on and off."""
    lines = ["| # | trick | instructions per | on | off | gain |",
             "| ---: | --- | --- | ---: | ---: | ---: |"]
    for row in rows:
        row = {**row, "ruleset": _where(row["ruleset"])}
        if row["gain_pct"] is None:
            lines.append(f"| {row['trick']} | {row['name']} | {row['ruleset']} | – | – | "
                         f"{row['how']} |")
            continue
        note = "" if row.get("same_tally", True) else " (tally differs!)"
        note += f" ({row['error']})" if "error" in row else ""
        rate_ = (f"; {row['per_s_on']} → {row['per_s_off']}/s" if "per_s_on" in row else "")
        lines.append(f"| {row['trick']} | {row['name']} | {row['ruleset']} | "
                     f"{_count(row['on'])} | {_count(row['off'])} | "
                     f"{row['gain_pct']:+.1f}%{note}{rate_} |")
    return "\n".join(lines)


def _count(n: int) -> str:
    return f"{n / 1e6:.2f}M" if n >= 1e6 else f"{n / 1e3:.1f}k"


def _configs(text: str) -> list[int | str]:
    return [int(c) if c.isdigit() else c for c in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--runs", type=int, default=10, help="encounters counted")
    parser.add_argument("--warmup", type=int, default=3, help="encounters played first")
    parser.add_argument("--only", default="", help="trick numbers, comma-separated")
    parser.add_argument("--rulesets", default=",".join(SEED_RULESETS))
    parser.add_argument("--jobs", type=int, default=2, help="callgrind processes at once")
    parser.add_argument("--seconds", type=float, default=0.0,
                        help="also encounters per CPU second on and off (noisy)")
    parser.add_argument("--save", type=Path,
                        help="keep each process's figures here, and reuse those kept")
    parser.add_argument("--compiled", type=Path, default=ROOT / "build" / "fast",
                        help="the compiled build to compare with (tools/fast.py --out)")
    parser.add_argument("--sequence",
                        help="measure these configurations in order in one process per "
                             "ruleset (0: all on; 4: trick 4 off; 4+8: both off), e.g. "
                             "0,4,0,8,0,4+8,0")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--configs", default="0", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, _configs(args.configs), args.runs, args.warmup)
        return 0
    if args.sequence:  # each configuration's count in one process per ruleset, in order
        found = {r: callgrind(r, _configs(args.sequence), args.runs, args.warmup)
                 for r in args.rulesets.split(",")}
        if args.json:
            print(json.dumps(found, indent=1))
        for r, rows in found.items():
            if not args.json:
                print(f"{r}: " + ", ".join(
                    f"{row['config']} {_count(round(row['per_encounter']))}"
                    + ("" if row.get("tally") == rows[0].get("tally") else " (tally differs)")
                    for row in rows))
        return 0
    if shutil.which("valgrind") is None:
        print("bench/tricks.py: needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    only = {int(n) for n in args.only.split(",") if n} or None
    rows = measure(args.rulesets.split(","), only, args.runs, args.warmup, args.jobs,
                   args.seconds, args.save, args.compiled)
    print(json.dumps(rows, indent=1) if args.json else table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
