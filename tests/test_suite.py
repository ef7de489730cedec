"""How ``make test`` runs the suite (Makefile, ``test``): every test but the timed ones on
every core (pytest-xdist), then the timed ones alone (``-m serial``), collected from
``tests/security`` only, so the second run does not import and collect the whole suite
again (about 20 s). This keeps that promise: a test marked ``serial`` anywhere else would
be run by neither."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SERIAL_HOME = TESTS / "security"
MARK = re.compile(r"pytest\.mark\.serial\b")


def test_every_timed_test_is_where_the_second_run_looks() -> None:
    marked = {path.relative_to(TESTS).as_posix() for path in TESTS.rglob("*.py")
              if path != Path(__file__) and MARK.search(path.read_text(encoding="utf-8"))}
    assert marked, "no test is marked serial: the Makefile's second run has nothing to do"
    elsewhere = sorted(p for p in marked if not (TESTS / p).is_relative_to(SERIAL_HOME))
    assert not elsewhere, (f"{elsewhere}: marked serial outside tests/security, where "
                           "make test's second run (-m serial) does not look")


def test_the_makefile_runs_the_timed_tests_where_they_are() -> None:
    makefile = (TESTS.parent / "Makefile").read_text(encoding="utf-8")
    assert '-m "not serial"' in makefile
    assert "-m serial tests/security" in makefile
