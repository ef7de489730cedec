"""Issue 35's short cuts give exactly what the full paths give.

- ``exact.quick`` reads a small plain sum and counts its distribution without the parser,
  the estimate or ``_eval``: the same distribution, and inside bounds that ``check`` never
  refuses.
- A plain sum is rolled without its result tree (``roller._roll_flat``); the tree, made
  when it is read, is the one the expression's step gives for the same dice.
- A plain pool's dice are made when they are read: the same dice, fates and successes.
"""

from __future__ import annotations

import random
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.dice import (
    DiceError,
    ForcedDice,
    RecordingDice,
    SeededDice,
    dialects,
    distribution,
    exact,
    limits,
    parse,
    parser,
    roll,
    roller,
)
from arbiter.dice.ast import BinOp, Dice, Func, Group, Keep, Neg, Node, Num
from arbiter.dice.parser import parse_uncached
from arbiter.dice.roller import FUNCTIONS, RELATIONS

from .strategies import any_dice, any_expressions


def full_path(text: str, dialect: str = "arbiter") -> exact.Distribution:
    node = parse_uncached(text, dialect)
    exact.check(node)
    result = exact._eval(node)
    assert isinstance(result, exact.Distribution)
    return result


def plain_sums(seed: int, how_many: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(how_many):
        parts = []
        for i in range(rng.randint(1, 4)):
            sign = "" if i == 0 else rng.choice("+-")
            if rng.random() < 0.3:
                parts.append(f"{sign}{rng.randint(0, 30)}")
                continue
            n = rng.randint(1, 12)
            faces = rng.choice([1, 2, 3, 4, 6, 8, 10, 12, 20, 100, "F", "f"])
            keep = rng.choice(["", "", "kh", "kl", "dh", "dl", "k", "KH", "Dl"])
            many = rng.choice(["", str(rng.randint(0, n + 1)), str(rng.randint(0, n + 1))])
            kept = f"{keep}{many}" if keep else ""
            parts.append(f"{sign}{n}{rng.choice('dD')}{faces}{kept}")
        out.append("".join(parts))
    return out


FIXED = ["2d6", "d6", "10d6", "13d6", "4d6kh3", "20d20", "1d20+5", "3d6+2d4-1", "10d10kh5+2",
         "4d6dl1", "4d6dh1", "4d6kl2", "4d6k3", "5d6kh0", "5d6dl7", "3-2d6", "2d6-1d6kh1+4-2",
         "100d100", "D6", "1d10000", "5", "5+3", "20d100kl3", "1d1+1d1", "0+1d4",
         # keep or drop with no count (one die), Fudge dice
         "2d20kh", "2d20k", "2d20kl", "3d6dl", "3d6DH", "2d6kh+1d6kl-3", "8dF", "dF", "3df+2",
         "6dFkh3", "6dFkl3", "4dFdl1", "4dFdh", "2d6-4dF", "5-3dFkh2", "100dF", "20dFkh19",
         "6dFkl1", "3dFkh1", "1dF", "1df", "5d1kh1", "7d13kl1", "2d20kh1-1d4kl1", "dfkh1"]


@pytest.mark.parametrize("text", FIXED + plain_sums(35, 150))
def test_quick_is_the_full_path(text: str) -> None:
    quick = exact.quick(text)
    if quick is None:  # a sum with two keeps, say: the full path reads it
        return
    expected = full_path(text)
    assert quick == expected
    assert quick.denominator == expected.denominator
    assert dict(quick.items()) == dict(expected.items())


def test_quick_reads_the_common_sums() -> None:
    for text in ["2d6", "10d6", "4d6kh3", "20d20", "3d6+2d4-1", "10d10kh5+2", "2d20kh", "8dF",
                 "6dFkh3"]:
        assert exact.quick(text) is not None, text
    two, four = exact.quick("2d6"), exact.quick("4d6kh3")
    assert two is not None and two.probability(7) == Fraction(1, 6)
    assert four is not None and four.probability(18) == Fraction(7, 432)
    fate, best = exact.quick("4dF"), exact.quick("2d20kh")
    assert fate is not None and fate.probability(-4) == Fraction(1, 81)
    assert fate.probability(0) == Fraction(19, 81)
    assert best is not None and best.probability(20) == Fraction(39, 400)


@pytest.mark.parametrize(
    "text",
    ["2d6!", "d%", "-2d6", "2d6 + 1", "0d6", "1d0", "4d6d1", "2d6kh1+2d6kh1", "2d6k>3",
     "0dF", "3dF2", "3dFf", "2dFkh+1dFkl", "21dFkh3", "101dF", "3dT", "2d20kh1234",
     "101d2", "1d10001", "21d6kh3", "2d101kh1", "1d1+1d1+1d1+1d1+1d1+1d1+1d1+1d1+1d1",
     "1234567", "1d6k>3", "2d6>=4", "1d6²", "{2d6}", "(2d6)"],
)
def test_quick_leaves_everything_else_to_the_full_path(text: str) -> None:
    assert exact.quick(text) is None


@pytest.mark.parametrize(
    "corner",
    ["100d100", "50d100+50d100", "1d10000", "1d1000+9d1000", "20d100kh10+80d100",
     "20d100kh19", "20d100dl1+80d100", "8d100+8d100+8d100+8d100+8d100+8d100+8d100+8d100"],
)
def test_quick_bounds_are_inside_every_limit(corner: str) -> None:
    """The biggest sums ``quick`` reads: ``check`` accepts each, so skipping it refuses
    nothing it would have refused."""
    if exact.quick(corner) is None:  # past a quick bound: the full path checks it
        return
    work = exact.check(parse(corner))
    assert work < limits.MAX_EXACT_WORK // 2


def test_quick_in_dialects() -> None:
    exact.clear_cache()
    assert distribution("4d6k3", "roll20") == full_path("4d6k3", "roll20")
    assert distribution("4d6kh3", "foundry") == full_path("4d6kh3", "foundry")
    # d20 reads k3 as "keep the threes": never the quick sum
    assert distribution("4d6k3", "d20") == full_path("4d6k3", "d20")
    assert distribution("4d6k3", "d20") != distribution("4d6k3")


GROUP_KEEPS = ["{4d6, 4d6, 4d6}kh2", "{4d6,4d6,4d6}kl2", "{1d20+5,2d10,1d8-3}kh2",
               "{3dF,2d6-7,3dF,1d4}dl1", "{2d6,2d6,2d6,2d6}>=7kh2", "{1d6,1d6,1d6}kh2",
               "{1d6,1d8,1d6,1d8,1d6}dh2", "{2d6-9,1d4,2d6-9}kh2", "{1d6,2d6,3d6,4d6,5d6}kh3",
               "{1d6,1d6,1d6,1d6,1d6,1d6,1d6}kh6", "{1d2,1d3,1d4,1d5,1d6,1d7,1d8}kh2",
               "{1d4,1d4,1d4}dl0", "{1d10/3,1d6,1d6}kh2", "{1d6,1d6,1d6}kh2>4"]


@pytest.mark.parametrize("text", GROUP_KEEPS)
def test_group_keep_through_kinds_is_the_fold(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A group keeping several of its members counts them as kinds of dice
    (``exact._member_kinds``): the same distribution as folding them in one by one."""
    short = full_path(text)
    monkeypatch.setattr(exact, "_member_kinds", lambda members: None)
    folded = full_path(text)
    assert short == folded
    assert short.denominator == folded.denominator


def test_group_keep_kinds_are_bounded() -> None:
    six: list[exact.Exact] = [exact.Distribution(1, [1] * 6)]
    assert exact._member_kinds(six * 3) == [(1, [1] * 6, 3)]
    many: list[exact.Exact] = [exact.Distribution(1, [1] * k) for k in range(1, 8)]  # folded
    assert exact._member_kinds(many) is None


FLAT = ["1d20+5", "2d6+3", "8d6", "3d6+2d4-1", "5-1d4", "1d6-2d6+3-1d8", "1d1", "7+2d10"]


class RollOnly:
    """A source with no roll_many: every die is one call."""

    def __init__(self, seed: int) -> None:
        self.inner = SeededDice(seed)

    def roll(self, faces: int) -> int:
        return self.inner.roll(faces)


@pytest.mark.parametrize("text", FLAT)
def test_flat_sums_roll_as_their_step(text: str) -> None:
    roller.clear_plans()
    plan = roller._plan_text(text)
    assert plan.flat is not None
    for seed in range(20):
        for make in (SeededDice, RollOnly):
            got = roll(text, make(seed))
            source = make(seed)
            tree = roller._compiled(plan)(source.roll, getattr(source, "roll_many", None))
            assert got.total == tree.total
            assert got.tree.render() == tree.render()
            assert [d.to_json() for d in got.dice()] == [d.to_json() for d in tree.dice()]
            assert got.render() == f"{tree.render()} = {tree.total}"


def test_flat_sum_rendering_and_recording() -> None:
    result = roll("3d6+2d4-1", ForcedDice([1, 6, 5, 2, 2]))
    assert result.total == 15
    assert str(result) == "3d6 (1, 6, 5) + 2d4 (2, 2) - 1 = 15"
    recording = RecordingDice(SeededDice(3))
    again = roll("3d6+2d4-1", recording)
    assert [d.value for d in again.dice()] == recording.values()
    assert again.total == sum(recording.values()) - 1


def test_flat_sum_runs_out_of_forced_dice_at_once() -> None:
    with pytest.raises(Exception, match="ran out"):
        roll("3d6+2d4", ForcedDice([1, 2, 3, 4]))


@pytest.mark.parametrize(
    ("text", "fates", "successes", "total"),
    [
        ("4d6kh3", "kdkk", None, 16),
        ("6d6dl2>=5", "kdkkdk", [True, None, True, True, None, False], 3),
        ("3d6k2+2", "kdk", None, 13),
        ("5d6>=4", "kkkkk", [True, False, True, True, False], 3),
    ],
)
def test_pools_make_their_dice_when_read(text: str, fates: str, successes: list[bool | None]
                                         | None, total: int) -> None:
    """A pool's dice, made late, are the dice the old eager step made, made once."""
    result = roll(text, ForcedDice([6, 2, 5, 5, 1, 3]))
    assert result.total == total
    dice = result.dice()
    assert result.dice()[0] is dice[0]
    assert "".join("k" if d.kept else "d" for d in dice) == fates
    assert [d.value for d in dice] == [6, 2, 5, 5, 1, 3][: len(dice)]
    if successes is not None:
        assert [d.success for d in dice] == successes


def test_keep_drops_the_lowest_as_written() -> None:
    result = roll("4d6kh3", ForcedDice([6, 5, 3, 1]))
    assert str(result) == "4d6kh3 (6, 5, 3, ~~1~~) = 14"
    tie = roll("4d6kh3", ForcedDice([2, 2, 5, 2]))
    assert [d.fate for d in tie.dice()] == ["kept", "kept", "kept", "dropped"]
    assert tie.total == 9
    counted = roll("5d6>=4", ForcedDice([4, 3, 6, 1, 5]))
    assert counted.total == 3
    assert [d.success for d in counted.dice()] == [True, False, True, False, True]


def test_a_flat_roll_copies_and_pickles_with_its_tree() -> None:
    import copy
    import pickle

    for text in ("3d6+2d4-1", "4d6kh3"):
        result = roll(text, SeededDice(4))
        for again in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result)):
            assert again.total == result.total
            assert again.render() == result.render()
            assert [d.to_json() for d in again.dice()] == [d.to_json() for d in result.dice()]


