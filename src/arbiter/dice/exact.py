"""Exact probability distributions of dice expressions, as integer counts.

A :class:`Distribution` is a run of integer weights over consecutive outcomes; the
probability of an outcome is its weight over the sum of weights, an exact fraction.
Sums of dice are polynomial products, computed by Kronecker substitution: the weights are
packed into one big integer, so a product of polynomials is one big-integer product
(``gmpy2`` for big products, Python's own integers for the rest). Small cases are worked out
in plain lists instead, which costs less than packing.

The model follows the roller exactly (the same reroll and explosion bounds, from
:mod:`arbiter.dice.bounds`), so every total the roller can produce lies in the support of
the distribution and nowhere else.

Before any of the work, :func:`check` walks the tree once and estimates every step: how
wide each intermediate distribution is, how many bits its weights need, and what computing
it costs, down to writing every outcome of the result as an exact fraction (which every
caller does). An expression over a limit is refused with :class:`DistributionTooLarge`
naming it, in microseconds; one within the limits takes about a second at the most.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from . import limits
from .ast import BinOp, Dice, Group, Neg, Node, Num
from .bounds import check_rolls, explosions_allowed, rerolls_allowed
from .errors import DiceError, DiceEvalError, DistributionTooLarge
from .parser import parse_uncached

try:  # gmpy2 multiplies big integers with FFT: much faster for large pools
    from gmpy2 import mpz as _big
except ImportError:  # pragma: no cover - gmpy2 is a declared dependency
    _big = int

Counts = list[int]
_new = object.__new__

_GMP_BITS = 1 << 18
"""Below about this many bits of packed weights, Python's own integers are faster than
gmpy2 (whose first use in a process costs more than a small product)."""


_KEEP_GMP_BITS = 1 << 10
"""Above about this many bits of packed polynomial, keeping dice works in gmpy2 integers."""

_PLAIN_WORK = 1024
"""Up to about this many multiplications, weights are convolved in plain lists."""


def _int_type(bits: int) -> Callable[..., Any]:
    """The big-integer type for products of about ``bits`` bits."""
    return _big if bits > _GMP_BITS else int


class Distribution:
    """Exact distribution over integers ``lo, lo+1, ...`` with weights ``counts``.

    >>> d = distribution("2d6")
    >>> d.probability(7), d.at_least(10), d.mean
    (Fraction(1, 6), Fraction(1, 6), Fraction(7, 1))
    """

    __slots__ = ("counts", "denominator", "lo")

    def __init__(self, lo: int, counts: Counts) -> None:
        start = 0
        while start < len(counts) - 1 and counts[start] == 0:
            start += 1
        end = len(counts)
        while end > start + 1 and counts[end - 1] == 0:
            end -= 1
        counts = counts[start:end]
        g = counts[0] if counts else 0
        if g != 1:  # (a weight of 1 leaves nothing to divide out: the usual case)
            g = 0
            for c in counts:
                g = math.gcd(g, c)
                if g == 1:
                    break
        if g > 1:
            counts = [c // g for c in counts]
        self.lo = lo + start
        self.counts = [int(c) for c in counts]
        self.denominator = sum(self.counts)
        if self.denominator == 0:
            raise DiceError("a distribution needs at least one possible outcome")

    @classmethod
    def point(cls, value: int) -> Distribution:
        return cls(value, [1])

    @property
    def hi(self) -> int:
        return self.lo + len(self.counts) - 1

    def items(self) -> Iterator[tuple[int, Fraction]]:
        """Each possible outcome with its probability, lowest first."""
        den = self.denominator
        for i, c in enumerate(self.counts):
            if c:
                yield self.lo + i, Fraction(c, den)

    def support(self) -> list[int]:
        return [self.lo + i for i, c in enumerate(self.counts) if c]

    def probability(self, value: int) -> Fraction:
        i = value - self.lo
        if 0 <= i < len(self.counts):
            return Fraction(self.counts[i], self.denominator)
        return Fraction(0)

    def at_least(self, k: int) -> Fraction:
        """P(outcome ≥ k)."""
        i = max(k - self.lo, 0)
        return Fraction(sum(self.counts[i:]), self.denominator)

    def at_most(self, k: int) -> Fraction:
        """P(outcome ≤ k)."""
        i = k - self.lo + 1
        return Fraction(sum(self.counts[: max(i, 0)]), self.denominator)

    @property
    def mean(self) -> Fraction:
        return Fraction(sum((self.lo + i) * c for i, c in enumerate(self.counts)), self.denominator)

    @property
    def variance(self) -> Fraction:
        mean = self.mean
        second = Fraction(
            sum((self.lo + i) ** 2 * c for i, c in enumerate(self.counts)), self.denominator
        )
        return second - mean * mean

    @property
    def stdev(self) -> float:
        return math.sqrt(self.variance)

    def map(self, fn: Callable[[int], int]) -> Distribution:
        """The distribution of ``fn(outcome)``."""
        weights: dict[int, int] = {}
        for i, c in enumerate(self.counts):
            if c:
                v = fn(self.lo + i)
                weights[v] = weights.get(v, 0) + c
        return _from_weights(weights)

    def __add__(self, other: Distribution) -> Distribution:
        return _distribution(self.lo + other.lo, _convolve(self.counts, other.counts))

    def __neg__(self) -> Distribution:
        return _distribution(-self.hi, self.counts[::-1])

    def __sub__(self, other: Distribution) -> Distribution:
        return self + (-other)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distribution):
            return NotImplemented
        return self.lo == other.lo and self.counts == other.counts

    def __hash__(self) -> int:
        return hash((self.lo, tuple(self.counts)))

    def __repr__(self) -> str:
        return f"Distribution(lo={self.lo}, counts={self.counts!r})"

    def to_json(self) -> dict[str, Any]:
        """Probabilities as exact fraction strings such as ``"1/6"``."""
        return {
            "min": self.lo,
            "max": self.hi,
            "mean": str(self.mean),
            "stdev": self.stdev,
            "outcomes": {str(v): str(p) for v, p in self.items()},
        }


def _distribution(lo: int, counts: Counts) -> Distribution:
    """``Distribution(lo, counts)`` for a fresh list of Python ints, which it may keep.

    Weights that already start and end with a non-zero weight, the first being 1, need
    no trimming and no common factor taken out: the usual case, made without copying.
    """
    if counts[0] == 1 and counts[-1]:
        dist = _new(Distribution)
        dist.lo = lo
        dist.counts = counts
        dist.denominator = sum(counts)
        return dist
    return Distribution(lo, counts)


def _from_weights(weights: dict[int, int]) -> Distribution:
    lo, hi = min(weights), max(weights)
    if hi - lo + 1 > limits.MAX_EXACT_OUTCOMES:
        raise DistributionTooLarge(
            f"the exact distribution would span {hi - lo + 1:,} outcomes; "
            f"the limit is {limits.MAX_EXACT_OUTCOMES:,}"
        )
    counts = [0] * (hi - lo + 1)
    for v, c in weights.items():
        counts[v - lo] += c
    return Distribution(lo, counts)


# -- polynomial arithmetic on weight lists --------------------------------------------------


def _check_size(width: int, bits: int) -> None:
    """A last guard before a step allocates ``width`` weights of ``bits`` bits.

    :func:`check` has already refused every expression whose steps could come near this,
    so it never fires for a checked tree; it stays as a guard for the helpers alone.
    """
    if width > limits.MAX_EXACT_OUTCOMES:
        raise DistributionTooLarge(
            f"the exact distribution would span {width:,} outcomes; "
            f"the limit is {limits.MAX_EXACT_OUTCOMES:,}"
        )
    if width * bits > limits.MAX_EXACT_WORK:
        raise DistributionTooLarge(
            f"the exact distribution would need about {width * bits // 8_000_000:,} MB of "
            "exact weights; that is too large to compute"
        )


def _pack(counts: Counts, hex_digits: int, big: Callable[..., Any]) -> Any:
    return big("".join([f"{c:0{hex_digits}x}" for c in reversed(counts)]) or "0", 16)


def _unpack(value: Any, hex_digits: int, length: int) -> Counts:
    if length <= 64 and type(value) is int:  # few weights: shifting is cheaper than text
        shift = 4 * hex_digits
        mask = (1 << shift) - 1
        return [(value >> (i * shift)) & mask for i in range(length)]
    text = format(value, "x").rjust(hex_digits * length, "0")
    out = [int(text[i : i + hex_digits], 16) for i in range(0, hex_digits * length, hex_digits)]
    out.reverse()
    return out


def _convolve(a: Counts, b: Counts) -> Counts:
    la, lb = len(a), len(b)
    if la == 1:
        return [a[0] * c for c in b]
    if lb == 1:
        return [b[0] * c for c in a]
    width = la + lb - 1
    bits = max(a).bit_length() + max(b).bit_length() + min(la, lb).bit_length() + 1
    _check_size(width, bits)
    if la * lb <= 256:
        out = [0] * width
        for i, x in enumerate(a):
            if x:
                for j, y in enumerate(b):
                    out[i + j] += x * y
        return out
    h = (bits + 3) // 4
    big = _int_type(width * bits)
    return _unpack(_pack(a, h, big) * _pack(b, h, big), h, width)


def _uniform_power(faces: int, n: int) -> Counts:
    """Weights of the sum of ``n`` dice whose ``faces`` weights are all 1 (a running sum)."""
    out = [1] * faces
    for _ in range(n - 1):
        size = len(out)
        new = [0] * (size + faces - 1)
        run = 0
        for i in range(size + faces - 1):
            if i < size:
                run += out[i]
            if i >= faces:
                run -= out[i - faces]
            new[i] = run
        out = new
    return out


def _power(a: Counts, n: int) -> Counts:
    """Weights of the sum of ``n`` independent copies."""
    if n == 0:
        return [1]
    if n == 1 or len(a) == 1:
        return [c**n for c in a] if len(a) == 1 else list(a)
    width = n * (len(a) - 1) + 1
    bits = n * sum(a).bit_length() + 1
    _check_size(width, bits)
    # Small pools are cheaper in plain lists than packed into one big integer (whose
    # packing and unpacking cost about a microsecond per weight).
    w = a[0]
    if n * width <= 8 * (len(a) + width) and a.count(w) == len(a):
        out = _uniform_power(len(a), n)
        if w != 1:
            scale = w**n
            out = [c * scale for c in out]
        return out
    if n * width * len(a) <= _PLAIN_WORK:
        out = a
        for _ in range(n - 1):
            out = _convolve(out, a)
        return out
    h = (bits + 3) // 4
    return _unpack(_pack(a, h, _int_type(width * bits)) ** n, h, width)


# -- single dice ---------------------------------------------------------------------------


def _single_die(node: Dice) -> tuple[int, Counts]:
    """One physical roll of the die after its reroll rule, as (lo, weights).

    A roll is rerolled at most ``R`` times (:func:`~arbiter.dice.bounds.rerolls_allowed`:
    1 for ``ro``) and the last reroll stands whatever it shows. With ``m`` of ``F`` faces
    matching, out of ``F**(R+1)`` equally likely sequences a face that matches stands only
    after ``R`` rerolls (``m**R`` ways) and one that does not stands after any ``k <= R``
    rerolls (``m**k * F**(R-k)`` ways, summed).
    """
    faces = node.faces
    rerolls = rerolls_allowed(node)
    if node.reroll is None or not rerolls:
        return 1, [1] * faces
    point = node.reroll
    m = point.count_matching(faces)
    stays = sum(m**k * faces ** (rerolls - k) for k in range(rerolls + 1))
    last = m**rerolls
    return 1, [last if point.matches(v) else stays for v in range(1, faces + 1)]


def _chain(node: Dice, lo: int, base: Counts, explosions: int) -> tuple[int, Counts]:
    """The sum of one die's explosion chain, of at most ``explosions`` explosions.

    A chain allowed ``k + 1`` explosions stops at its first roll (the faces that do not
    explode) or explodes and goes on as a chain allowed ``k``: one convolution a step.
    """
    assert node.explode is not None
    explode = node.explode
    steady = [0 if explode.matches(lo + i) else c for i, c in enumerate(base)]
    hits = [i for i, c in enumerate(base) if c and explode.matches(lo + i)]
    if not hits:  # an explosion that can never happen never happens
        return lo, base
    boom_lo = lo + hits[0]
    boom = [c if explode.matches(lo + i) else 0 for i, c in enumerate(base)]
    boom = boom[hits[0] : hits[-1] + 1]
    cur_lo, cur = lo, list(base)
    for _ in range(explosions):
        cur_den = sum(cur)
        tail = _convolve(boom, cur)
        tail_lo = boom_lo + cur_lo  # > lo: every face is at least 1
        width = max(len(steady), tail_lo - lo + len(tail))
        _check_size(width, cur_den.bit_length() + sum(base).bit_length())
        out = [c * cur_den for c in steady]
        out.extend([0] * (width - len(out)))
        shift = tail_lo - lo
        for i, c in enumerate(tail):
            if c:
                out[shift + i] += c
        cur_lo, cur = lo, out
    return cur_lo, cur


def _keep(
    lo: int, weights: Counts, n: int, highest: bool, keep: int, value: Callable[[int], int]
) -> tuple[int, Counts]:
    """Sum of ``value(face)`` over the ``keep`` highest (or lowest) of ``n`` iid dice."""
    faces = [(lo + i, w) for i, w in enumerate(weights) if w]
    if highest:
        faces.reverse()
    den = sum(weights)
    top = keep * max((value(v) for v, _ in faces), default=0)
    bits = n * den.bit_length() + 1
    _check_size(top + 1, bits)
    h = (bits + 3) // 4
    shift = 4 * h
    binom = [[math.comb(r, j) for j in range(r + 1)] for r in range(n + 1)]
    # Each step multiplies a polynomial by a binomial of up to n bits: gmpy2 is faster than
    # Python's integers at that from about a thousand bits on (and several times faster for
    # big pools of few faces).
    big = _big if (top + 1) * shift > _KEEP_GMP_BITS else int
    zero = big(0)
    state: list[Any] = [zero] * (n + 1)
    state[0] = big(1)
    for v, w in faces:
        step = shift * value(v)  # one kept die showing v moves a polynomial this far
        powers = [w**j for j in range(n + 1)]
        new: list[Any] = [zero] * (n + 1)
        for a in range(n + 1):
            poly = state[a]
            if not poly:
                continue
            room = keep - a if a < keep else 0  # how many of the next dice are kept
            row = binom[n - a]
            for j in range(n - a + 1):
                term = poly * (row[j] * powers[j])
                if step and j and room:
                    term <<= step * (j if j < room else room)
                new[a + j] += term
        state = new
    return 0, _unpack(state[n], h, top + 1)


def _unsupported(node: Dice) -> DiceError:
    return DiceError(
        f"exact odds of keeping or dropping separately exploding dice ({node}) are not "
        "supported; compounding explosions ('!!') are"
    )


def _dice(node: Dice) -> Distribution:
    lo, base = _single_die(node)
    n = node.count
    success = node.success
    explosions = explosions_allowed(node)  # 0 when no face can explode
    if explosions and not node.compound and node.keep is not None:
        raise _unsupported(node)
    if explosions and not node.compound and success is not None:
        per = _separate_chain_successes(node, lo, base, explosions)
        return Distribution(0, _power(per, n))
    if explosions:
        lo, base = _chain(node, lo, base, explosions)
    if node.keep is not None:
        highest, keep = node.keep.kept_highest(n)
        if success is None:
            klo, counts = _keep(lo, base, n, highest, keep, lambda v: v)
        else:
            klo, counts = _keep(lo, base, n, highest, keep, lambda v: int(success.matches(v)))
        return Distribution(klo, counts)
    if success is not None:
        hits = sum(c for i, c in enumerate(base) if success.matches(lo + i))
        return Distribution(0, _power([sum(base) - hits, hits], n))
    return _distribution(lo * n, _power(base, n))


def _separate_chain_successes(node: Dice, lo: int, base: Counts, explosions: int) -> Counts:
    """Successes within one explosion chain whose dice count separately (``!``), of at
    most ``explosions`` explosions. Only four kinds of face matter (a success or not, an
    explosion or not), so the faces are added up by kind first."""
    assert node.explode is not None and node.success is not None
    explode, success = node.explode, node.success
    kinds = [[0, 0], [0, 0]]  # kinds[success][explodes]: total weight of such faces
    for i, c in enumerate(base):
        face = lo + i
        kinds[success.matches(face)][explode.matches(face)] += c
    (miss_stops, miss_booms), (hit_stops, hit_booms) = kinds
    cur = [miss_stops + miss_booms, hit_stops + hit_booms]  # the last roll of a chain
    if not (miss_booms or hit_booms):
        return cur
    for _ in range(explosions):
        cur_den = sum(cur)
        out = [0] * (len(cur) + 1)
        out[0] += miss_stops * cur_den
        out[1] += hit_stops * cur_den
        for k, x in enumerate(cur):
            out[k] += miss_booms * x
            out[k + 1] += hit_booms * x
        cur = out
    return cur


# -- whole expressions ---------------------------------------------------------------------


def _combine(a: Distribution, b: Distribution, op: Callable[[int, int], int]) -> Distribution:
    pairs = sum(1 for c in a.counts if c) * sum(1 for c in b.counts if c)
    if pairs > limits.MAX_EXACT_OUTCOMES:
        raise DistributionTooLarge(
            f"combining these distributions takes {pairs:,} pairs of outcomes; "
            f"the limit is {limits.MAX_EXACT_OUTCOMES:,}"
        )
    weights: dict[int, int] = {}
    for x, cx in zip(range(a.lo, a.hi + 1), a.counts, strict=True):
        if not cx:
            continue
        for y, cy in zip(range(b.lo, b.hi + 1), b.counts, strict=True):
            if cy:
                v = op(x, y)
                weights[v] = weights.get(v, 0) + cx * cy
    return _from_weights(weights)


def _floor_div(x: int, y: int) -> int:
    return x // y


def _ceil_div(x: int, y: int) -> int:
    return -((-x) // y)


def _eval(node: Node) -> Distribution:
    if isinstance(node, Num):
        return Distribution.point(node.value)
    if isinstance(node, Dice):
        return _dice(node)
    if isinstance(node, Group):
        return _eval(node.inner)
    if isinstance(node, Neg):
        return -_eval(node.operand)
    assert isinstance(node, BinOp)
    left, right = _eval(node.left), _eval(node.right)
    if node.op == "+":
        return left + right
    if node.op == "-":
        return left - right
    if node.op == "*":
        if len(right.counts) == 1:
            k = right.lo
            return left.map(lambda v: v * k)
        if len(left.counts) == 1:
            k = left.lo
            return right.map(lambda v: v * k)
        return _combine(left, right, lambda x, y: x * y)
    if right.probability(0):
        raise DiceEvalError(f"division by zero is possible in {node}")
    return _combine(left, right, _ceil_div if node.op == "/^" else _floor_div)


# -- the estimate, made before any of the work -------------------------------------------
#
# ``check`` walks the tree as ``_eval`` would and, for every step, bounds the result (the
# range of its outcomes, how many of them can occur, and the bits of its weights' total,
# which bounds every weight) and adds up what making it costs. The costs are in units of
# about a nanosecond of one core, measured on the machine the limits were tuned on (two
# cores; see docs/dice.md): each step is priced by the work of the helper that does it.

_PER_WEIGHT = 200
"""A weight handled in Python: formatted, parsed, added, compared, trimmed or reduced."""
_PER_BIT = 5
"""A bit of a big-integer product (``gmpy2``), packed into or unpacked from hex text."""
_PER_PAIR = 400
"""A pair of outcomes combined by ``*`` or ``/``: a product, a call and a dictionary update."""
_KEEP_STEP = 1000
"""One step of the keep/drop programme (a polynomial times a binomial, shifted and added)..."""
_KEEP_STEP_PER_DIE = 3
"""...plus this much per die of the pool (the binomial has about as many bits)..."""
_KEEP_BITS_PER_UNIT = 70
"""...plus a unit per this many bits of the polynomials moved..."""
_KEEP_MULTIPLIER = 80_000
"""...plus, for big weights (rerolls, explosions), a unit per this many of bits moved times
bits of the multiplier (a binomial times a weight to the power of the dice showing a face)."""
_FRACTION = 2500
"""Writing one outcome as an exact fraction (``Fraction``, ``str``, ``float``)..."""
_FRACTION_BIT = 8
"""...plus this much per bit of the weights' total..."""
_FRACTION_QUADRATIC = 250
"""...plus ``bits**2 / _FRACTION_QUADRATIC`` for the quadratic ``gcd`` and ``str`` of
Python's integers."""


