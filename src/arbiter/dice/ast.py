"""The parsed form of a dice expression: small immutable nodes whose ``str`` is canonical.

``str(parse(text))`` is the canonical (Arbiter) spelling, and parsing it again gives an
equal tree, whatever dialect the text was read in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

CompareOp = Literal["=", ">", ">=", "<", "<=", "even", "odd"]
"""The last two match even and odd faces (a success point only: ``6d6even``)."""
KeepKind = Literal["kh", "kl", "dh", "dl"]
BinaryOp = Literal["+", "-", "*", "/", "/^", "%"]
RelationOp = Literal["=", "<>", ">", ">=", "<", "<="]
FuncName = Literal["floor", "ceil", "round", "trunc", "abs", "rem"]
DieKind = Literal["", "F", "T"]
"""``""`` a die of ``faces`` faces numbered from 1 (``d%`` included), ``F`` a Fudge die
(−1, 0, +1, rolled as a d3), ``T`` a tens die (0, 10, …, 90, rolled as a d10)."""
SortOrder = Literal["", "a", "d"]

ROUNDING: frozenset[str] = frozenset(["floor", "ceil", "round", "trunc"])
"""Functions whose argument is worked out exactly (``/`` divides exactly inside them) and
rounded once."""


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
        if op == "<=":
            return face <= v
        return face % 2 == (0 if op == "even" else 1)

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
        if op == "<=":
            return min(max(v, 0), faces)
        return faces // 2 if op == "even" else (faces + 1) // 2

    def __str__(self) -> str:
        return self.op if self.op in ("even", "odd") else f"{self.op}{self.value}"

    def short(self) -> str:
        """Spelling after ``r``/``ro``/``!``/``f``/``cs``/``cf``, where a bare number means
        equality (a negative one keeps its ``=``: ``!-1`` would read as minus one)."""
        return str(self.value) if self.op == "=" and self.value >= 0 else str(self)


@dataclass(frozen=True, slots=True)
class Points:
    """Several reroll points on one die (Roll20's ``1d10r1r3``): a face matches when it
    matches any of them."""

    points: tuple[Compare, ...]

    def matches(self, face: int) -> bool:
        return any(p.matches(face) for p in self.points)

    def faces_matching(self, faces: int) -> list[int]:
        return [f for f in range(1, faces + 1) if self.matches(f)]

    def matches_every_face(self, faces: int) -> bool:
        return self.count_matching(faces) == faces

    def count_matching(self, faces: int) -> int:
        """How many faces of a d``faces`` match: each point matches a run of faces, so the
        union of the runs is counted without listing the faces."""
        runs = sorted(_run(p, faces) for p in self.points)
        count, end = 0, 0
        for lo, hi in runs:
            lo = max(lo, end + 1)
            if hi >= lo:
                count += hi - lo + 1
                end = hi
        return count

    def short(self) -> str:
        return " or ".join(p.short() for p in self.points)

    def __str__(self) -> str:
        return " or ".join(map(str, self.points))


def _run(point: Compare, faces: int) -> tuple[int, int]:
    """The faces ``lo..hi`` of a d``faces`` that ``point`` matches (``hi < lo``: none)."""
    op, v = point.op, point.value
    if op == "=":
        return (v, v) if 1 <= v <= faces else (1, 0)
    if op in (">", ">="):
        return max(v + (op == ">"), 1), faces
    if op in ("<", "<="):
        return 1, min(v - (op == "<"), faces)
    raise ValueError(f"{point} is no reroll point")


Point = Compare | Points
"""A reroll point: one comparison, or several (any of them matches)."""


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
class Select:
    """Keep (``k>3``) or drop (``d=1``) every die whose value matches ``point``."""

    keep: bool
    point: Compare

    def kept(self, value: int) -> bool:
        return self.point.matches(value) == self.keep

    def __str__(self) -> str:
        return f"{'k' if self.keep else 'd'}{self.point}"


@dataclass(frozen=True, slots=True)
class Num:
    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class Dice:
    """``NdX`` with its modifiers, applied in this order whatever order they are written
    in: reroll, explode, minimum/maximum, keep/drop (or select), count successes and
    failures; critical marks and sorting change no total.

    A failure point (``failure``) after a success count makes each failure count -1
    (``>=5f1``); with no success count each die counts its value and each failure -1
    instead (``df1``); with ``subtract`` a failure counts minus its value in either case
    (``sf1``, ``>=5sf1``). A die both a success and a failure counts as a success.

    ``compound`` (``!!``) adds an explosion's rolls to the die that exploded; ``penetrate``
    (``!p``) adds them as dice one lower than they show; ``explode_once`` (``!o``) lets a
    die explode once; plain ``!`` adds them to the pool as separate dice.
    """

    count: int
    faces: int
    percentile: bool = False
    reroll: Point | None = None
    reroll_once: bool = False
    explode: Compare | None = None
    compound: bool = False
    keep: Keep | None = None
    success: Compare | None = None
    kind: DieKind = ""
    penetrate: bool = False
    explode_once: bool = False
    minimum: int | None = None
    maximum: int | None = None
    select: Select | None = None
    failure: Compare | None = None
    crit_success: Compare | None = None
    crit_failure: Compare | None = None
    sort: SortOrder = ""
    subtract: bool = False
    """A failure counts minus its value (``sf``) rather than -1."""

    # -- faces ------------------------------------------------------------------------
    def face_values(self) -> list[int]:
        """What each physical face shows, face 1 first."""
        if self.kind == "F":
            return [-1, 0, 1]
        if self.kind == "T":
            return list(range(0, 100, 10))
        return list(range(1, self.faces + 1))

    @property
    def lowest(self) -> int:
        return -1 if self.kind == "F" else 0 if self.kind == "T" else 1

    @property
    def highest(self) -> int:
        return 1 if self.kind == "F" else 90 if self.kind == "T" else self.faces

    def count_matching(self, point: Point) -> int:
        """How many faces match ``point`` (by formula for the usual dice)."""
        if self.kind:
            return sum(1 for v in self.face_values() if point.matches(v))
        return point.count_matching(self.faces)

    def matches_every_face(self, point: Point) -> bool:
        return point.matches(self.lowest) and point.matches(self.highest)

    @property
    def explode_mark(self) -> str:
        if self.compound:
            return "!!"
        if self.penetrate:
            return "!p"
        if self.explode_once:
            return "!o"
        return "!"

    @property
    def separate(self) -> bool:
        """Whether an explosion adds separate dice to the pool (``!``, ``!p``, ``!o``)."""
        return self.explode is not None and not self.compound

    @property
    def plain(self) -> bool:
        """No modifier beyond keep/drop and a success count, on a usual die."""
        return (
            self.reroll is None
            and self.explode is None
            and not self.kind
            and self.minimum is None
            and self.maximum is None
            and self.select is None
            and self.failure is None
            and self.crit_success is None
            and self.crit_failure is None
            and not self.sort
        )

    def clamp(self, value: int) -> int:
        if self.minimum is not None and value < self.minimum:
            value = self.minimum
        if self.maximum is not None and value > self.maximum:
            value = self.maximum
        return value

    def __str__(self) -> str:
        size = "%" if self.percentile else self.kind or str(self.faces)
        parts = [f"{self.count}d{size}"]
        if self.reroll is not None:
            mark = "ro" if self.reroll_once else "r"
            reroll = self.reroll
            points = reroll.points if isinstance(reroll, Points) else (reroll,)
            parts.extend(mark + p.short() for p in points)
        if self.explode is not None:
            mark = self.explode_mark
            is_max = self.explode.op == "=" and self.explode.value == self.highest
            # a bare mark is only unambiguous when no comparison follows it
            follows = (
                self.minimum is None
                and self.maximum is None
                and self.keep is None
                and self.select is None
                and self.success is not None
            )
            parts.append(mark if is_max and not follows else mark + self.explode.short())
        if self.minimum is not None:
            parts.append(f"min{self.minimum}")
        if self.maximum is not None:
            parts.append(f"max{self.maximum}")
        if self.keep is not None:
            parts.append(str(self.keep))
        if self.select is not None:
            parts.append(str(self.select))
        if self.success is not None:
            parts.append(str(self.success))
        if self.failure is not None:
            how = "sf" if self.subtract else "f" if self.success is not None else "df"
            parts.append(how + self.failure.short())
        if self.crit_success is not None:
            parts.append("cs" + self.crit_success.short())
        if self.crit_failure is not None:
            parts.append("cf" + self.crit_failure.short())
        if self.sort:
            parts.append("s" if self.sort == "a" else "sd")
        return "".join(parts)


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Node

    def __str__(self) -> str:
        return f"-{self.operand}"


@dataclass(frozen=True, slots=True)
class Group:
    """Parentheses: ``(inner)``."""

    inner: Node

    def __str__(self) -> str:
        return f"({self.inner})"


@dataclass(frozen=True, slots=True)
class BinOp:
    """``left op right``. ``/`` rounds down and ``/^`` up, except that inside a rounding
    function (``floor``, ``ceil``, ``round``, ``trunc``) ``/`` divides exactly; ``%`` is
    the remainder with the sign of the divisor (``left - right * floor(left / right)``)."""

    op: BinaryOp
    left: Node
    right: Node

    def __str__(self) -> str:
        return f"{self.left}{self.op}{self.right}"


@dataclass(frozen=True, slots=True)
class Comparison:
    """``left op right`` between totals: 1 if it holds, else 0. The parser wraps a left
    side whose spelling would end in a dice term in parentheses (``(3d6)>=10``), since
    ``3d6>=10`` counts dice."""

    op: RelationOp
    left: Node
    right: Node

    def __str__(self) -> str:
        return f"{self.left}{self.op}{self.right}"


@dataclass(frozen=True, slots=True)
class Func:
    """``floor(x)``, ``ceil(x)``, ``round(x)`` (halves up), ``trunc(x)`` (toward zero),
    ``abs(x)``, and ``rem(a, b)``: the remainder with the sign of ``a``."""

    name: FuncName
    args: tuple[Node, ...]

    def __str__(self) -> str:
        return f"{self.name}({','.join(map(str, self.args))})"


@dataclass(frozen=True, slots=True)
class RollGroup:
    """``{a, b, ...}`` with modifiers on its members' totals, or, written with one member
    and no trailing comma (``dice_level``), on the dice of that member: ``{4d6+3d8}kh4``
    keeps the highest four of the seven dice."""

    members: tuple[Node, ...]
    dice_level: bool = False
    keep: Keep | None = None
    success: Compare | None = None
    failure: Compare | None = None

    def __str__(self) -> str:
        inner = ",".join(map(str, self.members))
        if len(self.members) == 1 and not self.dice_level:
            inner += ","
        parts = ["{", inner, "}"]
        if self.keep is not None:
            parts.append(str(self.keep))
        if self.success is not None:
            parts.append(str(self.success))
        if self.failure is not None:
            parts.append("f" + self.failure.short())
        return "".join(parts)


@dataclass(frozen=True, slots=True)
class Label:
    """A term with a label: ``2d6[fire]``. Labels change nothing but the display."""

    inner: Node
    text: str

    def __str__(self) -> str:
        return f"{self.inner}[{self.text}]"


@dataclass(frozen=True, slots=True)
class Comment:
    """An expression with a trailing comment: ``1d20+5 # initiative`` (only at the root)."""

    inner: Node
    text: str

    def __str__(self) -> str:
        return f"{self.inner} # {self.text}" if self.text else f"{self.inner} #"


Node = Num | Dice | Neg | Group | BinOp | Comparison | Func | RollGroup | Label | Comment

# The classes that ``isinstance`` tests together, as tuples made once: ``A | B`` in a call
# builds a union object each time, three times the cost of the test itself.
WRAPPERS: Final = (Group, Label, Comment)
"""Nodes that wrap one expression and leave its value as it is."""
LEAVES: Final = (Num, Dice)
PAIRS: Final = (BinOp, Comparison)
"""Nodes with a left and a right operand."""


def children(node: Node) -> tuple[Node, ...]:
    """The operands of a node, left to right."""
    if isinstance(node, LEAVES):
        return ()
    if isinstance(node, Neg):
        return (node.operand,)
    if isinstance(node, WRAPPERS):
        return (node.inner,)
    if isinstance(node, PAIRS):
        return (node.left, node.right)
    if isinstance(node, Func):
        return node.args
    return node.members


def dice_terms(node: Node) -> list[Dice]:
    """Every ``NdX`` term of an expression, left to right."""
    if isinstance(node, Dice):
        return [node]
    out: list[Dice] = []
    for child in children(node):
        out.extend(dice_terms(child))
    return out


def absorbs_comparison(node: Node) -> bool:
    """Whether the spelling of ``node`` ends with a dice term or a group's braces, so that
    a comparison written right after it would read as a success count."""
    while True:
        if isinstance(node, Dice | RollGroup):
            return True
        if isinstance(node, Neg):
            node = node.operand
        elif isinstance(node, PAIRS):
            node = node.right
        else:
            return False


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
_PointsDraft = _draft(Points)
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


def new_points(points: tuple[Compare, ...]) -> Points:
    """``Points(points)``, made faster."""
    draft = _PointsDraft()
    draft.points = points
    draft.__class__ = Points
    node: Points = draft
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
    reroll: Point | None = None,
    reroll_once: bool = False,
    explode: Compare | None = None,
    compound: bool = False,
    keep: Keep | None = None,
    success: Compare | None = None,
    kind: DieKind = "",
    penetrate: bool = False,
    explode_once: bool = False,
    minimum: int | None = None,
    maximum: int | None = None,
    select: Select | None = None,
    failure: Compare | None = None,
    crit_success: Compare | None = None,
    crit_failure: Compare | None = None,
    sort: SortOrder = "",
    subtract: bool = False,
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
    draft.kind = kind
    draft.penetrate = penetrate
    draft.explode_once = explode_once
    draft.minimum = minimum
    draft.maximum = maximum
    draft.select = select
    draft.failure = failure
    draft.crit_success = crit_success
    draft.crit_failure = crit_failure
    draft.sort = sort
    draft.subtract = subtract
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
