"""The fast paths give exactly what the straightforward ones do.

Rolling runs compiled plans, the parser reads plain sums with one regular expression, parsed
nodes are built without their constructors, sources roll pools in one call, and exact sums
of small pools use plain lists. Each is checked here against a simple reference: the
tree-walking roller that the plans replaced, the parser proper, the constructors, one
``roll`` at a time, and schoolbook arithmetic.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import pickle
import time
from collections import Counter
from fractions import Fraction
from typing import Any

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.dice import (
    DiceError,
    DiceLimitError,
    DiceSource,
    ForcedDice,
    ForcedDiceError,
    RecordingDice,
    SeededDice,
    distribution,
    limits,
    roll,
)
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
    RollGroup,
    Select,
    children,
    new_binop,
    new_compare,
    new_dice,
    new_group,
    new_keep,
    new_neg,
    new_num,
)
from arbiter.dice.bounds import check_rolls, explosions_allowed, rerolls_allowed
from arbiter.dice.dialects import ARBITER, FOUNDRY, ROLL20, Dialect
from arbiter.dice.errors import DiceEvalError
from arbiter.dice.exact import _keep, _power, _uniform_power
from arbiter.dice.parser import _Parser, _simple_sum, parse_uncached
from arbiter.dice.roller import (
    DROPPED,
    KEPT,
    REROLLED,
    BinPart,
    CommentPart,
    DicePart,
    Die,
    FuncPart,
    GroupPart,
    GroupRollPart,
    LabelPart,
    NegPart,
    NumPart,
    Part,
    RollResult,
    _compiled,
    _never_stopped,
    _new_plan,
    _Plan,
    _roll_plan,
)

from .strategies import any_dice, any_expressions, commented, dice_nodes, expressions

# -- the reference roller: a plain walk over the tree, as the roller used to be -------------
#
# Written from the rules in docs/dice.md, die by die with ``Die`` objects, sharing nothing
# with the plans but the bounds (``bounds.py`` is where the rule for how far rerolls and
# explosions go lives), the message of a source that never stops a reroll, and the result
# classes.


def _worst_case(node: Node) -> int:
    """The most dice rolling ``node`` can take: each die with every reroll and explosion
    its bounds allow (none when no face matches)."""
    if isinstance(node, Dice):
        faces = node.face_values()
        rerolls = explosions = 0
        if node.reroll is not None and any(node.reroll.matches(f) for f in faces):
            rerolls = rerolls_allowed(node)  # 1 for ro; until: the budget of bounds.py
        if node.explode is not None and any(node.explode.matches(f) for f in faces):
            explosions = explosions_allowed(node)
        return node.count * (1 + rerolls) * (1 + explosions)
    return sum(_worst_case(child) for child in children(node))


class _Budget:
    def __init__(self, node: Node) -> None:
        check_rolls(node)  # the limit and its message are the rule's
        self.left = _worst_case(node)

    def spend(self) -> None:
        self.left -= 1
        assert self.left >= 0, "a roll went past its worst case"


def _face(node: Dice, source: DiceSource, budget: _Budget) -> int:
    budget.spend()
    return node.face_values()[source.roll(node.faces) - 1]


def _reference_dice(node: Dice, source: DiceSource, budget: _Budget,
                    settle: bool = True) -> list[Die]:
    out: list[Die] = []
    bound = rerolls_allowed(node)  # 1 for ro; a reroll until goes on until it stops
    cap = explosions_allowed(node)
    for _ in range(node.count):
        chain: list[int] = []
        explosions = 0
        value = _face(node, source, budget)
        while True:
            rerolls = 0
            while node.reroll is not None and node.reroll.matches(value) and rerolls < bound:
                gone = Die(value, node.faces)
                gone.fate = REROLLED
                gone.kind = node.kind
                out.append(gone)
                value = _face(node, source, budget)
                rerolls += 1
            if node.reroll is not None and not node.reroll_once and node.reroll.matches(value):
                # the rule's message (as the bounds are): the source gave a face the die
                # rerolls after every reroll it is allowed
                raise _never_stopped(node, value, bound)
            if node.compound:
                chain.append(value)
            else:
                shown = node.clamp(value - (1 if node.penetrate and explosions else 0))
                die = Die(shown, node.faces)
                die.kind = node.kind
                if shown != value:
                    die.rolled = value
                out.append(die)
            if node.explode is None or explosions >= cap or not node.explode.matches(value):
                break
            explosions += 1
            if not node.compound:
                out[-1].exploded = True
            value = _face(node, source, budget)
        if node.compound:
            die = Die(node.clamp(sum(chain)), node.faces)
            die.kind = node.kind
            if die.value != sum(chain):
                die.rolled = sum(chain)
            if len(chain) > 1:
                die.exploded = True
                die.parts = tuple(chain)
            out.append(die)
    for die in out:
        if die.fate == KEPT:
            if node.crit_success is not None and node.crit_success.matches(die.value):
                die.critical = "success"
            elif node.crit_failure is not None and node.crit_failure.matches(die.value):
                die.critical = "failure"
    if settle:
        _reference_settle(out, node.keep, node.select, node.success, node.failure,
                          node.subtract)
    return out


def _reference_settle(dice: list[Die], keep: Keep | None, select: Select | None,
                      success: Compare | None, failure: Compare | None,
                      subtract: bool = False) -> int:
    live = [d for d in dice if d.fate == KEPT]
    if select is not None:
        for die in live:
            if not select.kept(die.value):
                die.fate = DROPPED
        live = [d for d in live if d.fate == KEPT]
    if keep is not None:
        highest, kept = keep.kept_highest(len(live))
        for die in sorted(live, key=lambda d: d.value, reverse=highest)[kept:]:
            die.fate = DROPPED
        live = [d for d in live if d.fate == KEPT]
    total = 0
    for die in live:
        if success is not None:
            die.success = success.matches(die.value)
            if die.success:
                total += 1
            elif failure is not None and failure.matches(die.value):
                die.failure = True
                total -= die.value if subtract else 1
        elif failure is not None and failure.matches(die.value):
            die.success, die.failure = False, True  # a failure without successes counted
            total -= die.value if subtract else 1
        else:
            total += die.value
    return total


def _term_total(dice: list[Die], subtract: bool = False) -> int:
    total = 0
    for die in dice:
        if die.fate == KEPT:
            lost = -die.value if subtract else -1
            total += (1 if die.success else lost if die.failure else 0) \
                if die.success is not None else die.value
    return total


def _shown(node: Dice, dice: list[Die]) -> list[Die]:
    if node.sort:
        return sorted(dice, key=lambda d: d.value, reverse=node.sort == "d")
    return dice


def _reference_group(node: RollGroup, source: DiceSource, budget: _Budget, exact: bool) -> Part:
    if node.dice_level and (node.keep is not None or node.success is not None):
        terms: list[Dice] = []
        pending = [node.members[0]]
        while pending:
            x = pending.pop()
            if isinstance(x, BinOp):
                pending += [x.right, x.left]
            else:
                assert isinstance(x, Dice)
                terms.append(x)
        rolled = [_reference_dice(t, source, budget, settle=False) for t in terms]
        everything = [d for dice in rolled for d in dice]
        total = _reference_settle(everything, node.keep, None, node.success, node.failure)
        parts = iter([DicePart(t, _shown(t, dice), _term_total(dice))
                      for t, dice in zip(terms, rolled, strict=True)])

        def rebuild(x: Node) -> Part:
            if isinstance(x, Dice):
                return next(parts)
            assert isinstance(x, BinOp)
            left, right = rebuild(x.left), rebuild(x.right)
            return BinPart("+", left, right, left.total + right.total)

        return GroupRollPart(node, [rebuild(node.members[0])], [KEPT], None, total)
    members = [_reference_eval(m, source, budget, exact) for m in node.members]
    fates = [KEPT] * len(members)
    order = list(range(len(members)))
    if node.keep is not None:
        highest, kept = node.keep.kept_highest(len(members))
        for i in sorted(order, key=lambda i: members[i].total, reverse=highest)[kept:]:
            fates[i] = DROPPED
    live = [i for i in order if fates[i] == KEPT]
    if node.success is None:
        return GroupRollPart(node, members, fates, None,
                             sum(members[i].total for i in live))
    marks = [0] * len(members)
    for i in live:
        if node.success.matches(members[i].total):  # type: ignore[arg-type]
            marks[i] = 1
        elif node.failure is not None and node.failure.matches(members[i].total):  # type: ignore[arg-type]
            marks[i] = -1
    return GroupRollPart(node, members, fates, marks, sum(marks))


def _reference_eval(node: Node, source: DiceSource, budget: _Budget,
                    exact: bool = False) -> Part:
    if isinstance(node, Dice):
        dice = _reference_dice(node, source, budget)
        return DicePart(node, _shown(node, dice), _term_total(dice, node.subtract))
    if isinstance(node, Num):
        return NumPart(node.value)
    if isinstance(node, Neg):
        return NegPart(_reference_eval(node.operand, source, budget, exact))
    if isinstance(node, Group):
        return GroupPart(_reference_eval(node.inner, source, budget, exact))
    if isinstance(node, Label):
        return LabelPart(_reference_eval(node.inner, source, budget, exact), node.text)
    if isinstance(node, Comment):
        return CommentPart(_reference_eval(node.inner, source, budget, exact), node.text)
    if isinstance(node, RollGroup):
        return _reference_group(node, source, budget, exact)
    if isinstance(node, Func):
        inner_exact = exact or node.name in ("floor", "ceil", "round", "trunc")
        args = [_reference_eval(a, source, budget, inner_exact) for a in node.args]
        values = [a.total for a in args]
        if node.name == "rem":
            if values[1] == 0:
                raise DiceEvalError("division by zero (in rem)")
            q = Fraction(values[0]) / values[1]
            whole = q.numerator // q.denominator if q >= 0 else -((-q.numerator) // q.denominator)
            total: Any = values[0] - values[1] * whole
        else:
            x = values[0]
            if node.name == "floor":
                total = math.floor(x)
            elif node.name == "ceil":
                total = math.ceil(x)
            elif node.name == "trunc":
                total = math.trunc(x)
            elif node.name == "round":
                total = math.floor(x + Fraction(1, 2))
            else:
                total = abs(x)
        return FuncPart(node.name, args, total)
    assert isinstance(node, BinOp | Comparison)
    left = _reference_eval(node.left, source, budget, exact)
    right = _reference_eval(node.right, source, budget, exact)
    a, b = left.total, right.total
    if isinstance(node, Comparison):
        holds = {"=": a == b, "<>": a != b, ">": a > b, ">=": a >= b, "<": a < b,
                 "<=": a <= b}[node.op]
        return BinPart(node.op, left, right, int(holds))
    if node.op == "+":
        return BinPart("+", left, right, a + b)
    if node.op == "-":
        return BinPart("-", left, right, a - b)
    if node.op == "*":
        return BinPart("*", left, right, a * b)
    if node.op in ("/", "/^", "%") and b == 0:
        raise DiceEvalError("division by zero" + (" (in %)" if node.op == "%" else ""))
    if node.op == "/" and exact:
        q = Fraction(a) / b
        total = q.numerator if q.denominator == 1 else q
    elif node.op == "/":
        total = a // b
    elif node.op == "/^":
        total = -((-a) // b)
    else:
        total = a % b
    return BinPart(node.op, left, right, total)


def reference_roll(node: Node, source: DiceSource) -> RollResult:
    return RollResult(node, _reference_eval(node, source, _Budget(node)))


def outcome(node: Node, source: DiceSource, roller: Any) -> tuple[Any, ...]:
    """Everything observable about rolling ``node``: result or error."""
    try:
        result = roller(node, source)
    except DiceError as err:
        return ("error", type(err).__name__, str(err))
    dice = [(d.value, d.faces, d.fate, d.exploded, d.success, d.parts, d.failure, d.critical,
             d.rolled, d.kind) for d in result.dice()]
    return ("ok", result.total, result.render(), repr(result), result.to_json(), dice)


# -- random trees ---------------------------------------------------------------------------

nodes: st.SearchStrategy[Node] = expressions(
    st.builds(Num, st.integers(0, 30)) | dice_nodes(faces=12, count=9, keep=6, percentile=True),
    group_right=False,
) | commented(any_expressions(any_dice(faces=12, count=6, keep=4)))


@settings(max_examples=400, deadline=None)
@given(nodes, st.integers(0, 2**32))
def test_plans_roll_exactly_as_walking_the_tree(node: Node, seed: int) -> None:
    ours, theirs = SeededDice(seed), SeededDice(seed)
    assert outcome(node, ours, roll) == outcome(node, theirs, reference_roll)
    assert ours.roll(10_000) == theirs.roll(10_000)  # the same dice were used up


@settings(max_examples=300, deadline=None)
@given(nodes, st.lists(st.integers(1, 12), max_size=30))
def test_plans_use_forced_dice_exactly_as_walking_the_tree(node: Node, values: list[int]) -> None:
    ours, theirs = ForcedDice(values), ForcedDice(values)
    ours_log, theirs_log = RecordingDice(ours), RecordingDice(theirs)
    assert outcome(node, ours_log, roll) == outcome(node, theirs_log, reference_roll)
    assert (ours.remaining, ours.used) == (theirs.remaining, theirs.used)
    assert ours_log.rolls == theirs_log.rolls


@settings(max_examples=200, deadline=None)
@given(nodes, st.integers(0, 2**32))
def test_text_and_tree_roll_alike(node: Node, seed: int) -> None:
    text = str(node)
    by_text = outcome(node, SeededDice(seed), lambda _n, s: roll(text, s))
    by_tree = outcome(parse_uncached(text), SeededDice(seed), roll)
    assert by_text == by_tree


# -- the first roll walks the tree; later ones run the compiled plan ------------------------


def walked(node: Node, source: DiceSource) -> RollResult:
    """A first roll: the plan as a new tree gets it (walked, or by its terms)."""
    return _roll_plan(_new_plan(node), source)


def compiled(node: Node, source: DiceSource) -> RollResult:
    """The same roll by the compiled plan's step (checked as the first roll is)."""
    check_rolls(node)
    plan = _Plan(node, None, False)
    _compiled(plan)
    return _roll_plan(plan, source)