def test_convolving_spaced_weights_is_the_plain_product() -> None:
    """``exact._convolve`` counts weights all on multiples of one stride (tens dice, 2d6*10)
    without the gaps: the same weights as the schoolbook product."""
    rng = random.Random(35)
    for _ in range(2000):
        a = [0] * rng.randint(1, 40)
        b = [0] * rng.randint(1, 40)
        for counts in (a, b):
            step = rng.choice([1, 2, 3, 4, 6, 10])
            for i in range(0, len(counts), step):
                counts[i] = rng.randint(0, 3)
        plain = [0] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                plain[i + j] += x * y
        assert exact._convolve(a, b) == plain, (a, b)
    three = full_path("d%+d%+d%", "d20")
    assert three.probability(0) == Fraction(1, 1000)
    assert three.probability(10) == Fraction(3, 1000)
    assert three.probability(5) == 0


@pytest.mark.parametrize("faces", [2, 3, 4, 6, 7, 10, 20, 100])
def test_uniform_recurrence_is_the_running_sum(faces: int) -> None:
    """Many dice weighted alike are counted by a recurrence (``exact._uniform_recurrence``):
    the same weights as the running sum, and as the packed power for weights other than 1."""
    for n in [1, 2, 3, 5, 12, 31, 64, 100]:
        assert exact._uniform_recurrence(faces, n) == exact._uniform_power(faces, n)
    ones = exact._power([1] * faces, 40)
    assert ones == exact._uniform_power(faces, 40)
    assert exact._power([3] * faces, 40) == [c * 3**40 for c in ones]


