"""A recursive-descent parser for dice notation (grammar in ``docs/dice.md``).

Every size a user controls is checked against :mod:`arbiter.dice.limits` before it costs
anything, so hostile text fails fast with a message instead of a traceback or a hang.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import cast

from . import limits
from .ast import BinaryOp, BinOp, Compare, CompareOp, Dice, Group, Keep, KeepKind, Neg, Node, Num
from .errors import DiceLimitError, DiceSyntaxError

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+)|(?P<op>/\^|>=|<=|!!|kh|kl|dh|dl|ro|[-+*/()d%!><=kr]))",
)


class _Parser:
    __slots__ = ("depth", "pos", "terms", "text", "tokens")

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []  # (kind, text, position)
        self.pos = 0
        self.depth = 0
        self.terms = 0
        self._tokenize()

    def _tokenize(self) -> None:
        text, i, n = self.text, 0, len(self.text)
        while i < n:
            m = _TOKEN.match(text, i)
            if m is None or m.end() == i:
                if text[i:].strip() == "":
                    break
                j = i
                while j < n and text[j].isspace():
                    j += 1
                raise DiceSyntaxError(f"unexpected character {text[j]!r}", text, j)
            num = m.group("num")
            start = m.start("num") if num is not None else m.start("op")
            if num is not None:
                self.tokens.append(("num", num, start))
            else:
                self.tokens.append(("op", m.group("op"), start))
            i = m.end()

    # -- token helpers -------------------------------------------------------------------
    def _peek(self) -> str | None:
        if self.pos < len(self.tokens):
            kind, tok, _ = self.tokens[self.pos]
            return "#" if kind == "num" else tok
        return None

    def _shown(self) -> str:
        if self.pos < len(self.tokens):
            return repr(self.tokens[self.pos][1])
        return "the end"

    def _where(self) -> int:
        if self.pos < len(self.tokens):
            return self.tokens[self.pos][2]
        return len(self.text)

    def _fail(self, message: str) -> DiceSyntaxError:
        return DiceSyntaxError(message, self.text, self._where())

    def _number(self, what: str) -> int:
        if self.pos >= len(self.tokens) or self.tokens[self.pos][0] != "num":
            raise self._fail(f"expected {what}, found {self._shown()}")
        digits = self.tokens[self.pos][1]
        if len(digits) > 10 or int(digits) > limits.MAX_NUMBER:
            raise DiceLimitError(
                f"number {digits[:12]}{'…' if len(digits) > 12 else ''} is larger than "
                f"the limit of {limits.MAX_NUMBER:,}"
            )
        self.pos += 1
        return int(digits)

    def _count_term(self) -> None:
        self.terms += 1
        if self.terms > limits.MAX_TERMS:
            raise DiceLimitError(f"more than {limits.MAX_TERMS} terms in one expression")

    # -- grammar -------------------------------------------------------------------------
    def parse(self) -> Node:
        if not self.tokens:
            raise DiceSyntaxError("empty dice expression", self.text, 0)
        node = self.expr()
        if self.pos != len(self.tokens):
            tok = self._peek()
            if tok == ")":
                raise self._fail("unbalanced ')'")
            raise self._fail(f"unexpected {self._shown()}")
        return node

    def expr(self) -> Node:
        node = self.term()
        while (tok := self._peek()) in ("+", "-"):
            self.pos += 1
            node = BinOp(cast(BinaryOp, tok), node, self.term())
        return node

    def term(self) -> Node:
        node = self.unary()
        while (tok := self._peek()) in ("*", "/", "/^"):
            self.pos += 1
            node = BinOp(cast(BinaryOp, tok), node, self.unary())
        return node

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > limits.MAX_DEPTH:
            raise DiceLimitError(f"expression nests deeper than {limits.MAX_DEPTH} levels")

    def unary(self) -> Node:
        tok = self._peek()
        if tok == "-":
            self.pos += 1
            self._enter()
            node: Node = Neg(self.unary())
            self.depth -= 1
            return node
        return self.primary()

    def primary(self) -> Node:
        tok = self._peek()
        if tok == "(":
            self.pos += 1
            self._enter()
            inner = self.expr()
            if self._peek() != ")":
                raise self._fail("missing ')'")
            self.pos += 1
            self.depth -= 1
            return Group(inner)
        if tok == "#":
            self._count_term()
            value = self._number("a number")
            if self._peek() == "d":
                self.pos += 1
                return self.dice(value)
            return Num(value)
        if tok == "d":
            self._count_term()
            self.pos += 1
            return self.dice(1)
        if tok is None:
            raise self._fail("expression ends too early: expected a number, a die or '('")
        raise self._fail(f"expected a number, a die or '(', found {self._shown()}")

    def _compare(self, default_eq: bool) -> Compare:
        tok = self._peek()
        if tok in (">", ">=", "<", "<=", "="):
            self.pos += 1
            return Compare(cast(CompareOp, tok), self._number(f"a number after {tok!r}"))
        if default_eq and tok == "#":
            return Compare("=", self._number("a number"))
        raise self._fail("expected a comparison such as '>=7'")

    def dice(self, count: int) -> Dice:
        if count > limits.MAX_DICE_PER_TERM:
            raise DiceLimitError(
                f"{count:,} dice in one term is more than the limit of {limits.MAX_DICE_PER_TERM:,}"
            )
        percentile = False
        if self._peek() == "%":
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
        reroll: Compare | None = None
        reroll_once = False
        explode: Compare | None = None
        compound = False
        keep: Keep | None = None
        success: Compare | None = None
        seen: set[str] = set()
        while True:
            tok = self._peek()
            if tok in ("r", "ro"):
                self._once(seen, "reroll")
                self.pos += 1
                reroll, reroll_once = self._compare(default_eq=True), tok == "ro"
                if not reroll_once and len(reroll.faces_matching(faces)) == faces:
                    raise self._fail(f"reroll {reroll.short()} matches every face of d{faces}")
            elif tok in ("!", "!!"):
                self._once(seen, "explode")
                self.pos += 1
                compound = tok == "!!"
                if self._peek() in (">", ">=", "<", "<=", "=", "#"):
                    explode = self._compare(default_eq=True)
                else:
                    explode = Compare("=", faces)
                if len(explode.faces_matching(faces)) == faces:
                    raise self._fail(f"explosion {explode} matches every face of d{faces}")
            elif tok in ("k", "kh", "kl", "dh", "dl"):
                self._once(seen, "keep or drop")
                self.pos += 1
                kind = cast(KeepKind, "kh" if tok == "k" else tok)
                keep = Keep(kind, self._number(f"how many dice after {tok!r}"))
            elif tok in (">", ">=", "<", "<=", "="):
                self._once(seen, "success count")
                success = self._compare(default_eq=False)
            else:
                break
        return Dice(count, faces, percentile, reroll, reroll_once, explode, compound, keep, success)

    def _once(self, seen: set[str], what: str) -> None:
        if what in seen:
            raise self._fail(f"{what} given twice on one die")
        seen.add(what)


@lru_cache(maxsize=4096)
def parse(text: str) -> Node:
    """Parse dice notation into an expression tree.

    >>> str(parse("4d6 kh3 + d%"))
    '4d6kh3+1d%'
    """
    if len(text) > limits.MAX_EXPRESSION_LENGTH:
        raise DiceLimitError(
            f"expression is {len(text):,} characters long; the limit is "
            f"{limits.MAX_EXPRESSION_LENGTH}"
        )
    return _Parser(text.lower()).parse()
