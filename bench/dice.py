"""Dice benchmarks: roll throughput against d20 (Avrae's roller) and exact-distribution time
against icepool and dyce, measured in the same run. Prints medians and ratios.

    python bench/dice.py [--json] [--repeats N]

``ratio`` for rolls is our throughput over d20's (batches of the two alternate, see
``bench_rolls``); for exact distributions it is the faster of icepool and dyce divided by our
time. Above 1 means Arbiter is ahead. Exact distributions are timed on a first call in a fresh
process (no warm caches), as a user meets them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import timeit
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
SETUP = {
    "arbiter": "from arbiter.dice import distribution",
    "icepool": "import icepool",
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


def first_parse_roll_us(samples: int = 25) -> float:
    """Median time to parse and roll an expression never seen before, in microseconds.

    What is timed is the work a new expression costs (parsing it, compiling its plan,
    rolling), not the process's first use of that code: caches are cleared, then 200 other
    expressions are rolled first, as in a program that has been running for a while. Each
    timed expression is new and timed alone. The dice source is made outside the timed
    region (seeding a Mersenne Twister is not parsing).
    """
    import time

    from arbiter.dice import SeededDice, parse, roll, roller

    parse.cache_clear()
    roller.clear_plans()
    source = SeededDice(1)
    for k in range(200):
        roll(f"{k % 9 + 1}d{k % 11 + 2}+{k % 5 + 1}d6kh1-{k}", source)
    times = []
    for k in range(samples):
        text = f"3d{k + 4}+2d4kh1-{k + 7}"
        t = time.perf_counter()
        roll(text, source)
        times.append((time.perf_counter() - t) * 1e6)
    return statistics.median(times)


def bench_exact(repeats: int) -> list[dict[str, Any]]:
    rows = []
    for expr, codes in EXACT.items():
        times = {lib: statistics.median(first_call_ms(lib, code) for _ in range(repeats))
                 for lib, code in codes.items()}
        best = min(times["icepool"], times["dyce"])
        rows.append({"expr": expr, "arbiter_ms": round(times["arbiter"], 4),
                     "icepool_ms": round(times["icepool"], 4), "dyce_ms": round(times["dyce"], 4),
                     "ratio": round(best / times["arbiter"], 1)})
    return rows


def bench_limits() -> list[dict[str, Any]]:
    import time
    import tracemalloc

    from arbiter.dice import DiceError, SeededDice, distribution, exact, parse, roll, roller

    hostile = ["1000000d1000000", "1d0", "d", "((((", "(" * 10_000 + "1" + ")" * 10_000,
               "(" * 32 + "1" + ")" * 32 + "*" + "1000d10000" , "1000d10000*1000d10000",
               "+".join(["1000d6"] * 20)]
    rows = []
    for text in hostile:
        parse.cache_clear()
        roller.clear_plans()
        exact.clear_cache()
        tracemalloc.start()
        t = time.perf_counter()
        try:
            distribution(text) if "*" in text else roll(text, SeededDice(1))
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
    args = parser.parse_args()
    result: dict[str, Any] = {"roll": bench_rolls(args.repeats), "exact": bench_exact(args.repeats)}
    result["first_parse_roll_us"] = round(first_parse_roll_us(), 1)
    big = first_call_ms("arbiter", "distribution('1000d6')")
    result["exact_1000d6_ms"] = round(big, 1)
    result["hostile"] = bench_limits()
    if args.json:
        print(json.dumps(result, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title="roll throughput (median calls/s, parse cached)")
    for col in ("expr", "arbiter/s", "d20/s", "ratio"):
        table.add_column(col, justify="right")
    for row in result["roll"]:
        table.add_row(row["expr"], f"{row['arbiter_per_s']:,}", f"{row['d20_per_s']:,}",
                      f"{row['ratio']}x")
    console.print(table)
    table = Table(title="exact distribution, first call in a fresh process (median ms)")
    for col in ("expr", "arbiter", "icepool", "dyce", "ratio"):
        table.add_column(col, justify="right")
    for row in result["exact"]:
        table.add_row(row["expr"], f"{row['arbiter_ms']:.3f}", f"{row['icepool_ms']:.3f}",
                      f"{row['dyce_ms']:.3f}", f"{row['ratio']}x")
    console.print(table)
    console.print("first parse+roll of a new expression (median of 25, after 200 others): "
                  f"{result['first_parse_roll_us']} µs")
    console.print(f"exact 1000d6, first call: {result['exact_1000d6_ms']} ms")
    table = Table(title="hostile input")
    for col in ("input", "outcome", "ms", "peak MB"):
        table.add_column(col)
    for row in result["hostile"]:
        table.add_row(row["input"], row["outcome"], str(row["ms"]), str(row["peak_mb"]))
    console.print(table)


if __name__ == "__main__":
    main()