def is_compiled(plan: _Plan) -> bool:
    return plan.step is not None


plain_dice = st.builds(
    Dice, st.integers(0, 9), st.integers(1, 12), st.booleans(),
    keep=st.none() | st.builds(Keep, st.sampled_from(["kh", "kl", "dh", "dl"]),
                               st.integers(0, 6)),
    success=st.none() | st.builds(Compare, st.sampled_from(["=", ">", ">=", "<", "<=",
                                                            "even", "odd"]),
                                  st.integers(0, 12)),
).map(lambda d: dataclasses.replace(d, faces=100) if d.percentile else d)
walkable = commented(any_expressions(plain_dice, max_leaves=8)) | nodes


@settings(max_examples=400, deadline=None)
@given(walkable, st.lists(st.integers(1, 12), max_size=40), st.integers(0, 2**32))
def test_the_first_roll_walks_as_the_compiled_plan_rolls(
    node: Node, values: list[int], seed: int
) -> None:
    # forced dice (which may run out or not fit a die), through a recorder
    ours, theirs = ForcedDice(values), ForcedDice(values)
    ours_log, theirs_log = RecordingDice(ours), RecordingDice(theirs)
    assert outcome(node, ours_log, walked) == outcome(node, theirs_log, compiled)
    assert ours_log.rolls == theirs_log.rolls
    assert (ours.remaining, ours.used) == (theirs.remaining, theirs.used)
    # seeded dice, rolled in pools where they can be
    seeded, other = SeededDice(seed), SeededDice(seed)
    assert outcome(node, seeded, walked) == outcome(node, other, compiled)
    assert seeded.roll(10_000) == other.roll(10_000)  # the same dice were used up


