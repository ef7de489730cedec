"""Benchmark of the simulate route: the time of ``POST /api/encounters/{eid}/simulate``
with 1,000 runs for each demo table's encounter (median of 3), in the server's worker
processes, under its deadline (``limits.SIMULATE_SECONDS``: an encounter slower than that
answers fewer runs, ``cut_short``; the table shows the runs done).

    python bench/simulate_route.py             # a table
    python bench/simulate_route.py --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from arbiter.server import create_app
from arbiter.web.demo import create_demo_tables


def measure(runs: int, repeats: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        app: Any = create_app(db=Path(tmp) / "bench.db")
        with TestClient(app) as client:
            tables = create_demo_tables(app.state.api.games)
            for table in tables:
                headers = {"Authorization": f"Bearer {table.gm_token}"}
                url = f"/api/encounters/{table.encounter}/simulate"
                client.post(url, json={"runs": 10}, headers=headers)  # the workers warm up
                times, done = [], []
                for _ in range(repeats):
                    began = time.perf_counter()
                    r = client.post(url, json={"runs": runs, "seed": 0}, headers=headers)
                    times.append(time.perf_counter() - began)
                    r.raise_for_status()
                    done.append(r.json()["runs"])
                out[table.ruleset] = {"median_s": round(statistics.median(times), 3),
                                      "runs_done": min(done),
                                      "runs_per_s": round(min(done) / statistics.median(times))}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = measure(args.runs, args.repeats)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{'ruleset':10} {'median s':>9} {'runs done':>10} {'runs/s':>8}")
    for name, row in out.items():
        print(f"{name:10} {row['median_s']:9.3f} {row['runs_done']:10} {row['runs_per_s']:8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