def test_thousand_d6_is_exact() -> None:
    big = full_path("1000d6")
    assert big.lo == 1000 and big.denominator == 6**1000
    assert big.counts[0] == 1 and big.counts[1] == 1000 and big.counts == big.counts[::-1]
    assert big.counts[2] == 1000 * 1001 // 2


# -- rounding functions over divisions by numbers, in integers ------------------------------

_divisions = st.recursive(
    st.builds(Num, st.integers(-12, 12))
    | st.builds(Dice, st.integers(0, 3), st.integers(1, 8),
                keep=st.none() | st.builds(Keep, st.sampled_from(["kh", "kl", "dh", "dl"]),
                                           st.integers(0, 3))),
    lambda inner: st.builds(Group, inner)
    | st.builds(Neg, inner)
    | st.builds(BinOp, st.sampled_from(["+", "-"]), inner, inner)
    | st.builds(BinOp, st.just("/"), inner, st.builds(Num, st.integers(-7, 7)))
    | st.builds(BinOp, st.just("*"), inner, st.builds(Num, st.integers(-3, 3)))
    | st.builds(BinOp, st.just("*"), st.builds(Num, st.integers(-3, 3)), inner),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["floor", "ceil", "round", "trunc"]), _divisions)
def test_rounding_divisions_in_integers_is_the_fraction_path(name: str, inner: Node) -> None:
    """``exact._scaled``: the same distribution as keeping fractions, or the same refusal
    (a division by zero)."""
    node = Func(name, (inner,))  # type: ignore[arg-type]

    def answer() -> object:
        try:
            result = exact._eval(node)
        except DiceError as err:
            return type(err).__name__, str(err)
        assert isinstance(result, exact.Distribution)
        return result.lo, result.counts

    scaled = answer()
    real_scale, real_quotient = exact._scale, exact._rounded_quotient
    exact._scale = lambda _node: None  # type: ignore[assignment]
    # (and each outcome over the number as a Fraction, rounded by the roller's function)
    exact._rounded_quotient = lambda name, whole, k: exact._map(  # type: ignore[assignment,return-value]
        whole, lambda v: FUNCTIONS[name](Fraction(v, k)))
    try:
        fractions = answer()
    finally:
        exact._scale, exact._rounded_quotient = real_scale, real_quotient
    assert scaled == fractions