@pytest.mark.parametrize("text", [
    "(4d6kh1)*2", "(5d6dl2)/3", "(6d6kl2>=3)-1", "floor(3d8dh1/2)", "(4d6kh2)>=10",
    "-(3d20kh1)", "1d6*1d6", "2d6%3+rem(1d20-10,3)", "(8d6even)*1", "(5d10>7)/^2",
    "ceil(1d20/3)+round(2d6/4)+trunc(-1d6/4)+abs(1-2d6)", "(1d20+5)>=15", "1d%+2d%kh1*1",
])
def test_walked_and_compiled_rolls_agree_seed_by_seed(text: str) -> None:
    node = parse_uncached(text)
    for seed in range(40):
        assert outcome(node, SeededDice(seed), walked) == \
            outcome(node, SeededDice(seed), compiled)


@pytest.mark.parametrize("text", ["3d6*2>=1d20", "floor(4d6kh3/2)+rem(1d20-10,3)",
                                  "-(2d6>=5)+1d4[fire] # note", "(1d20+5)>=15"])
def test_a_new_tree_of_plain_dice_is_walked_then_compiled(text: str) -> None:
    node = parse_uncached(text)
    plan = _new_plan(node)
    assert plan.walks and not is_compiled(plan) and plan.flat is None
    first = _roll_plan(plan, SeededDice(4))
    assert not is_compiled(plan)  # the first roll compiled nothing...
    assert first.to_json() == compiled(node, SeededDice(4)).to_json()  # ...until read
    assert (is_compiled(plan), plan.walks) == (True, False)
    assert _roll_plan(plan, SeededDice(4)).to_json() == first.to_json()


