"""Hypothesis strategies for random dice expression trees, shared by the dice tests.

:func:`dice_nodes` draws the classic modifiers only (reroll, explode, compound, keep,
success), as the older tests expect; :func:`any_dice` draws every modifier and kind of
die; :func:`any_expressions` every kind of node, always in a shape the parser gives back
(``parse(str(node)) == node``).
"""

from __future__ import annotations

from hypothesis import strategies as st

from arbiter.dice.ast import (
    BinOp,
    Comment,
    Compare,
    Comparison,
    Dice,
    Func,
    Group,
    Keep,
    Label,
    Neg,
    Node,
    Num,
    Points,
    RollGroup,
    Select,
    absorbs_comparison,
)
from arbiter.dice.bounds import explosions_allowed
from arbiter.dice.errors import DiceLimitError


def compares(largest: int, smallest: int = 0) -> st.SearchStrategy[Compare]:
    return st.builds(Compare, st.sampled_from(["=", ">", ">=", "<", "<="]),
                     st.integers(smallest, largest))


@st.composite
def dice_nodes(draw: st.DrawFn, faces: int, count: int, keep: int,
               percentile: bool = False) -> Dice:
    """An ``NdX`` term with random modifiers, never one whose reroll or explosion matches
    every face (the parser refuses those)."""
    hundred = draw(st.booleans()) if percentile else False
    sides = 100 if hundred else draw(st.integers(1, faces))
    compare = compares(faces)
    reroll = draw(st.none() | compare)
    if reroll is not None and len(reroll.faces_matching(sides)) == sides:
        reroll = None
    explode = draw(st.none() | compare)
    if explode is not None and len(explode.faces_matching(sides)) == sides:
        explode = None
    kept = draw(st.none() | st.builds(Keep, st.sampled_from(["kh", "kl", "dh", "dl"]),
                                      st.integers(0, keep)))
    node = Dice(
        draw(st.integers(0, count)),
        sides,
        hundred,
        reroll,
        draw(st.booleans()) if reroll else False,
        explode,
        draw(st.booleans()) if explode else False,
        kept,
        draw(st.none() | compare),
    )
    return _bounded(node)


def _bounded(node: Dice) -> Dice:
    """``node``, or the same die without its explosion if that would need more explosions
    than any die may have (the parser refuses those)."""
    try:
        explosions_allowed(node)
    except DiceLimitError:
        return Dice(node.count, node.faces, node.percentile, node.reroll, node.reroll_once,
                    keep=node.keep, success=node.success, kind=node.kind,
                    minimum=node.minimum, maximum=node.maximum, select=node.select,
                    failure=node.failure, crit_success=node.crit_success,
                    crit_failure=node.crit_failure, sort=node.sort, subtract=node.subtract)
    return node


@st.composite
def any_dice(draw: st.DrawFn, faces: int = 8, count: int = 3, keep: int = 3,
             percentile: bool = True) -> Dice:
    """A term with any modifiers: every kind of die, several reroll points, every
    explosion, minimum and maximum, keep or select, successes (even and odd too) and
    failures (with or without successes, counting -1 or minus their value), critical
    marks and sorting."""
    kind = draw(st.sampled_from(["", "", "", "F", "T", "%"] if percentile else
                                ["", "", "", "F", "T"]))
    if kind == "F":
        sides, low, high = 3, -1, 1
    elif kind == "T":
        sides, low, high = 10, 0, 90
    elif kind == "%":
        sides, low, high = 100, 1, 100
    else:
        sides = draw(st.integers(1, faces))
        low, high = 1, sides
    point = compares(high + 1, low - 1)

    def fits(p: Compare | None) -> Compare | None:
        if p is not None and p.matches(low) and p.matches(high):
            return None  # matches every face: the parser refuses it
        return p

    reroll: Compare | Points | None = fits(draw(st.none() | point))
    if isinstance(reroll, Compare) and draw(st.booleans()):  # several points: any of them
        several = Points((reroll, draw(point)))
        values = [-1, 0, 1] if kind == "F" else range(0, 100, 10) if kind == "T" else \
            range(1, sides + 1)
        if not all(several.matches(v) for v in values):
            reroll = several
    mark = draw(st.sampled_from(["!", "!!", "!p", "!o"]))
    explode = draw(st.none() | point)
    if mark != "!o":
        explode = fits(explode)
    selecting = draw(st.booleans())
    success = draw(st.none() | point | st.builds(Compare, st.sampled_from(["even", "odd"]),
                                                   st.just(0)))
    failure = draw(st.none() | point)
    minimum = draw(st.none() | st.integers(low - 1, high + 1))
    maximum = draw(st.none() | st.integers(low - 1, high + 1))
    node = Dice(
        draw(st.integers(0, count)),
        sides,
        kind == "%",
        reroll,
        draw(st.booleans()) if reroll else False,
        explode,
        mark == "!!" if explode else False,
        None if selecting else draw(st.none() | st.builds(
            Keep, st.sampled_from(["kh", "kl", "dh", "dl"]), st.integers(0, keep))),
        success,
        kind=kind if kind in ("F", "T") else "",  # type: ignore[arg-type]
        penetrate=mark == "!p" if explode else False,
        explode_once=mark == "!o" if explode else False,
        minimum=minimum,
        maximum=maximum,
        select=draw(st.none() | st.builds(Select, st.booleans(), point)) if selecting else None,
        failure=failure,
        crit_success=draw(st.none() | point),
        crit_failure=draw(st.none() | point),
        sort=draw(st.sampled_from(["", "a", "d"])),
        subtract=draw(st.booleans()) if failure is not None else False,
    )
    return _bounded(node)