@pytest.mark.parametrize(("text", "scale"), [
    ("floor(3d6/2)+ceil(2d8/3)", None), ("1d20/2+1d6/3", 6), ("(1d20/2)/3", 6),
    ("2*(1d6/4)-1d4*3/6", 12), ("1d6/1d4", None), ("1d6/0", None), ("1d6!/2", None),
])
def test_what_divides_in_integers(text: str, scale: int | None) -> None:
    node = parse_uncached(text, "d20")
    if isinstance(node, Func):
        node = node.args[0]
    assert exact._scale(node) == scale


# -- keeping from dice of several kinds: states with every kept die placed finish early -----


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 10)), min_size=2, max_size=4),
       st.sampled_from(["kh", "kl", "dh", "dl"]), st.integers(0, 6))
def test_keeping_from_several_kinds_matches_icepool(
    terms: list[tuple[int, int]], kind: str, count: int
) -> None:
    text = "{" + "+".join(f"{n}d{faces}" for n, faces in terms) + f"}}{kind}{count}"
    dice = [icepool.d(faces) for n, faces in terms for _ in range(n)]
    total = len(dice)
    kept = min(count, total) if kind in ("kh", "kl") else max(total - count, 0)
    highest = kind in ("kh", "dl")
    pool = icepool.Pool(dice)
    reference = (pool.highest(kept) if highest else pool.lowest(kept)).sum()
    den = reference.denominator()
    expected = {int(k): Fraction(int(v), den) for k, v in reference.items() if v}
    assert dict(distribution(text).items()) == expected


