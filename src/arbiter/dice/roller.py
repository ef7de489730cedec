"""Rolling an expression: a result tree that keeps every die and its fate."""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from typing import Any

from .ast import BinOp, Compare, Dice, Neg, Node, Num
from .bounds import check_rolls, explosions_allowed, rerolls_allowed
from .errors import DiceEvalError
from .parser import parse_uncached
from .sources import DiceSource

KEPT = "kept"
DROPPED = "dropped"
REROLLED = "rerolled"


class Die:
    """One die as it lies on the table.

    ``fate`` is ``kept``, ``dropped`` (by keep/drop) or ``rerolled`` (replaced by a reroll);
    ``exploded`` says this die triggered another roll. A compounded die (``!!``) holds
    the sum of its chain in ``value`` and the single rolls in ``parts``.
    """

    __slots__ = ("exploded", "faces", "fate", "parts", "success", "value")

    def __init__(self, value: int, faces: int) -> None:
        self.value = value
        self.faces = faces
        self.fate = KEPT
        self.exploded = False
        self.success: bool | None = None
        self.parts: tuple[int, ...] | None = None

    @property
    def kept(self) -> bool:
        return self.fate == KEPT

    def __str__(self) -> str:
        text = str(self.value)
        if self.exploded:
            text += "!"
        if self.fate != KEPT:
            return f"~~{text}~~"
        if self.success:
            return f"**{text}**"
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
        return data


class Part:
    """A node of the result tree. ``total`` is its value."""

    __slots__ = ("total",)
    total: int

    def render(self) -> str:
        raise NotImplementedError

    def dice(self) -> list[Die]:
        return []


class NumPart(Part):
    __slots__ = ()

    def __init__(self, total: int) -> None:
        self.total = total

    def render(self) -> str:
        return str(self.total)


class DicePart(Part):
    __slots__ = ("node", "rolled")

    def __init__(self, node: Dice, rolled: list[Die], total: int) -> None:
        self.node = node
        self.rolled = rolled
        self.total = total

    def render(self) -> str:
        return f"{self.node} ({', '.join(map(str, self.rolled))})"

    def dice(self) -> list[Die]:
        return self.rolled


class NegPart(Part):
    __slots__ = ("operand",)

    def __init__(self, operand: Part) -> None:
        self.operand = operand
        self.total = -operand.total

    def render(self) -> str:
        return f"-{self.operand.render()}"

    def dice(self) -> list[Die]:
        return self.operand.dice()


class GroupPart(Part):
    __slots__ = ("inner",)

    def __init__(self, inner: Part) -> None:
        self.inner = inner
        self.total = inner.total

    def render(self) -> str:
        return f"({self.inner.render()})"

    def dice(self) -> list[Die]:
        return self.inner.dice()


class BinPart(Part):
    __slots__ = ("left", "op", "right")

    def __init__(self, op: str, left: Part, right: Part, total: int) -> None:
        self.op = op
        self.left = left
        self.right = right
        self.total = total

    def render(self) -> str:
        return f"{self.left.render()} {self.op} {self.right.render()}"

    def dice(self) -> list[Die]:
        return self.left.dice() + self.right.dice()


class RollResult:
    """The outcome of rolling an expression.

    >>> from arbiter.dice.sources import ForcedDice
    >>> print(roll("4d6kh3", ForcedDice([6, 5, 3, 1])))
    4d6kh3 (6, 5, 3, ~~1~~) = 14
    """

    __slots__ = ("expression", "total", "tree")

    def __init__(self, expression: Node, tree: Part) -> None:
        self.expression = expression
        self.tree = tree
        self.total = tree.total

    def dice(self) -> list[Die]:
        """Every die rolled, left to right, whatever its fate."""
        return self.tree.dice()

    def render(self) -> str:
        return f"{self.tree.render()} = {self.total}"

    __str__ = render

    def __repr__(self) -> str:
        return f"<RollResult {self.render()}>"

    def to_json(self) -> dict[str, Any]:
        return {
            "expression": str(self.expression),
            "total": self.total,
            "text": self.render(),
            "dice": [d.to_json() for d in self.dice()],
        }


