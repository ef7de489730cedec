"""Rolling an expression: a result tree that keeps every die and its fate."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from mypy_extensions import mypyc_attr

from . import limits
from .ast import (
    PAIRS,
    WRAPPERS,
    BinOp,
    Compare,
    Comparison,
    Dice,
    Func,
    Group,
    Label,
    Neg,
    Node,
    Num,
    Point,
    Points,
    RollGroup,
)
from .bounds import check_rolls, explosions_allowed, rerolls_allowed
from .dialects import Dialect
from .errors import DiceError, DiceEvalError
from .parser import SimpleTerm, parse_uncached, simple_sum
from .sources import DiceSource, SeededDice

KEPT = "kept"
DROPPED = "dropped"
REROLLED = "rerolled"

Value = int | Fraction
"""A total: a whole number, or inside ``floor()`` and the other rounding functions, where
``/`` divides exactly, a fraction."""


@mypyc_attr(native_class=False)
class Die:
    """One die as it lies on the table.

    ``fate`` is ``kept``, ``dropped`` (by keep/drop) or ``rerolled`` (replaced by a reroll);
    ``exploded`` says this die triggered another roll. A compounded die (``!!``) holds
    the sum of its chain in ``value`` and the single rolls in ``parts``. ``success`` is
    whether a counted die met the success point (None when nothing is counted), ``failure``
    whether it counted as a failure (``f``); ``critical`` is ``"success"`` or ``"failure"``
    for a die marked by ``cs``/``cf``. ``rolled`` is the face shown when the die's value
    differs from it (a penetrating die counts one less, ``min``/``max`` move it). ``kind``
    is ``"F"`` for a Fudge die and ``"T"`` for a tens die (``faces`` is then what the dice
    source rolled: 3 or 10).
    """

    __slots__ = (
        "critical", "exploded", "faces", "failure", "fate", "kind", "parts", "rolled",
        "success", "value",
    )

    def __init__(self, value: int, faces: int) -> None:
        self.value = value
        self.faces = faces
        self.fate = KEPT
        self.exploded = False
        self.success: bool | None = None
        self.parts: tuple[int, ...] | None = None
        self.failure: bool | None = None
        self.critical: str | None = None
        self.rolled: int | None = None
        self.kind = ""

    @property
    def kept(self) -> bool:
        return self.fate == KEPT

    def __str__(self) -> str:
        value = self.value
        text = f"{value:+d}" if self.kind == "F" and value else str(value)
        if self.rolled is not None:
            text = f"{self.rolled}→{text}"
        if self.exploded:
            text += "!"
        if self.fate != KEPT:
            text = f"~~{text}~~"
        elif self.success:
            text = f"**{text}**"
        elif self.failure:
            text = f"__{text}__"
        if self.critical is not None:
            text += " crit" if self.critical == "success" else " fumble"
        return text

    def __repr__(self) -> str:
        return f"<Die d{self.faces}={self.value} {self.fate}{' exploded' if self.exploded else ''}>"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"value": self.value, "faces": self.faces, "fate": self.fate}
        if self.exploded:
            data["exploded"] = True
        if self.success is not None:
            data["success"] = self.success
        if self.parts is not None:
            data["parts"] = list(self.parts)
        if self.failure:
            data["failure"] = True
        if self.critical is not None:
            data["critical"] = self.critical
        if self.rolled is not None:
            data["rolled"] = self.rolled
        if self.kind:
            data["kind"] = "fudge" if self.kind == "F" else "tens"
        return data


def _new_die(value: int, faces: int) -> Die:
    """``Die(value, faces)`` without its constructor's call: slot stores alone."""
    die: Die = _new(Die)
    die.value = value
    die.faces = faces
    die.fate = KEPT
    die.exploded = False
    die.success = None
    die.parts = None
    die.failure = None
    die.critical = None
    die.rolled = None
    die.kind = ""
    return die


def _plain_dice(values: list[int], faces: int) -> list[Die]:
    """A kept die for each of ``values``."""
    new_die = _new_die
    return [new_die(value, faces) for value in values]


@mypyc_attr(native_class=False)
class Part:
    """A node of the result tree. ``total`` is its value."""

    __slots__ = ("total",)
    total: Value

    def render(self) -> str:
        raise NotImplementedError

    def dice(self) -> list[Die]:
        return []


@mypyc_attr(native_class=False)
class NumPart(Part):
    __slots__ = ()

    def __init__(self, total: int) -> None:
        self.total = total

    def render(self) -> str:
        return str(self.total)


@mypyc_attr(native_class=False)
class DicePart(Part):
    """One dice term's dice and total.

    A plain pool (with at most a keep or drop and a success count) keeps only the values
    rolled and which of them were dropped; its :class:`Die` objects are made the first time
    ``rolled`` is read (issue 35: making ten slots per die was most of a small roll's
    time, and most rolls only want the total). They are the same dice either way.
    """

    __slots__ = ("_dropped", "_rolled", "_values", "node")

    def __init__(self, node: Dice, rolled: list[Die], total: int) -> None:
        self.node = node
        self._rolled: list[Die] | None = rolled
        self._values: list[int] | None = None
        self._dropped: list[int] | None = None
        self.total = total

    @property
    def rolled(self) -> list[Die]:
        rolled = self._rolled
        if rolled is None:
            rolled = self._rolled = _lazy_dice(self.node, self._values or [], self._dropped)
        return rolled

    def render(self) -> str:
        return f"{self.node} ({', '.join(map(str, self.rolled))})"

    def dice(self) -> list[Die]:
        return self.rolled


def _dice_part(node: Dice, rolled: list[Die], total: int) -> DicePart:
    """``DicePart(node, rolled, total)`` without its constructor's call."""
    part: DicePart = _new(DicePart)
    part.node = node
    part._rolled = rolled
    part.total = total
    return part


def _values_part(node: Dice, values: list[int], dropped: list[int] | None,
                 total: int) -> DicePart:
    """A plain pool's part, its dice made when they are read (:func:`_lazy_dice`)."""
    part: DicePart = _new(DicePart)
    part.node = node
    part._rolled = None
    part._values = values
    part._dropped = dropped
    part.total = total
    return part


def _lazy_dice(node: Dice, values: list[int], dropped: list[int] | None) -> list[Die]:
    """The dice of a plain pool that rolled ``values``, those at ``dropped`` dropped, each
    kept die marked as a success or not when the term counts successes."""
    rolled = _plain_dice(values, node.faces)
    if dropped:
        for i in dropped:
            rolled[i].fate = DROPPED
    if node.success is not None:
        hit = _predicate(node.success)
        for die in rolled:
            if die.fate == KEPT:
                die.success = hit(die.value)
    return rolled


@mypyc_attr(native_class=False)
class NegPart(Part):
    __slots__ = ("operand",)

    def __init__(self, operand: Part) -> None:
        self.operand = operand
        self.total = -operand.total

    def render(self) -> str:
        return f"-{self.operand.render()}"

    def dice(self) -> list[Die]:
        return self.operand.dice()