# -- small expressions skip the estimate: check accepts every one -----------------------------

_small_base = any_expressions(any_dice(faces=100, count=10, keep=10), max_leaves=8)
_small_trees = _small_base | st.builds(
    lambda op, x, v: BinOp(op, Group(x), Num(v)),
    st.sampled_from(["+", "-", "*", "%", "/", "/^"]), _small_base, st.integers(1, 12_000))


@settings(max_examples=600, deadline=None)
@given(_small_trees)
def test_check_accepts_every_small_expression(node: Node) -> None:
    """``exact.small`` lets ``distribution`` skip ``check``: whatever it calls small,
    ``check`` accepts with less than half the work limit (so it cannot refuse it)."""
    if exact.small(node):
        assert exact.check(node) <= limits.MAX_EXACT_WORK // 2


@pytest.mark.parametrize("text", [
    # small trees near the bounds: many pairs, big values
    "10d100kh5%99*99", "abs(10dT-450)%97*(10dF)", "(1d100%70)*(1d100%68)",
    "(10d100>=50f3)*(1d4)+5000", "rem(10d6-9000,1d20)",
])
def test_the_biggest_small_expressions_are_far_inside_the_limits(text: str) -> None:
    node = parse(text)
    assert exact.small(node)
    assert exact.check(node) <= limits.MAX_EXACT_WORK // 10
    assert distribution(text) == full_path(text)


@pytest.mark.parametrize(("text", "is_small"), [
    ("2d20%7", True), ("(1d20+5)>=2d6+8", True), ("6d6k>4", True), ("rem(2d6-9,4)", True),
    ("1d10r1r3", True), ("6d6!", False), ("floor(3d6/2)", True), ("{2d6,1d20}kh1", False),
    ("11d6", False), ("1d101", False), ("1d6*10001", False), ("100d6>1", False),
    ("5d100*5d100", False),
])
def test_what_is_small(text: str, is_small: bool) -> None:
    assert exact.small(parse(text)) is is_small


# -- short expressions read without the parser (quick_tree) ----------------------------------


