"""Dice sources: where random numbers come from. Always injected, never global.

- :class:`SeededDice`: reproducible pseudo-random dice from a seed.
- :class:`ForcedDice`: a queue of given results, for tests, scenarios and physical dice
  rolled at the table.
- :class:`RecordingDice`: wraps another source and keeps what was rolled, for the event log.
- Two throw-away sources: :class:`NoDice`, for a command that must roll nothing (creating an
  encounter, adding its first creatures): a roll is refused with a :class:`DiceError` naming
  the command; and :class:`ProbeDice`, for ``Ruleset.check``: seeded the same every time, so
  a question asked before acting has one answer and touches no one's dice.

A source needs only ``roll``. It may also offer ``roll_many(n, faces)``, giving exactly what
``n`` calls of ``roll(faces)`` would give, in order and with the same effect on its state;
the roller then rolls a plain pool such as ``8d6`` in one call. All three sources here do.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable
from itertools import islice
from typing import Protocol

from .errors import DiceError, ForcedDiceError


class DiceSource(Protocol):
    """Anything that can roll one die with ``faces`` faces, giving 1..faces.

    Not ``runtime_checkable``: the compiled build compiles this module (a seeded roll is
    then a native call, not a Python frame), and mypyc makes a protocol class no
    ``isinstance`` can take. Nothing asks ``isinstance(x, DiceSource)``.

    An optional ``roll_many(n, faces) -> list[int]`` method, equal to ``n`` calls of
    ``roll(faces)``, lets the roller take a pool in one call; ``roll`` alone is enough.
    """

    def roll(self, faces: int) -> int: ...


class SeededDice:
    """Pseudo-random dice from :class:`random.Random` (Mersenne Twister), seeded.

    >>> SeededDice(7).roll(20) == SeededDice(7).roll(20)
    True
    """

    __slots__ = ("_random", "seed")

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._random = random.Random(seed).random

    def roll(self, faces: int) -> int:
        # A 53-bit float scaled to the faces: bias below 2**-40 for any die we allow.
        return int(self._random() * faces) + 1

    def roll_many(self, n: int, faces: int) -> list[int]:
        """``n`` calls of :meth:`roll` in one."""
        random = self._random
        return [int(random() * faces) + 1 for _ in range(n)]


class ForcedDice:
    """Dice that come out as given, in order.

    >>> dice = ForcedDice([6, 1])
    >>> dice.roll(6), dice.roll(6)
    (6, 1)
    """

    __slots__ = ("_queue", "used")

    def __init__(self, values: Iterable[int]) -> None:
        self._queue: deque[int] = deque(values)
        self.used = 0

    @property
    def remaining(self) -> list[int]:
        return list(self._queue)

    def roll(self, faces: int) -> int:
        if not self._queue:
            raise ForcedDiceError(
                f"forced dice ran out: roll number {self.used + 1} (a d{faces}) has no value; "
                f"{self.used} forced value(s) were used"
            )
        value = self._queue[0]
        if not 1 <= value <= faces:
            raise ForcedDiceError(
                f"forced value {value} cannot occur on a d{faces} "
                f"(roll number {self.used + 1}; a d{faces} gives 1 to {faces})"
            )
        self._queue.popleft()
        self.used += 1
        return value

    def roll_many(self, n: int, faces: int) -> list[int]:
        """``n`` calls of :meth:`roll` in one (failing exactly as they would)."""
        queue = self._queue
        if len(queue) >= n:
            values = list(islice(queue, n))
            if values and min(values) >= 1 and max(values) <= faces:
                for _ in range(n):
                    queue.popleft()
                self.used += n
                return values
        return [self.roll(faces) for _ in range(n)]


class RecordingDice:
    """Passes rolls through from another source and records each as ``(faces, value)``."""

    __slots__ = ("inner", "rolls")

    def __init__(self, inner: DiceSource) -> None:
        self.inner = inner
        self.rolls: list[tuple[int, int]] = []

    def roll(self, faces: int) -> int:
        value = self.inner.roll(faces)
        self.rolls.append((faces, value))
        return value

    def roll_many(self, n: int, faces: int) -> list[int]:
        """``n`` calls of :meth:`roll` in one; each roll is recorded even if a later one fails."""
        inner = self.inner
        if type(inner) is SeededDice:  # cannot fail part way
            values = inner.roll_many(n, faces)
            self.rolls.extend([(faces, v) for v in values])
            return values
        return [self.roll(faces) for _ in range(n)]

    def values(self) -> list[int]:
        return [value for _, value in self.rolls]


class NoDice:
    """A source for a command that rolls no dice: any roll raises a :class:`DiceError`
    naming the command (``Ruleset.decide`` turns it into an ``InvalidCommand``).

    >>> NoDice("create").roll(6)
    Traceback (most recent call last):
    ...
    arbiter.dice.errors.DiceError: 'create' rolls no dice here (it asked for a d6)
    """

    __slots__ = ("command",)

    def __init__(self, command: str) -> None:
        self.command = command

    def roll(self, faces: int) -> int:
        raise DiceError(f"{self.command!r} rolls no dice here (it asked for a d{faces})")


PROBE_SEED = 0
"""The seed of :class:`ProbeDice`."""


class ProbeDice:
    """Throw-away dice for ``Ruleset.check``: seeded with :data:`PROBE_SEED` (so the answer
    is the same every time and a simulated run's own dice are untouched), made on the first
    roll only (most commands that are only checked roll nothing)."""

    __slots__ = ("_dice",)

    def __init__(self) -> None:
        self._dice: SeededDice | None = None

    def _source(self) -> SeededDice:
        if self._dice is None:
            self._dice = SeededDice(PROBE_SEED)
        return self._dice

    def roll(self, faces: int) -> int:
        return self._source().roll(faces)

    def roll_many(self, n: int, faces: int) -> list[int]:
        return self._source().roll_many(n, faces)