@pytest.mark.parametrize("text", ["3d6+2d4kh1-7", "4d6kh3", "1d20+5", "10d10kl5-2d6dl1"])
def test_a_plain_sum_with_keeps_is_rolled_by_its_terms(text: str) -> None:
    node = parse_uncached(text)
    plan = _new_plan(node)
    assert plan.flat is not None
    result = _roll_plan(plan, SeededDice(8))
    assert not is_compiled(plan)  # nothing compiled until the tree is read
    assert result.to_json() == compiled(node, SeededDice(8)).to_json()


def test_a_walked_first_roll_counts_the_dice_budget_first() -> None:
    source = ForcedDice([1, 2, 3])
    with pytest.raises(DiceLimitError, match="20,000 dice, more than 10,000"):
        roll("(" + "+".join(["1000d6"] * 20) + ")*2", source)
    with pytest.raises(DiceLimitError, match="10,001 dice, more than 10,000"):
        roll("+".join(["1000d6kh3"] * 10) + "+1d6", source)
    assert source.used == 0


def test_a_plan_rolls_the_same_every_time() -> None:
    first = [roll("3d6+2d4kh1-1", SeededDice(9)).to_json() for _ in range(3)]
    source = SeededDice(9)
    assert roll("3d6+2d4kh1-1", source).to_json() == first[0]
    assert first[0] == first[1] == first[2]