def _die_term(rng: random.Random) -> str:
    count = rng.choice(["", "1", "2", "3", "10", "11", "0"])
    faces = rng.choice(["1", "2", "3", "6", "10", "20", "100", "101", "%"])
    top = 100 if faces == "%" else int(faces)
    text = f"{count}{rng.choice('dD')}{faces}"
    mark = rng.choice(["r", "ro", "rr", "R", "rO"])
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        text += f"{mark if rng.random() < 0.9 else 'ro'}{rng.randint(0, top + 1)}"
    if rng.random() < 0.3:
        text += f"{rng.choice(['mi', 'min', 'MI'])}{rng.randint(-3, top + 2)}"
    if rng.random() < 0.3:
        text += f"{rng.choice(['ma', 'max', 'Max'])}{rng.randint(-3, top + 2)}"
    if rng.random() < 0.15:
        text += f"k{rng.choice(['>=', '<=', '>', '<', '='])}{rng.randint(-1, top + 1)}"
    success = rng.random()
    if success < 0.15:
        text += rng.choice(["even", "odd", "EVEN"])
    elif success < 0.35:
        text += f"{rng.choice(['>=', '<=', '>', '<', '=', '=='])}{rng.randint(-1, top + 1)}"
    if rng.random() < 0.25:
        op = rng.choice(["", "", ">=", "<=", ">", "<", "="])
        text += f"{rng.choice(['f', 'sf', 'df', 'F'])}{op}{rng.randint(-1 if op else 0, top)}"
    for crit in ("cs", "cf"):
        if rng.random() < 0.25:
            op = rng.choice(["", "", ">=", "<=", ">", "<", "=", "=="])
            text += f"{crit}{op}{rng.randint(-2 if op else 0, top + 1)}"
    if rng.random() < 0.2:
        text += rng.choice(["s", "sd", "sa", "SD"])
    return text


def _quick_sum(rng: random.Random, depth: int) -> str:
    parts = []
    for i in range(rng.randint(1, 4 if depth == 0 else 2)):
        sign = "" if i == 0 else rng.choice("+-")
        roll = rng.random()
        if roll < 0.2:
            text = str(rng.randint(0, 40))
        elif roll < 0.3 and depth < 2:
            name = rng.choice(["floor", "ceil", "round", "trunc", "abs", "rem", "FLOOR"])
            inner = _quick_sum(rng, depth + 1)
            if name == "rem":
                inner += "," + _quick_sum(rng, depth + 1)
            text = f"{name}({inner})"
        elif roll < 0.35 and depth < 2:
            text = f"({_quick_sum(rng, depth + 1)})"
        else:
            text = _die_term(rng)
        while rng.random() < 0.2:
            text += rng.choice(["*", "/", "%", "//", "/^"]) + rng.choice(
                [str(rng.randint(0, 9)), _die_term(rng)])
        parts.append(sign + text)
    return "".join(parts)


def quick_texts(seed: int, how_many: int) -> list[str]:
    """Expressions such as ``2d10r1R3mi2+d%-4``, ``floor(1d20cs>=19/2)%3`` or
    ``3d6+1>=2d8``: past ``quick_tree``'s bounds now and then (five terms, eleven dice, a
    d101, a reroll until of most faces, ``//``), in either case."""
    rng = random.Random(seed)
    out = []
    for _ in range(how_many):
        text = _quick_sum(rng, 0)
        if rng.random() < 0.25:
            text += rng.choice([">=", "<=", ">", "<", "=", "==", "<>"]) + _quick_sum(rng, 1)
        out.append(text)
    return out


QUICK = [
    ("1d10r1r3", "roll20"), ("1d20mi10+5", "d20"), ("d%+d%+d%", "d20"), ("d%+d%", "arbiter"),
    ("1d6r1", "foundry"), ("2d6r1r2", "foundry"), ("3d6ro1ro2-1", "arbiter"),
    ("1d20+5", "d20"), ("4d6rr1mi2ma5+2d8", "roll20"), ("1d2r1", "arbiter"),
    ("1d20cs>=19cf1+4d6sd", "arbiter"), ("1d20cs>19", "roll20"), ("6d6even", "foundry"),
    ("6d6odd", "arbiter"), ("6d6even", "roll20"), ("2d20cs20", "foundry"),
    ("2d20%7", "arbiter"), ("2d20%7", "roll20"), ("rem(2d6-9,4)", "arbiter"),
    ("floor(3d6/2)+ceil(2d8/3)", "arbiter"), ("1d20/2+1d6/3", "d20"), ("1d20/2", "roll20"),
    ("1d20+5>=2d6+8", "arbiter"), ("1d20+5>2d6", "roll20"), ("3d6>=10", "d20"),
    ("3d6>=10", "arbiter"), ("(1d6+2)*3", "foundry"), ("1d6-1%4", "roll20"),
    ("10d10>=7f1", "arbiter"), ("6d6k>4", "arbiter"), ("4d6sf<3", "foundry"),
    ("10d6df<2", "foundry"), ("6d6k>4", "d20"), ("5d10>7f<2", "roll20"),
]


