"""The parsed form of a dice expression: small immutable nodes whose ``str`` is canonical.

``str(parse(text))`` is the canonical spelling, and parsing it again gives an equal tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

CompareOp = Literal["=", ">", ">=", "<", "<="]
KeepKind = Literal["kh", "kl", "dh", "dl"]
BinaryOp = Literal["+", "-", "*", "/", "/^"]


@dataclass(frozen=True, slots=True)
class Compare:
    """A compare point such as ``>=7``: which die faces a modifier applies to."""

    op: CompareOp
    value: int

    def matches(self, face: int) -> bool:
        op, v = self.op, self.value
        if op == "=":
            return face == v
        if op == ">":
            return face > v
        if op == ">=":
            return face >= v
        if op == "<":
            return face < v
        return face <= v

    def faces_matching(self, faces: int) -> list[int]:
        return [f for f in range(1, faces + 1) if self.matches(f)]

    def matches_every_face(self, faces: int) -> bool:
        """Whether every face of a d``faces`` matches (each comparison matches a run of
        faces from one end, so the two ends tell)."""
        return self.matches(1) and self.matches(faces)

    def count_matching(self, faces: int) -> int:
        """How many faces of a d``faces`` match, worked out without listing them."""
        op, v = self.op, self.value
        if op == "=":
            return int(1 <= v <= faces)
        if op == ">":
            return min(max(faces - v, 0), faces)
        if op == ">=":
            return min(max(faces - v + 1, 0), faces)
        if op == "<":
            return min(max(v - 1, 0), faces)
        return min(max(v, 0), faces)

    def __str__(self) -> str:
        return f"{self.op}{self.value}"

    def short(self) -> str:
        """Spelling after ``r``/``ro``/``!``, where a bare number means equality."""
        return str(self.value) if self.op == "=" else str(self)


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep or drop the highest or lowest ``count`` dice."""

    kind: KeepKind
    count: int

    def kept_highest(self, pool: int) -> tuple[bool, int]:
        """As (keep highest?, how many kept) for a pool of ``pool`` dice."""
        if self.kind == "kh":
            return True, min(self.count, pool)
        if self.kind == "kl":
            return False, min(self.count, pool)
        if self.kind == "dl":
            return True, max(pool - self.count, 0)
        return False, max(pool - self.count, 0)

    def __str__(self) -> str:
        return f"{self.kind}{self.count}"


@dataclass(frozen=True, slots=True)
class Num:
    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class Dice:
    """``NdX`` with its modifiers, applied in this order: reroll, explode, keep, count successes.

    ``compound`` (``!!``) adds an explosion's rolls to the die that exploded; plain ``!``
    adds them to the pool as separate dice.
    """

    count: int
    faces: int
    percentile: bool = False
    reroll: Compare | None = None
    reroll_once: bool = False
    explode: Compare | None = None
    compound: bool = False
    keep: Keep | None = None
    success: Compare | None = None

    def __str__(self) -> str:
        parts = [f"{self.count}d{'%' if self.percentile else self.faces}"]
        if self.reroll is not None:
            parts.append(("ro" if self.reroll_once else "r") + self.reroll.short())
        if self.explode is not None:
            mark = "!!" if self.compound else "!"
            is_max = self.explode.op == "=" and self.explode.value == self.faces
            # a bare mark is only unambiguous when no success count follows it
            parts.append(mark if is_max and self.success is None else mark + self.explode.short())
        if self.keep is not None:
            parts.append(str(self.keep))
        if self.success is not None:
            parts.append(str(self.success))
        return "".join(parts)


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Node

    def __str__(self) -> str:
        return f"-{self.operand}"


@dataclass(frozen=True, slots=True)
class Group:
    inner: Node

    def __str__(self) -> str:
        return f"({self.inner})"


@dataclass(frozen=True, slots=True)
class BinOp:
    op: BinaryOp
    left: Node
    right: Node

    def __str__(self) -> str:
        return f"{self.left}{self.op}{self.right}"


Node = Num | Dice | Neg | Group | BinOp


def dice_terms(node: Node) -> list[Dice]:
    """Every ``NdX`` term of an expression, left to right."""
    if isinstance(node, Dice):
        return [node]
    if isinstance(node, Num):
        return []
    if isinstance(node, Neg):
        return dice_terms(node.operand)
    if isinstance(node, Group):
        return dice_terms(node.inner)
    return dice_terms(node.left) + dice_terms(node.right)


# -- fast construction, for the parser ------------------------------------------------------
#
# A frozen dataclass sets each field through ``object.__setattr__``, which costs about a
# microsecond for a ``Dice``. The parser instead fills a mutable draft class that has the
# same slots, then gives the object its real class. CPython allows that ``__class__``
# assignment only between classes of identical layout (and raises otherwise), so the node
# is exactly what the constructor makes: same type, fields, equality, hash and repr.


def _draft(cls: type) -> Any:
    """A mutable class with the slots of the frozen dataclass ``cls``."""
    return type(f"_{cls.__name__}Draft", (), {"__slots__": cls.__dict__["__slots__"]})


_CompareDraft = _draft(Compare)
_KeepDraft = _draft(Keep)
_NumDraft = _draft(Num)
_DiceDraft = _draft(Dice)
_NegDraft = _draft(Neg)
_GroupDraft = _draft(Group)
_BinOpDraft = _draft(BinOp)


def new_compare(op: CompareOp, value: int) -> Compare:
    """``Compare(op, value)``, made faster."""
    draft = _CompareDraft()
    draft.op = op
    draft.value = value
    draft.__class__ = Compare
    node: Compare = draft
    return node


def new_keep(kind: KeepKind, count: int) -> Keep:
    """``Keep(kind, count)``, made faster."""
    draft = _KeepDraft()
    draft.kind = kind
    draft.count = count
    draft.__class__ = Keep
    node: Keep = draft
    return node


def new_num(value: int) -> Num:
    """``Num(value)``, made faster."""
    draft = _NumDraft()
    draft.value = value
    draft.__class__ = Num
    node: Num = draft
    return node


def new_dice(
    count: int,
    faces: int,
    percentile: bool = False,
    reroll: Compare | None = None,
    reroll_once: bool = False,
    explode: Compare | None = None,
    compound: bool = False,
    keep: Keep | None = None,
    success: Compare | None = None,
) -> Dice:
    """``Dice(...)`` with the same arguments, made faster."""
    draft = _DiceDraft()
    draft.count = count
    draft.faces = faces
    draft.percentile = percentile
    draft.reroll = reroll
    draft.reroll_once = reroll_once
    draft.explode = explode
    draft.compound = compound
    draft.keep = keep
    draft.success = success
    draft.__class__ = Dice
    node: Dice = draft
    return node


def new_neg(operand: Node) -> Neg:
    """``Neg(operand)``, made faster."""
    draft = _NegDraft()
    draft.operand = operand
    draft.__class__ = Neg
    node: Neg = draft
    return node


def new_group(inner: Node) -> Group:
    """``Group(inner)``, made faster."""
    draft = _GroupDraft()
    draft.inner = inner
    draft.__class__ = Group
    node: Group = draft
    return node


def new_binop(op: BinaryOp, left: Node, right: Node) -> BinOp:
    """``BinOp(op, left, right)``, made faster."""
    draft = _BinOpDraft()
    draft.op = op
    draft.left = left
    draft.right = right
    draft.__class__ = BinOp
    node: BinOp = draft
    return node