@mypyc_attr(native_class=False)
class GroupPart(Part):
    __slots__ = ("inner",)

    def __init__(self, inner: Part) -> None:
        self.inner = inner
        self.total = inner.total

    def render(self) -> str:
        return f"({self.inner.render()})"

    def dice(self) -> list[Die]:
        return self.inner.dice()


@mypyc_attr(native_class=False)
class BinPart(Part):
    __slots__ = ("left", "op", "right")

    def __init__(self, op: str, left: Part, right: Part, total: Value) -> None:
        self.op = op
        self.left = left
        self.right = right
        self.total = total

    def render(self) -> str:
        return f"{self.left.render()} {self.op} {self.right.render()}"

    def dice(self) -> list[Die]:
        return self.left.dice() + self.right.dice()


@mypyc_attr(native_class=False)
class FuncPart(Part):
    __slots__ = ("args", "name")

    def __init__(self, name: str, args: list[Part], total: Value) -> None:
        self.name = name
        self.args = args
        self.total = total

    def render(self) -> str:
        return f"{self.name}({', '.join(a.render() for a in self.args)})"

    def dice(self) -> list[Die]:
        return [d for a in self.args for d in a.dice()]


@mypyc_attr(native_class=False)
class LabelPart(Part):
    __slots__ = ("inner", "text")

    def __init__(self, inner: Part, text: str) -> None:
        self.inner = inner
        self.text = text
        self.total = inner.total

    def render(self) -> str:
        return f"{self.inner.render()} [{self.text}]"

    def dice(self) -> list[Die]:
        return self.inner.dice()


@mypyc_attr(native_class=False)
class CommentPart(LabelPart):
    """The root of a commented expression; :meth:`RollResult.render` writes the comment
    after the total."""

    __slots__ = ()

    def render(self) -> str:
        return self.inner.render()


@mypyc_attr(native_class=False)
class GroupRollPart(Part):
    """A group ``{...}``: its members' parts, each member's ``fates`` (kept or dropped)
    and, when they are counted, ``marks`` (1 a success, -1 a failure, 0 neither). A group
    that keeps or counts dice (``dice_level``) has one member and the fates on its dice."""

    __slots__ = ("fates", "marks", "members", "node")

    def __init__(self, node: RollGroup, members: list[Part], fates: list[str],
                 marks: list[int] | None, total: Value) -> None:
        self.node = node
        self.members = members
        self.fates = fates
        self.marks = marks
        self.total = total

    def render(self) -> str:
        node = self.node
        suffix = str(RollGroup((Num(0),), True, node.keep, node.success, node.failure))[3:]
        if node.dice_level:
            return "{" + self.members[0].render() + "}" + suffix
        shown = []
        for i, part in enumerate(self.members):
            total = str(part.total)
            if self.fates[i] != KEPT:
                total = f"~~{total}~~"
            elif self.marks is not None and self.marks[i] > 0:
                total = f"**{total}**"
            elif self.marks is not None and self.marks[i] < 0:
                total = f"__{total}__"
            shown.append(f"{part.render()} = {total}")
        return "{" + ", ".join(shown) + "}" + suffix

    def dice(self) -> list[Die]:
        return [d for m in self.members for d in m.dice()]


class RollResult:
    """The outcome of rolling an expression.

    >>> from arbiter.dice.sources import ForcedDice
    >>> print(roll("4d6kh3", ForcedDice([6, 5, 3, 1])))
    4d6kh3 (6, 5, 3, ~~1~~) = 14

    A native class in the compiled build (every roll makes one, and the rules read its
    total and values), copied and pickled through :meth:`__reduce__`. A plain sum is
    rolled without its tree (:func:`_lazy_result`): its ``plan``, the values it rolled
    (``rolls``) and its ``total`` are given instead.
    """

    def __init__(self, expression: Node, tree: Part | None, plan: _Plan | None = None,
                 rolls: list[list[int]] | None = None, total: int | None = None) -> None:
        self.expression = expression
        self._tree: Part | None = tree
        self._plan: _Plan | None = plan
        self._rolls: list[list[int]] | None = rolls
        if total is None:
            assert tree is not None, "a result without its tree is given its total"
            total = int(tree.total)
        self.total: int = total

    @property
    def tree(self) -> Part:
        """The result tree: every part's total and every die with its fate.

        A plain sum (:func:`_flat_terms`) is rolled without it; it is made the first time
        it is read, by the expression's own step fed the same values in the same order.
        """
        tree = self._tree
        if tree is None:
            plan, rolls = self._plan, self._rolls
            assert plan is not None and rolls is not None
            replay = _Replay(rolls)
            tree = self._tree = _compiled(plan)(replay.roll, replay.roll_many)
        return tree

    def __reduce__(self) -> tuple[Any, ...]:
        # (the tree itself, made if it was not: a plan's steps are closures)
        return _restored, (self.expression, self.total, self.tree)

    def dice(self) -> list[Die]:
        """Every die rolled, left to right, whatever its fate."""
        return self.tree.dice()

    def values(self) -> list[int]:
        """Every die's value, left to right, whatever its fate (the values of
        :meth:`dice`); a plain sum's read off the values it rolled, without making its tree
        (its dice are its terms' in the order rolled)."""
        tree = self._tree
        if tree is None:
            plan, rolls = self._plan, self._rolls
            if plan is not None and plan.flat is not None and rolls is not None:
                return [v for values in rolls for v in values]
            tree = self.tree
        return [d.value for d in tree.dice()]

    @property
    def comment(self) -> str | None:
        return self.tree.text if isinstance(self.tree, CommentPart) else None

    def render(self) -> str:
        text = f"{self.tree.render()} = {self.total}"
        if isinstance(self.tree, CommentPart):
            text += f" # {self.tree.text}" if self.tree.text else " #"
        return text

    def __str__(self) -> str:  # not ``__str__ = render``: mypyc compiles no such alias
        return self.render()

    def __repr__(self) -> str:
        return f"<RollResult {self.render()}>"

    def to_json(self) -> dict[str, Any]:
        data = {
            "expression": str(self.expression),
            "total": self.total,
            "text": self.render(),
            "dice": [d.to_json() for d in self.dice()],
        }
        if isinstance(self.tree, CommentPart):
            data["comment"] = self.tree.text
        return data


def _restored(expression: Node, total: int, tree: Part) -> RollResult:
    """A result copied or unpickled (:meth:`RollResult.__reduce__`)."""
    return RollResult(expression, tree, None, None, total)


