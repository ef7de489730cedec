"""A recursive-descent parser for dice notation (grammar in ``docs/dice.md``).

Every size a user controls is checked against :mod:`arbiter.dice.limits` before it costs
anything, so hostile text fails fast with a message instead of a traceback or a hang.

The text is split into tokens by one ``findall``; each token's position in the text is
only worked out when a message needs it. The commonest shape of all, a sum of numbers and
dice with at most a keep or drop each (``1d20+5``, ``4d6kh3 + 2``), is read by one regular
expression without the descent; anything else, and anything near a limit, goes through the
parser proper, which gives the same tree or says what is wrong.
"""

from __future__ import annotations

import re
from functools import lru_cache

from . import limits
from .ast import (
    BinaryOp,
    Compare,
    CompareOp,
    Dice,
    Keep,
    KeepKind,
    Node,
    new_binop,
    new_compare,
    new_dice,
    new_group,
    new_keep,
    new_neg,
    new_num,
)
from .errors import DiceLimitError, DiceSyntaxError

# One token per match, after optional whitespace: a number, an operator, or (last) any
# other single character, which is refused as unexpected. The notation is ASCII: digits are
# 0-9 and nothing else (``parse_uncached`` refuses any other character before this runs;
# the regular expressions say ``[0-9]`` and ASCII whitespace all the same, so that every
# character is either skipped as whitespace or read as part of a token).
_TOKEN = re.compile(r"\s*([0-9]+|/\^|>=|<=|!!|kh|kl|dh|dl|ro|[-+*/()d%!><=kr]|\S)", re.ASCII)
_OPS = frozenset(
    ["/^", ">=", "<=", "!!", "kh", "kl", "dh", "dl", "ro", *"-+*/()d%!><=kr"]
)
_NUM = "#"
"""What a number token looks like to the grammar."""
_ADD: dict[str | None, BinaryOp] = {"+": "+", "-": "-"}
_MUL: dict[str | None, BinaryOp] = {"*": "*", "/": "/", "/^": "/^"}
_COMPARE: dict[str | None, CompareOp] = {">": ">", ">=": ">=", "<": "<", "<=": "<=", "=": "="}
_KEEP: dict[str | None, KeepKind] = {"k": "kh", "kh": "kh", "kl": "kl", "dh": "dh", "dl": "dl"}
_MODIFIER = frozenset(["r", "ro", "!", "!!", *_KEEP, *_COMPARE])
_TOO_LONG = 10  # digits: anything longer is certainly above limits.MAX_NUMBER

# A sum of simple terms, one match per term: (sign, count, faces, keep kind, keep count,
# number, junk). Letters may be either case, numbers have at most 9 digits; anything else
# shows up as junk, a missing or extra sign, or a longer number split in two, and the
# parser proper takes over. Text without spaces (the usual case) skips the whitespace
# handling; any other whitespace in it is junk, which is merely slower.
_SIMPLE_PART_SPACED = re.compile(
    r"\s*([-+]?)\s*(?:([0-9]{1,9})?\s*[dD]\s*([0-9]{1,9}|%)"
    r"(?:\s*([kK][hHlL]?|[dD][hHlL])\s*([0-9]{1,9}))?|([0-9]{1,9}))|(\S)",
    re.ASCII,
)
_SIMPLE_PART = re.compile(
    r"([-+]?)(?:([0-9]{1,9})?[dD]([0-9]{1,9}|%)"
    r"(?:([kK][hHlL]?|[dD][hHlL])([0-9]{1,9}))?|([0-9]{1,9}))|(.)",
    re.DOTALL | re.ASCII,
)


