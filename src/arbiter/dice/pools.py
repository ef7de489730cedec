"""Exact keep/drop over a pool whose size is itself random: dice that explode into
separate dice (``5d6!kh3``, ``3d6!pkh1``, ``{4d6!+3d8}kh4``).

Each die of a term leaves a chain of rolls on the table. A roll is of one *kind*: it
explodes or not, and is the first roll of its chain or a later one (a penetrating die
shows a later roll one lower). Whether a roll explodes decides only whether the chain goes
on, so, once it is known how many rolls of each kind the pool holds, their values are
independent: each kind is a die of its own, weighted by the faces of that kind. The number
of rolls of each kind comes from one polynomial per chain, ``h``: for a die with ``E``
explosions at most, ``x`` an exploding roll and ``y`` one that stops the chain,

    h(x, y) = y * (S**E + S**(E-1) x + ... + x**E) + x**(E+1)

(``S`` the total weight of one roll, padding every chain to ``E + 1`` rolls, so that all
chains share one denominator; the last roll of a full chain never explodes, whatever it
shows). A penetrating die has four kinds (first or later, exploding or not); a die that
does not explode into separate dice has one kind and ``h(x) = x``. The pool of ``n`` such
dice has ``h**n``: the coefficient of ``x**a * y**b`` weighs the pools of ``a`` exploding
and ``b`` other rolls.

Keeping then walks the faces in order from the end that is settled first (the highest
for ``kh`` and ``dh``, the lowest for ``kl`` and ``dl``), placing rolls of each kind on each
face, as the fixed-size programme of ``exact._keep`` does, but with the placed counts of
each kind as the state. Only states of fewer than ``c`` placed rolls are kept (``c`` the
number kept by ``kh``/``kl`` or dropped by ``dh``/``dl``): once ``c`` are placed the rest
is settled, and what the rest weighs is read off one truncated power series,

    G(m) = [u**m] prod over terms of h(W + u) ** n,

``W`` the weights of each kind on the faces not reached yet (as polynomials in the value
they add, for ``dh``/``dl``, whose remaining dice are all kept). ``[u**m] h(W + u)**n`` is
the sum over all pools of the ways to place the rest, by Taylor's formula, so the
programme never tracks more than ``c`` dice, however long the chains.

Every weight is an exact integer; polynomials in the kept sum are packed into big integers
(Kronecker substitution) as in :mod:`arbiter.dice.exact`. :func:`cost` estimates the work
before any of it, for the budget ``exact.check`` applies.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

try:  # gmpy2 multiplies big integers faster than Python's own from about a thousand bits
    from gmpy2 import mpz as _big
except ImportError:  # pragma: no cover - gmpy2 is a declared dependency
    _big = int

Monomial = tuple[int, tuple[int, ...]]
"""A coefficient and the exponent of each kind of roll."""

_GMP_BITS = 1 << 12


@dataclass(frozen=True, slots=True)
class Chains:
    """``count`` dice alike: the kinds of roll each may leave (shown value → weight, one
    table a kind), and ``h`` as its monomials, of degree ``degree`` (rolls in a full
    chain), whose coefficients pad every chain to ``weight ** degree``."""

    count: int
    kinds: tuple[dict[int, int], ...]
    monomials: tuple[Monomial, ...]
    degree: int
    weight: int


def exploding(
    count: int,
    lo: int,
    base: list[int],
    explodes: Callable[[int], bool],
    first: Callable[[int], int],
    later: Callable[[int], int],
    explosions: int,
    penetrate: bool,
) -> Chains:
    """The chains of ``count`` dice whose rolls weigh ``base`` (over ``lo, lo+1, ...``),
    explode into separate dice on ``explodes`` (at most ``explosions`` times) and show
    ``first(face)`` on the first roll, ``later(face)`` on the others."""
    tables: list[dict[int, int]] = [{}, {}, {}, {}]  # first X, first N, later X, later N
    for i, w in enumerate(base):
        if w:
            v = lo + i
            side = 0 if explodes(v) else 1
            for k, shown in ((side, first(v)), (side + 2, later(v))):
                tables[k][shown] = tables[k].get(shown, 0) + w
    s = sum(base)
    e = explosions
    monomials: list[Monomial]
    if not penetrate:  # first and later rolls show alike: two kinds
        monomials = [(s ** (e - i), (i, 1)) for i in range(e + 1)]
        monomials.append((1, (e + 1, 0)))
        return Chains(count, (tables[0], tables[1]), tuple(monomials), e + 1, s)
    # y1 S^E + x1 (sum over j < E-1 of x2^j y2 S^(E-1-j) + x2^(E-1) (x2 + y2))
    monomials = [(s**e, (0, 1, 0, 0))]
    monomials += [(s ** (e - 1 - j), (1, 0, j, 1)) for j in range(e - 1)]
    monomials += [(1, (1, 0, e, 0)), (1, (1, 0, e - 1, 1))]
    return Chains(count, tuple(tables), tuple(monomials), e + 1, s)


def plain(count: int, lo: int, base: list[int]) -> Chains:
    """``count`` dice that add no dice to the pool, each showing ``lo + i`` with weight
    ``base[i]``."""
    table = {lo + i: w for i, w in enumerate(base) if w}
    return Chains(count, (table,), ((1, (1,)),), 1, sum(base))


# -- truncated power series in the kinds ---------------------------------------------------
#
# A series is a dict from exponents (a tuple, one per kind of every term) to a coefficient,
# itself a packed polynomial (an int) in the value the remaining dice add; only the terms
# of total degree below ``c`` are kept.

Series = dict[tuple[int, ...], Any]


def _added(ma: tuple[int, ...], mb: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x + y for x, y in zip(ma, mb, strict=True))


def _joined(ma: tuple[int, ...], mb: tuple[int, ...]) -> tuple[int, ...]:
    return ma + mb


def _multiply(
    a: Series,
    b: Series,
    c: int,
    key: Callable[[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = _added,
) -> Series:
    """The product of two series below degree ``c``: in the same kinds, or (``key`` is
    ``_joined``) in different kinds, ``b``'s after ``a``'s."""
    out: Series = {}
    right = [(m, sum(m), v) for m, v in b.items()]
    for ma, va in a.items():
        room = c - sum(ma)
        for mb, db, vb in right:
            if db < room:
                k = key(ma, mb)
                term = va * vb
                out[k] = out[k] + term if k in out else term
    return out


def _power(a: Series, n: int, c: int, one: Any, size: int) -> Series:
    result: Series = {tuple([0] * size): one}
    base = a
    while n:
        if n & 1:
            result = _multiply(result, base, c)
        n >>= 1
        if n:
            base = _multiply(base, base, c)
    return result


def _shifted(chains: Chains, w: list[Any], c: int, one: Any) -> Series:
    """``h(W + u)`` of one term, truncated below degree ``c`` in ``u``."""
    k = len(chains.kinds)
    powers: list[list[Any]] = []
    top = max(m[1][i] for m in chains.monomials for i in range(k))
    for wk in w:
        row = [one]
        for _ in range(top):
            row.append(row[-1] * wk)
        powers.append(row)
    out: Series = {}
    for coef, exps in chains.monomials:
        # the product over kinds of (W_k + u_k) ** e_k, binomially, below degree c
        terms: list[tuple[tuple[int, ...], int, Any]] = [((), 0, coef)]
        for i, e in enumerate(exps):
            new = []
            for m, d, v in terms:
                for r in range(min(e, c - 1 - d) + 1):
                    factor = powers[i][e - r]
                    if not factor:
                        continue
                    new.append(((*m, r), d + r, v * (math.comb(e, r) * factor)))
            terms = new
        for m, _, v in terms:
            out[m] = out[m] + v if m in out else v
    return out


def _remaining(chains: list[Chains], weights: list[list[Any]], c: int, one: Any) -> Series:
    """``G``: the product over terms of ``h(W + u) ** n``, truncated below degree ``c``."""
    total: Series | None = None
    for chain, w in zip(chains, weights, strict=True):
        part = _power(_shifted(chain, w, c, one), chain.count, c, one, len(chain.kinds))
        total = part if total is None else _multiply(total, part, c, _joined)
    assert total is not None
    return total


def _placements(kinds: list[int], limit: int, size: int) -> Iterator[tuple[int, ...]]:
    """Every count of rolls of the ``kinds`` (others 0) with a total below ``limit``."""

    def go(i: int, left: int, acc: list[int]) -> Iterator[tuple[int, ...]]:
        if i == len(kinds):
            yield tuple(acc)
            return
        k = kinds[i]
        for j in range(left):
            acc[k] = j
            yield from go(i + 1, left - j, acc)
        acc[k] = 0

    yield from go(0, limit, [0] * size)


def keep(
    chains: list[Chains], from_top: bool, keeping: bool, c: int, value: Callable[[int], int]
) -> dict[int, int]:
    """The weights of the total of a pool of ``chains``, by total: keeping (``keeping``)
    or dropping the ``c`` rolls at the high end (``from_top``) or the low end, each kept
    roll adding ``value(shown)``. The weights total ``prod(weight ** (degree * count))``.
    """
    size = sum(len(t.kinds) for t in chains)
    offsets = []
    at = 0
    for t in chains:
        offsets.append(at)
        at += len(t.kinds)
    tables = [table for t in chains for table in t.kinds]
    shown = sorted({v for table in tables for v in table}, reverse=from_top)
    if not shown:
        return {0: _total_weight(chains)}
    vals = {v: value(v) for v in shown}
    low, high = min(vals.values()), max(vals.values())
    most = sum(t.count * t.degree for t in chains)  # rolls in the pool, at the most
    if keeping:  # kept rolls add z ** (value - low); the rest are settled and add nothing
        kept_exp = {v: vals[v] - low for v in shown}
        rest_exp = dict.fromkeys(shown, 0)
        length = c * (high - low) + 1
    else:  # dropped rolls add nothing; the rest add z ** value
        kept_exp = dict.fromkeys(shown, 0)
        pad = -min(low, 0)
        rest_exp = {v: vals[v] + pad for v in shown}
        length = (high + pad) * most + 1
    bits = sum(t.count * t.degree * (t.weight + 2).bit_length() for t in chains)
    bits += c * max(t.weight for t in chains).bit_length() + 8
    slot = 4 * ((bits + 3) // 4)
    big: Callable[..., Any] = _big if length * slot > _GMP_BITS else int
    one = big(1)
    binom = [[math.comb(a + j, j) for j in range(c + 1)] for a in range(c + 1)]

    def weights_beyond(start: int) -> list[list[Any]]:
        """W of each kind, per term, over the faces ``shown[start:]``."""
        out: list[list[Any]] = []
        for t in chains:
            row = []
            for table in t.kinds:
                w = big(0)
                for v in shown[start:]:
                    x = table.get(v)
                    if x:
                        w += big(x) << (rest_exp[v] * slot)
                row.append(w)
            out.append(row)
        return out

    zero = tuple([0] * size)
    states: dict[tuple[int, ...], Any] = {zero: one} if c > 0 else {}
    by_count: dict[int, Any] = {}
    settled = chains  # the kept rolls settle the exponents' shift, below
    if not keeping and pad:
        # A kept roll adds z ** (value + pad), and so does every roll of padding that
        # pads a chain to its bound: then the kept rolls and the padding, ``most - c``
        # slots in all, shift the total by ``pad`` each, whatever the size of the pool.
        settled = [
            replace(
                t,
                monomials=tuple(
                    (coef << (pad * (t.degree - sum(exps)) * slot), exps)
                    for coef, exps in t.monomials
                ),
            )
            for t in chains
        ]
    g_incl = _remaining(settled, weights_beyond(0), c, one) if c > 0 else {}
    for i, v in enumerate(shown):
        if not states:
            break
        g_after = _remaining(settled, weights_beyond(i + 1), c, one)
        present = [k for k, table in enumerate(tables) if table.get(v)]
        w_here = [table.get(v, 0) for table in tables]
        a_shift = kept_exp[v] * slot
        b_shift = rest_exp[v] * slot
        new: dict[tuple[int, ...], Any] = {}
        for m, poly in states.items():
            placed = sum(m)
            need = c - placed
            sub = big(0)
            for j in _placements(present, need, size):
                moved = sum(j)
                weight = 1
                for k in present:
                    if j[k]:
                        weight *= binom[m[k]][j[k]] * w_here[k] ** j[k]
                key = tuple(x + y for x, y in zip(m, j, strict=True))
                rest = g_after.get(key)
                if rest:
                    sub += (rest * weight) << (moved * b_shift)
                term = poly * weight
                if a_shift and moved:
                    term <<= moved * a_shift
                new[key] = new[key] + term if key in new else term
            absorbed = g_incl.get(m, 0) - sub
            if absorbed:
                if keeping:
                    out = poly * absorbed
                    if a_shift:
                        out <<= need * a_shift
                    by_count[c] = by_count.get(c, 0) + out
                else:
                    by_count[1] = by_count.get(1, 0) + poly * (absorbed >> (need * b_shift))
        states = new
        g_incl = g_after
    # pools of fewer than c rolls: every roll placed (and, dropping, none kept)
    if states and settled is not chains:
        g_incl = _remaining(chains, weights_beyond(len(shown)), c, one)
    for m, poly in states.items():
        rest = g_incl.get(m)
        if rest:
            p = sum(m) if keeping else 0
            by_count[p] = by_count.get(p, 0) + poly * rest
    shift = -pad * (most - c) if not keeping else 0
    return _decode(by_count, slot, keeping, low, shift)


def _total_weight(chains: list[Chains]) -> int:
    return math.prod(t.weight ** (t.degree * t.count) for t in chains)


def _decode(
    by_count: dict[int, Any], slot: int, keeping: bool, low: int, shift: int
) -> dict[int, int]:
    """The weights by total from the packed polynomials, one per number of rolls kept: for
    ``kh``/``kl`` each kept roll's exponent is shifted by ``low``; for ``dh``/``dl`` the
    exponents of a kept total are shifted by ``shift`` (none kept: 0)."""
    out: dict[int, int] = {}
    h = slot // 4
    for p, packed in by_count.items():
        text = format(packed, "x")
        end = len(text)
        offset = p * low if keeping else (shift if p else 0)
        for e in range((end + h - 1) // h):
            weight = int(text[max(end - (e + 1) * h, 0) : end - e * h], 16)
            if weight:
                out[e + offset] = out.get(e + offset, 0) + weight
    return out


# -- the estimate ------------------------------------------------------------------------


_OP = 300
"""A big-integer operation's own cost in Python, with its dictionary work (units of about
a nanosecond of one core, as in ``exact.py``)..."""
_PAIR = 1000
"""A pair of terms multiplied in a product of series, beyond the product itself..."""
_SKIP = 150
"""...and a pair passed over (its degree too high)."""
_MARGIN = 1.5
"""The estimate's margin over the measured times (see :func:`cost`)."""
_LINEAR = 0.06
"""...plus this much per bit of a sum, a shift or a product by a small number..."""


