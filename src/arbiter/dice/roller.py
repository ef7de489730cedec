"""Rolling an expression: a result tree that keeps every die and its fate."""

from __future__ import annotations

from typing import Any

from . import limits
from .ast import BinOp, Dice, Neg, Node, Num
from .errors import DiceEvalError, DiceLimitError
from .parser import parse
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


class _Budget:
    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = limits.MAX_ROLLS

    def spend(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise DiceLimitError(
                f"the expression rolled more than {limits.MAX_ROLLS:,} dice "
                "(rerolls and explosions included)"
            )


def _roll_one(node: Dice, source: DiceSource, budget: _Budget, out: list[Die]) -> None:
    """Roll one die of ``node`` with its rerolls and explosions, appending to ``out``."""
    faces = node.faces
    roll = source.roll
    reroll = node.reroll
    explode = node.explode
    chain: list[int] = []
    explosions = 0
    while True:
        budget.spend(1)
        value = roll(faces)
        if reroll is not None and reroll.matches(value):
            while True:
                gone = Die(value, faces)
                gone.fate = REROLLED
                out.append(gone)
                budget.spend(1)
                value = roll(faces)
                if node.reroll_once or not reroll.matches(value):
                    break
        if node.compound:
            chain.append(value)
        else:
            out.append(Die(value, faces))
        if explode is None or explosions >= limits.MAX_EXPLOSIONS or not explode.matches(value):
            break
        explosions += 1
        if not node.compound:
            out[-1].exploded = True
    if node.compound:
        die = Die(sum(chain), faces)
        if len(chain) > 1:
            die.exploded = True
            die.parts = tuple(chain)
        out.append(die)


def _roll_dice(node: Dice, source: DiceSource, budget: _Budget) -> DicePart:
    faces = node.faces
    if (
        node.reroll is None
        and node.explode is None
        and node.keep is None
        and node.success is None
    ):
        budget.spend(node.count)
        roll = source.roll
        values = [roll(faces) for _ in range(node.count)]
        return DicePart(node, [Die(v, faces) for v in values], sum(values))
    out: list[Die] = []
    for _ in range(node.count):
        _roll_one(node, source, budget, out)
    live = [d for d in out if d.fate == KEPT]
    if node.keep is not None:
        highest, keep = node.keep.kept_highest(len(live))
        order = sorted(live, key=lambda d: d.value, reverse=highest)
        for die in order[keep:]:
            die.fate = DROPPED
    success = node.success
    if success is not None:
        total = 0
        for die in out:
            if die.fate == KEPT:
                die.success = success.matches(die.value)
                total += die.success
    else:
        total = sum(d.value for d in out if d.fate == KEPT)
    return DicePart(node, out, total)


def _divide(a: int, b: int, up: bool) -> int:
    if b == 0:
        raise DiceEvalError("division by zero")
    return -((-a) // b) if up else a // b


def _eval(node: Node, source: DiceSource, budget: _Budget) -> Part:
    if isinstance(node, Dice):
        return _roll_dice(node, source, budget)
    if isinstance(node, Num):
        return NumPart(node.value)
    if isinstance(node, BinOp):
        left = _eval(node.left, source, budget)
        right = _eval(node.right, source, budget)
        op = node.op
        a, b = left.total, right.total
        if op == "+":
            total = a + b
        elif op == "-":
            total = a - b
        elif op == "*":
            total = a * b
        else:
            total = _divide(a, b, up=op == "/^")
        return BinPart(op, left, right, total)
    if isinstance(node, Neg):
        return NegPart(_eval(node.operand, source, budget))
    return GroupPart(_eval(node.inner, source, budget))


def roll(expression: str | Node, source: DiceSource) -> RollResult:
    """Roll ``expression`` (text or a parsed tree) with dice from ``source``."""
    node = parse(expression) if isinstance(expression, str) else expression
    return RollResult(node, _eval(node, source, _Budget()))