def plain_terms(node: Dice) -> Dice:
    """The die without the modifiers a group that keeps or counts dice gives its terms."""
    return Dice(node.count, node.faces, node.percentile, node.reroll, node.reroll_once,
                node.explode, node.compound, kind=node.kind, penetrate=node.penetrate,
                explode_once=node.explode_once, minimum=node.minimum, maximum=node.maximum,
                crit_success=node.crit_success, crit_failure=node.crit_failure,
                sort=node.sort)


@st.composite
def groups(draw: st.DrawFn, inner: st.SearchStrategy[Node],
           terms: st.SearchStrategy[Dice]) -> RollGroup:
    """``{a, b, ...}`` with modifiers, or ``{3d6+2d8}`` keeping or counting dice."""
    keep = draw(st.none() | st.builds(Keep, st.sampled_from(["kh", "kl", "dh", "dl"]),
                                      st.integers(0, 3)))
    success = draw(st.none() | compares(12, -2))
    failure = draw(st.none() | compares(12, -2)) if success is not None else None
    if draw(st.booleans()):
        dice = [plain_terms(t) for t in draw(st.lists(terms, min_size=1, max_size=3))]
        member: Node = dice[0]
        for t in dice[1:]:
            member = BinOp("+", member, t)
        return RollGroup((member,), True, keep, success, failure)
    members = tuple(draw(st.lists(inner, min_size=1, max_size=3)))
    return RollGroup(members, False, keep, success, failure)


def comparison(op: str, left: Node, right: Node) -> Comparison:
    """A comparison as the parser builds it: a left side that would read as counting dice
    in parentheses, a right side that is itself a comparison too."""
    if isinstance(left, Comparison) or (op != "<>" and absorbs_comparison(left)):
        left = Group(left)
    if isinstance(right, Comparison):
        right = Group(right)
    return Comparison(op, left, right)  # type: ignore[arg-type]


def _labelled(node: Node, text: str) -> Node:
    if isinstance(node, Num | Dice | Group | Func | RollGroup):
        return Label(node, text)
    return Label(Group(node), text)


def _negated(node: Node) -> Node:
    return Neg(node if isinstance(node, Num | Dice | Group | Func | RollGroup | Label | Neg)
               else Group(node))


def _binop(op: str, left: Node, right: Node) -> Node:
    if isinstance(left, Comparison):
        left = Group(left)
    if not isinstance(right, Num | Dice | Group | Func | RollGroup | Label):
        right = Group(right)
    if op in ("*", "/", "/^", "%") and isinstance(left, BinOp) and left.op in ("+", "-"):
        left = Group(left)
    return BinOp(op, left, right)  # type: ignore[arg-type]


def expressions(leaves: st.SearchStrategy[Node], group_right: bool) -> st.SearchStrategy[Node]:
    """Trees of numbers and dice under groups, negation and the binary operators;
    ``group_right`` wraps every right operand in parentheses (as the parser would need)."""
    return st.recursive(
        leaves,
        lambda inner: st.builds(Group, inner)
        | st.builds(Neg, inner)
        | st.builds(BinOp, st.sampled_from(["+", "-", "*", "/", "/^"]), inner,
                    inner.map(Group) if group_right else inner),
        max_leaves=8,
    )


def any_expressions(terms: st.SearchStrategy[Dice] | None = None,
                    max_leaves: int = 6) -> st.SearchStrategy[Node]:
    """Trees over every kind of node, each in the shape the parser reads back from its
    canonical spelling."""
    dice = terms if terms is not None else any_dice()
    leaves: st.SearchStrategy[Node] = st.builds(Num, st.integers(0, 12)) | dice
    labels = st.text(alphabet="abcdefghijklmnopqrstuvwxyz éü#", min_size=1, max_size=8)

    def extend(inner: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
        return (
            st.builds(Group, inner)
            | st.builds(_negated, inner)
            | st.builds(_binop, st.sampled_from(["+", "-", "*", "/", "/^", "%"]), inner, inner)
            | st.builds(comparison, st.sampled_from(["=", "<>", ">", ">=", "<", "<="]),
                        inner, inner)
            | st.builds(lambda name, x: Func(name, (x,)),
                        st.sampled_from(["floor", "ceil", "round", "trunc", "abs"]), inner)
            | st.builds(lambda a, b: Func("rem", (a, b)), inner, inner)
            | groups(inner, dice)
            | st.builds(_labelled, inner, labels)
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def commented(nodes: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    """Some of ``nodes`` with a trailing comment."""
    return nodes | st.builds(Comment, nodes,
                             st.text(alphabet="abc xyz#[]!?ñ", max_size=10).map(str.strip))