class OnlyRoll:
    """A source with nothing but ``roll``: the protocol's minimum."""

    def __init__(self, seed: int) -> None:
        self.inner = SeededDice(seed)

    def roll(self, faces: int) -> int:
        return self.inner.roll(faces)


@pytest.mark.parametrize("expr", ["8d6", "10d10kh5+2", "4d6kh3", "1d20+5", "6d10>=7"])
def test_a_source_without_roll_many_gives_the_same_dice(expr: str) -> None:
    assert roll(expr, OnlyRoll(3)).to_json() == roll(expr, SeededDice(3)).to_json()


# -- the roll limit -------------------------------------------------------------------------


def test_too_many_dice_are_refused_before_any_is_rolled() -> None:
    text = "+".join(["1000d6"] * 20)
    source = ForcedDice([1, 2, 3])
    start = time.perf_counter()
    with pytest.raises(DiceLimitError, match="20,000 dice, more than 10,000 dice"):
        roll(text, source)
    assert time.perf_counter() - start < 0.5
    assert source.used == 0


def test_the_limit_itself_is_allowed() -> None:
    result = roll("+".join(["1000d6"] * 10), SeededDice(1))
    assert len(result.dice()) == limits.MAX_ROLLS


def test_rerolls_and_explosions_are_counted_at_their_bounds_before_rolling() -> None:
    # every die counted with all the explosions (a d2 on 2: 39) or rerolls it may have,
    # before any roll
    # (a reroll until counted with max(20, k) rerolls, (m/size) ** (k + 1) < 1e-12: a d6
    # rerolled on 1 to 5 151 times, a d2 on 1 39 times)
    for text, worst in [("+".join(["1000d2!"] * 10), "400,000"),
                        ("1000d6r<6+" + "+".join(["1000d6"] * 9), "161,000"),
                        ("23d6r1!", "10,143"), ("251d2r1", "10,040")]:
        source = ForcedDice([1, 2])
        with pytest.raises(DiceLimitError, match=f"rolls up to {worst} dice, more than 10,000"):
            roll(text, source)
        assert source.used == 0