class _Parser:
    __slots__ = ("depth", "peeks", "pos", "terms", "text", "tokens")

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[str] = _TOKEN.findall(text)
        # What the grammar sees of each token ("#" for a number), then None at the end.
        peeks: list[str | None] = []
        ops = _OPS
        for tok in self.tokens:
            if tok in ops:
                peeks.append(tok)
            elif "0" <= tok[0] <= "9":
                peeks.append(_NUM)
            else:
                raise DiceSyntaxError(
                    f"unexpected character {tok!r}", text, self._start(len(peeks))
                )
        peeks.append(None)
        self.peeks = peeks
        self.pos = 0
        self.depth = 0
        self.terms = 0

    # -- token helpers -------------------------------------------------------------------
    def _start(self, index: int) -> int:
        """The column where token ``index`` starts (the end of the text past the last)."""
        starts = [m.start(1) for m in _TOKEN.finditer(self.text)]
        return starts[index] if index < len(starts) else len(self.text)

    def _shown(self) -> str:
        if self.pos < len(self.tokens):
            return repr(self.tokens[self.pos])
        return "the end"

    def _fail(self, message: str) -> DiceSyntaxError:
        return DiceSyntaxError(message, self.text, self._start(self.pos))

    def _number(self, what: str, after: str = "") -> int:
        """The number at the cursor; ``what`` (formatted with ``after``) names it in errors."""
        pos = self.pos
        if self.peeks[pos] != _NUM:
            raise self._fail(f"expected {what.format(after)}, found {self._shown()}")
        digits = self.tokens[pos]
        value = int(digits) if len(digits) <= _TOO_LONG else limits.MAX_NUMBER + 1
        if value > limits.MAX_NUMBER:
            raise DiceLimitError(
                f"number {digits[:12]}{'…' if len(digits) > 12 else ''} is larger than "
                f"the limit of {limits.MAX_NUMBER:,}"
            )
        self.pos = pos + 1
        return value

    def _count_term(self) -> None:
        self.terms += 1
        if self.terms > limits.MAX_TERMS:
            raise DiceLimitError(f"more than {limits.MAX_TERMS} terms in one expression")

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > limits.MAX_DEPTH:
            raise DiceLimitError(f"expression nests deeper than {limits.MAX_DEPTH} levels")

    # -- grammar -------------------------------------------------------------------------
    def parse(self) -> Node:
        if len(self.peeks) == 1:
            raise DiceSyntaxError("empty dice expression", self.text, 0)
        node = self.expr()
        tok = self.peeks[self.pos]
        if tok is not None:
            if tok == ")":
                raise self._fail("unbalanced ')'")
            raise self._fail(f"unexpected {self._shown()}")
        return node

    def expr(self) -> Node:
        node = self.term()
        peeks = self.peeks
        while (op := _ADD.get(peeks[self.pos])) is not None:
            self.pos += 1
            node = new_binop(op, node, self.term())
        return node

    def term(self) -> Node:
        peeks = self.peeks
        node = self.unary() if peeks[self.pos] == "-" else self.primary()
        while (op := _MUL.get(peeks[self.pos])) is not None:
            self.pos += 1
            node = new_binop(op, node, self.unary() if peeks[self.pos] == "-" else self.primary())
        return node

    def unary(self) -> Node:
        if self.peeks[self.pos] == "-":
            self.pos += 1
            self._enter()
            node: Node = new_neg(self.unary())
            self.depth -= 1
            return node
        return self.primary()

    def primary(self) -> Node:
        tok = self.peeks[self.pos]
        if tok == _NUM:
            self._count_term()
            value = self._number("a number")
            if self.peeks[self.pos] == "d":
                self.pos += 1
                return self.dice(value)
            return new_num(value)
        if tok == "d":
            self._count_term()
            self.pos += 1
            return self.dice(1)
        if tok == "(":
            self.pos += 1
            self._enter()
            inner = self.expr()
            if self.peeks[self.pos] != ")":
                raise self._fail("missing ')'")
            self.pos += 1
            self.depth -= 1
            return new_group(inner)
        if tok is None:
            raise self._fail("expression ends too early: expected a number, a die or '('")
        raise self._fail(f"expected a number, a die or '(', found {self._shown()}")

    def _compare(self, default_eq: bool) -> Compare:
        tok = self.peeks[self.pos]
        op = _COMPARE.get(tok)
        if op is not None:
            self.pos += 1
            return new_compare(op, self._number("a number after {!r}", op))
        if default_eq and tok == _NUM:
            return new_compare("=", self._number("a number"))
        raise self._fail("expected a comparison such as '>=7'")

    def dice(self, count: int) -> Dice:
        if count > limits.MAX_DICE_PER_TERM:
            raise DiceLimitError(
                f"{count:,} dice in one term is more than the limit of {limits.MAX_DICE_PER_TERM:,}"
            )
        peeks = self.peeks
        percentile = False
        if peeks[self.pos] == "%":
            self.pos += 1
            faces, percentile = 100, True
        else:
            faces = self._number("the number of faces after 'd'")
        if faces < 1:
            raise DiceLimitError("a die needs at least 1 face (found d0)")
        if faces > limits.MAX_FACES:
            raise DiceLimitError(
                f"d{faces:,} has more faces than the limit of {limits.MAX_FACES:,}"
            )
        if peeks[self.pos] not in _MODIFIER:
            return new_dice(count, faces, percentile)
        reroll: Compare | None = None
        reroll_once = False
        explode: Compare | None = None
        compound = False
        keep: Keep | None = None
        success: Compare | None = None
        seen: set[str] = set()
        while True:
            tok = peeks[self.pos]
            if tok == "r" or tok == "ro":
                self._once(seen, "reroll")
                self.pos += 1
                reroll, reroll_once = self._compare(default_eq=True), tok == "ro"
                if not reroll_once and reroll.matches_every_face(faces):
                    raise self._fail(f"reroll {reroll.short()} matches every face of d{faces}")
            elif tok == "!" or tok == "!!":
                self._once(seen, "explode")
                self.pos += 1
                compound = tok == "!!"
                nxt = peeks[self.pos]
                if nxt == _NUM or nxt in _COMPARE:
                    explode = self._compare(default_eq=True)
                else:
                    explode = new_compare("=", faces)
                if explode.matches_every_face(faces):
                    raise self._fail(f"explosion {explode} matches every face of d{faces}")
            elif (kind := _KEEP.get(tok)) is not None:
                self._once(seen, "keep or drop")
                self.pos += 1
                keep = new_keep(kind, self._number("how many dice after {!r}", str(tok)))
            elif tok in _COMPARE:
                self._once(seen, "success count")
                success = self._compare(default_eq=False)
            else:
                break
        return new_dice(
            count, faces, percentile, reroll, reroll_once, explode, compound, keep, success
        )

    def _once(self, seen: set[str], what: str) -> None:
        if what in seen:
            raise self._fail(f"{what} given twice on one die")
        seen.add(what)