@pytest.mark.parametrize("dialect", ["arbiter", "roll20", "foundry", "d20"])
def test_quick_trees_are_the_parsers(dialect: str) -> None:
    """Whatever ``quick_tree`` reads, the parser proper reads the same tree (or the text is
    past its bounds and left to it); the distribution is the full path's, and a tree inside
    its bounds (which skips the estimate) is accepted by ``check`` far inside its limits."""
    spec = dialects.dialect(dialect)
    read = bounded_read = 0
    texts = [t for t, d in QUICK if d == dialect] + quick_texts(sum(map(ord, dialect)), 1500)
    for text in texts:
        try:
            expected = parser._Parser(text, spec).parse()
        except DiceError:
            assert parser.quick_tree(text, spec) is None, text
            continue
        got = parser.quick_tree(text, spec)
        if got is None:
            continue
        tree, bounded = got
        read += 1
        assert tree == expected, text
        if bounded:
            bounded_read += 1
            assert exact.check(tree) <= limits.MAX_EXACT_WORK // 10, text
        exact.clear_cache()
        try:
            want = full_path(text, dialect)
        except DiceError as err:
            with pytest.raises(type(err)):
                distribution(text, dialect)
            continue
        assert distribution(text, dialect) == want, text
    assert read >= 100 and bounded_read >= 50, (read, bounded_read)


def test_quick_tree_bounds() -> None:
    """The biggest plain sum ``quick_tree`` reads (four terms of ten d100 rerolled on half
    their faces) is far inside every limit; one more term, die or face, or a reroll until
    of one face more, is left to the parser or checked."""
    half = "".join(f"r{v}" for v in range(1, 51))
    third = "".join(f"r{v}" for v in range(1, 31))
    biggest = "+".join([f"10d100{third}"] * 3 + [f"10d100{half}"])
    read = parser.quick_tree(biggest, dialects.ARBITER)
    assert read is not None and read[1]
    assert exact.check(read[0]) <= limits.MAX_EXACT_WORK // 10
    five = parser.quick_tree("+".join(["10d100r1"] * 5), dialects.ARBITER)
    assert five is not None and not five[1]  # read, but checked
    for past in (f"11d100{half}", "1d101r1", f"10d100{half}r51"):
        assert parser.quick_tree(past, dialects.ARBITER) is None, past
    assert parser.quick_tree("1d6r1r2", dialects.FOUNDRY) is None  # written order
    assert parser.quick_tree("1d6r1ro2", dialects.ARBITER) is None  # r and ro mixed
    assert parser.quick_tree("1d20 + 5", dialects.ARBITER) is None  # spaces: the parser
    counted = parser.quick_tree("3d6>=10", dialects.ARBITER)  # a success count
    assert counted is not None and counted[0] == parse_uncached("3d6>=10")
    assert parser.quick_tree("3d6>=10>2", dialects.ARBITER) is None  # and then a relation
    widest = f"floor(10d100{third}/7)-rem(10d100{half},99)"  # (four terms: dice and numbers)
    read = parser.quick_tree(widest, dialects.ARBITER)
    assert read is not None and read[1]
    assert exact.check(read[0]) <= limits.MAX_EXACT_WORK // 10
    # a function of a plain sum is read in one loop: rem's number is one of its four terms
    for text, inside in (("rem(2d6-9,4)", True), ("rem(1d6+1d6+1d6,4)", True),
                         ("rem(1d6+1d6+1d6+1d6,4)", False), ("FLOOR(4d6+1d4-2+3)", True),
                         ("floor(1d6+1d6+1d6+1d6+1)", False), ("rem(2d6,-4)", None),
                         ("abs(1d6-4)", True), ("floor(1d6)+1", True)):
        read = parser.quick_tree(text, dialects.ARBITER)
        if inside is None:  # (a signed divisor: the parser reads it)
            assert read is None, text
            continue
        assert read is not None and read[1] is inside, text
        assert read[0] == parse_uncached(text), text
    for estimated, dialect in (("floor(10d100/2+10d100/3)", "arbiter"),
                               ("10d100/2+1d6/3", "d20"),
                               ("rem(1d6,1d4)", "arbiter"), ("1d6%1d4", "arbiter"),
                               ("1d6*2", "arbiter"), ("1d6+1>2", "d20"),
                               ("floor((10d100/2+1d6)%3)", "arbiter")):
        read = parser.quick_tree(estimated, dialects.dialect(dialect))
        assert read is not None and not read[1], estimated
    for bounded, dialect in (("1d20/2+1d6/3", "d20"), ("floor(1d20/2+1d20/3)", "arbiter"),
                             ("1d6/2", "roll20")):  # fractions of few dice
        read = parser.quick_tree(bounded, dialects.dialect(dialect))
        assert read is not None and read[1], bounded
    for zero in ("floor(1d6/0)", "1d6/0", "rem(1d6,0)", "1d6%0"):  # refused as the parser's
        exact.clear_cache()
        with pytest.raises(DiceError, match="division by zero is possible in"):
            distribution(zero)
    product = parser.quick_tree("10d100*10d100*10d100", dialects.ARBITER)
    assert product is not None and not product[1]
    with pytest.raises(DiceError):  # checked as the parser's tree is
        distribution("10d100*10d100*10d100")