def test_the_worst_case_at_the_limit_rolls_without_error() -> None:
    # 250 dice of 40 rolls each: 39 ones rerolled, then a 2 stops each die
    result = roll("250d2r1", ForcedDice(([1] * 39 + [2]) * 250))
    assert len(result.dice()) == 10_000
    assert result.total == 500
    assert [d.fate for d in result.dice()[:40]] == ["rerolled"] * 39 + ["kept"]
    # 22 dice of 21 * 21 rolls each: twenty ones rerolled, then a 6 that explodes, to the
    # end of the chain
    result = roll("22d6r1!", ForcedDice(([1] * 20 + [6]) * 21 * 22))
    assert len(result.dice()) == 9702
    assert result.total == 22 * 21 * 6


# -- the parser's fast path ---------------------------------------------------------------


def full_parse(text: str, dialect: Dialect = ARBITER) -> Node | DiceError:
    try:
        return _Parser(text, dialect).parse()
    except DiceError as err:
        return err


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet="0123456789dDkKhHlL%+- \t\n", max_size=24))
def test_plain_sums_read_as_the_parser_reads_them(text: str) -> None:
    fast = _simple_sum(text)
    if fast is not None:
        slow = full_parse(text)
        assert fast == slow
        assert repr(fast) == repr(slow)
        # the plain sums mean the same in Roll20 and Foundry, so they take the fast path too
        assert full_parse(text, ROLL20) == full_parse(text, FOUNDRY) == fast


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["+", "-", " + ", " - "]),
                          st.sampled_from(["", "1", "3", "12", "1000", "1001", "0"]),
                          st.sampled_from(["d", "D", " d "]),
                          st.sampled_from(["6", "20", "%", "0", "10000", "10001"]),
                          st.sampled_from(["", "kh1", "k2", "KL3", "dl1", "Dh2", " kh 1", "k h1"]),
                          st.sampled_from(["", "", "7"])),
                min_size=1, max_size=5))
def test_sums_of_dice_read_as_the_parser_reads_them(terms: list[tuple[str, ...]]) -> None:
    text = "".join(
        (sign if i else "") + (number or count + d + faces + keep)
        for i, (sign, count, d, faces, keep, number) in enumerate(terms)
    )
    slow = full_parse(text)
    fast = _simple_sum(text)
    if isinstance(slow, DiceError):
        assert fast is None
        with pytest.raises(type(slow)) as raised:
            parse_uncached(text)
        assert str(raised.value) == str(slow)
    else:
        assert fast is None or fast == slow
        assert parse_uncached(text) == slow


