"""``--vary PATH=A..B[:STEP]``: the values a sweep runs through."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .encounter import SimError

MAX_VALUES = 200
_VARY = re.compile(r"^\s*([^=\s]+)\s*=\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?::\s*(\d+))?\s*$")


@dataclass(frozen=True, slots=True)
class Vary:
    """A stat-block path and the whole numbers it takes, from ``lo`` to ``hi`` by ``step``.

    >>> Vary.parse("orc.armor=0..6:2").values
    [0, 2, 4, 6]
    """

    path: str
    lo: int
    hi: int
    step: int = 1

    @property
    def values(self) -> list[int]:
        return list(range(self.lo, self.hi + 1, self.step))

    @classmethod
    def parse(cls, text: str) -> Vary:
        match = _VARY.match(text)
        if match is None:
            raise SimError(f"--vary {text!r}: write PATH=A..B or PATH=A..B:STEP with whole "
                           "numbers, e.g. orc.armor=0..4")
        path, lo, hi, step = match.group(1), int(match.group(2)), int(match.group(3)), \
            int(match.group(4) or 1)
        if step < 1:
            raise SimError(f"--vary {text!r}: the step must be at least 1")
        if lo > hi:
            raise SimError(f"--vary {text!r}: the range runs from {lo} up to {hi}; "
                           f"write {path}={hi}..{lo}")
        vary = cls(path, lo, hi, step)
        if len(vary.values) > MAX_VALUES:
            raise SimError(f"--vary {text!r}: {len(vary.values)} values; at most {MAX_VALUES} "
                           "(use a larger step)")
        return vary