class _Shape:
    """What the estimate knows of a distribution before it is computed: its outcomes lie in
    ``lo..hi``, at most ``count`` of them can occur, and its weights total ``2**log``
    before common factors are taken out (so ``bits`` bounds the bit length of each)."""

    __slots__ = ("count", "hi", "lo", "log")

    def __init__(self, lo: int, hi: int, count: int, log: float) -> None:
        self.lo = lo
        self.hi = hi
        self.count = min(count, hi - lo + 1)
        self.log = log

    @property
    def width(self) -> int:
        return self.hi - self.lo + 1

    @property
    def bits(self) -> int:
        return int(self.log * (1 + 1e-12)) + 1  # the margin covers the float's rounding


def _convolve_cost(wa: int, ba: int, wb: int, bb: int) -> int:
    """What ``_convolve`` costs for ``wa`` weights of ``ba`` bits and ``wb`` of ``bb``."""
    width = wa + wb - 1
    bits = ba + bb + min(wa, wb).bit_length() + 1
    if min(wa, wb) == 1:  # every weight times one number
        return (_PER_WEIGHT + bits) * width
    return _PER_WEIGHT * (wa + wb + width) + _PER_BIT * (wa * ba + wb * bb + width * bits)


def _power_cost(w: int, b: int, n: int) -> int:
    """What ``_power`` costs for ``n`` copies of ``w`` weights totalling ``b`` bits."""
    width = n * (w - 1) + 1
    return _PER_WEIGHT * (w + width) + _PER_BIT * width * (n * b + 1)