def _simple_sum(text: str) -> Node | None:
    """The tree of a plain sum such as ``3d8+2d4kh1-7``, or None to use the full parser.

    Gives exactly the tree :class:`_Parser` would give for ``text.lower()``, and None
    whenever the text is not such a sum or comes near any limit (the parser then says
    what is wrong).
    """
    parts = (_SIMPLE_PART_SPACED if " " in text else _SIMPLE_PART).findall(text)
    if not parts or len(parts) > limits.MAX_TERMS:
        return None
    max_number = limits.MAX_NUMBER
    node: Node | None = None
    for sign, count, faces, kind, kept, number, junk in parts:
        if junk or (not sign) != (node is None):
            return None
        term: Node
        if number:
            value = int(number)
            if value > max_number:
                return None
            term = new_num(value)
        else:
            n = int(count) if count else 1
            size = 100 if faces == "%" else int(faces)
            if (
                n > limits.MAX_DICE_PER_TERM
                or n > max_number
                or size > limits.MAX_FACES
                or size > max_number
                or size < 1
            ):
                return None
            keep: Keep | None = None
            if kind:
                how_many = int(kept)
                if how_many > max_number:
                    return None
                keep = new_keep(_KEEP[kind.lower()], how_many)
            term = new_dice(n, size, faces == "%", None, False, None, False, keep)
        node = term if node is None else new_binop(_ADD[sign], node, term)
    return node


def _not_ascii(text: str) -> DiceSyntaxError:
    """The error for the first character of ``text`` outside ASCII."""
    position = next(i for i, ch in enumerate(text) if not ch.isascii())
    ch = text[position]
    what = "not an ASCII digit 0-9" if ch.isdigit() or ch.isnumeric() else "not ASCII"
    return DiceSyntaxError(
        f"unexpected character {ch!r} (U+{ord(ch):04X}, {what}; dice notation is ASCII)",
        text,
        position,
    )


def parse_uncached(text: str) -> Node:
    """:func:`parse` without its cache, for callers that keep their own."""
    if len(text) > limits.MAX_EXPRESSION_LENGTH:
        raise DiceLimitError(
            f"expression is {len(text):,} characters long; the limit is "
            f"{limits.MAX_EXPRESSION_LENGTH}"
        )
    if not text.isascii():  # before lower(), which maps some letters to ASCII ones
        raise _not_ascii(text)
    return _simple_sum(text) or _Parser(text.lower()).parse()


@lru_cache(maxsize=4096)
def parse(text: str) -> Node:
    """Parse dice notation into an expression tree.

    >>> str(parse("4d6 kh3 + d%"))
    '4d6kh3+1d%'
    """
    return parse_uncached(text)
