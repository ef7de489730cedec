"""Squares, distances, lines of sight and target shapes on the Polemos grid (pure functions).

Ranges are counted in squares (P-RNG-1). ``x`` grows to the east and ``y`` to the south.

>>> distance((0, 0), (3, 4))
4
>>> distance((0, 0), (3, 4), "manhattan")
7
>>> crossed((0, 0), (3, 0))
[(1, 0), (2, 0)]
>>> sorted(aura((5, 5), 9)) == [(x, y) for x in (4, 5, 6) for y in (4, 5, 6)]
True
>>> (0, 0) in angle((0, 0), "e", 2)
False
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from fractions import Fraction
from functools import lru_cache

from ...core import InvalidCommand
from ...core.rounding import round_up

Square = tuple[int, int]

DIRECTIONS: dict[str, Square] = {
    "n": (0, -1), "ne": (1, -1), "e": (1, 0), "se": (1, 1),
    "s": (0, 1), "sw": (-1, 1), "w": (-1, 0), "nw": (-1, -1),
}
"""Compass directions of an angle target (y grows to the south)."""

MAX_SQUARES = 10_000
MAX_REACH = 50
"""Bounds on computed shapes, so a typing slip cannot ask for millions of squares."""

ARCS = (90, 180, 360)
"""Arc widths of an angle target, in degrees, that integer arithmetic decides exactly."""


def as_square(value: object, what: str = "square") -> Square:
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise InvalidCommand(f"{what} must be a square [x, y] in whole numbers, not {value!r}")
    return int(value[0]), int(value[1])


def distance(a: Square, b: Square, metric: str = "chebyshev") -> int:
    """Squares between ``a`` and ``b`` (ruling POL-3: a diagonal step counts one square by
    default; ``manhattan`` counts it as two)."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return dx + dy if metric == "manhattan" else max(dx, dy)


def passes_through(px: Fraction, py: Fraction, dx: int, dy: int, x: int, y: int) -> bool:
    """Whether the segment from (px, py) along (dx, dy) enters the open square (x, y)."""
    low, high = Fraction(0), Fraction(1)
    for start, step, edge in ((px, dx, x), (py, dy, y)):
        if step == 0:
            if not edge < start < edge + 1:
                return False
            continue
        t1, t2 = (edge - start) / step, (edge + 1 - start) / step
        low, high = max(low, min(t1, t2)), min(high, max(t1, t2))
    return low < high


def crossed(a: Square, b: Square) -> list[Square]:
    """The squares whose inside the straight line from the centre of ``a`` to the centre of
    ``b`` passes through, without ``a`` and ``b`` (P-REQ-4). Touching only a corner or an
    edge does not count. Exact: the line is clipped against each square with fractions, and
    only the few squares of each column (or row) near the line are tried. A pure function of
    the two squares, so it is computed once per pair (line of sight asks it constantly)."""
    a, b = (int(a[0]), int(a[1])), (int(b[0]), int(b[1]))
    if distance(a, b) > SHORT_LINE:  # a long line is not kept: the cache stays small
        return _crossed_uncached(a, b)
    return list(_crossed(a, b))


SHORT_LINE = 64
"""Lines up to this many squares are walked square by square and cached (line of sight asks
for them constantly); a longer one is never cached, and :class:`Walls` tests only the walls
near it instead of walking it."""


@lru_cache(maxsize=1 << 16)
def _crossed(a: Square, b: Square) -> tuple[Square, ...]:
    return tuple(_crossed_uncached(a, b))


def _crossed_uncached(a: Square, b: Square) -> list[Square]:
    (x0, y0), (x1, y1) = a, b
    if abs(x1 - x0) < abs(y1 - y0):
        return sorted((x, y) for y, x in _crossed_uncached((y0, x0), (y1, x1)))
    dx, dy = x1 - x0, y1 - y0
    if dx == 0:
        return []
    px, py = Fraction(2 * x0 + 1, 2), Fraction(2 * y0 + 1, 2)
    out: list[Square] = []
    for x in range(min(x0, x1), max(x0, x1) + 1):
        ends = [py + (edge - px) * dy / dx for edge in (x, x + 1)]
        low = min(ends).numerator // min(ends).denominator
        high = max(ends).numerator // max(ends).denominator
        for y in range(low - 1, high + 2):
            if (x, y) not in (a, b) and passes_through(px, py, dx, dy, x, y):
                out.append((x, y))
    return out


def line_clear(a: Square, b: Square, blocking: Iterable[Square]) -> bool:
    """No blocking square between ``a`` and ``b`` (line of sight, or an arrow's path)."""
    blocked = set(blocking)
    return not any(s in blocked for s in crossed(a, b))