def _fraction_cost(bits: int) -> int:
    """Writing one outcome of a distribution whose weights total ``bits`` bits."""
    return _FRACTION + _FRACTION_BIT * bits + bits * bits // _FRACTION_QUADRATIC


def _product_range(a: _Shape, b: _Shape) -> tuple[int, int]:
    corners = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
    return min(corners), max(corners)


def _quotient_range(a: _Shape, b: _Shape, up: bool) -> tuple[int, int]:
    """The range of ``a / b`` rounded down (or up), over the non-zero divisors of ``b``
    (a quotient is monotonic in each operand while the divisor keeps its sign)."""
    divisors = [d for d in (b.lo, b.hi, -1, 1) if b.lo <= d <= b.hi and d]
    if not divisors:  # b is always 0: _eval says so; any range will do
        return 0, 0
    divide = _ceil_div if up else _floor_div
    values = [divide(x, d) for x in (a.lo, a.hi) for d in divisors]
    return min(values), max(values)


class _Estimate:
    """The work of one exact distribution, added up step by step before any is done."""

    __slots__ = ("work",)

    def __init__(self) -> None:
        self.work = 0

    def made(self, shape: _Shape, what: Node | str) -> _Shape:
        """Check a step's result against the size limits and count making it (trimming,
        summing and reducing its weights)."""
        width = shape.width
        if width > limits.MAX_EXACT_OUTCOMES:
            raise DistributionTooLarge(
                f"the exact distribution of {_short(what)} would span {width:,} outcomes; "
                f"the limit is {limits.MAX_EXACT_OUTCOMES:,} outcomes"
            )
        largest = max(-shape.lo, shape.hi)
        # a probability's numerator and denominator have at most ``bits`` bits; the mean's
        # numerator, a sum of outcomes times weights, those of the largest outcome more
        bits = shape.bits + largest.bit_length()
        if bits > limits.MAX_EXACT_BITS:
            digits = int(bits * 0.30103) + 1
            raise DistributionTooLarge(
                f"the exact odds of {_short(what)} would be fractions of up to {digits:,} "
                f"digits ({bits:,} bits); the limit is {limits.MAX_EXACT_BITS:,} bits "
                "(about 4,200 digits)"
            )
        if largest > limits.MAX_EXACT_MAGNITUDE:
            raise DistributionTooLarge(
                f"the exact distribution of {_short(what)} would have outcomes of "
                f"{len(str(largest)):,} digits; the limit for exact odds is "
                f"±10^{len(str(limits.MAX_EXACT_MAGNITUDE)) - 1}"
            )
        self.work += _PER_WEIGHT * width + width * shape.bits
        return shape

    def walk(self, node: Node) -> _Shape:
        if isinstance(node, Num):  # one weight of 1
            return self.made(_Shape(node.value, node.value, 1, 0.0), node)
        if isinstance(node, Dice):
            return self.dice(node)
        if isinstance(node, Group):
            return self.walk(node.inner)
        if isinstance(node, Neg):
            a = self.walk(node.operand)
            return self.made(_Shape(-a.hi, -a.lo, a.count, a.log), node)
        assert isinstance(node, BinOp)
        a, b = self.walk(node.left), self.walk(node.right)
        if node.op in ("+", "-"):
            if node.op == "-":  # left + (-right)
                self.work += _PER_WEIGHT * b.width + b.width * b.bits
                lo, hi = a.lo - b.hi, a.hi - b.lo
            else:
                lo, hi = a.lo + b.lo, a.hi + b.hi
            self.work += _convolve_cost(a.width, a.bits, b.width, b.bits)
            return self.made(_Shape(lo, hi, a.count * b.count, a.log + b.log), node)
        if node.op == "*" and (a.lo == a.hi or b.lo == b.hi):  # Distribution.map
            many, k = (a, b.lo) if b.lo == b.hi else (b, a.lo)
            lo, hi = sorted((many.lo * k, many.hi * k))
            out = _Shape(lo, hi, many.count, many.log)
            if out.width <= limits.MAX_EXACT_OUTCOMES:
                self.work += _PER_WEIGHT * (many.width + out.width)
            return self.made(out, node)
        pairs = a.count * b.count
        if pairs > limits.MAX_EXACT_OUTCOMES:
            raise DistributionTooLarge(
                f"combining the distributions of {_short(node)} takes up to {pairs:,} pairs "
                f"of outcomes; the limit is {limits.MAX_EXACT_OUTCOMES:,} pairs"
            )
        if node.op == "*":
            lo, hi = _product_range(a, b)
        else:
            lo, hi = _quotient_range(a, b, node.op == "/^")
        out = _Shape(lo, hi, pairs, a.log + b.log)
        if out.width <= limits.MAX_EXACT_OUTCOMES:
            self.work += (
                pairs * (_PER_PAIR + _PER_BIT * out.bits + a.bits * b.bits // 2048)
                + _PER_WEIGHT * (a.width + b.width + out.width)
            )
        return self.made(out, node)

    def dice(self, node: Dice) -> _Shape:
        """Mirrors ``_dice``, step by step."""
        faces, n = node.faces, node.count
        explosions = explosions_allowed(node)
        log = (rerolls_allowed(node) + 1) * math.log2(faces)  # one roll's total weight
        bits = int(log * (1 + 1e-12)) + 1
        self.work += _PER_WEIGHT * faces  # _single_die
        separate = explosions and not node.compound
        if separate and node.keep is not None:
            raise _unsupported(node)
        if separate and node.success is not None:  # _separate_chain_successes
            self.work += _PER_WEIGHT * (faces + explosions * explosions)
            per = _Shape(0, explosions + 1, explosions + 2, log * (explosions + 1))
            return self.pool(per, n, node)
        hi = faces
        if explosions and node.explode is not None:
            # _chain: a step convolves the exploding faces (a run of them, up to ``top``)
            # with the chain so far, which reaches ``k * top + faces`` after k explosions
            point = node.explode
            booms = point.count_matching(faces)
            top = point.value if point.op == "=" else faces if point.op[0] == ">" else booms
            for k in range(explosions):
                width = k * top + faces
                self.work += _convolve_cost(booms, bits, width, (k + 1) * bits)
                self.work += (_PER_WEIGHT + (k + 2) * bits) * (width + top)
            hi = explosions * top + faces
            log *= explosions + 1
        one = _Shape(1, hi, hi, log)
        if node.keep is not None:  # plain dice weigh 1 each; rerolls and explosions more
            return self.keep(one, node, one.bits if explosions or rerolls_allowed(node) else 0)
        if node.success is not None:
            return self.pool(_Shape(0, 1, 2, log), n, node)
        return self.pool(one, n, node)

    def pool(self, one: _Shape, n: int, node: Dice) -> _Shape:
        """The sum of ``n`` dice like ``one`` (``_power``)."""
        if n == 0:
            return self.made(_Shape(0, 0, 1, 0.0), node)
        out = _Shape(one.lo * n, one.hi * n, one.width * n, one.log * n)
        if out.width <= limits.MAX_EXACT_OUTCOMES:
            self.work += _power_cost(one.width, one.bits, n)
        return self.made(out, node)

    def keep(self, one: _Shape, node: Dice, weight_bits: int) -> _Shape:
        """Keeping or dropping (``_keep``).

        For each face, every count ``a`` of dice placed so far meets every count ``j`` of
        dice showing that face: a step each. A step moves the polynomial of ``a`` dice and
        adds into that of ``a + j``, and the polynomial of ``b`` dice placed is as long as
        the most ``min(b, kept)`` kept dice can show, each slot as wide as a weight of
        ``n`` dice; ``moved`` adds those lengths up over every step. A polynomial is
        multiplied by a weight (of ``weight_bits``) to the power of the dice showing the
        face, which costs more as that grows.
        """
        assert node.keep is not None
        n = node.count
        _, kept = node.keep.kept_highest(n)
        top_face = 1 if node.success is not None else one.hi
        lo, hi = (0, kept) if node.success is not None else (one.lo * kept, one.hi * kept)
        out = _Shape(lo, hi, hi - lo + 1, n * one.log)
        top = kept * top_face
        if top + 1 <= limits.MAX_EXACT_OUTCOMES and out.bits <= limits.MAX_EXACT_BITS:
            slot = 4 * ((n * one.bits + 4) // 4)
            m = min(kept, n)
            squares = m * (m + 1) * (2 * m + 1) // 6
            # sum over a of (n - a + 1) * min(a, kept): the polynomials moved ...
            moved = (n + 1) * m * (m + 1) // 2 - squares + kept * (n - m) * (n - m + 1) // 2
            # ... and sum over b of (b + 1) * min(b, kept): those added into
            moved += squares + m * (m + 1) // 2
            moved += kept * ((n + 1) * (n + 2) // 2 - (m + 1) * (m + 2) // 2)
            moved *= one.width * top_face * slot
            steps = one.width * (n + 1) * (n + 2) // 2
            self.work += steps * (_KEEP_STEP + _KEEP_STEP_PER_DIE * n)
            self.work += moved // _KEEP_BITS_PER_UNIT
            self.work += moved * n * weight_bits // _KEEP_MULTIPLIER
            self.work += _PER_WEIGHT * (top + 1) + _PER_BIT * (top + 1) * slot
        return self.made(out, node)


def _short(what: Node | str) -> str:
    text = str(what)
    return repr(text if len(text) <= 40 else text[:39] + "…")


def check(node: Node) -> int:
    """Refuse ``node`` before any work if rolling it could exceed ``MAX_ROLLS`` dice, or
    its exact distribution any of the ``MAX_EXACT_*`` limits; else the estimated work.

    Raises :class:`DiceLimitError` (:class:`DistributionTooLarge` for the exact limits)
    naming the limit, or :class:`DiceError` for a construct with no exact model.
    """
    check_rolls(node)
    estimate = _Estimate()
    shape = estimate.walk(node)
    work = estimate.work + shape.count * _fraction_cost(shape.bits)
    if work > limits.MAX_EXACT_WORK:
        raise DistributionTooLarge(
            f"the exact distribution of {_short(node)} would take about {work / 1e9:.1f} s "
            f"of work ({work:,} units, estimated); the limit is about "
            f"{limits.MAX_EXACT_WORK / 1e9:.1f} s ({limits.MAX_EXACT_WORK:,} units): "
            "roll it instead, or ask for fewer or smaller dice"
        )
    return work


# -- the cache -----------------------------------------------------------------------------

_CACHE: dict[str | Node, Distribution] = {}
"""Distributions already computed, by text (which needs neither parsing nor hashing a tree)
and by tree."""
_CACHE_SIZE = 256
_CACHE_BITS = 1 << 26
"""Bits of weights the cache may hold in all; a distribution above a sixteenth of this is
not kept, so hostile expressions cannot fill memory through it."""
_cached_bits = [0]


def _remember(key: str | Node, dist: Distribution) -> None:
    size = len(dist.counts) * dist.denominator.bit_length()
    if size > _CACHE_BITS // 16:
        return
    if len(_CACHE) >= _CACHE_SIZE or _cached_bits[0] + size > _CACHE_BITS:
        clear_cache()
    _CACHE[key] = dist
    _cached_bits[0] += size


def distribution(expression: str | Node) -> Distribution:
    """The exact distribution of an expression's total.

    Refused before any work, with :class:`DiceLimitError` naming the limit, when rolling it
    could exceed the dice limit or its exact distribution would be too large (:func:`check`).

    >>> distribution("4d6kh3").probability(18)
    Fraction(7, 432)
    """
    dist = _CACHE.get(expression)
    if dist is None:
        node = parse_uncached(expression) if isinstance(expression, str) else expression
        check(node)
        dist = _eval(node)
        _remember(expression, dist)
    return dist


def clear_cache() -> None:
    """Forget every distribution computed (for measuring first calls)."""
    _CACHE.clear()
    _cached_bits[0] = 0