def _divide(a: int, b: int, up: bool) -> int:
    if b == 0:
        raise DiceEvalError("division by zero")
    return -((-a) // b) if up else a // b


# -- compiled plans ----------------------------------------------------------------------
#
# Rolling walks no tree: each parsed tree is compiled once into nested closures (a plan)
# that roll and build the result tree directly. Plans are cached by the text rolled and by
# the identity of a tree passed in, so rolling the same expression again costs one lookup.
#
# Before a plan is made, every die is counted with all the rerolls and explosions its
# bounds allow (``bounds.check_rolls``), so a tree that could need more than
# ``limits.MAX_ROLLS`` dice is refused before anything is rolled, and a plan that was made
# never runs out of dice, whatever they show. (The limits are read when a plan is made;
# ``clear_plans`` forgets plans made under others.)
#
# On the hot paths the result objects are made with ``object.__new__`` and slot stores:
# the same objects, with the same attributes, that their constructors make, without a
# Python call per die.

_Roll = Callable[[int], int]
_Many = Callable[[int, int], list[int]]
_Step = Callable[[_Roll, "_Many | None"], Part]

_PLAN_CACHE_SIZE = 1024
_BATCH = 4
"""Plain pools of at least this many dice are rolled with one ``roll_many`` call."""
_new = object.__new__


class _Plan:
    __slots__ = ("batches", "node", "step")

    def __init__(self, node: Node, step: _Step, batches: bool) -> None:
        self.node = node
        self.step = step
        self.batches = batches  # whether any pool is big enough for roll_many


_BY_TEXT: dict[str, _Plan] = {}
_BY_NODE: dict[int, _Plan] = {}  # id(node) -> plan; plan.node keeps the id in use


def _predicate(point: Compare) -> Callable[[int], bool]:
    """``point.matches`` as a bound method of an int: no Python frame per die."""
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


def _plain_step(node: Dice) -> _Step:
    """``NdX`` without modifiers."""
    n, faces = node.count, node.faces
    new = _new
    if n == 1:

        def one(roll: _Roll, many: _Many | None) -> Part:
            value = roll(faces)
            die = new(Die)
            die.value = value
            die.faces = faces
            die.fate = KEPT
            die.exploded = False
            die.success = None
            die.parts = None
            part = new(DicePart)
            part.node = node
            part.rolled = [die]
            part.total = value
            return part

        return one

    def pool(roll: _Roll, many: _Many | None) -> Part:
        rolled: list[Die] = []
        append = rolled.append
        total = 0
        # a pool of at least _BATCH dice is one roll_many call; fewer are rolled one by one
        for value in many(n, faces) if many is not None and n >= _BATCH else repeat(None, n):
            if value is None:
                value = roll(faces)
            total += value
            die = new(Die)
            die.value = value
            die.faces = faces
            die.fate = KEPT
            die.exploded = False
            die.success = None
            die.parts = None
            append(die)
        part = new(DicePart)
        part.node = node
        part.rolled = rolled
        part.total = total
        return part

    return pool


def _keep_step(node: Dice) -> _Step:
    """``NdX`` with keep/drop and/or success counting, but no rerolls or explosions."""
    n, faces = node.count, node.faces
    highest, keep = node.keep.kept_highest(n) if node.keep is not None else (True, n)
    hit = _predicate(node.success) if node.success is not None else None
    new = _new

    def step(roll: _Roll, many: _Many | None) -> Part:
        if many is not None and n >= _BATCH:
            values = many(n, faces)
        else:
            values = [roll(faces) for _ in range(n)]
        rolled: list[Die] = []
        append = rolled.append
        for value in values:
            die = new(Die)
            die.value = value
            die.faces = faces
            die.fate = KEPT
            die.exploded = False
            die.success = None
            die.parts = None
            append(die)
        total = sum(values)
        if keep < n:
            # a stable sort of positions by value drops the same dice as sorting the dice
            for i in sorted(range(n), key=values.__getitem__, reverse=highest)[keep:]:
                rolled[i].fate = DROPPED
                total -= values[i]
        if hit is not None:
            total = 0
            for die in rolled:
                if die.fate == KEPT:
                    die.success = success = hit(die.value)
                    total += success
        part = new(DicePart)
        part.node = node
        part.rolled = rolled
        part.total = total
        return part

    return step


def _dynamic_step(node: Dice) -> _Step:
    """``NdX`` with rerolls and/or explosions: rolled die by die, in table order."""
    n, faces = node.count, node.faces
    max_rerolls = rerolls_allowed(node)  # 0 when no face can be rerolled
    rerolls = _predicate(node.reroll) if node.reroll is not None and max_rerolls else None
    max_explosions = explosions_allowed(node)  # 0 when no face can explode
    explodes = _predicate(node.explode) if node.explode is not None and max_explosions else None
    compound = node.compound
    keep = node.keep
    hit = _predicate(node.success) if node.success is not None else None

    def step(roll: _Roll, many: _Many | None) -> Part:
        out: list[Die] = []
        append = out.append
        for _ in range(n):
            chain: list[int] = []
            explosions = 0
            value = roll(faces)
            while True:
                if rerolls is not None:
                    left = max_rerolls  # a roll that still matches after these stands
                    while left and rerolls(value):
                        gone = Die(value, faces)
                        gone.fate = REROLLED
                        append(gone)
                        value = roll(faces)
                        left -= 1
                if compound:
                    chain.append(value)
                else:
                    append(Die(value, faces))
                if explodes is None or explosions >= max_explosions or not explodes(value):
                    break
                explosions += 1
                if not compound:
                    out[-1].exploded = True
                value = roll(faces)
            if compound:
                die = Die(sum(chain), faces)
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
        return DicePart(node, out, total)

    return step


def _value(die: Die) -> int:
    return die.value


def _binary_step(node: BinOp, batches: list[bool]) -> _Step:
    op = node.op
    left = _compile(node.left, batches)
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
    right = _compile(node.right, batches)
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
    if op == "*":

        def mul(roll: _Roll, many: _Many | None) -> Part:
            a = left(roll, many)
            b = right(roll, many)
            return BinPart("*", a, b, a.total * b.total)

        return mul
    up = op == "/^"

    def div(roll: _Roll, many: _Many | None) -> Part:
        a = left(roll, many)
        b = right(roll, many)
        return BinPart(op, a, b, _divide(a.total, b.total, up))

    return div


def _compile(node: Node, batches: list[bool]) -> _Step:
    """The step that rolls ``node``; ``batches`` learns whether any pool is batched."""
    if isinstance(node, BinOp):
        return _binary_step(node, batches)
    if isinstance(node, Dice):
        if node.reroll is not None or node.explode is not None:
            return _dynamic_step(node)  # rolled die by die: never batched
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
        operand = _compile(node.operand, batches)

        def neg(roll: _Roll, many: _Many | None) -> Part:
            return NegPart(operand(roll, many))

        return neg
    inner = _compile(node.inner, batches)

    def group(roll: _Roll, many: _Many | None) -> Part:
        return GroupPart(inner(roll, many))

    return group


def _compile_plan(node: Node) -> _Plan:
    """Compile ``node``, refusing it first if its dice could exceed ``limits.MAX_ROLLS``."""
    check_rolls(node)
    batches = [False]
    step = _compile(node, batches)
    return _Plan(node, step, batches[0])


def _plan(node: Node) -> _Plan:
    """The plan for a tree, compiled on first use."""
    plan = _BY_NODE.get(id(node))
    if plan is None or plan.node is not node:
        plan = _compile_plan(node)
        if len(_BY_NODE) >= _PLAN_CACHE_SIZE:
            _BY_NODE.clear()
        _BY_NODE[id(node)] = plan
    return plan


def _plan_text(text: str) -> _Plan:
    """The plan for a text, parsed and compiled on first use."""
    plan = _compile_plan(parse_uncached(text))
    if len(_BY_TEXT) >= _PLAN_CACHE_SIZE:
        _BY_TEXT.clear()
    _BY_TEXT[text] = plan
    return plan


def clear_plans() -> None:
    """Forget every compiled plan (for measuring first rolls; never needed otherwise)."""
    _BY_TEXT.clear()
    _BY_NODE.clear()


def roll(expression: str | Node, source: DiceSource) -> RollResult:
    """Roll ``expression`` (text or a parsed tree) with dice from ``source``.

    A source with a ``roll_many(n, faces)`` method (see :class:`DiceSource`) rolls plain
    pools in one call; otherwise each die is one ``roll``.
    """
    if isinstance(expression, str):
        plan = _BY_TEXT.get(expression) or _plan_text(expression)
    else:
        plan = _plan(expression)
    tree = plan.step(source.roll, getattr(source, "roll_many", None) if plan.batches else None)
    result = _new(RollResult)
    result.expression = plan.node
    result.tree = tree
    result.total = tree.total
    return result
