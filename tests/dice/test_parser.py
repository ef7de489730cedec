"""The dice grammar: canonical round trip, every construct, and clear errors."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.dice import DiceLimitError, DiceSyntaxError, parse
from arbiter.dice.ast import BinOp, Compare, Dice, Group, Keep, Neg, Node, Num
from arbiter.dice.errors import DiceError

from .strategies import dice_nodes, expressions


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("1d20+5", "1d20+5"),
        ("d20", "1d20"),
        ("2D6 + 3", "2d6+3"),
        ("d%", "1d%"),
        ("4d6kh3", "4d6kh3"),
        ("4d6k3", "4d6kh3"),
        ("2d20kl1", "2d20kl1"),
        ("5d6dl2", "5d6dl2"),
        ("5d6dh1", "5d6dh1"),
        ("8d6!", "8d6!"),
        ("d6!>5", "1d6!>5"),
        ("d6!6", "1d6!"),
        ("d6!!", "1d6!!"),
        ("d20r1", "1d20r1"),
        ("d20ro1", "1d20ro1"),
        ("d20r<3", "1d20r<3"),
        ("10d10>=7", "10d10>=7"),
        ("(1d6+2)*3", "(1d6+2)*3"),
        ("7/2", "7/2"),
        ("7/^2", "7/^2"),
        ("-d4", "-1d4"),
        ("1--2", "1--2"),
    ],
)
def test_canonical_spelling(text: str, canonical: str) -> None:
    assert str(parse(text)) == canonical
    assert parse(canonical) == parse(text)


def test_tree_shape_and_precedence() -> None:
    assert parse("1+2*3") == BinOp("+", Num(1), BinOp("*", Num(2), Num(3)))
    assert parse("1-2-3") == BinOp("-", BinOp("-", Num(1), Num(2)), Num(3))
    assert parse("4d6kh3") == Dice(4, 6, keep=Keep("kh", 3))
    assert parse("d6!>5") == Dice(1, 6, explode=Compare(">", 5))
    assert parse("-(1)") == Neg(Group(Num(1)))


nodes: st.SearchStrategy[Node] = expressions(
    st.builds(Num, st.integers(0, 1000)) | dice_nodes(faces=30, count=20, keep=5),
    group_right=True,
)


@given(nodes)
def test_print_then_parse_round_trips(node: Node) -> None:
    text = str(node)
    again = parse(text)
    assert str(again) == text


@given(st.text(alphabet="0123456789d%+-*/^()!<>=khlor ", max_size=40))
def test_any_text_parses_or_fails_with_a_dice_error(text: str) -> None:
    try:
        node = parse(text)
    except DiceError as err:
        assert str(err)
    else:
        assert parse(str(node)) == node


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty dice expression"),
        ("d", "expected the number of faces after 'd'"),
        ("((((", "expression ends too early"),
        ("1d6+", "expression ends too early"),
        ("2d6)", "unbalanced ')'"),
        ("(2d6", "missing ')'"),
        ("1d6 x 2", "unexpected character 'x' at column 5"),
        ("1d6 ~ 2", "unexpected character '~' at column 5"),
        ("d20r1ro2", "several reroll points on one die must all be r or all be ro"),
        ("d6r<7", "matches every face of d6"),
        ("d6!>0", "matches every face of d6"),
        ("1d1!", "matches every face of d1"),
        ("3kh1", "unexpected 'kh'"),
    ],
)
def test_malformed_text_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(DiceSyntaxError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1000000d1000000", "1,000,000 dice in one term is more than the limit of 1,000"),
        ("1d0", "a die needs at least 1 face"),
        ("1d100000", "more faces than the limit of 10,000"),
        ("(" * 10_000 + "1" + ")" * 10_000, "characters long; the limit is 500"),
        ("(" * 100 + "1" + ")" * 100, "nests deeper than 32 levels"),
        ("-" * 100 + "1", "nests deeper than 32 levels"),
        ("99999999999", "larger than the limit"),
        ("+".join(["1"] * 101), "more than 100 terms"),
    ],
)
def test_hostile_input_fails_fast_with_the_limit_named(text: str, message: str) -> None:
    parse.cache_clear()
    start = time.perf_counter()
    with pytest.raises(DiceLimitError, match=message):
        parse(text)
    assert time.perf_counter() - start < 0.5


def test_matches_every_face_agrees_with_listing_the_faces() -> None:
    """The parser refuses a reroll or explosion that matches every face from the two end
    faces alone; listing every face gives the same answer."""
    for op in ("=", ">", ">=", "<", "<="):
        for value in range(0, 13):
            point = Compare(op, value)
            for faces in range(1, 11):
                assert point.matches_every_face(faces) == (
                    len(point.faces_matching(faces)) == faces), (op, value, faces)


@pytest.mark.parametrize(
    ("text", "column", "shown"),
    [
        ("１d６", 1, "'１' (U+FF11, not an ASCII digit 0-9"),
        ("1d６", 3, "'６' (U+FF16, not an ASCII digit 0-9"),
        ("d٣", 2, "'٣' (U+0663, not an ASCII digit 0-9"),
        ("4d6\u212ah3", 4, "'\u212a' (U+212A, not ASCII"),  # KELVIN SIGN, which lower() makes 'k'
        ("2d6\u3000+1", 4, "'\\u3000' (U+3000, not ASCII"),
        ("1\u00b2d6", 2, "'²' (U+00B2, not an ASCII digit 0-9"),
    ],
)
def test_only_ascii_is_dice_notation(text: str, column: int, shown: str) -> None:
    parse.cache_clear()
    with pytest.raises(DiceSyntaxError) as raised:
        parse(text)
    assert raised.value.position == column - 1
    assert str(raised.value).startswith(f"unexpected character {shown}")
    assert f"at column {column} in " in str(raised.value)


def test_ascii_control_characters_are_not_whitespace() -> None:
    with pytest.raises(DiceSyntaxError, match=r"unexpected character '\\x1c' at column 2"):
        parse("1\x1cd6")
    assert parse("1d6 +\t2\n") == parse("1d6+2")


@given(st.text(max_size=30))
def test_any_unicode_text_parses_only_if_ascii(text: str) -> None:
    """Outside labels and comments (free text), dice notation is ASCII."""
    try:
        node = parse(text)
    except DiceError as err:
        assert str(err)
        if not text.isascii():
            assert isinstance(err, DiceSyntaxError)
    else:
        outside = re.sub(r"\[[^\]]*\]|#.*", "", text, flags=re.DOTALL)
        assert outside.isascii()
        assert parse(str(node)) == node


TOKENS = ["1", "2", "6", "10", "20", "d", "%", "F", "T", "+", "-", "*", "/", "/^", "//", "(",
          ")", "{", "}", ",", "!", "!!", "!p", "!o", "x", "xo", "e", "ra", "r", "ro", "rr",
          "k", "kh", "kl", "d", "dh", "dl", "p", "ph", "pl", ">", "<", ">=", "<=", "=", "==",
          "!=", "<>", "f", "cs", "cf", "df", "min", "max", "mi", "ma", "s", "sd", "floor(",
          "ceil(", "round(", "trunc(", "abs(", "rem(", "[fire]", " # note", " text", " "]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=12),
       st.sampled_from(["arbiter", "roll20", "foundry", "d20"]))
def test_any_text_in_any_dialect_reads_back_from_its_canonical_spelling(
    tokens: list[str], dialect: str
) -> None:
    """Whatever a dialect reads, its canonical (Arbiter) spelling reads back as the same
    tree; anything else is a dice error with a message."""
    text = "".join(tokens)
    try:
        node = parse(text, dialect)
    except DiceError as err:
        assert str(err)
        return
    assert parse(str(node)) == node, (text, str(node))