@settings(max_examples=300, deadline=None)
@given(st.integers(-30, 30), st.lists(st.integers(0, 5), min_size=1, max_size=12),
       st.sampled_from(["%", "rem", "/", "/^"]), st.integers(-9, 9).filter(bool))
def test_a_whole_map_is_the_map_an_outcome_at_a_time(
        lo: int, counts: list[int], op: str, k: int) -> None:
    """``exact._whole_map``: each outcome through the roller's own operation."""
    if not any(counts):
        counts = [*counts, 1]
    dist = exact.Distribution(lo, counts)
    fn = {"%": roller._modulo, "rem": roller._remainder, "/": exact._floor_div,
          "/^": exact._ceil_div}[op]
    assert exact._whole_map(dist, op, k) == exact._map(dist, lambda v: fn(v, k))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["1d6", "2d4", "d%", "1dF", "3d6kh2", "1d10r1", "1d8min3",
                                 "1d6"]), min_size=2, max_size=6),
       st.sampled_from(["arbiter", "d20"]))
def test_a_sum_of_repeated_terms_is_the_sum_of_its_terms(terms: list[str],
                                                          dialect: str) -> None:
    """``exact._repeated_sum`` (a power a kind of term) gives the products one term at a
    time give."""
    node = parse_uncached("+".join(terms), dialect)
    exact.check(node)
    power = exact._eval(node)
    real = exact._repeated_sum
    exact._repeated_sum = lambda _node: None  # type: ignore[assignment]
    try:
        products = exact._eval(node)
    finally:
        exact._repeated_sum = real
    assert power == products


_weights = st.tuples(st.integers(-12, 12),
                     st.lists(st.integers(0, 4), min_size=1, max_size=9).filter(any))


@settings(max_examples=300, deadline=None)
@given(_weights, _weights, st.sampled_from(["=", "<>", ">", ">=", "<", "<="]))
def test_a_comparison_of_distributions_is_every_pair_compared(
        a: tuple[int, list[int]], b: tuple[int, list[int]], op: str) -> None:
    """``exact._compared`` (running sums) gives the weights every pair gives."""
    left, right = exact.Distribution(*a), exact.Distribution(*b)
    pairs = exact._combine(left, right, lambda x, y: int(RELATIONS[op](x, y)))
    assert exact._compared(left, right, op) == pairs
