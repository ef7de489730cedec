"""Dice benchmarks: roll throughput against d20 (Avrae's roller) and exact-distribution time
against icepool and dyce, measured in the same run. Prints medians and ratios.

    python bench/dice.py [--json] [--repeats N] [--only rolls|exact|operators|limits]

``ratio`` for rolls is our throughput over d20's (batches of the two alternate, see
``bench_rolls``); for exact distributions it is the faster of icepool and dyce (where they
can express the expression) divided by our time. Above 1 means Arbiter is ahead. Exact
distributions are timed on a first call in a fresh process (no warm caches), as a user
meets them.

``OPERATORS`` has a case for each operator added for issue 23 (penetrating and once-only
explosions, keep with no count, minimum and maximum, Fudge and tens dice, successes with
failures, selecting dice, groups, modulo and remainders, rounding functions, comparisons
of totals, a dialect's exact division, keeping from dice that explode into separate dice,
several reroll points, even and odd, failures without successes) beside icepool;
``estimate`` rows time the
Monte-Carlo estimate of an expression with no exact model here against icepool's exact
answer. ``LARGEST`` times the largest accepted expression of each new kind (one more die,
or a bigger die, is refused): the distribution, and every outcome written as an exact
fraction, as the server's dice route does.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import timeit
from collections.abc import Callable
from typing import Any

ROLLS = ["1d20+5", "2d6+3", "4d6kh3", "8d6", "3d6+2d4-1", "10d10kh5+2"]
EXACT: dict[str, dict[str, str]] = {
    "2d6": {"arbiter": "distribution('2d6')", "icepool": "2 @ icepool.d6", "dyce": "2 @ H(6)"},
    "10d6": {"arbiter": "distribution('10d6')", "icepool": "10 @ icepool.d6", "dyce": "10 @ H(6)"},
    "4d6kh3": {
        "arbiter": "distribution('4d6kh3')",
        "icepool": "icepool.d6.highest(4, 3)",
        "dyce": "(4 @ P(6)).at(slice(1, None))",
    },
    "20d20": {"arbiter": "distribution('20d20')", "icepool": "20 @ icepool.d20",
              "dyce": "20 @ H(20)"},
}
OPERATORS: dict[str, dict[str, str]] = {
    "8d6!p": {"arbiter": "distribution('8d6!p')", "icepool": "8 @ penetrating(icepool.d6, 20)"},
    "6d6!o": {"arbiter": "distribution('6d6!o')", "icepool": "6 @ icepool.d6.explode(depth=1)"},
    "2d20kh": {"arbiter": "distribution('2d20kh')", "icepool": "icepool.d20.highest(2, 1)",
               "dyce": "(2 @ P(20)).at(slice(-1, None))"},
    "4d6min2kh3": {"arbiter": "distribution('4d6min2kh3')",
                   "icepool": "icepool.d6.clip(2, 6).highest(4, 3)"},
    "1d20mi10+5": {"arbiter": "distribution('1d20mi10+5', 'd20')",
                   "icepool": "icepool.d20.clip(10, 20) + 5"},
    "8dF": {"arbiter": "distribution('8dF')", "icepool": "8 @ icepool.Die([-1, 0, 1])",
            "dyce": "8 @ H((-1, 0, 1))"},
    "6dFkh3": {"arbiter": "distribution('6dFkh3')",
               "icepool": "icepool.Die([-1, 0, 1]).highest(6, 3)"},
    "3dT": {"arbiter": "distribution('d%+d%+d%', 'd20')",
            "icepool": "3 @ icepool.Die(range(0, 100, 10))"},
    "10d10>=7f1": {"arbiter": "distribution('10d10>=7f1')",
                   "icepool": "10 @ icepool.d10.map(lambda v: 1 if v >= 7 else -1 if v == 1 "
                              "else 0)"},
    "6d6k>4": {"arbiter": "distribution('6d6k>4')",
               "icepool": "6 @ icepool.d6.map(lambda v: v if v > 4 else 0)"},
    "{1d20+5, 2d10}kh1": {"arbiter": "distribution('{1d20+5, 2d10}kh1')",
                          "icepool": "icepool.Pool([icepool.d20 + 5, 2 @ icepool.d10])"
                                     ".highest(1).sum()"},
    "{4d6, 4d6, 4d6}kh2": {"arbiter": "distribution('{4d6, 4d6, 4d6}kh2')",
                           "icepool": "icepool.Pool([4 @ icepool.d6] * 3).highest(2).sum()"},
    "{5d6!!}>=8": {"arbiter": "distribution('{5d6!!}>8', 'roll20')",
                   "icepool": "5 @ icepool.d6.explode(depth=20).map(lambda v: int(v >= 8))"},
    "2d20%7": {"arbiter": "distribution('2d20%7')",
               "icepool": "(2 @ icepool.d20).map(lambda v: v % 7)"},
    "rem(2d6-9,4)": {"arbiter": "distribution('rem(2d6-9,4)')",
                     "icepool": "(2 @ icepool.d6).map(lambda v: int(math.fmod(v - 9, 4)))"},
    "floor(3d6/2)+ceil(2d8/3)": {
        "arbiter": "distribution('floor(3d6/2)+ceil(2d8/3)')",
        "icepool": "(3 @ icepool.d6).map(lambda v: v // 2) + (2 @ icepool.d8).map("
                   "lambda v: -(-v // 3))"},
    "d20: 1d20/2+1d6/3": {
        "arbiter": "distribution('1d20/2+1d6/3', 'd20')",
        "icepool": "icepool.map(lambda a, b: math.trunc(Fraction(a, 2) + Fraction(b, 3)), "
                   "icepool.d20, icepool.d6)"},
    "(1d20+5)>=2d6+8": {"arbiter": "distribution('1d20+5>=2d6+8')",
                        "icepool": "icepool.map(lambda a, b: int(a + 5 >= b + 8), icepool.d20,"
                                   " 2 @ icepool.d6)"},
    "1d20cs>=19cf1+4d6sd": {"arbiter": "distribution('1d20cs>=19cf1+4d6sd')",
                            "icepool": "icepool.d20 + 4 @ icepool.d6"},
    "{1d100,1d100,1d100,1d100}kh2": {
        "arbiter": "distribution('{1d100,1d100,1d100,1d100}kh2')",
        "icepool": "icepool.Pool([icepool.d100] * 4).highest(2).sum()"},
    "{1d100,1d90,…,1d40}kh2": {
        "arbiter": "distribution('{1d100,1d90,1d80,1d70,1d60,1d50,1d40}kh2')",
        "icepool": "icepool.Pool([icepool.Die(range(1, f + 1)) for f in (100, 90, 80, 70, 60,"
                   " 50, 40)]).highest(2).sum()"},
    "{1d100+1,1d90+1,…,1d40+1}kh2 (estimate)": {
        "arbiter": "estimate('{1d100+1,1d90+1,1d80+1,1d70+1,1d60+1,1d50+1,1d40+1}kh2')",
        "icepool": "icepool.Pool([icepool.Die(range(2, f + 2)) for f in (100, 90, 80, 70, 60,"
                   " 50, 40)]).highest(2).sum()"},
    # keeping and dropping dice that explode into separate dice (the pool grows)
    "3d6!kh2": {"arbiter": "distribution('3d6!kh2')",
                "icepool": "icepool.d6.explode_to_pool(3, depth=20).highest(2).sum()"},
    "5d6!kh3": {"arbiter": "distribution('5d6!kh3')",
                "icepool": "icepool.d6.explode_to_pool(5, depth=20).highest(3).sum()"},
    "4d6!dl1": {"arbiter": "distribution('4d6!dl1')",
                "icepool": "icepool.d6.explode_to_pool(4, depth=20).lowest(None, 1).sum()"},
    "4d10!>8kl2": {"arbiter": "distribution('4d10!>8kl2')",
                   "icepool": "icepool.d10.explode_to_pool(4, [9, 10], depth=20).lowest(2)"
                              ".sum()"},
    "{3d6!+2d8}kh3": {"arbiter": "distribution('{3d6!+2d8}kh3')",
                      "icepool": "(icepool.d6.explode_to_pool(3, depth=20) + "
                                 "icepool.d8.pool(2)).highest(3).sum()"},
    # several reroll points, even and odd, failures without successes
    "1d10r1r3": {"arbiter": "distribution('1d10r1r3', 'roll20')",
                 "icepool": "icepool.d10.reroll([1, 3], depth=20)"},
    "6d6even": {"arbiter": "distribution('6d6even', 'foundry')",
                "icepool": "6 @ icepool.d6.map(lambda v: int(v % 2 == 0))"},
    "10d6df<2": {"arbiter": "distribution('10d6df<2', 'foundry')",
                 "icepool": "10 @ icepool.d6.map(lambda v: -1 if v < 2 else v)"},
    "4d6sf<3": {"arbiter": "distribution('4d6sf<3', 'foundry')",
                "icepool": "4 @ icepool.d6.map(lambda v: -v if v < 3 else v)"},
    "{4d6+3d8}kh4": {
        "arbiter": "distribution('{4d6+3d8}kh4')",
        "icepool": "icepool.Pool([icepool.d6] * 4 + [icepool.d8] * 3).highest(4).sum()"},
    "{1d4+1d6+1d8+1d10+1d12}kh2": {
        "arbiter": "distribution('{1d4+1d6+1d8+1d10+1d12}kh2')",
        "icepool": "icepool.Pool([icepool.d4, icepool.d6, icepool.d8, icepool.d10, "
                   "icepool.d12]).highest(2).sum()"},
}
LARGEST = [
    "68d6!p", "11d100!p", "19d6!>=3", "11d10!>3", "686d6!o", "116d100!o", "347dT",
    "301dFkh150", "256d100min20", "11d1000min200kh3", "232d100k>50", "1000d10>=6f1",
    "79d6!p>=5>=4f1", "92d2!", "138dF!", "11d20!!kh1", "{101d6+101d6}kh50",
    "{1000d6+1000d8}>=5", "{31d6+31d8}kh15", "{6d4+6d6+6d8+6d10}kh3", "{5d10!!+5d8!!}kh2",
    "{1d4180,1d4180,1d4180,1d4180}kh2", "{2d1845,2d1845,1d1845}kl2",
    "{100d10,100d10,100d10,100d10,100d10,100d10,100d10}",
    "rem(1d1000-500,1d1000)", "1d1000%1d1000", "(1d1000)>=1d1000", "floor(1d352/1d352)",
    "trunc(861d20/7)", "round(267d100/3)", "floor(71d6/2+71d6/3)",
    "floor(7d20/2+7d20/3+7d20/5)",
    # keeping and dropping dice that explode into separate dice
    "80d6!kh10", "21d6!dl1", "12d6!dh2", "257d6!pkh1", "200d10!kl2", "{244d6!+244d8}kh3",
    "47dF!dl1", "19d6!dl1df1", "1000d10!o>=8kh3", "15d10!okl15>=4f1",
]
SETUP = {
    "arbiter": "from arbiter.dice import distribution, estimate",
    "icepool": (
        "import icepool, math\nfrom fractions import Fraction\n"
        "def penetrating(die, depth):\n"
        "    top = die.max_outcome()\n"
        "    def chain(k, shift):\n"
        "        if k == 0:\n"
        "            return die - shift\n"
        "        rest = chain(k - 1, 1)\n"
        "        return die.map(lambda v: v - shift + rest if v == top else v - shift)\n"
        "    return chain(depth, 0)"
    ),
    "dyce": "from dyce import H, P",
}


def batch_rate(timer: timeit.Timer, number: int) -> float:
    """Calls per second over one batch of ``number`` calls."""
    return number / timer.timeit(number)


def bench_rolls(repeats: int) -> list[dict[str, Any]]:
    """Throughput of each expression, ours and d20's measured in alternating batches.

    The batches alternate so that both libraries see the same machine: on a shared or
    throttled host the speed drifts over seconds, and two back-to-back measurements can
    differ more than the libraries do. Each round pairs one batch of each; the ratio is
    the median of the per-round ratios, the rates the medians of the batches.
    """
    import d20

    from arbiter.dice import SeededDice, roll

    source = SeededDice(1)
    rows = []
    for expr in ROLLS:

        def roll_ours(e: str = expr) -> object:
            return roll(e, source)

        def roll_theirs(e: str = expr) -> object:
            return d20.roll(e)

        ours = timeit.Timer(roll_ours)
        theirs = timeit.Timer(roll_theirs)
        n_ours, _ = ours.autorange()
        n_theirs, _ = theirs.autorange()
        rounds = [(batch_rate(ours, n_ours), batch_rate(theirs, n_theirs))
                  for _ in range(max(repeats, 3))]
        rows.append({
            "expr": expr,
            "arbiter_per_s": round(statistics.median(a for a, _ in rounds)),
            "d20_per_s": round(statistics.median(b for _, b in rounds)),
            "ratio": round(statistics.median(a / b for a, b in rounds), 2),
        })
    return rows


def first_call_ms(lib: str, code: str) -> float:
    """Time of one first evaluation in a fresh interpreter (imports excluded)."""
    script = (
        f"{SETUP[lib]}\nimport time\nt = time.perf_counter()\nx = {code}\n"
        "print((time.perf_counter() - t) * 1000)"
    )
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                         text=True)
    return float(out.stdout.strip().splitlines()[-1])


def first_parse_roll_us(samples: int = 25,
                        new_terms: Callable[[int], str] | None = None) -> float:
    """Median time to parse and roll an expression never seen before, in microseconds.

    What is timed is the work a new expression costs (parsing it, compiling its plan,
    rolling), not the process's first use of that code: caches are cleared, then 200 other
    expressions are rolled first, as in a program that has been running for a while. Each
    timed expression is new and timed alone. The dice source is made outside the timed
    region (seeding a Mersenne Twister is not parsing).

    The expressions timed (``3d7+2d4kh1-10``...) are new texts, but their terms may have
    been read before (the parser keeps the terms of plain sums by their text); with
    ``new_terms`` (``k`` to a text) every term can be new as well.
    """
    import time

    from arbiter.dice import SeededDice, parse, parser, roll, roller

    parse.cache_clear()
    roller.clear_plans()
    parser._TERMS.clear()
    source = SeededDice(1)
    for k in range(200):
        roll(f"{k % 9 + 1}d{k % 11 + 2}+{k % 5 + 1}d6kh1-{k}", source)
    times = []
    for k in range(samples):
        text = new_terms(k) if new_terms is not None else f"3d{k + 4}+2d4kh1-{k + 7}"
        t = time.perf_counter()
        roll(text, source)
        times.append((time.perf_counter() - t) * 1e6)
    return statistics.median(times)


def bench_exact(repeats: int, cases: dict[str, dict[str, str]] = EXACT) -> list[dict[str, Any]]:
    rows = []
    for expr, codes in cases.items():
        times = {lib: statistics.median(first_call_ms(lib, code) for _ in range(repeats))
                 for lib, code in codes.items()}
        best = min(t for lib, t in times.items() if lib != "arbiter")
        rows.append({"expr": expr, "arbiter_ms": round(times["arbiter"], 4),
                     "icepool_ms": round(times["icepool"], 4),
                     "dyce_ms": round(times["dyce"], 4) if "dyce" in times else None,
                     "ratio": round(best / times["arbiter"], 1)})
    return rows


def bench_largest() -> list[dict[str, Any]]:
    """The largest accepted expression of each new kind: its estimated work, and the time
    of a first distribution with every outcome written as an exact fraction (best of two
    fresh processes)."""
    from arbiter.dice import exact, parse

    rows = []
    for text in LARGEST:
        estimated = exact.check(parse(text)) / 1e6
        code = (f"{{str(v): str(p) for v, p in distribution({text!r}).items()}}")
        took = min(first_call_ms("arbiter", code) for _ in range(2))
        rows.append({"expr": text, "estimated_ms": round(estimated), "ms": round(took)})
    return rows


def bench_limits() -> list[dict[str, Any]]:
    import time
    import tracemalloc

    from arbiter.dice import DiceError, SeededDice, distribution, exact, parse, roll, roller

    hostile = ["1000000d1000000", "1d0", "d", "((((", "(" * 10_000 + "1" + ")" * 10_000,
               "(" * 32 + "1" + ")" * 32 + "*" + "1000d10000" , "1000d10000*1000d10000",
               "+".join(["1000d6"] * 20), "5d100!!kh4", "1d100!>2",
               "{" + ",".join(f"1d{100 - i}" for i in range(12)) + "}kh2",
               "floor(" + "/".join(["1d1000"] * 3) + ")"]
    rows = []
    for text in hostile:
        parse.cache_clear()
        roller.clear_plans()
        exact.clear_cache()
        tracemalloc.start()
        t = time.perf_counter()
        try:
            if "*" in text or "!!kh" in text or "{" in text or "floor" in text:
                distribution(text)
            else:
                roll(text, SeededDice(1))
            outcome = "accepted"
        except DiceError as err:
            outcome = type(err).__name__
        ms = (time.perf_counter() - t) * 1000
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        rows.append({"input": text[:30] + ("…" if len(text) > 30 else ""), "outcome": outcome,
                     "ms": round(ms, 3), "peak_mb": round(peak, 2)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=["rolls", "exact", "operators", "limits"],
                        default=None)
    args = parser.parse_args()
    result: dict[str, Any] = {}
    if args.only in (None, "rolls"):
        result["roll"] = bench_rolls(args.repeats)
    if args.only in (None, "exact"):
        result["exact"] = bench_exact(args.repeats)
    if args.only in (None, "operators"):
        result["operators"] = bench_exact(args.repeats, OPERATORS)
    if args.only in (None, "limits"):
        result["largest"] = bench_largest()
    if args.only is None:
        result["first_parse_roll_us"] = round(first_parse_roll_us(), 1)
        result["first_parse_roll_new_terms_us"] = round(first_parse_roll_us(
            new_terms=lambda k: f"3d{k + 400}+2d{k + 300}kh1-{k + 7000}"), 1)
        big = first_call_ms("arbiter", "distribution('1000d6')")
        result["exact_1000d6_ms"] = round(big, 1)
        result["hostile"] = bench_limits()
    worst: dict[str, Any] = {key: min(result[key], key=lambda row: row["ratio"])
                             for key in ("roll", "exact") if key in result}
    if "operators" in result:  # (the estimate row times a Monte-Carlo estimate: not exact)
        worst["operators"] = min((row for row in result["operators"]
                                  if "(estimate)" not in row["expr"]),
                                 key=lambda row: row["ratio"])
    if worst:
        # issue 35: every roll and exact ratio at least 5 in one run; the worst one named
        result["worst"] = {key: {"expr": row["expr"], "ratio": row["ratio"]}
                           for key, row in worst.items()}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if "roll" in result:
        table = Table(title="roll throughput (median calls/s, parse cached)")
        for col in ("expr", "arbiter/s", "d20/s", "ratio"):
            table.add_column(col, justify="right")
        for row in result["roll"]:
            table.add_row(row["expr"], f"{row['arbiter_per_s']:,}", f"{row['d20_per_s']:,}",
                          f"{row['ratio']}x")
        console.print(table)
    for key, title in (("exact", "exact distribution"),
                       ("operators", "new operators (estimate: Monte-Carlo, 100,000 rolls)")):
        if key not in result:
            continue
        table = Table(title=f"{title}, first call in a fresh process (median ms)")
        for col in ("expr", "arbiter", "icepool", "dyce", "ratio"):
            table.add_column(col, justify="right")
        for row in result[key]:
            dyce = "—" if row["dyce_ms"] is None else f"{row['dyce_ms']:.3f}"
            table.add_row(row["expr"], f"{row['arbiter_ms']:.3f}", f"{row['icepool_ms']:.3f}",
                          dyce, f"{row['ratio']}x")
        console.print(table)
    if "largest" in result:
        table = Table(title="largest accepted of each new kind: distribution and every "
                            "outcome as a fraction, first call (best of 2, ms)")
        for col in ("expr", "estimated", "measured"):
            table.add_column(col, justify="right")
        for row in result["largest"]:
            table.add_row(row["expr"][:40], str(row["estimated_ms"]), str(row["ms"]))
        console.print(table)
    for key, row in result.get("worst", {}).items():
        console.print(f"worst {key} ratio: {row['ratio']}x ({row['expr']})")
    if "hostile" in result:
        console.print("first parse+roll of a new expression (median of 25, after 200 others): "
                      f"{result['first_parse_roll_us']} µs; every term new: "
                      f"{result['first_parse_roll_new_terms_us']} µs")
        console.print(f"exact 1000d6, first call: {result['exact_1000d6_ms']} ms")
        table = Table(title="hostile input")
        for col in ("input", "outcome", "ms", "peak MB"):
            table.add_column(col)
        for row in result["hostile"]:
            table.add_row(row["input"], row["outcome"], str(row["ms"]), str(row["peak_mb"]))
        console.print(table)


if __name__ == "__main__":
    main()