class Walls:
    """The squares of some terrain kinds, indexed once per map: a set for lookups and the
    squares sorted by column, so that the walls a line crosses cost at most the walls in the
    columns it spans (each ruled out by integer arithmetic first), never the line's length.

    >>> walls = Walls([(5, 0), (2, 2), (90_000, 1), (90_000, 0)])
    >>> walls.on_line((0, 0), (99_000, 0)), walls.on_line((0, 0), (4, 4))
    ([(5, 0), (90000, 0)], [(2, 2)])
    >>> walls.on_line((0, 0), (300, 7)) == [s for s in crossed((0, 0), (300, 7))
    ...                                     if s in walls]
    True
    """

    __slots__ = ("by_column", "squares")

    def __init__(self, squares: Iterable[Square]) -> None:
        self.squares = frozenset(squares)
        self.by_column = sorted(self.squares)

    def __contains__(self, square: object) -> bool:
        return square in self.squares

    def __iter__(self) -> Iterator[Square]:
        return iter(self.by_column)

    def __len__(self) -> int:
        return len(self.squares)

    def on_line(self, a: Square, b: Square) -> list[Square]:
        """The walls among ``crossed(a, b)``, in its order (sorted): the first is the
        first obstacle ``first_blocked`` reports."""
        if not self.squares:
            return []
        (x0, y0), (x1, y1) = a, b
        dx, dy = x1 - x0, y1 - y0
        lo_x, hi_x = min(x0, x1), max(x0, x1)
        lo = bisect_left(self.by_column, (lo_x, -(1 << 62)))
        hi = bisect_right(self.by_column, (hi_x, 1 << 62))
        if hi - lo > SHORT_LINE and distance(a, b) <= SHORT_LINE:
            return [s for s in crossed(a, b) if s in self.squares]  # short: walk it (cached)
        lo_y, hi_y = min(y0, y1), max(y0, y1)
        reach = dx * dx + dy * dy  # a square the line enters has its centre within √½ of it
        px, py = Fraction(2 * x0 + 1, 2), Fraction(2 * y0 + 1, 2)
        out: list[Square] = []
        for x, y in self.by_column[lo:hi]:
            if not lo_y <= y <= hi_y or (x, y) == a or (x, y) == b:
                continue
            across = (x - x0) * dy - (y - y0) * dx
            if 2 * across * across < reach and passes_through(px, py, dx, dy, x, y):
                out.append((x, y))
        return out


def neighbours(s: Square, diagonal: bool) -> list[Square]:
    steps = [d for d in DIRECTIONS.values() if diagonal or 0 in d]
    return [(s[0] + dx, s[1] + dy) for dx, dy in steps]


def contiguous(squares: Iterable[Square], diagonal: bool = False) -> bool:
    """Every square reaches every other through the set (P-TGT-9; ruling POL-4 says whether
    squares touching at a corner are joined)."""
    todo = set(squares)
    if not todo:
        return False
    seen = {next(iter(todo))}
    stack = list(seen)
    while stack:
        for n in neighbours(stack.pop(), diagonal):
            if n in todo and n not in seen:
                seen.add(n)
                stack.append(n)
    return seen == todo


def aura(centre: Square, size: int) -> list[Square]:
    """``size`` contiguous squares, as square as possible and as centred as possible on
    ``centre`` (P-TGT-10): the smallest near-square rectangle (width ⌈√size⌉, height
    ⌈size / width⌉) placed with ``centre`` in its middle (rounding toward the north-west), and
    when it holds more than ``size`` squares the ones farthest from the centre are left out."""
    if not 1 <= size <= MAX_SQUARES:
        raise InvalidCommand(f"an aura has from 1 to {MAX_SQUARES} squares")
    width = 1
    while width * width < size:
        width += 1
    height = round_up(size, width)
    left, top = centre[0] - (width - 1) // 2, centre[1] - (height - 1) // 2
    cells = [(x, y) for y in range(top, top + height) for x in range(left, left + width)]
    cells.sort(key=lambda s: (distance(s, centre), (s[0] - centre[0]) ** 2
                              + (s[1] - centre[1]) ** 2, s[1], s[0]))
    return sorted(cells[:size], key=lambda s: (s[1], s[0]))


def angle(origin: Square, direction: str, reach: int, arc: int = 90,
          metric: str = "chebyshev") -> list[Square]:
    """Every square up to ``reach`` inside an ``arc`` (degrees) facing ``direction``, never the
    actor's own square (P-TGT-11). A square is inside when the line from the actor's centre
    to its centre is at most half the arc from the direction (the edges are inside)."""
    if direction not in DIRECTIONS:
        raise InvalidCommand(f"angle: direction must be one of {', '.join(DIRECTIONS)}")
    if arc not in ARCS:
        raise InvalidCommand(f"angle: arc must be one of {', '.join(map(str, ARCS))} degrees")
    if not 0 <= reach <= MAX_REACH:
        raise InvalidCommand(f"angle: the range of a shape on the grid is 0 to {MAX_REACH}")
    dx, dy = DIRECTIONS[direction]
    out: list[Square] = []
    for y in range(origin[1] - reach, origin[1] + reach + 1):
        for x in range(origin[0] - reach, origin[0] + reach + 1):
            vx, vy = x - origin[0], y - origin[1]
            if (vx, vy) == (0, 0) or distance(origin, (x, y), metric) > reach:
                continue
            dot = dx * vx + dy * vy
            if arc == 360:
                inside = True
            elif arc == 180:
                inside = dot >= 0
            else:  # 90: within 45 degrees, i.e. cos² ≥ 1/2
                inside = dot >= 0 and 2 * dot * dot >= (dx * dx + dy * dy) * (vx * vx + vy * vy)
            if inside:
                out.append((x, y))
    return out