@pytest.mark.parametrize(
    "text",
    ["3d8+2d4kh1-7", "1d20+5", "D%K1", "4D6KH3", "2d6 + 3", " 2 d 6 ", "10d10kh5+2", "7",
     "1000d10000", "999999999", "2d6\t+1", " 1d20\n+ 5 ", "0d6-0"],
)
def test_common_sums_take_the_fast_path(text: str) -> None:
    fast = _simple_sum(text)
    assert fast is not None
    assert fast == full_parse(text)


@pytest.mark.parametrize(
    "text",
    ["1001d6", "1d10001", "1000000000", "1d0", "-1d4", "+3", "2d6 3", "2d6kh1kh1", "2d6+", "",
     "1d6*2", "k h1", "1 2d6", "2d6+-1", "1d6kh", "4d6d1"],
)
def test_anything_else_goes_to_the_parser(text: str) -> None:
    assert _simple_sum(text) is None


# -- nodes made without their constructors ---------------------------------------------------


def test_fast_nodes_are_the_constructors_nodes() -> None:
    made = new_binop(
        "+",
        new_dice(4, 6, False, new_compare("=", 1), True, None, False, new_keep("kh", 3), None),
        new_group(new_neg(new_num(2))),
    )
    built = BinOp(
        "+",
        Dice(4, 6, False, Compare("=", 1), True, None, False, Keep("kh", 3), None),
        Group(Neg(Num(2))),
    )
    assert type(made) is BinOp and type(made.left) is Dice
    assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
    assert str(made) == str(built) == "4d6ro1kh3+(-2)"
    assert pickle.loads(pickle.dumps(made)) == built
    assert dataclasses.replace(made, op="-") == BinOp("-", built.left, built.right)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.op = "-"  # type: ignore[misc]


# -- sources rolling many dice at once ------------------------------------------------------


@given(st.integers(0, 2**32), st.integers(0, 40), st.integers(1, 10_000))
def test_seeded_roll_many_is_roll_after_roll(seed: int, n: int, faces: int) -> None:
    many, one = SeededDice(seed), SeededDice(seed)
    assert many.roll_many(n, faces) == [one.roll(faces) for _ in range(n)]
    assert many.roll(6) == one.roll(6)


@given(st.lists(st.integers(-1, 8), max_size=12), st.integers(0, 12), st.integers(1, 6))
def test_forced_roll_many_is_roll_after_roll(values: list[int], n: int, faces: int) -> None:
    many, one = ForcedDice(values), ForcedDice(values)
    many_log, one_log = RecordingDice(many), RecordingDice(one)

    def attempt(fn: Any) -> Any:
        try:
            return fn()
        except ForcedDiceError as err:
            return str(err)

    assert attempt(lambda: many_log.roll_many(n, faces)) == attempt(
        lambda: [one_log.roll(faces) for _ in range(n)]
    )
    assert (many.remaining, many.used) == (one.remaining, one.used)
    assert many_log.rolls == one_log.rolls


def test_recording_seeded_dice_in_one_call() -> None:
    log = RecordingDice(SeededDice(4))
    values = log.roll_many(5, 8)
    assert log.rolls == [(8, v) for v in values]
    assert values == SeededDice(4).roll_many(5, 8)


# -- exact arithmetic on small pools ---------------------------------------------------------


def schoolbook_power(weights: list[int], n: int) -> list[int]:
    out = [1]
    for _ in range(n):
        new = [0] * (len(out) + len(weights) - 1)
        for i, x in enumerate(out):
            for j, y in enumerate(weights):
                new[i + j] += x * y
        out = new
    return out


@given(st.lists(st.integers(0, 5), min_size=1, max_size=12), st.integers(0, 30))
def test_powers_of_weights(weights: list[int], n: int) -> None:
    assert _power(weights, n) == schoolbook_power(weights, n)


