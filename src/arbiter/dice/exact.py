"""Exact probability distributions of dice expressions, as integer counts.

A :class:`Distribution` is a run of integer weights over consecutive outcomes; the
probability of an outcome is its weight over the sum of weights, an exact fraction.
Sums of dice are polynomial products, computed by Kronecker substitution: the weights are
packed into one big integer, so a product of polynomials is one big-integer product
(``gmpy2`` for big products, Python's own integers for the rest). Small cases are worked out
in plain lists instead, which costs less than packing.

The model follows the roller exactly (same reroll and explosion bounds), so every total
the roller can produce lies in the support of the distribution and nowhere else.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import lru_cache
from typing import Any

from . import limits
from .ast import BinOp, Dice, Group, Neg, Node, Num
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
    if width > limits.MAX_EXACT_OUTCOMES:
        raise DistributionTooLarge(
            f"the exact distribution would span {width:,} outcomes; "
            f"the limit is {limits.MAX_EXACT_OUTCOMES:,}"
        )
    if width * bits > limits.MAX_EXACT_WORK * 8:
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
    """One physical roll of the die after its reroll rule, as (lo, weights)."""
    faces = node.faces
    if node.reroll is None:
        return 1, [1] * faces
    matching = [node.reroll.matches(v) for v in range(1, faces + 1)]
    m = sum(matching)
    if node.reroll_once:
        return 1, [faces * (not hit) + m for hit in matching]
    return 1, [0 if hit else 1 for hit in matching]


def _chain(node: Dice, lo: int, base: Counts) -> tuple[int, Counts]:
    """The sum of one die's explosion chain (at most MAX_EXPLOSIONS explosions)."""
    assert node.explode is not None
    explode = node.explode
    den = sum(base)
    steady = [0 if explode.matches(lo + i) else c for i, c in enumerate(base)]
    boom = [(lo + i, c) for i, c in enumerate(base) if c and explode.matches(lo + i)]
    cur_lo, cur = lo, list(base)
    for _ in range(limits.MAX_EXPLOSIONS):
        cur_den = sum(cur)
        new_lo = lo
        new_hi = max(lo + len(base) - 1, max(v for v, _ in boom) + cur_lo + len(cur) - 1)
        _check_size(new_hi - new_lo + 1, cur_den.bit_length() + den.bit_length())
        out = [0] * (new_hi - new_lo + 1)
        for i, c in enumerate(steady):
            if c:
                out[i] += c * cur_den
        for v, w in boom:
            shift = v + cur_lo - new_lo
            for i, c in enumerate(cur):
                if c:
                    out[shift + i] += w * c
        cur_lo, cur = new_lo, out
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
    if len(faces) * n * n > limits.MAX_EXACT_WORK // 10:
        raise DistributionTooLarge(
            f"keeping {keep} of {n} dice with {len(faces)} faces is too large to compute exactly"
        )
    h = (bits + 3) // 4
    shift = 4 * h
    binom = [[math.comb(r, j) for j in range(r + 1)] for r in range(n + 1)]
    big = _int_type((top + 1) * shift)
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


def _dice(node: Dice) -> Distribution:
    lo, base = _single_die(node)
    n = node.count
    success = node.success
    if node.explode is not None and not node.compound and node.keep is not None:
        raise DiceError(
            f"exact odds of keeping or dropping separately exploding dice ({node}) are not "
            "supported; compounding explosions ('!!') are"
        )
    if node.explode is not None and not node.compound and success is not None:
        per = _separate_chain_successes(node, lo, base)
        return Distribution(0, _power(per, n))
    if node.explode is not None:
        lo, base = _chain(node, lo, base)
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


def _separate_chain_successes(node: Dice, lo: int, base: Counts) -> Counts:
    """Successes within one explosion chain whose dice count separately (``!``)."""
    assert node.explode is not None and node.success is not None
    explode, success = node.explode, node.success
    den = sum(base)
    hit = sum(c for i, c in enumerate(base) if success.matches(lo + i))
    cur = [den - hit, hit]
    for _ in range(limits.MAX_EXPLOSIONS):
        cur_den = sum(cur)
        out = [0] * (len(cur) + 1)
        for i, c in enumerate(base):
            if not c:
                continue
            face = lo + i
            s = int(success.matches(face))
            if explode.matches(face):
                for k, x in enumerate(cur):
                    out[k + s] += c * x
            else:
                out[s] += c * cur_den
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


@lru_cache(maxsize=256)
def _distribution_of(node: Node) -> Distribution:
    return _eval(node)


_BY_TEXT: dict[str, Distribution] = {}
"""Distributions of texts already seen (a text needs neither hashing its tree nor parsing)."""
_CACHE_SIZE = 256


def distribution(expression: str | Node) -> Distribution:
    """The exact distribution of an expression's total.

    >>> distribution("4d6kh3").probability(18)
    Fraction(7, 432)
    """
    if not isinstance(expression, str):
        return _distribution_of(expression)
    dist = _BY_TEXT.get(expression)
    if dist is None:
        dist = _eval(parse_uncached(expression))
        if len(_BY_TEXT) >= _CACHE_SIZE:
            _BY_TEXT.clear()
        _BY_TEXT[expression] = dist
    return dist


def clear_cache() -> None:
    """Forget every distribution computed (for measuring first calls)."""
    _BY_TEXT.clear()
    _distribution_of.cache_clear()