def _divide(a: Value, b: Value, up: bool) -> int:
    if b == 0:
        raise DiceEvalError("division by zero")
    return -((-a) // b) if up else a // b


def _exact_divide(a: Value, b: Value) -> Value:
    if b == 0:
        raise DiceEvalError("division by zero")
    q = Fraction(a) / b
    return q.numerator if q.denominator == 1 else q


def _modulo(a: Value, b: Value) -> Value:
    if b == 0:
        raise DiceEvalError("division by zero (in %)")
    return a % b


def _remainder(a: Value, b: Value) -> Value:
    """``a - b * trunc(a / b)``: the remainder with the sign of ``a``."""
    if b == 0:
        raise DiceEvalError("division by zero (in rem)")
    if type(a) is int and type(b) is int:
        r = abs(a) % abs(b)
        return -r if a < 0 else r
    return a - b * math.trunc(Fraction(a) / b)


def _round(x: Value) -> int:
    """Halves round up, as Roll20's and Foundry's ``round`` do."""
    return math.floor(x + Fraction(1, 2)) if isinstance(x, Fraction) else x


def _abs(x: Value) -> Value:
    return -x if x < 0 else x


FUNCTIONS: dict[str, Callable[[Value], Value]] = {
    "floor": math.floor,
    "ceil": math.ceil,
    "round": _round,
    "trunc": math.trunc,
    "abs": _abs,
}

RELATIONS: dict[str, Callable[[Value, Value], bool]] = {
    "=": lambda a, b: a == b,
    "<>": lambda a, b: a != b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
}


# -- compiled plans ----------------------------------------------------------------------
#
# A parsed tree is compiled into nested closures (a plan's step) that roll and build the
# result tree directly. Plans are cached by the text rolled and by the identity of a tree
# passed in, so rolling the same expression again costs one lookup. A plain sum is rolled
# by its terms, and the first roll of a tree of plain dice walks the tree; either makes its
# result tree only when it is read (see _new_plan).
#
# Before a plan is made, every die is counted with all the rerolls and explosions its
# bounds allow (``bounds.check_rolls``; for plain dice, the counts), so a tree that could
# need more than ``limits.MAX_ROLLS`` dice is refused before anything is rolled, and a plan
# that was made never runs out of dice, whatever they show. (The limits are read when a
# plan is made; ``clear_plans`` forgets plans made under others.)
#
# On the hot paths the result objects are made with ``object.__new__`` and slot stores:
# the same objects, with the same attributes, that their constructors make, without a
# Python call per die.

_Roll = Callable[[int], int]
_Many = Callable[[int, int], list[int]]
_Step = Callable[[_Roll, "_Many | None"], Part]
_Total = Callable[[_Roll, "_Many | None"], Value]

_PLAN_CACHE_SIZE = 1024
_BATCH = 2
"""Plain pools of at least this many dice are rolled with one ``roll_many`` call (issue 35:
from two dice on, one call of a seeded source's ``roll_many`` costs less than a call of
``roll`` per die)."""
_new = object.__new__


_Flat = list[SimpleTerm]
"""A plain sum's dice terms: (subtracted?, dice, faces, dice kept, keeping the highest?)."""


class _Plan:
    """How to roll one parsed tree: its compiled step (made on the second roll, see
    :func:`_new_plan`), or its plain sum's terms. (Native in the compiled build: read at
    every roll.)"""

    def __init__(self, node: Node, step: _Step | None, batches: bool) -> None:
        self.node = node
        self.step = step  # None until compiled (:func:`_compiled`)
        self.batches = batches  # whether any pool is big enough for roll_many
        # A plain sum: its dice terms (see _Flat) and its numbers' sum.
        self.flat: _Flat | None = None
        self.constant = 0
        self.walks = False  # the next roll walks the tree (the first roll of a new tree)


def _flat_terms(node: Node) -> tuple[_Flat, int] | None:
    """A sum of plain dice terms (``NdX`` with no modifier but a keep or drop) and numbers,
    such as ``3d6+2d4kh1-1``, as (its dice terms left to right, the sum of its numbers);
    None for anything else.

    Such a sum is rolled by :func:`_roll_flat` without building its result tree (issue 35:
    the parts and dice of the tree were most of a small roll's time); the tree is made if
    it is read (:attr:`RollResult.tree`).
    """
    terms: _Flat = []
    constant = 0
    while True:
        if isinstance(node, BinOp) and (node.op == "+" or node.op == "-"):
            right = node.right
            minus = node.op == "-"
            if isinstance(right, Num):
                constant += -right.value if minus else right.value
            elif isinstance(right, Dice):
                term = _flat_term(right, minus)
                if term is None:
                    return None
                terms.append(term)
            else:
                return None
            node = node.left
            continue
        if isinstance(node, Num):
            constant += node.value
        elif isinstance(node, Dice):
            term = _flat_term(node, False)
            if term is None:
                return None
            terms.append(term)
        else:
            return None
        break
    if not terms:
        return None
    terms.reverse()
    return terms, constant


def _flat_term(node: Dice, minus: bool) -> SimpleTerm | None:
    """One term of :func:`_flat_terms`, or None if it has any modifier but a keep."""
    if not node.plain or node.success is not None:
        return None
    n = node.count
    keep = node.keep
    if keep is None:
        return minus, n, node.faces, n, True
    highest, kept = keep.kept_highest(n)
    return minus, n, node.faces, kept, highest


class _Replay:
    """The values a plain sum rolled, given again in the same order (to make its tree)."""

    __slots__ = ("_next",)

    def __init__(self, rolls: list[list[int]]) -> None:
        self._next = iter([v for values in rolls for v in values]).__next__

    def roll(self, faces: int) -> int:
        return self._next()

    def roll_many(self, n: int, faces: int) -> list[int]:
        take = self._next
        return [take() for _ in range(n)]


def _roll_flat(plan: _Plan, source: DiceSource) -> RollResult:
    """Roll a plain sum (:func:`_flat_terms`): the values and the total, the tree later."""
    if type(source) is SeededDice:  # the simulator's: its own method called directly
        return _roll_flat_seeded(plan, source)
    roll = source.roll
    many = getattr(source, "roll_many", None)
    rolls = []
    for _, n, faces, _, _ in plan.flat or ():
        if n == 1:
            values = [roll(faces)]
        elif many is not None:
            values = many(n, faces)
        else:
            values = [roll(faces) for _ in range(n)]
        rolls.append(values)
    return _lazy_result(plan, rolls, _flat_total(plan, rolls))


def _roll_flat_seeded(plan: _Plan, seeded: SeededDice) -> RollResult:
    """:func:`_roll_flat` from a :class:`SeededDice`: the same values in the same order (its
    ``roll_many(1, faces)`` is its ``roll(faces)``), by a direct call, compiled, where a
    source of any kind is asked for ``roll`` and ``roll_many`` by name each time (a
    simulated Polemos fight rolls about 170 times)."""
    rolls = [seeded.roll_many(n, faces) for _, n, faces, _, _ in plan.flat or ()]
    return _lazy_result(plan, rolls, _flat_total(plan, rolls))


def _flat_total(plan: _Plan, rolls: list[list[int]]) -> int:
    """The total of a plain sum whose terms rolled ``rolls``, in order: the kept dice's sum
    is the sum of the highest or lowest ``kept`` values, however ties are broken."""
    total = plan.constant
    terms = plan.flat or ()
    for index in range(len(terms)):
        minus, n, _, kept, highest = terms[index]
        values = rolls[index]
        value = sum(values) if kept == n else sum(sorted(values, reverse=highest)[:kept])
        if minus:
            total -= value
        else:
            total += value
    return total


def _lazy_result(plan: _Plan, rolls: list[list[int]], total: int) -> RollResult:
    """A result whose tree is made when it is read, from the values rolled (in order)."""
    return RollResult(plan.node, None, plan, rolls, total)


# -- the first roll of a new tree: a walk over it ------------------------------------------
#
# Compiling a plan costs more than rolling it once (issue 35: 3.8 µs of a first roll's
# 18). So the first roll of a new tree of numbers, plain dice (keep, drop and success
# counts allowed), arithmetic, comparisons and functions walks the tree for its total,
# keeping the values rolled; the plan is compiled on the second roll, or when the first
# one's tree is read (the plan's step fed the same values in the same order). Trees with
# anything else (rerolls, explosions, groups...) are compiled at once. The walk rolls the
# same dice in the same order and gives the same total as the plan
# (tests/dice/test_fast_paths.py).


def _walk_budget(node: Node) -> int:
    """The most dice rolling ``node`` takes if its first roll can walk it, else -1."""
    if isinstance(node, Dice):
        return node.count if node.plain else -1
    if isinstance(node, Num):
        return 0
    if isinstance(node, PAIRS):
        left = _walk_budget(node.left)
        right = _walk_budget(node.right)
        return -1 if left < 0 or right < 0 else left + right
    if isinstance(node, Neg):
        return _walk_budget(node.operand)
    if isinstance(node, WRAPPERS):
        return _walk_budget(node.inner)
    if isinstance(node, Func):
        most = 0
        for arg in node.args:
            k = _walk_budget(arg)
            if k < 0:
                return -1
            most += k
        return most
    return -1


def _walk(node: Node, roll: _Roll, many: _Many | None, rolls: list[list[int]],
          exact: bool) -> Value:
    """The total of ``node`` (one :func:`_walk_budget` accepts), the values rolled appended
    to ``rolls``: what the compiled step gives, with the same dice."""
    if isinstance(node, Dice):
        n = node.count
        values = _values(roll, many, n, node.faces)
        rolls.append(values)
        keep = node.keep
        if keep is not None:
            highest, kept = keep.kept_highest(n)
            if kept < n:  # (the values kept are these, however ties are broken)
                values = sorted(values, reverse=highest)[:kept]
        success = node.success
        if success is not None:
            hit = success.matches
            return sum([1 for v in values if hit(v)])
        return sum(values)
    if isinstance(node, BinOp):
        a = _walk(node.left, roll, many, rolls, exact)
        b = _walk(node.right, roll, many, rolls, exact)
        op = node.op
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        return _operation(op, exact)(a, b)
    if isinstance(node, Num):
        return node.value
    if isinstance(node, WRAPPERS):
        return _walk(node.inner, roll, many, rolls, exact)
    if isinstance(node, Neg):
        return -_walk(node.operand, roll, many, rolls, exact)
    if isinstance(node, Comparison):
        a = _walk(node.left, roll, many, rolls, exact)
        b = _walk(node.right, roll, many, rolls, exact)
        return int(RELATIONS[node.op](a, b))
    assert isinstance(node, Func)
    name = node.name
    inner_exact = exact or (name in FUNCTIONS and name != "abs")
    if name == "rem":
        a = _walk(node.args[0], roll, many, rolls, inner_exact)
        b = _walk(node.args[1], roll, many, rolls, inner_exact)
        return _remainder(a, b)
    return FUNCTIONS[name](_walk(node.args[0], roll, many, rolls, inner_exact))


def _roll_walk(plan: _Plan, source: DiceSource) -> RollResult:
    """The first roll of a new tree: walked, its tree made if it is read."""
    rolls: list[list[int]] = []
    total = _walk(plan.node, source.roll, getattr(source, "roll_many", None), rolls, False)
    # a whole number: fractions arise only inside rounding functions, which round them
    return _lazy_result(plan, rolls, total)  # type: ignore[arg-type]


_BY_TEXT: dict[str, _Plan] = {}
_BY_DIALECT: dict[tuple[str, str], _Plan] = {}
_BY_NODE: dict[int, _Plan] = {}  # id(node) -> plan; plan.node keeps the id in use


def _predicate(point: Point) -> Callable[[int], bool]:
    """``point.matches`` as a bound method of an int where it can be: no Python frame
    per die."""
    if isinstance(point, Points) or point.op in ("even", "odd"):
        return point.matches
    v, op = point.value, point.op
    if op == "=":
        return v.__eq__
    if op == ">":
        return v.__lt__
    if op == ">=":
        return v.__le__
    if op == "<":
        return v.__gt__
    return v.__ge__


def _values(roll: _Roll, many: _Many | None, n: int, faces: int) -> list[int]:
    """``n`` rolls of a d``faces``: a pool of at least ``_BATCH`` dice is one ``roll_many``
    call; fewer are rolled one by one."""
    if many is not None and n >= _BATCH:
        return many(n, faces)
    return [roll(faces) for _ in range(n)]


def _plain_step(node: Dice) -> _Step:
    """``NdX`` without modifiers."""
    n, faces = node.count, node.faces
    if n == 1:

        def one(roll: _Roll, many: _Many | None) -> Part:
            value = roll(faces)
            return _values_part(node, [value], None, value)

        return one

    def pool(roll: _Roll, many: _Many | None) -> Part:
        values = many(n, faces) if many is not None else [roll(faces) for _ in range(n)]
        return _values_part(node, values, None, sum(values))

    return pool


def _keep_step(node: Dice) -> _Step:
    """``NdX`` with keep/drop and/or success counting, but no rerolls or explosions."""
    n, faces = node.count, node.faces
    highest, keep = node.keep.kept_highest(n) if node.keep is not None else (True, n)
    hit = _predicate(node.success) if node.success is not None else None

    def step(roll: _Roll, many: _Many | None) -> Part:
        values = _values(roll, many, n, faces)
        dropped = None
        if keep < n:
            # a stable sort of positions by value drops the same dice as sorting the dice
            dropped = sorted(range(n), key=values.__getitem__, reverse=highest)[keep:]
        if hit is not None:
            if dropped:
                out = set(dropped)
                total = sum([hit(v) for i, v in enumerate(values) if i not in out])
            else:
                total = sum(map(hit, values))
        elif dropped:
            total = sum(values)
            for i in dropped:
                total -= values[i]
        else:
            total = sum(values)
        return _values_part(node, values, dropped, total)

    return step


def _plain_total(node: Dice) -> _Total:
    """What :func:`_plain_step` or :func:`_keep_step` give as a total, without the dice."""
    n, faces = node.count, node.faces
    highest, keep = node.keep.kept_highest(n) if node.keep is not None else (True, n)
    hit = _predicate(node.success) if node.success is not None else None

    def total(roll: _Roll, many: _Many | None) -> Value:
        values = _values(roll, many, n, faces)
        if keep < n:
            values = [values[i] for i in sorted(sorted(range(n), key=values.__getitem__,
                                                       reverse=highest)[:keep])]
        if hit is not None:
            return sum(map(hit, values))
        return sum(values)

    return total


# -- dice with rerolls, explosions and the rest: rolled die by die ----------------------------
#
# A term's dice are first rolled into parallel lists (each die's value and a few flags),
# then settled (select, keep, count), and only then, for a roll, turned into ``Die``
# objects; a Monte-Carlo estimate uses the total alone.

_REROLLED = 1
_EXPLODED = 2
_DROPPED = 4
_SUCCESS = 8
_FAILURE = 16
_CRIT_SUCCESS = 32
_CRIT_FAILURE = 64
_COUNTED = 128

_Records = tuple[list[int], list[int], dict[int, int], dict[int, tuple[int, ...]]]
"""Each die's value and flags, the faces of dice whose value differs from their face, and
the rolls of compounded dice, by position."""


def _never_stopped(node: Dice, value: int, rerolls: int) -> DiceError:
    """A roll that still matches its reroll until after every reroll it is counted with
    (:mod:`arbiter.dice.bounds`): a fair die does so with a chance below 10**-12."""
    return DiceError(
        f"{node} rerolls until a die stops, and the dice source still gave a face it "
        f"rerolls ({value}) after {rerolls:,} rerolls of one roll: a fair die stops sooner "
        f"with a chance above 1 - 10^-{limits.EXPLOSION_TAIL_DIGITS}, so the source is "
        "not rolling fairly (or the forced dice given keep matching)"
    )


def _chain_roller(node: Dice) -> Callable[[_Roll], _Records]:
    """Rolls the dice of a term with their rerolls and explosions, clamps them and marks
    criticals (table order: a rerolled die before the one that replaced it, an explosion's
    dice after the die that exploded)."""
    n, faces, kind = node.count, node.faces, node.kind
    offset = -2 if kind == "F" else 0
    tens = kind == "T"
    max_rerolls = rerolls_allowed(node)  # 0 when no face can be rerolled
    until = not node.reroll_once
    rerolls = _predicate(node.reroll) if node.reroll is not None and max_rerolls else None
    max_explosions = explosions_allowed(node)  # 0 when no face can explode
    explodes = _predicate(node.explode) if node.explode is not None and max_explosions else None
    compound = node.compound
    pen = 1 if node.penetrate else 0
    clamps = node.minimum is not None or node.maximum is not None
    clamp = node.clamp
    crit_s = _predicate(node.crit_success) if node.crit_success is not None else None
    crit_f = _predicate(node.crit_failure) if node.crit_failure is not None else None

    def face(roll: _Roll) -> int:
        value = roll(faces)
        return (value - 1) * 10 if tens else value + offset

    plain_face = not kind

    def rolled(roll: _Roll) -> _Records:
        vals: list[int] = []
        flags: list[int] = []
        raws: dict[int, int] = {}
        parts: dict[int, tuple[int, ...]] = {}
        for _ in range(n):
            chain: list[int] = []
            explosions = 0
            later = False
            value = roll(faces) if plain_face else face(roll)
            while True:
                if rerolls is not None:
                    left = max_rerolls  # ro: the reroll stands
                    while left and rerolls(value):
                        vals.append(value)
                        flags.append(_REROLLED)
                        value = roll(faces) if plain_face else face(roll)
                        left -= 1
                    if not left and until and rerolls(value):
                        raise _never_stopped(node, value, max_rerolls)
                if compound:
                    chain.append(value)
                else:
                    shown = value - pen if later else value
                    if clamps:
                        shown = clamp(shown)
                    if shown != value:
                        raws[len(vals)] = value
                    vals.append(shown)
                    flags.append(0)
                if explodes is None or explosions >= max_explosions or not explodes(value):
                    break
                explosions += 1
                if not compound:
                    flags[-1] = _EXPLODED
                later = True
                value = roll(faces) if plain_face else face(roll)
            if compound:
                total = sum(chain)
                shown = clamp(total) if clamps else total
                if shown != total:
                    raws[len(vals)] = total
                if len(chain) > 1:
                    parts[len(vals)] = tuple(chain)
                vals.append(shown)
                flags.append(_EXPLODED if len(chain) > 1 else 0)
        if crit_s is not None or crit_f is not None:
            for i, value in enumerate(vals):
                if not flags[i] & _REROLLED:
                    if crit_s is not None and crit_s(value):
                        flags[i] |= _CRIT_SUCCESS
                    elif crit_f is not None and crit_f(value):
                        flags[i] |= _CRIT_FAILURE
        return vals, flags, raws, parts

    return rolled


@mypyc_attr(native_class=False)
class _Settle:
    """Select, keep and count the dice standing: the rules that come after the rolling,
    for one term or, in a group that keeps or counts dice, across its terms."""

    __slots__ = ("failure", "highest_keep", "keep", "select", "subtract", "success")

    def __init__(self, keep: Any, select: Any, success: Compare | None,
                 failure: Compare | None, subtract: bool = False) -> None:
        self.keep = keep
        self.select = select
        self.success = _predicate(success) if success is not None else None
        self.failure = _predicate(failure) if failure is not None else None
        self.subtract = subtract

    def __call__(self, vals: list[int], flags: list[int]) -> int:
        live = [i for i, f in enumerate(flags) if not f & _REROLLED]
        if self.select is not None:
            kept = self.select.kept
            for i in live:
                if not kept(vals[i]):
                    flags[i] |= _DROPPED
            live = [i for i in live if not flags[i] & _DROPPED]
        if self.keep is not None:
            highest, keep = self.keep.kept_highest(len(live))
            dropped = sorted(live, key=vals.__getitem__, reverse=highest)[keep:]
            for i in dropped:
                flags[i] |= _DROPPED
            if dropped:
                live = [i for i in live if not flags[i] & _DROPPED]
        hit, miss, subtract = self.success, self.failure, self.subtract
        if hit is None and miss is None:
            return sum([vals[i] for i in live])
        total = 0
        for i in live:
            value = vals[i]
            if hit is not None and hit(value):
                flags[i] |= _SUCCESS | _COUNTED
                total += 1
            elif miss is not None and miss(value):
                flags[i] |= _FAILURE | _COUNTED
                total -= value if subtract else 1
            elif hit is not None:
                flags[i] |= _COUNTED
            else:  # failures without a success count: every other die counts its value
                total += value
        return total


def _settler(node: Dice) -> _Settle:
    return _Settle(node.keep, node.select, node.success, node.failure, node.subtract)


def _make_dice(node: Dice, records: _Records) -> list[Die]:
    vals, flags, raws, parts = records
    faces, kind = node.faces, node.kind
    out: list[Die] = []
    for i, value in enumerate(vals):
        f = flags[i]
        die = _new_die(value, faces)
        if f & _REROLLED:
            die.fate = REROLLED
        elif f & _DROPPED:
            die.fate = DROPPED
        if f & _EXPLODED:
            die.exploded = True
        if f & _COUNTED:
            die.success = bool(f & _SUCCESS)
            if f & _FAILURE:
                die.failure = True
        if f & _CRIT_SUCCESS:
            die.critical = "success"
        elif f & _CRIT_FAILURE:
            die.critical = "failure"
        if raws and i in raws:
            die.rolled = raws[i]
        if parts and i in parts:
            die.parts = parts[i]
        die.kind = kind
        out.append(die)
    if node.sort:
        out.sort(key=_value, reverse=node.sort == "d")
    return out


def _classic_step(node: Dice) -> _Step:
    """``NdX`` with rerolls and/or explosions (``!``, ``!!``) and nothing added for issue
    23: rolled die by die, in table order, building the dice as it goes (the commonest
    dynamic terms, kept on this shorter path; :func:`_dynamic_step` gives the same)."""
    n, faces = node.count, node.faces
    max_rerolls = rerolls_allowed(node)  # 0 when no face can be rerolled
    until = not node.reroll_once
    rerolls = _predicate(node.reroll) if node.reroll is not None and max_rerolls else None
    max_explosions = explosions_allowed(node)  # 0 when no face can explode
    explodes = _predicate(node.explode) if node.explode is not None and max_explosions else None
    compound = node.compound
    keep = node.keep
    hit = _predicate(node.success) if node.success is not None else None
    new_die = _new_die

    def step(roll: _Roll, many: _Many | None) -> Part:
        out: list[Die] = []
        append = out.append
        for _ in range(n):
            chain: list[int] = []
            explosions = 0
            value = roll(faces)
            while True:
                if rerolls is not None:
                    left = max_rerolls  # ro: the reroll stands
                    while left and rerolls(value):
                        gone = new_die(value, faces)
                        gone.fate = REROLLED
                        append(gone)
                        value = roll(faces)
                        left -= 1
                    if not left and until and rerolls(value):
                        raise _never_stopped(node, value, max_rerolls)
                if compound:
                    chain.append(value)
                else:
                    append(new_die(value, faces))
                if explodes is None or explosions >= max_explosions or not explodes(value):
                    break
                explosions += 1
                if not compound:
                    out[-1].exploded = True
                value = roll(faces)
            if compound:
                die = new_die(sum(chain), faces)
                if len(chain) > 1:
                    die.exploded = True
                    die.parts = tuple(chain)
                append(die)
        live = [d for d in out if d.fate == KEPT]
        if keep is not None:
            highest, kept = keep.kept_highest(len(live))
            for die in sorted(live, key=_value, reverse=highest)[kept:]:
                die.fate = DROPPED
        total = 0
        if hit is not None:
            for die in live:
                if die.fate == KEPT:
                    die.success = success = hit(die.value)
                    total += success
        else:
            for die in live:
                if die.fate == KEPT:
                    total += die.value
        return _dice_part(node, out, total)

    return step


def _classic(node: Dice) -> bool:
    """Whether ``node`` uses nothing but rerolls, ``!``/``!!``, keep/drop and successes."""
    return (
        not node.kind
        and not node.penetrate
        and not node.explode_once
        and node.minimum is None
        and node.maximum is None
        and node.select is None
        and node.failure is None
        and node.crit_success is None
        and node.crit_failure is None
        and not node.sort
    )


def _dynamic_step(node: Dice) -> _Step:
    """``NdX`` with rerolls, explosions, a minimum or maximum, selection, failures,
    critical marks, sorting, or a Fudge or tens die: rolled die by die, in table order."""
    rolled = _chain_roller(node)
    settle = _settler(node)

    def step(roll: _Roll, many: _Many | None) -> Part:
        records = rolled(roll)
        total = settle(records[0], records[1])
        return DicePart(node, _make_dice(node, records), total)

    return step


def _standing(node: Dice) -> Callable[[_Roll], list[int]]:
    """The values of the dice of a term that stand after their rerolls and explosions, as
    :func:`_chain_roller` rolls them (the same dice, in the same order), with no record of
    those rerolled or of each die's fate: an estimate needs only the total."""
    n, faces, kind = node.count, node.faces, node.kind
    offset = -2 if kind == "F" else 0
    tens = kind == "T"
    max_rerolls = rerolls_allowed(node)
    until = not node.reroll_once
    rerolls = _predicate(node.reroll) if node.reroll is not None and max_rerolls else None
    max_explosions = explosions_allowed(node)
    explodes = _predicate(node.explode) if node.explode is not None and max_explosions else None
    compound = node.compound
    pen = 1 if node.penetrate else 0
    clamps = node.minimum is not None or node.maximum is not None
    clamp = node.clamp
    plain_face = not kind

    def standing(roll: _Roll) -> list[int]:
        vals: list[int] = []
        append = vals.append
        for _ in range(n):
            value = roll(faces)
            if not plain_face:
                value = (value - 1) * 10 if tens else value + offset
            explosions = 0
            chain = 0
            later = False
            while True:
                if rerolls is not None:
                    left = max_rerolls
                    while left and rerolls(value):
                        value = roll(faces)
                        if not plain_face:
                            value = (value - 1) * 10 if tens else value + offset
                        left -= 1
                    if not left and until and rerolls(value):
                        raise _never_stopped(node, value, max_rerolls)
                if compound:
                    chain += value
                elif later:
                    append(clamp(value - pen) if clamps else value - pen)
                else:
                    append(clamp(value) if clamps else value)
                if explodes is None or explosions >= max_explosions or not explodes(value):
                    break
                explosions += 1
                later = True
                value = roll(faces)
                if not plain_face:
                    value = (value - 1) * 10 if tens else value + offset
            if compound:
                append(clamp(chain) if clamps else chain)
        return vals

    return standing


def _values_total(keep: Any, select: Any, success: Compare | None,
                  failure: Compare | None, subtract: bool = False
                  ) -> Callable[[list[int]], int]:
    """:class:`_Settle` for the values alone: the total they settle to."""
    kept_by = select.kept if select is not None else None
    hit = _predicate(success) if success is not None else None
    miss = _predicate(failure) if failure is not None else None

    def total(vals: list[int]) -> int:
        if kept_by is not None:
            vals = [v for v in vals if kept_by(v)]
        if keep is not None:
            highest, kept = keep.kept_highest(len(vals))
            vals = sorted(vals, reverse=highest)[:kept]
        if hit is None and miss is None:
            return sum(vals)
        count = 0
        for v in vals:
            if hit is not None and hit(v):
                count += 1
            elif miss is not None and miss(v):
                count -= v if subtract else 1
            elif hit is None:
                count += v
        return count

    return total


def _dynamic_total(node: Dice) -> _Total:
    """What :func:`_dynamic_step` gives as a total: the same dice in the same order."""
    standing = _standing(node)
    settle = _values_total(node.keep, node.select, node.success, node.failure, node.subtract)
    return lambda roll, many: settle(standing(roll))


def _value(die: Die) -> int:
    return die.value


# -- groups -------------------------------------------------------------------------------------


def _member_fates(node: RollGroup, totals: list[Value]) -> tuple[list[str], list[int] | None,
                                                                 Value]:
    """Keep and count the members of a group by their totals."""
    fates = [KEPT] * len(totals)
    live = list(range(len(totals)))
    if node.keep is not None:
        highest, keep = node.keep.kept_highest(len(live))
        for i in sorted(live, key=totals.__getitem__, reverse=highest)[keep:]:
            fates[i] = DROPPED
        live = [i for i in live if fates[i] == KEPT]
    if node.success is None:
        return fates, None, sum([totals[i] for i in live])
    hit, miss = node.success, node.failure
    marks = [0] * len(totals)
    for i in live:
        if hit.matches(totals[i]):  # type: ignore[arg-type]
            marks[i] = 1
        elif miss is not None and miss.matches(totals[i]):  # type: ignore[arg-type]
            marks[i] = -1
    return fates, marks, sum(marks)


def _terms(member: Node) -> list[Dice]:
    """The dice terms of a group that keeps or counts dice (added together)."""
    if isinstance(member, Dice):
        return [member]
    assert isinstance(member, BinOp)
    return _terms(member.left) + _terms(member.right)


def _dice_level(node: RollGroup) -> tuple[Callable[[_Roll], list[_Records]], _Settle,
                                          list[Dice]]:
    terms = _terms(node.members[0])
    rollers = [_chain_roller(t) for t in terms]
    settle = _Settle(node.keep, None, node.success, node.failure)

    def rolled(roll: _Roll) -> list[_Records]:
        return [r(roll) for r in rollers]

    return rolled, settle, terms


def _settle_across(settle: _Settle, records: list[_Records]) -> tuple[int, list[int]]:
    """Settle the dice of several terms as one pool: the total, and each term's part."""
    vals: list[int] = []
    flags: list[int] = []
    for v, f, _, _ in records:
        vals += v
        flags += f
    total = settle(vals, flags)
    at = 0
    totals = []
    for v, f, _, _ in records:
        n = len(v)
        f[:] = flags[at : at + n]
        totals.append(_term_total(v, f))
        at += n
    return total, totals


def _term_total(vals: list[int], flags: list[int]) -> int:
    total = 0
    for value, f in zip(vals, flags, strict=True):
        if f & _COUNTED:
            total += 1 if f & _SUCCESS else -1 if f & _FAILURE else 0
        elif not f & (_REROLLED | _DROPPED):
            total += value
    return total


def _group_step(node: RollGroup, batches: list[bool], exact: bool) -> _Step:
    if node.dice_level and (node.keep is not None or node.success is not None):
        rolled, settle, terms = _dice_level(node)
        member = node.members[0]

        def dice_step(roll: _Roll, many: _Many | None) -> Part:
            records = rolled(roll)
            total, totals = _settle_across(settle, records)
            parts = iter(
                DicePart(t, _make_dice(t, r), s)
                for t, r, s in zip(terms, records, totals, strict=True)
            )
            return GroupRollPart(node, [_rebuild(member, parts)], [KEPT], None, total)

        return dice_step
    members = [_compile(m, batches, exact) for m in node.members]

    def step(roll: _Roll, many: _Many | None) -> Part:
        parts = [m(roll, many) for m in members]
        fates, marks, total = _member_fates(node, [p.total for p in parts])
        return GroupRollPart(node, parts, fates, marks, total)

    return step


def _rebuild(member: Node, parts: Any) -> Part:
    """The result tree of a sum of dice terms, from its terms' parts in order."""
    if isinstance(member, Dice):
        part: Part = next(parts)
        return part
    assert isinstance(member, BinOp)
    left = _rebuild(member.left, parts)
    right = _rebuild(member.right, parts)
    return BinPart("+", left, right, left.total + right.total)


def _group_total(node: RollGroup, exact: bool) -> _Total:
    if node.dice_level and (node.keep is not None or node.success is not None):
        terms = [_standing(t) for t in _terms(node.members[0])]
        settle = _values_total(node.keep, None, node.success, node.failure)

        def dice_total(roll: _Roll, many: _Many | None) -> Value:
            vals: list[int] = []
            for term in terms:
                vals += term(roll)
            return settle(vals)

        return dice_total
    members = [_compile_total(m, exact) for m in node.members]
    keep, success, failure = node.keep, node.success, node.failure

    def total(roll: _Roll, many: _Many | None) -> Value:
        totals = [m(roll, many) for m in members]
        if keep is not None:
            highest, kept = keep.kept_highest(len(totals))
            totals = sorted(totals, reverse=highest)[:kept]
        if success is None:
            return sum(totals)
        count = 0
        for t in totals:
            if success.matches(t):  # type: ignore[arg-type]
                count += 1
            elif failure is not None and failure.matches(t):  # type: ignore[arg-type]
                count -= 1
        return count

    return total


# -- arithmetic --------------------------------------------------------------------------------


def _operation(op: str, exact: bool) -> Callable[[Value, Value], Value]:
    if op == "+":
        return lambda a, b: a + b
    if op == "-":
        return lambda a, b: a - b
    if op == "*":
        return lambda a, b: a * b
    if op == "%":
        return _modulo
    if op == "/" and exact:
        return _exact_divide
    up = op == "/^"
    return lambda a, b: _divide(a, b, up)


def _binary_step(node: BinOp, batches: list[bool], exact: bool) -> _Step:
    op = node.op
    left = _compile(node.left, batches, exact)
    new = _new
    if isinstance(node.right, Num) and op in ("+", "-"):
        number = node.right.value
        k = number if op == "+" else -number

        def constant(roll: _Roll, many: _Many | None) -> Part:
            a = left(roll, many)
            b = new(NumPart)
            b.total = number
            part = new(BinPart)
            part.op = op
            part.left = a
            part.right = b
            part.total = a.total + k
            return part

        return constant
    right = _compile(node.right, batches, exact)
    if op == "+" or op == "-":
        sign = 1 if op == "+" else -1

        def add(roll: _Roll, many: _Many | None) -> Part:
            a = left(roll, many)
            b = right(roll, many)
            part = new(BinPart)
            part.op = op
            part.left = a
            part.right = b
            part.total = a.total + sign * b.total
            return part

        return add
    combine = _operation(op, exact)

    def other(roll: _Roll, many: _Many | None) -> Part:
        a = left(roll, many)
        b = right(roll, many)
        return BinPart(op, a, b, combine(a.total, b.total))

    return other


def _compile(node: Node, batches: list[bool], exact: bool = False) -> _Step:
    """The step that rolls ``node``; ``batches`` learns whether any pool is batched, and
    ``exact`` says whether ``/`` divides exactly (inside a rounding function)."""
    if isinstance(node, BinOp):
        return _binary_step(node, batches, exact)
    if isinstance(node, Dice):
        if not node.plain:  # rolled die by die: never batched
            return _classic_step(node) if _classic(node) else _dynamic_step(node)
        if node.count >= _BATCH:
            batches[0] = True
        if node.keep is not None or node.success is not None:
            return _keep_step(node)
        return _plain_step(node)
    if isinstance(node, Num):
        value = node.value

        def number(roll: _Roll, many: _Many | None) -> Part:
            return NumPart(value)

        return number
    if isinstance(node, Neg):
        operand = _compile(node.operand, batches, exact)

        def neg(roll: _Roll, many: _Many | None) -> Part:
            return NegPart(operand(roll, many))

        return neg
    if isinstance(node, Group):
        inner = _compile(node.inner, batches, exact)

        def group(roll: _Roll, many: _Many | None) -> Part:
            return GroupPart(inner(roll, many))

        return group
    if isinstance(node, Comparison):
        left, right = _compile(node.left, batches, exact), _compile(node.right, batches, exact)
        holds = RELATIONS[node.op]
        op = node.op

        def compare(roll: _Roll, many: _Many | None) -> Part:
            a = left(roll, many)
            b = right(roll, many)
            return BinPart(op, a, b, int(holds(a.total, b.total)))

        return compare
    if isinstance(node, Func):
        name = node.name
        inner_exact = exact or (name in FUNCTIONS and name != "abs")
        args = [_compile(a, batches, inner_exact) for a in node.args]
        if name == "rem":
            first, second = args
            combine = _exact_remainder if exact else _remainder

            def rem(roll: _Roll, many: _Many | None) -> Part:
                a = first(roll, many)
                b = second(roll, many)
                return FuncPart(name, [a, b], combine(a.total, b.total))

            return rem
        (arg,) = args
        fn = FUNCTIONS[name]

        def func(roll: _Roll, many: _Many | None) -> Part:
            a = arg(roll, many)
            return FuncPart(name, [a], fn(a.total))

        return func
    if isinstance(node, RollGroup):
        return _group_step(node, batches, exact)
    if isinstance(node, Label):
        inner = _compile(node.inner, batches, exact)
        text = node.text

        def label(roll: _Roll, many: _Many | None) -> Part:
            return LabelPart(inner(roll, many), text)

        return label
    inner = _compile(node.inner, batches, exact)
    text = node.text

    def comment(roll: _Roll, many: _Many | None) -> Part:
        return CommentPart(inner(roll, many), text)

    return comment


_exact_remainder = _remainder


def _compile_total(node: Node, exact: bool = False) -> _Total:
    """What :func:`_compile`'s step gives as ``total``, without building the result tree:
    the same dice, in the same order, for a Monte-Carlo estimate."""
    if isinstance(node, Dice):
        if node.plain:
            return _plain_total(node)
        return _dynamic_total(node)
    if isinstance(node, Num):
        value = node.value
        return lambda roll, many: value
    if isinstance(node, Neg):
        operand = _compile_total(node.operand, exact)
        return lambda roll, many: -operand(roll, many)
    if isinstance(node, WRAPPERS):
        return _compile_total(node.inner, exact)
    if isinstance(node, PAIRS):
        left, right = _compile_total(node.left, exact), _compile_total(node.right, exact)
        if isinstance(node, Comparison):
            holds = RELATIONS[node.op]
            return lambda roll, many: int(holds(left(roll, many), right(roll, many)))
        combine = _operation(node.op, exact)
        return lambda roll, many: combine(left(roll, many), right(roll, many))
    if isinstance(node, Func):
        name = node.name
        inner_exact = exact or (name in FUNCTIONS and name != "abs")
        args = [_compile_total(a, inner_exact) for a in node.args]
        if name == "rem":
            first, second = args
            return lambda roll, many: _remainder(first(roll, many), second(roll, many))
        fn = FUNCTIONS[name]
        (arg,) = args
        return lambda roll, many: fn(arg(roll, many))
    return _group_total(node, exact)


def _new_plan(node: Node) -> _Plan:
    """The plan for ``node``, refusing it first if its dice could exceed
    ``limits.MAX_ROLLS``.

    A plain sum is rolled by its terms and a tree of plain dice is walked on its first
    roll, so neither is compiled yet (:func:`_compiled` does it when needed); for both the
    budget is the sum of the dice counts, counted here on the way. Anything else is checked
    by ``check_rolls`` and compiled at once.
    """
    flat = _flat_terms(node)
    if flat is not None:
        return _flat_plan(node, flat[0], flat[1])
    most = _walk_budget(node)
    if 0 <= most <= limits.MAX_ROLLS:
        plan = _Plan(node, None, False)
        plan.walks = True
        return plan
    check_rolls(node)
    plan = _Plan(node, None, False)
    _compiled(plan)
    return plan


def _flat_plan(node: Node, terms: _Flat, constant: int) -> _Plan:
    """The plan of a plain sum (:func:`_flat_terms`), its dice counted first."""
    most = 0
    for term in terms:
        most += term[1]
    if most > limits.MAX_ROLLS:
        check_rolls(node)  # (raises, saying why)
    plan = _Plan(node, None, False)
    plan.flat = terms
    plan.constant = constant
    return plan


def _compiled(plan: _Plan) -> _Step:
    """The plan's step, compiled on first use."""
    step = plan.step
    if step is None:
        batches = [False]
        step = _compile(plan.node, batches)
        plan.batches = batches[0]
        plan.step = step
    return step


def _plan(node: Node) -> _Plan:
    """The plan for a tree, made on first use."""
    plan = _BY_NODE.get(id(node))
    if plan is None or plan.node is not node:
        plan = _new_plan(node)
        if len(_BY_NODE) >= _PLAN_CACHE_SIZE:
            _BY_NODE.clear()
        _BY_NODE[id(node)] = plan
    return plan


def _plan_text(text: str) -> _Plan:
    """The plan for a text, parsed and compiled on first use."""
    simple = simple_sum(text)
    if simple is None:
        plan = _new_plan(parse_uncached(text))
    else:  # a plain sum, read with its terms in one pass
        node, terms, constant = simple
        plan = _flat_plan(node, terms, constant)
    if len(_BY_TEXT) >= _PLAN_CACHE_SIZE:
        _BY_TEXT.clear()
    _BY_TEXT[text] = plan
    return plan


def _plan_dialect(text: str, dialect: str | Dialect) -> _Plan:
    name = dialect if isinstance(dialect, str) else dialect.name
    plan = _BY_DIALECT.get((name, text))
    if plan is None:
        plan = _new_plan(parse_uncached(text, dialect))
        if len(_BY_DIALECT) >= _PLAN_CACHE_SIZE:
            _BY_DIALECT.clear()
        _BY_DIALECT[name, text] = plan
    return plan


def clear_plans() -> None:
    """Forget every compiled plan (for measuring first rolls; never needed otherwise)."""
    _BY_TEXT.clear()
    _BY_DIALECT.clear()
    _BY_NODE.clear()


def roll(
    expression: str | Node, source: DiceSource, dialect: str | Dialect = "arbiter"
) -> RollResult:
    """Roll ``expression`` (text, read in ``dialect``, or a parsed tree) with dice from
    ``source``.

    A source with a ``roll_many(n, faces)`` method (see :class:`DiceSource`) rolls plain
    pools in one call; otherwise each die is one ``roll``.
    """
    if isinstance(expression, str):
        if dialect == "arbiter":
            plan = _BY_TEXT.get(expression) or _plan_text(expression)
        else:
            plan = _plan_dialect(expression, dialect)
    else:
        plan = _plan(expression)
    return _roll_plan(plan, source)


def _roll_plan(plan: _Plan, source: DiceSource) -> RollResult:
    """Roll a plan: by its terms, by walking its tree (its first roll) or by its step."""
    if plan.flat is not None:
        return _roll_flat(plan, source)
    step = plan.step
    if step is None:
        if plan.walks:
            plan.walks = False
            return _roll_walk(plan, source)
        step = _compiled(plan)
    tree = step(source.roll, getattr(source, "roll_many", None) if plan.batches else None)
    # a whole number: fractions arise only inside rounding functions, which round them
    return RollResult(plan.node, tree, None, None, tree.total)  # type: ignore[arg-type]
