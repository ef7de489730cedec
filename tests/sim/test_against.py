"""``bench/against.py``: the same-run comparison with issue 36's base. Its measuring is a
subprocess per figure (bench/sim.py); here ``rate`` is replaced, so that what it does with
the figures is checked: the builds in alternating order, the medians, the ratios and the
goals read as ratios to the base."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from ..support import script


def _against() -> ModuleType:
    return script("bench/against.py")


def test_rounds_alternate_and_goals_are_ratios_to_the_base(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    against = _against()
    base = against.Build("base compiled", Path("/b"))
    here = against.Build("here compiled", Path("/h"))
    figures = {("polemos", "/b"): iter([100.0, 90.0, 110.0]),
               ("polemos", "/h"): iter([240.0, 250.0, 230.0]),
               ("zones", "/b"): iter([100.0, 100.0, 100.0]),
               ("zones", "/h"): iter([200.0, 210.0, 190.0])}
    order: list[str] = []

    def rate(build: object, encounter: Path, seconds: float) -> float:
        assert isinstance(build, against.Build) and seconds == 0.5
        ruleset = encounter.name.removesuffix("-4v4.yaml")
        order.append(f"{ruleset} {build.path}")
        return next(figures[(ruleset, str(build.path))])

    monkeypatch.setattr(against, "rate", rate)
    rows = against.compare([("compiled", base, here)], ["polemos", "zones"], 3, 0.5)
    # the build measured first changes each round
    assert order == ["polemos /b", "polemos /h", "zones /b", "zones /h",
                     "polemos /h", "polemos /b", "zones /h", "zones /b",
                     "polemos /b", "polemos /h", "zones /b", "zones /h"]
    polemos, zones = rows
    assert (polemos["base"], polemos["here"], polemos["ratio"]) == (100.0, 240.0, 2.4)
    assert polemos["goal_ratio"] == round(600 / 253, 2) and polemos["met"] is True
    assert (zones["base"], zones["here"], zones["ratio"]) == (100.0, 200.0, 2.0)
    assert zones["goal_ratio"] == round(600 / 289, 2) and zones["met"] is False


def test_pure_is_met_when_at_least_as_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    against = _against()
    monkeypatch.setattr(against, "rate",
                        lambda build, encounter, seconds: 80.0 if build.name == "b" else 79.0)
    [row] = against.compare([("pure", against.Build("b", Path("/b")),
                              against.Build("h", Path("/h")))], ["realms"], 1, 1.0)
    assert (row["ratio"], row["goal_ratio"], row["met"]) == (0.99, 1.0, False)


def test_an_unknown_commit_is_refused_with_its_name() -> None:
    against = _against()
    with pytest.raises(SystemExit, match="no commit 'no-such-rev'"):
        against.full_rev("no-such-rev")
