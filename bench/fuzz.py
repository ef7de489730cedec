"""The long Schemathesis run (``make fuzz``): every operation of /openapi.json, many cases
each, every check, as the game master and as a player, against a live server on 127.0.0.1.

    python bench/fuzz.py [--examples N] [--seed S] [--json]

Prints the cases sent and the failures found per operation, and exits 1 when any failed.
The short run of the same checks is ``tests/security/test_schemathesis.py`` in ``make test``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, seed, settings
from schemathesis.config import SchemathesisConfig

from arbiter import __version__
from arbiter.server.openapi import openapi_document

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.security.live import LiveServer  # noqa: E402
from tests.security.test_schemathesis import CONFIG, Table  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    config: SchemathesisConfig = CONFIG
    schema = schemathesis.openapi.from_dict(openapi_document(__version__), config=config)
    cases: Counter[str] = Counter()
    failures: dict[str, list[str]] = {}
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, \
            LiveServer(Path(folder) / "fuzz.db") as server:
        table = Table(server)
        for result in schema.get_all_operations():
            operation = result.ok()  # type: ignore[union-attr]  # the schema is ours: valid

            @seed(args.seed)
            @settings(max_examples=args.examples, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))
            @given(case=operation.as_strategy())
            def run(case: Any) -> None:
                name = f"{case.method.upper()} {case.path}"
                if case.path_parameters:
                    ids = table.ids()
                    case.path_parameters = {k: ids.get(k, v)
                                            for k, v in case.path_parameters.items()}
                for headers in (table.gm, table.player):
                    cases[name] += 1
                    try:
                        case.call_and_validate(base_url=table.url, headers=headers)
                    except Exception as err:  # a failed check: counted, the run goes on
                        failures.setdefault(name, []).append(str(err).splitlines()[0][:200])

            run()
    seconds = time.perf_counter() - began
    total = sum(cases.values())
    failed = sum(len(v) for v in failures.values())
    if args.json:
        json.dump({"cases": total, "failures": failed, "seconds": round(seconds, 1),
                   "by_operation": {k: {"cases": v, "failures": len(failures.get(k, []))}
                                    for k, v in cases.items()},
                   "failed": failures}, sys.stdout, indent=2)
        print()
    else:
        for name, count in cases.items():
            print(f"{name:<60} {count:>6} cases  {len(failures.get(name, [])):>4} failures")
            for line in sorted(set(failures.get(name, [])))[:5]:
                print(f"    {line}")
        print(f"{total} cases, {failed} failures, {seconds:.0f} s "
              f"(seed {args.seed}, {args.examples} examples per operation)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