def _product(a: int, b: int) -> float:
    """...and this much for a product of ``a`` bits by ``b`` bits (gmpy2's, whose cost per
    bit grows slowly with the size)."""
    if min(a, b) <= 64:
        return _OP + _LINEAR * max(a, b)
    bits = a + b
    return _OP + bits * (0.3 + 0.25 * math.log2(max(bits / 1000, 1)))


def cost(
    terms: list[tuple[int, int, int, int, int]],
    c: int,
    keeping: bool,
    values: int,
    spread: int,
    present: int,
) -> float:
    """The work of :func:`keep` before it is done (units of about a nanosecond): ``terms``
    as (dice, kinds, degree of ``h``, bits of one roll's total weight, kinds that can
    show one face), ``values`` the faces walked, ``spread`` how far the exponent of one
    roll's value can range, ``present`` the kinds that can show one face, in all."""
    size = sum(k for _, k, _, _, _ in terms)
    most = sum(n * d for n, _, d, _, _ in terms)
    bits = sum(n * d * (b + 1) for n, _, d, b, _ in terms)
    bits += c * max(b for _, _, _, b, _ in terms) + 8
    slot = 4 * ((bits + 3) // 4)
    states = math.comb(c - 1 + size, size)  # counts placed, fewer than c in all
    length = c * spread + 1 if keeping else most * spread + 1
    poly = length * slot  # bits of a packed polynomial of the kept sum
    coef = slot if keeping else poly  # bits of a coefficient of the series
    series = 0.0
    for n, k, d, _, _ in terms:
        # a chain's coefficients are as long as one chain's values can reach, a term's
        # as long as its n chains' (for kh/kl, whole numbers of up to ``slot`` bits)
        chain = slot if keeping else (d * spread + 1) * slot
        whole = slot if keeping else (n * d * spread + 1) * slot
        series += k * d * _product(chain, slot if keeping else spread * slot)  # W ** i
        expand = (d + 1) * min(d, c) * (2 if k <= 2 else 4)  # binomials of h(W + u)
        series += expand * _product(chain, 64)
        # the power: about two products of series a bit of n, each meeting every pair of
        # terms (those below degree c kept: a tuple, a dictionary update), the last few
        # of the longest coefficients
        pairs = math.comb(c - 1 + 2 * k, 2 * k)
        terms_t = math.comb(c - 1 + k, k)
        rounds = 2 * max(n.bit_length(), 1)
        series += rounds * (pairs * _PAIR + terms_t * terms_t * _SKIP)
        series += 2 * pairs * _product(whole // 2, whole // 2)
    if len(terms) > 1:
        series += (len(terms) - 1) * math.comb(c - 1 + 2 * size, 2 * size) * _product(coef, coef)
    work = (values + 1) * series
    placements = math.comb(c - 1 + size + present, size + present)
    step = 3 * _OP + _LINEAR * poly + (_product(poly, 64) if keeping else _product(coef, 64))
    work += values * (placements * step + states * (2 * _OP + _product(poly, slot)))
    work += 400 * length * (c + 1 if keeping else 1)  # reading the weights back
    # measured against this estimate, the slowest cases (dh/dl with rerolls) took up to
    # its whole on a busy machine: half as much again keeps them within the second
    return work * _MARGIN