@pytest.mark.parametrize(("faces", "n"), [(1, 5), (2, 1), (6, 2), (6, 10), (20, 20), (4, 40)])
def test_uniform_powers(faces: int, n: int) -> None:
    assert _uniform_power(faces, n) == schoolbook_power([1] * faces, n)
    assert _power([3] * faces, n) == schoolbook_power([3] * faces, n)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=5), st.integers(1, 5),
       st.booleans(), st.integers(0, 5), st.booleans())
def test_keeping_dice_against_every_roll(
    weights: list[int], n: int, highest: bool, keep: int, successes: bool
) -> None:
    if not any(weights):
        weights = [1, *weights]
    keep = min(keep, n)

    def value(face: int) -> int:
        return int(face >= 3) if successes else face

    expected: Counter[int] = Counter()
    for faces in itertools.product(range(len(weights)), repeat=n):
        weight = 1
        for f in faces:
            weight *= weights[f]
        kept = sorted((f + 1 for f in faces), reverse=highest)[:keep]
        expected[sum(value(f) for f in kept)] += weight
    lo, counts = _keep(1, weights, n, highest, keep, value)
    got = {lo + i: c for i, c in enumerate(counts) if c}
    assert got == {k: v for k, v in expected.items() if v}


def as_dict(die: Any) -> dict[int, Any]:
    from fractions import Fraction

    den = die.denominator()
    return {int(k): Fraction(int(v), den) for k, v in die.items() if v}


@pytest.mark.parametrize(
    ("expr", "reference"),
    [
        ("10d6", lambda: 10 @ icepool.d6),
        ("20d20", lambda: 20 @ icepool.d20),
        ("5d20", lambda: 5 @ icepool.d20),
        ("4d6r1", lambda: 4 @ icepool.d6.reroll([1], depth="inf")),
        ("30d4-2d8", lambda: 30 @ icepool.d4 - 2 @ icepool.d8),
        ("4d6r1kh3", lambda: icepool.d6.reroll([1], depth="inf").highest(4, 3)),
    ],
)
def test_small_and_mid_pools_match_icepool(expr: str, reference: Any) -> None:
    assert dict(distribution(expr).items()) == as_dict(reference())


def test_a_text_seen_before_gives_the_same_distribution() -> None:
    assert distribution("3d6+1") is distribution("3d6+1")


# -- the values of the dice, without the result tree ----------------------------------------

_plain_sums = st.lists(
    st.tuples(st.sampled_from(["+", "-"]), st.integers(1, 6), st.integers(1, 12),
              st.sampled_from(["", "kh1", "kl2", "dh1", "dl1", "k2"]) | st.integers(0, 9)),
    min_size=1, max_size=4,
).map(lambda terms: "".join(
    (sign if i else "") + (str(extra) if isinstance(extra, int) else f"{n}d{faces}{extra}")
    for i, (sign, n, faces, extra) in enumerate(terms)))


@settings(max_examples=300, deadline=None)
@given(nodes | _plain_sums.map(parse_uncached), st.integers(0, 2**32), st.booleans())
def test_values_are_the_values_of_the_dice(node: Node, seed: int, again: bool) -> None:
    """``RollResult.values()`` is the value of each of ``dice()``, left to right: a plain sum
    (``3d6+2d4kh1-1``, its tree not made yet) reads them off the values it rolled, in the
    order rolled; a roll whose tree is made, or another expression, reads the tree."""
    if again:  # (a second roll of the same tree: the compiled plan's result)
        try:
            roll(node, SeededDice(seed))
        except DiceError:
            return
    try:
        result = roll(node, SeededDice(seed))
    except DiceError:
        return
    fresh = result.values()  # before anything reads the tree
    assert fresh == [d.value for d in result.dice()]
    assert result.values() == fresh  # and once the tree is made


def test_a_plain_sum_gives_its_values_without_its_tree() -> None:
    result = roll("3d6+2d4kh1-1", ForcedDice([6, 5, 4, 1, 3]))
    assert result.values() == [6, 5, 4, 1, 3]
    assert result._tree is None  # (not made to answer)
    assert [d.value for d in result.dice()] == [6, 5, 4, 1, 3]
