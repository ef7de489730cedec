"""Hypothesis strategies for random dice expression trees, shared by the dice tests."""

from __future__ import annotations

from hypothesis import strategies as st

from arbiter.dice.ast import BinOp, Compare, Dice, Group, Keep, Neg, Node


def compares(largest: int) -> st.SearchStrategy[Compare]:
    return st.builds(Compare, st.sampled_from(["=", ">", ">=", "<", "<="]),
                     st.integers(0, largest))


@st.composite
def dice_nodes(draw: st.DrawFn, faces: int, count: int, keep: int,
               percentile: bool = False) -> Dice:
    """An ``NdX`` term with random modifiers, never one whose reroll or explosion matches
    every face (the parser refuses those)."""
    sides = draw(st.integers(1, faces))
    compare = compares(faces)
    reroll = draw(st.none() | compare)
    if reroll is not None and len(reroll.faces_matching(sides)) == sides:
        reroll = None
    explode = draw(st.none() | compare)
    if explode is not None and len(explode.faces_matching(sides)) == sides:
        explode = None
    kept = draw(st.none() | st.builds(Keep, st.sampled_from(["kh", "kl", "dh", "dl"]),
                                      st.integers(0, keep)))
    return Dice(
        draw(st.integers(0, count)),
        sides,
        draw(st.booleans()) if percentile else False,
        reroll,
        draw(st.booleans()) if reroll else False,
        explode,
        draw(st.booleans()) if explode else False,
        kept,
        draw(st.none() | compare),
    )


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
