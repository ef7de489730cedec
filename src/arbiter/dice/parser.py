"""A recursive-descent parser for dice notation (grammar in ``docs/dice.md``).

Every size a user controls is checked against :mod:`arbiter.dice.limits` before it costs
anything, so hostile text fails fast with a message instead of a traceback or a hang.

The text is split into tokens by one ``findall``; each token's position in the text is
only worked out when a message needs it. The commonest shape of all, a sum of numbers and
dice with at most a keep or drop each (``1d20+5``, ``4d6kh3 + 2``), is read by one regular
expression without the descent; anything else, and anything near a limit, goes through the
parser proper, which gives the same tree or says what is wrong.

A dialect (:mod:`arbiter.dice.dialects`) changes what some spellings mean; the trees are
the same kind whatever the dialect, and ``str(tree)`` is always Arbiter's spelling.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from . import limits
from .ast import (
    PAIRS,
    ROUNDING,
    BinaryOp,
    BinOp,
    Comment,
    Compare,
    CompareOp,
    Comparison,
    Dice,
    DieKind,
    Func,
    FuncName,
    Group,
    Keep,
    KeepKind,
    Label,
    Neg,
    Node,
    Num,
    Points,
    RelationOp,
    RollGroup,
    Select,
    SortOrder,
    absorbs_comparison,
    children,
    new_binop,
    new_compare,
    new_dice,
    new_group,
    new_keep,
    new_neg,
    new_num,
    new_points,
)
from .bounds import explosions_allowed
from .dialects import ARBITER, Dialect, dialect
from .errors import DiceError, DiceLimitError, DiceSyntaxError

# One token per match, after optional ASCII whitespace: a label, a comment, a number, a
# word or operator, or (last) any other single character, which the grammar refuses as
# unexpected where it meets it. Matching is ASCII-only and ignores case, so that no letter
# outside ASCII (the Kelvin sign, say) can pass for one inside it; labels and comments keep
# their text as written.
_WORDS = (  # (!o before dd is ! and odd: 1d6!odd explodes and counts the odd dice)
    r"floor|ceil|round|trunc|abs|rem|min|max|even|odd|/\^|>=|<=|<>|==|!!|!p|!o(?!dd)|"
    r"kh|kl|dh|dl|ro|rr|ra|mi|ma|cs|cf|sf|ms|sa|sd|xo|ph|pl"
)
_SINGLE = r"[-+*/%()d!><=krfsxeptF{},]"
_TOKEN = re.compile(
    rf"(\s*)(\[[^\]]*\]|#.*|[0-9]+|{_WORDS}|{_SINGLE}|\S)", re.ASCII | re.IGNORECASE | re.DOTALL
)
_TOKEN_D20 = re.compile(
    rf"(\s*)(\[[^\]]*\]|#.*|[0-9]+|!=|//|{_WORDS}|{_SINGLE}|\S)",
    re.ASCII | re.IGNORECASE | re.DOTALL,
)
_NUM = "<number>"
_LABEL = "<label>"
_COMMENT = "<comment>"
_JUNK = "<junk>"
_TEXT = "<text>"
"""A word after a space that is no token (Roll20 and d20 read the rest as a comment)."""
_WORD = re.compile(r"[A-Za-z]+", re.ASCII)
_COMMON = frozenset(
    ["floor", "ceil", "round", "trunc", "abs", "rem", "min", "max", "/^", ">=", "<=", "<>",
     "==", "!!", "!p", "!o", "kh", "kl", "dh", "dl", "ro", "rr", "mi", "ma", "cs", "cf",
     "sa", "sd", *"-+*/%()d!><=krfst{},"]
)
_LETTER_TOKENS = frozenset(
    ["floor", "ceil", "round", "trunc", "abs", "rem", "min", "max", "kh", "kl", "dh", "dl",
     "ro", "rr", "ra", "mi", "ma", "cs", "cf", "sa", "sd", "ph", "pl", "d", "k", "r", "f", "s",
     "t", "e", "p", "x", "xo"]
)
_ONLY = {
    "arbiter": frozenset(["sf", "even", "odd"]),
    "foundry": frozenset(["x", "xo", "sf", "ms", "even", "odd"]),
    "d20": frozenset(["e", "ra", "p", "ph", "pl", "!=", "//"]),
}
"""Tokens that only some dialects read; anywhere else they are unexpected characters."""
_PEEKS: dict[str, dict[str, str]] = {
    name: {tok: tok for tok in _COMMON | _ONLY.get(name, frozenset())}
    for name in ("arbiter", "roll20", "foundry", "d20")
}
"""What the grammar sees of each token a dialect reads (numbers, labels, comments and
anything else are told apart by their first character)."""
_ADD: dict[str | None, BinaryOp] = {"+": "+", "-": "-"}
_MUL = frozenset(["*", "/", "/^", "%", "//"])
_COMPARE: dict[str | None, CompareOp] = {
    ">": ">", ">=": ">=", "<": "<", "<=": "<=", "=": "=", "==": "="
}
_RELATION: dict[str | None, RelationOp] = {
    ">": ">", ">=": ">=", "<": "<", "<=": "<=", "=": "=", "==": "=", "<>": "<>", "!=": "<>"
}
_INCLUSIVE: dict[str, CompareOp] = {">": ">=", "<": "<="}
"""Roll20 reads ``>N`` as at least N and ``<N`` as at most N (``Dialect.inclusive_points``),
in compare points and comparisons of totals alike."""
_COMPARES: tuple[dict[str | None, CompareOp], dict[str | None, CompareOp]] = (
    _COMPARE, {k: _INCLUSIVE.get(v, v) for k, v in _COMPARE.items()})
"""The compare points' operators, by ``Dialect.inclusive_points``."""
_RELATIONS: tuple[dict[str | None, RelationOp], dict[str | None, RelationOp]] = (
    _RELATION, {k: _INCLUSIVE.get(v, v) for k, v in _RELATION.items()})  # type: ignore[misc]
"""The comparisons' operators, by ``Dialect.inclusive_points``."""
_KEEP: dict[str | None, KeepKind] = {"kh": "kh", "kl": "kl", "dh": "dh", "dl": "dl",
                                     "ph": "dh", "pl": "dl"}
_FUNCS: frozenset[str | None] = frozenset(["floor", "ceil", "round", "trunc", "abs", "rem"])
_SET_OPS = frozenset(["k", "kh", "kl", "p", "ph", "pl"])
_TOO_LONG = 10  # digits: anything longer is certainly above limits.MAX_NUMBER

# Where each modifier comes in Arbiter's fixed order (0: anywhere, it changes no total).
_RANK = {"reroll": 1, "explode": 2, "minimum": 3, "maximum": 3, "keep or drop": 4,
         "success count": 5, "failure count": 5, "critical success": 0,
         "critical failure": 0, "sort": 0, "margin of success": 0}
_RANK_WORDS = {1: "rerolls", 2: "explosions", 3: "minimums and maximums",
               4: "keeping and dropping", 5: "counting successes and failures"}

# A plain sum is split at its signs, and each term read by one regular expression: a
# number or a dice term with at most a keep or drop, letters in either case, numbers of at
# most 9 digits, ASCII whitespace anywhere but inside a number or a word. Each term is read
# once and kept by its text (_TERMS: issue 35, a term read before costs a lookup instead
# of about a microsecond). Anything else, and anything near a limit, goes to the parser
# proper, which gives the same tree or says what is wrong.
# Measured for issue 19 (best of 3, old and new alternating): bench/dice.py's first
# parse+roll of a new expression takes 12.3-13.1 µs with this path and 22.5-24.1 µs
# without it (a 42% gain); parse_uncached alone is about 3x faster (1.8 against 5.4 µs for
# "1d20+5", 2.6 against 9.3 µs for "3d6+2d4-1"). Kept. (Cached rolls never parse.)
_SIGNS = re.compile("([-+])")
_SIMPLE_TERM = re.compile(
    r"\s*(?:([0-9]{1,9})?\s*[dD]\s*([0-9]{1,9}|%)"
    r"(?:\s*([kK][hHlL]?|[dD][hHlL])\s*([0-9]{1,9}))?|([0-9]{1,9}))\s*",
    re.ASCII,
)
_SIMPLE_TERM_TIGHT = re.compile(  # the same without whitespace: twice as fast
    r"(?:([0-9]{1,9})?[dD]([0-9]{1,9}|%)(?:([kK][hHlL]?|[dD][hHlL])([0-9]{1,9}))?"
    r"|([0-9]{1,9}))",
    re.ASCII,
)
_SIMPLE_KEEP: dict[str, KeepKind] = {"k": "kh", "kh": "kh", "kl": "kl", "dh": "dh", "dl": "dl"}
_SIMPLE_LETTERS = str.maketrans("", "", "0123456789dDkKhHlL%+- \t\n\r\f\v")
"""Deletes every character a plain sum (:data:`_SIMPLE_TERM`) may hold."""


class _Mods:
    """The modifiers of one dice term (or group) as they are read."""

    __slots__ = (
        "crit_failure",
        "crit_success",
        "explode",
        "failure",
        "failure_how",
        "keep",
        "last",
        "margin",
        "maximum",
        "minimum",
        "mode",
        "rank",
        "reroll",
        "reroll_once",
        "seen",
        "select",
        "sort",
        "subtract",
        "success",
    )

    def __init__(self) -> None:
        self.reroll: Compare | Points | None = None
        self.reroll_once = False
        self.explode: Compare | None = None
        self.mode = "!"
        self.minimum: int | None = None
        self.maximum: int | None = None
        self.keep: Keep | None = None
        self.select: Select | None = None
        self.success: Compare | None = None
        self.failure: Compare | None = None
        self.failure_how = ""  # "f" (needs a success count), "df" or "sf"
        self.subtract = False
        self.margin: tuple[bool, int] | None = None  # (total minus the target?, target)
        self.crit_success: Compare | None = None
        self.crit_failure: Compare | None = None
        self.sort: SortOrder = ""
        self.seen: set[str] = set()
        self.rank = 0
        self.last = ""


class _Parser:
    __slots__ = (
        "bare_division", "depth", "dialect", "peeks", "pos", "raw", "rounding", "spaces",
        "starts", "terms", "text", "token_re", "tokens",
    )

    def __init__(self, text: str, dialect: Dialect) -> None:
        self.text = text
        self.dialect = dialect
        self.token_re = _TOKEN_D20 if dialect.not_equal_bang else _TOKEN
        pairs: list[tuple[str, str]] = self.token_re.findall(text)
        self.spaces = [ws for ws, _ in pairs]
        self.raw = raws = [tok for _, tok in pairs]
        self.starts: list[int] | None = None  # worked out when a message needs them
        # What the grammar sees of each token, then None at the end.
        tokens: list[str] = []
        peeks: list[str | None] = []
        known = _PEEKS[dialect.name]
        trailing = dialect.trailing_text
        for i, raw in enumerate(raws):
            # (only ASCII is lowercased: the Kelvin sign, say, lowercases to an ASCII k)
            tok = raw.lower() if raw.isascii() else raw
            tokens.append(tok)
            peek = known.get(tok)
            if trailing and i and self.spaces[i] and raw[0].isalpha():
                # after a space, a word that is no token of the notation starts a comment
                word = _WORD.match(text, self._start(i))
                if word is not None and word.group(0).lower() not in _LETTER_TOKENS:
                    peek = _TEXT
            if peek is None:
                first = tok[0]
                if "0" <= first <= "9":
                    peek = _NUM
                elif first == "[" and len(tok) > 1:
                    peek = _LABEL
                elif first == "#":
                    peek = _COMMENT
                else:
                    peek = _JUNK
            peeks.append(peek)
        if dialect.name == "d20":
            # d20 has no **: after a space it starts a comment (1d20 **bold**), as there
            # a word that is no token does
            for i in range(len(tokens) - 1):
                if tokens[i] == "*" and tokens[i + 1] == "*" and not self.spaces[i + 1]:
                    peeks[i] = _TEXT
        peeks.append(None)
        self.tokens = tokens
        self.peeks = peeks
        self.pos = 0
        self.depth = 0
        self.terms = 0
        self.rounding = 0  # rounding functions around the cursor
        self.bare_division = False  # a "/" outside every rounding function

    # -- token helpers -------------------------------------------------------------------
    def _start(self, index: int) -> int:
        """The column where token ``index`` starts (the end of the text past the last)."""
        starts = self.starts
        if starts is None:
            starts = []
            at = 0
            for ws, raw in zip(self.spaces, self.raw, strict=True):
                at += len(ws)
                starts.append(at)
                at += len(raw)
            self.starts = starts
        return starts[index] if index < len(starts) else len(self.text)

    def _shown(self) -> str:
        if self.pos < len(self.tokens):
            return repr(self.raw[self.pos])
        return "the end"

    def _fail(self, message: str) -> DiceSyntaxError:
        return DiceSyntaxError(message, self.text, self._start(self.pos))

    def _junk(self) -> DiceSyntaxError:
        """The error for the unexpected token at the cursor."""
        raw = self.raw[self.pos]
        if raw == "[":
            return self._fail("a label opened with '[' is never closed with ']'")
        ch = raw[0]
        if not ch.isascii():
            what = "not an ASCII digit 0-9" if ch.isdigit() or ch.isnumeric() else "not ASCII"
            return self._fail(
                f"unexpected character {ch!r} (U+{ord(ch):04X}, {what}; dice notation is ASCII)"
            )
        if len(raw) == 1:
            return self._fail(f"unexpected character {raw!r}")
        return self._fail(f"unexpected {raw!r}")

    def _unexpected(self, expected: str) -> DiceSyntaxError:
        if self.peeks[self.pos] == _JUNK:
            return self._junk()
        return self._fail(f"expected {expected}, found {self._shown()}")

    def _number(self, what: str, after: str = "") -> int:
        """The number at the cursor; ``what`` (formatted with ``after``) names it in errors."""
        pos = self.pos
        if self.peeks[pos] != _NUM:
            raise self._unexpected(what.format(after))
        digits = self.tokens[pos]
        value = int(digits) if len(digits) <= _TOO_LONG else limits.MAX_NUMBER + 1
        if value > limits.MAX_NUMBER:
            raise DiceLimitError(
                f"number {digits[:12]}{'…' if len(digits) > 12 else ''} is larger than "
                f"the limit of {limits.MAX_NUMBER:,}"
            )
        self.pos = pos + 1
        return value

    def _signed(self, what: str, after: str = "") -> int:
        if self.peeks[self.pos] == "-":
            self.pos += 1
            return -self._number(what, after)
        return self._number(what, after)

    def _count_term(self) -> None:
        self.terms += 1
        if self.terms > limits.MAX_TERMS:
            raise DiceLimitError(f"more than {limits.MAX_TERMS} terms in one expression")

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > limits.MAX_DEPTH:
            raise DiceLimitError(f"expression nests deeper than {limits.MAX_DEPTH} levels")

    def _expect(self, tok: str, message: str) -> None:
        if self.peeks[self.pos] != tok:
            if self.peeks[self.pos] == _JUNK:
                raise self._junk()
            raise self._fail(message)
        self.pos += 1

    # -- grammar -------------------------------------------------------------------------
    def parse(self) -> Node:
        if len(self.peeks) == 1:
            raise DiceSyntaxError("empty dice expression", self.text, 0)
        if self.peeks[0] == _COMMENT:
            raise DiceSyntaxError("a comment needs an expression before it", self.text, 0)
        node = self.relation()
        if self.dialect.rounding and self.bare_division:
            rounding: FuncName = "floor" if self.dialect.rounding == "floor" else "trunc"
            node = Func(rounding, (node,))
        tok = self.peeks[self.pos]
        if tok == _COMMENT:
            return Comment(node, self._comment(self.raw[self.pos][1:]))
        if tok is not None:
            start = self._start(self.pos)
            if self.dialect.trailing_text and start > 0 and self.text[start - 1].isspace():
                return Comment(node, self._comment(self.text[start:]))
            if tok == ")":
                raise self._fail("unbalanced ')'")
            if tok == _JUNK:
                raise self._junk()
            raise self._fail(f"unexpected {self._shown()}")
        return node

    def _comment(self, text: str) -> str:
        text = text.strip()
        for ch in text:
            if not ch.isprintable():
                raise self._fail(
                    f"a comment may not contain the character {ch!r} (U+{ord(ch):04X})"
                )
        return text

    def relation(self) -> Node:
        left = self.expr()
        op = _RELATIONS[self.dialect.inclusive_points].get(self.peeks[self.pos])
        if op is None:
            return left
        self.pos += 1
        if op != "<>" and absorbs_comparison(left):
            left = Group(left)  # as Arbiter spells it: (3d6)>=10 compares the total
        right = self.expr()
        if self.peeks[self.pos] in _RELATION:
            raise self._fail("comparisons cannot be chained; use parentheses")
        return Comparison(op, left, right)

    def expr(self) -> Node:
        node = self.term()
        peeks = self.peeks
        while (op := _ADD.get(peeks[self.pos])) is not None:
            self.pos += 1
            node = new_binop(op, node, self.term())
        return node

    def term(self) -> Node:
        peeks = self.peeks
        node = self.unary() if peeks[self.pos] in ("-", "+") else self.postfix()
        while (op := peeks[self.pos]) in _MUL:
            self.pos += 1
            right = self.unary() if peeks[self.pos] in ("-", "+") else self.postfix()
            node = self._binary(op, node, right)
        return node

    def _binary(self, op: str | None, left: Node, right: Node) -> Node:
        if op == "/":
            if self.rounding == 0:
                self.bare_division = True
            return new_binop("/", left, right)
        if op == "//":  # d20: floor division
            return Func("floor", (new_binop("/", left, right),))
        if op == "%":
            if self.dialect.js_remainder and not (never_negative(left) and never_negative(right)):
                return Func("rem", (left, right))
            return new_binop("%", left, right)
        return new_binop("*" if op == "*" else "/^", left, right)

    def unary(self) -> Node:
        tok = self.peeks[self.pos]
        if tok == "-" or tok == "+":
            self.pos += 1
            self._enter()
            inner = self.unary()
            self.depth -= 1
            return new_neg(inner) if tok == "-" else inner
        return self.postfix()

    def postfix(self) -> Node:
        node = self.primary()
        if self.peeks[self.pos] == _LABEL:
            text = self.raw[self.pos][1:-1]
            for ch in text:
                if not ch.isprintable():
                    raise self._fail(
                        f"a label may not contain the character {ch!r} (U+{ord(ch):04X})"
                    )
            self.pos += 1
            if self.peeks[self.pos] == _LABEL:
                raise self._fail("a term has at most one label")
            node = Label(node, text)
        return node

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
            return self.parenthesis()
        if tok == "{":
            return self.group()
        if tok in _FUNCS:
            return self.function(tok)
        if tok is None:
            raise self._fail("expression ends too early: expected a number, a die or '('")
        if tok == _JUNK:
            raise self._junk()
        raise self._fail(f"expected a number, a die or '(', found {self._shown()}")

    def parenthesis(self) -> Node:
        self.pos += 1
        self._enter()
        members = [self.relation()]
        comma = False
        while self.dialect.sets and self.peeks[self.pos] == ",":
            self.pos += 1
            comma = True
            if self.peeks[self.pos] == ")":
                break
            members.append(self.relation())
        if self.peeks[self.pos] != ")":
            if self.peeks[self.pos] == _JUNK:
                raise self._junk()
            raise self._fail("missing ')'")
        self.pos += 1
        self.depth -= 1
        if self.dialect.sets and (comma or self.peeks[self.pos] in _SET_OPS):
            if not comma and isinstance(members[0], Dice):
                # d20: (4d6)kh3 keeps from the dice, as 4d6kh3 does
                return self.more_modifiers(members[0])
            self._count_term()
            return self.group_modifiers(tuple(members), dice_level=False)
        return new_group(members[0])

    def more_modifiers(self, dice: Dice) -> Dice:
        """Modifiers written after ``(NdX...)``, applied to those dice."""
        mods = _Mods()
        for name, what in (("reroll", "reroll"), ("explode", "explode"),
                           ("minimum", "minimum"), ("maximum", "maximum"),
                           ("keep", "keep or drop"), ("select", "keep or drop"),
                           ("success", "success count"), ("failure", "failure count"),
                           ("crit_success", "critical success"),
                           ("crit_failure", "critical failure")):
            if getattr(dice, name) is not None:
                mods.seen.add(what)
                mods.rank = max(mods.rank, _RANK[what])
        mods.last = str(dice)
        self.modifiers(mods, dice.faces, dice.kind, dice.percentile, dice.count)
        return replace(dice, keep=dice.keep or mods.keep, select=dice.select or mods.select,
                       sort=dice.sort or mods.sort)

    def group(self) -> Node:
        self._count_term()
        self.pos += 1
        self._enter()
        members: list[Node] = []
        comma = False
        while True:
            if self.peeks[self.pos] == "}" and members:
                break
            members.append(self.relation())
            if self.peeks[self.pos] == ",":
                self.pos += 1
                comma = True
                continue
            break
        if self.peeks[self.pos] != "}":
            if self.peeks[self.pos] == _JUNK:
                raise self._junk()
            raise self._fail("missing '}'")
        self.pos += 1
        self.depth -= 1
        dice_level = len(members) == 1 and not comma and self.dialect.single_member_dice
        return self.group_modifiers(tuple(members), dice_level)

    def group_modifiers(self, members: tuple[Node, ...], dice_level: bool) -> Node:
        mods = _Mods()
        while True:
            tok = self.peeks[self.pos]
            if (kind := _KEEP.get(tok)) is not None:  # (ph and pl are d20's only)
                self._once(mods, "keep or drop", str(tok))
                self.pos += 1
                mods.keep = new_keep(kind, self._count(str(tok)))
            elif tok == "k" or (tok == "d" and self.peeks[self.pos + 1] == _NUM):
                self._once(mods, "keep or drop", str(tok))
                self.pos += 1
                if self.dialect.k_selects and tok == "k":
                    raise self._fail(
                        "d20's k with a number on a set (keep the members equal to it) has "
                        "no Arbiter spelling; use kh or kl"
                    )
                mods.keep = new_keep("kh" if tok == "k" else "dl", self._count(str(tok)))
            elif tok in _COMPARE and not self.dialect.compares_totals:
                self._once(mods, "success count", str(tok))
                mods.success = self._point(default_eq=False)
            elif tok == "cs" and self.dialect.counting_cs:
                self._once(mods, "success count", "cs")
                self.pos += 1
                mods.success = self._point(default_eq=True)
            elif tok == "f":
                self._once(mods, "failure count", "f")
                self.pos += 1
                mods.failure = self._point(default_eq=True)
            else:
                break
        if mods.failure is not None and mods.success is None:
            raise self._fail("a failure count needs a success count before it, e.g. >=4f1")
        if dice_level and (mods.keep or mods.success):
            self._check_dice_level(members[0])
        return RollGroup(members, dice_level, mods.keep, mods.success, mods.failure)

    def _check_dice_level(self, member: Node) -> None:
        terms: list[Node] = [member]
        while terms:
            node = terms.pop()
            if isinstance(node, BinOp) and node.op == "+":
                terms += [node.left, node.right]
            elif not isinstance(node, Dice):
                raise self._fail(
                    "the modifiers of a group of one expression apply to its dice, so it may "
                    "only add dice terms, such as {4d6+3d8}kh4; to keep or count its total, "
                    "write a comma after it: {1d20+5,}"
                )
            elif not (node.keep is None and node.select is None and node.success is None
                      and node.failure is None):
                raise self._fail(
                    f"{node} keeps or counts its own dice inside a group that keeps or counts "
                    "them all; give the modifiers once, after the group"
                )

    def function(self, name: str | None) -> Node:
        assert name is not None
        self.pos += 1
        self._expect("(", f"expected '(' after {name!r}")
        self._enter()
        rounding = name in ROUNDING
        self.rounding += rounding
        args = [self.relation()]
        if name == "rem":
            self._expect(",", "rem needs two numbers: rem(a, b)")
            args.append(self.relation())
        self.rounding -= rounding
        if self.peeks[self.pos] == ",":
            raise self._fail(f"{name} takes {'two numbers' if name == 'rem' else 'one number'}")
        self._expect(")", "missing ')'")
        self.depth -= 1
        fname: FuncName = name  # type: ignore[assignment]
        return Func(fname, tuple(args))

    def _point(self, default_eq: bool) -> Compare:
        """A compare point: an operator and a number, or (``default_eq``) a bare number
        meaning equality. Roll20 reads ``>N`` as at least N and ``<N`` as at most N."""
        tok = self.peeks[self.pos]
        op = _COMPARES[self.dialect.inclusive_points].get(tok)
        if op is not None:
            self.pos += 1
            return new_compare(op, self._signed("a number after {!r}", str(tok)))
        if default_eq and tok == _NUM:
            return new_compare("=", self._number("a number"))
        if tok == _JUNK:
            raise self._junk()
        raise self._fail("expected a comparison such as '>=7'")

    def _optional_point(self, default: int) -> Compare:
        tok = self.peeks[self.pos]
        if tok == _NUM or tok in _COMPARE:
            point = self._point(default_eq=True)
            if point.op == "=" and self.peeks[self.pos] in _COMPARE and self.dialect.explode_x:
                raise self._fail(
                    "Foundry's capped form (a number of times, then a comparison, as in x2>5) "
                    "is not supported; Arbiter bounds every explosion and reroll itself"
                )
            return point
        return new_compare("=", default)

    def _count(self, after: str) -> int:
        """How many dice a keep or drop takes: a number, or 1 when none is written."""
        if self.peeks[self.pos] == _NUM:
            return self._number("how many dice after {!r}", after)
        return 1

    def dice(self, count: int) -> Node:
        if count > limits.MAX_DICE_PER_TERM:
            raise DiceLimitError(
                f"{count:,} dice in one term is more than the limit of {limits.MAX_DICE_PER_TERM:,}"
            )
        peeks = self.peeks
        percentile = False
        kind: DieKind = ""
        tok = peeks[self.pos]
        if tok == "%":
            self.pos += 1
            if self.dialect.tens_percentile:
                faces, kind = 10, "T"
            else:
                faces, percentile = 100, True
        elif tok == "f":
            self.pos += 1
            faces, kind = 3, "F"
        elif tok == "t":
            self.pos += 1
            faces, kind = 10, "T"
        else:
            faces = self._number("the number of faces after 'd'")
        if faces < 1:
            raise DiceLimitError("a die needs at least 1 face (found d0)")
        if faces > limits.MAX_FACES:
            raise DiceLimitError(
                f"d{faces:,} has more faces than the limit of {limits.MAX_FACES:,}"
            )
        mods = _Mods()
        self.modifiers(mods, faces, kind, percentile, count)
        node = new_dice(
            count, faces, percentile, mods.reroll, mods.reroll_once, mods.explode,
            mods.mode == "!!", mods.keep, mods.success, kind, mods.mode == "!p",
            mods.mode == "!o", mods.minimum, mods.maximum, mods.select, mods.failure,
            mods.crit_success, mods.crit_failure, mods.sort, mods.subtract,
        )
        if mods.explode is not None:
            explosions_allowed(node)  # a die that would explode too often is refused now
        if mods.margin is not None:  # Foundry's ms: the term's total against a target
            minus, target = mods.margin
            target_node = new_num(target)
            return new_group(new_binop("-", node, target_node) if minus
                             else new_binop("-", target_node, node))
        return node

    def modifiers(self, mods: _Mods, faces: int, kind: DieKind, percentile: bool,
                  count: int) -> None:
        peeks = self.peeks
        dialect = self.dialect
        lowest = -1 if kind == "F" else 0 if kind == "T" else 1
        highest = 1 if kind == "F" else 90 if kind == "T" else faces

        def every(point: Compare) -> bool:
            return point.matches(lowest) and point.matches(highest)

        while True:
            tok = peeks[self.pos]
            if tok in ("r", "ro", "rr"):
                once = tok == "ro" or (tok == "r" and dialect.reroll_once)
                more = "reroll" in mods.seen and not dialect.written_order
                if more and once != mods.reroll_once:
                    raise self._fail(
                        "several reroll points on one die must all be r or all be ro"
                    )
                if not more:
                    self._once(mods, "reroll", str(tok))
                self.pos += 1
                nxt = peeks[self.pos]
                if dialect.reroll_once and nxt != _NUM and nxt not in _COMPARE:
                    point = new_compare("=", lowest)  # Foundry: the lowest face
                else:
                    point = self._point(default_eq=True)
                    if dialect.reroll_once and point.op == "=" and peeks[self.pos] in _COMPARE:
                        raise self._fail(
                            "Foundry's capped form (a number of times, then a comparison, "
                            "as in r1=1) is not supported; write r or rr with one point"
                        )
                if more:  # Roll20's 1d10r1r3: a roll is rerolled on any of the points
                    old = mods.reroll
                    assert old is not None
                    points = (*(old.points if isinstance(old, Points) else (old,)), point)
                    union = new_points(points)
                    if not once and _every_face(union, faces, kind):
                        raise self._fail(
                            f"rerolls {union.short()} match every face of {_die(faces, kind)}"
                        )
                    mods.reroll = union
                    continue
                if not once and every(point):
                    raise self._fail(
                        f"reroll {point.short()} matches every face of {_die(faces, kind)}"
                    )
                mods.reroll, mods.reroll_once = point, once
            elif tok in ("!", "!!", "!p", "!o", "x", "xo", "e", "ra"):
                self._once(mods, "explode", str(tok))
                if self.raw[self.pos] in ("X", "XO", "Xo", "xO"):
                    raise self._fail("Foundry's X (a big explosion) is not supported; x is")
                self.pos += 1
                mode = {"x": "!", "xo": "!o", "e": "!", "ra": "!o"}.get(str(tok), str(tok))
                if tok == "ra" and count != 1:
                    raise self._fail(
                        "d20's ra adds one die to the whole pool, which has no Arbiter "
                        "spelling for more than one die; !o explodes each die once"
                    )
                if tok in ("e", "ra"):
                    point = self._point(default_eq=True)
                else:
                    point = self._optional_point(highest)
                if mode != "!o" and every(point):
                    raise self._fail(f"explosion {point} matches every face of "
                                     f"{_die(faces, kind)}")
                mods.explode, mods.mode = point, mode
            elif tok in ("min", "mi", "max", "ma"):
                what = "minimum" if tok in ("min", "mi") else "maximum"
                self._once(mods, what, str(tok))
                self.pos += 1
                value = self._signed("a number after {!r}", str(tok))
                if what == "minimum":
                    mods.minimum = value
                else:
                    mods.maximum = value
            elif (kind_ := _KEEP.get(tok)) is not None:  # (ph and pl are d20's only)
                self._once(mods, "keep or drop", str(tok))
                self.pos += 1
                mods.keep = new_keep(kind_, self._count(str(tok)))
            elif tok == "k" or tok == "p":
                self._once(mods, "keep or drop", str(tok))
                self.pos += 1
                nxt = peeks[self.pos]
                if tok == "p" or dialect.k_selects or nxt in _COMPARE:
                    mods.select = Select(tok == "k", self._point(default_eq=True))
                else:
                    mods.keep = new_keep("kh", self._count("k"))
            elif tok == "d":
                nxt = peeks[self.pos + 1]
                if nxt == "f" and (dialect.drop_without_count or dialect is ARBITER):
                    # deduct failures: each counts -1 (after a success count, or instead of
                    # its value)
                    self._once(mods, "failure count", "df")
                    self.pos += 2
                    mods.failure = self._failure_point("df")
                    mods.failure_how = "df"
                    continue
                if nxt != _NUM and nxt not in _COMPARE and not dialect.drop_without_count:
                    break  # not a modifier: the grammar says what is wrong
                self._once(mods, "keep or drop", "d")
                self.pos += 1
                if nxt in _COMPARE:
                    mods.select = Select(False, self._point(default_eq=False))
                else:
                    mods.keep = new_keep("dl", self._count("d"))
            elif tok in _COMPARE and not dialect.compares_totals:
                self._once(mods, "success count", str(tok))
                mods.success = self._point(default_eq=False)
            elif tok == "f":
                self._once(mods, "failure count", "f")
                self.pos += 1
                mods.failure = self._point(default_eq=True)
                mods.failure_how = "f"
            elif tok == "sf":  # subtract failures: each counts minus its value
                self._once(mods, "failure count", "sf")
                self.pos += 1
                mods.failure = self._failure_point("sf")
                mods.failure_how = "sf"
                mods.subtract = True
            elif tok in ("even", "odd"):
                self._once(mods, "success count", str(tok))
                self.pos += 1
                mods.success = new_compare("even" if tok == "even" else "odd", 0)
            elif tok == "ms":  # Foundry: margin of success
                self._once(mods, "margin of success", "ms")
                self.pos += 1
                op = _COMPARE.get(peeks[self.pos])
                if op is not None:
                    self.pos += 1
                if peeks[self.pos] != _NUM:
                    raise self._unexpected("a target number after 'ms', as in 6d6ms>12")
                mods.margin = (op not in ("<", "<="), self._number("a target number"))
            elif tok in ("cs", "cf"):
                self.pos += 1
                if dialect.counting_cs:
                    if mods.success is not None:
                        raise self._fail(
                            "Foundry's cs and cf both count dice; Arbiter counts one point "
                            "(use df to deduct failures)"
                        )
                    self._once(mods, "success count", str(tok))
                    mods.success = self._point(default_eq=True)
                elif tok == "cs":
                    self._once(mods, "critical success", "cs")
                    mods.crit_success = self._point(default_eq=True)
                else:
                    self._once(mods, "critical failure", "cf")
                    mods.crit_failure = self._point(default_eq=True)
            elif tok in ("s", "sa", "sd"):
                self._once(mods, "sort", str(tok))
                self.pos += 1
                mods.sort = "d" if tok == "sd" else "a"
            else:
                break
        if mods.failure_how == "f" and mods.success is None:
            raise self._fail(
                "a failure count needs a success count before it, e.g. >=4f1 (df1 counts "
                "each failure -1 and every other die its value)"
            )
        if mods.keep is not None and mods.select is not None:
            raise self._fail("keep or drop given twice on one die")

    def _failure_point(self, tok: str) -> Compare:
        tok_ = self.peeks[self.pos]
        if tok_ != _NUM and tok_ not in _COMPARE:
            raise self._unexpected(f"a failure point after {tok!r}, as in 6d6{tok}<3")
        return self._point(default_eq=True)

    def _once(self, mods: _Mods, what: str, tok: str) -> None:
        if what in mods.seen:
            raise self._fail(f"{what} given twice on one die")
        mods.seen.add(what)
        rank = _RANK[what]
        if self.dialect.written_order and rank and rank < mods.rank:
            raise self._fail(
                f"in {self.dialect.title} modifiers apply in the order written, and Arbiter "
                f"applies {_RANK_WORDS[rank]} before {_RANK_WORDS[mods.rank]}: write "
                f"{tok!r} before {mods.last!r}"
            )
        if rank > mods.rank:
            mods.rank, mods.last = rank, tok


def _every_face(point: Points, faces: int, kind: DieKind) -> bool:
    if kind:
        values = [-1, 0, 1] if kind == "F" else range(0, 100, 10)
        return all(point.matches(v) for v in values)
    return point.matches_every_face(faces)


def _die(faces: int, kind: DieKind) -> str:
    return f"d{kind}" if kind else f"d{faces}"


def never_negative(node: Node) -> bool:
    """Whether ``node`` can never be below zero (read off its shape, not its odds)."""
    if isinstance(node, Num):
        return node.value >= 0
    if isinstance(node, Dice):
        if node.kind == "F" or node.failure is not None:
            return False
        if node.success is not None:
            return True
        low = node.lowest - (1 if node.penetrate else 0)
        return node.clamp(low) >= 0 and node.clamp(node.lowest) >= 0
    if isinstance(node, Neg):
        return False
    if isinstance(node, BinOp):
        return node.op != "-" and never_negative(node.left) and never_negative(node.right)
    if isinstance(node, Comparison):
        return True
    if isinstance(node, Func):
        return node.name == "abs" or never_negative(node.args[0])
    if isinstance(node, RollGroup):
        if node.failure is not None:
            return False
        return node.success is not None or all(never_negative(m) for m in node.members)
    return all(never_negative(child) for child in children(node))


SimpleTerm = tuple[bool, int, int, int, bool]
"""A dice term of a plain sum as the roller rolls it: (subtracted?, dice, faces, dice kept,
keeping the highest?)."""
_TERMS: dict[str, tuple[Node, int, int, int, bool]] = {}
"""Terms of plain sums read before, by their text (spaces included): a number's node, or a
dice term's node with (dice, faces, dice kept, keeping the highest?). Nodes are immutable,
so trees may share them."""
_TERMS_SIZE = 4096


def _simple_sum(text: str) -> Node | None:
    """The tree of a plain sum such as ``3d8+2d4kh1-7``, or None to use the full parser.

    Gives exactly the tree :class:`_Parser` would give for ``text``, and None whenever the
    text is not such a sum or comes near any limit (the parser then says what is wrong).
    """
    simple = simple_sum(text)
    return None if simple is None else simple[0]


def simple_sum(text: str) -> tuple[Node, list[SimpleTerm], int] | None:
    """:func:`_simple_sum`'s tree, with its dice terms left to right and the sum of its
    numbers (what the roller rolls a plain sum by), read in one pass; None as there."""
    if len(text) > limits.MAX_EXPRESSION_LENGTH or text.translate(_SIMPLE_LETTERS):
        return None  # (a character no plain sum has, as r, !, %, (: the parser, at once)
    parts = _SIGNS.split(text)  # term, sign, term, sign, ..., term
    if len(parts) >= 2 * limits.MAX_TERMS:
        return None
    known = _TERMS
    node: Node | None = None
    terms: list[SimpleTerm] = []
    constant = 0
    minus = False
    for i in range(0, len(parts), 2):
        piece = parts[i]
        read = known.get(piece)
        if read is None:
            read = _simple_term(piece)
            if read is None:
                return None
            if len(known) >= _TERMS_SIZE:
                known.clear()
            known[piece] = read
        term, n, size, kept, highest = read
        if i:
            minus = parts[i - 1] == "-"
        if type(term) is Num:
            constant += -term.value if minus else term.value
        else:
            terms.append((minus, n, size, kept, highest))
        node = term if node is None else new_binop("-" if minus else "+", node, term)
    assert node is not None
    return node, terms, constant


def _simple_term(text: str) -> tuple[Node, int, int, int, bool] | None:
    """One term of a plain sum (a number, or ``NdX`` with at most a keep or drop), as
    :data:`_TERMS` keeps it; None if it is no such term or comes near a limit."""
    match = _SIMPLE_TERM_TIGHT.fullmatch(text) or _SIMPLE_TERM.fullmatch(text)
    if match is None:
        return None
    count, faces, kind, kept, number = match.groups()
    max_number = limits.MAX_NUMBER
    if number:
        value = int(number)
        return None if value > max_number else (new_num(value), 0, 0, 0, False)
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
        keep = new_keep(_SIMPLE_KEEP[kind.lower()], how_many)
    node = new_dice(n, size, faces == "%", None, False, None, False, keep)
    highest, n_kept = keep.kept_highest(n) if keep is not None else (True, n)
    return node, n, size, n_kept, highest


# -- adv and dis -------------------------------------------------------------------------
#
# Avrae (the d20 library's bot) reads ``adv`` or ``dis`` as a word anywhere in a roll as
# advantage or disadvantage: the word is taken out and a leading 1d20 becomes 2d20kh1 (or
# 2d20kl1), the keep applied before anything else written on it (d20's ast_adv_copy).
# Roll20 has no such word (its notation writes 2d20kh1): there it would be read as the
# comment after the roll and the advantage silently lost, so it is refused, saying what to
# write. Arbiter and Foundry have no comments after a space: the word is unexpected there.
_ADV_WORD = re.compile(r"(?:^|(?<=\s))(adv|dis)(?=\s|$)", re.ASCII | re.IGNORECASE)
_LABELS = re.compile(r"\[[^\]]*\]")


def _advantage_word(text: str) -> re.Match[str] | None:
    """The first ``adv`` or ``dis`` standing as a word outside labels, if any."""
    lower = text.lower()
    if "adv" not in lower and "dis" not in lower:
        return None
    blanked = _LABELS.sub(lambda m: " " * len(m.group(0)), text)
    return _ADV_WORD.search(blanked)


def _with_advantage(text: str, spec: Dialect, word: re.Match[str]) -> Node:
    """``text`` read in ``spec`` with its ``adv``/``dis`` (``word``) as that notation means
    it (see above)."""
    kind = word.group(1).lower()
    if spec.name != "d20":
        better = "2d20kh1" if kind == "adv" else "2d20kl1"
        raise DiceSyntaxError(
            f"{spec.title} has no {kind!r} (it would be read as a comment and the "
            f"{'advantage' if kind == 'adv' else 'disadvantage'} lost): write {better} for "
            "the d20",
            text, word.start(1),
        )
    words = [m for m in _ADV_WORD.finditer(_LABELS.sub(lambda m: " " * len(m.group(0)), text))]
    if len({m.group(1).lower() for m in words}) > 1:
        raise DiceSyntaxError("both 'adv' and 'dis' are given; give one", text, words[1].start(1))
    rest = text
    for m in reversed(words):  # take each word out, with the space after it
        end = m.end(1)
        while end < len(rest) and rest[end].isspace():
            end += 1
        rest = rest[: m.start(1)] + rest[end:]
    rest = rest.strip()
    if not rest:
        raise DiceSyntaxError(f"{kind!r} needs a roll with it, as in '1d20+5 {kind}'", text,
                              word.start(1))
    node = parse_uncached(rest, spec)
    keep = new_keep("kh" if kind == "adv" else "kl", 1)
    changed = _leading_d20(node, keep)
    if changed is None:
        raise DiceSyntaxError(
            f"{kind!r} gives advantage or disadvantage to a leading 1d20, and "
            f"{str(node)[:40]!r} does not start with a plain one (d20 leaves any other "
            "roll as it is, and keeps first on a 1d20 with rerolls or explosions, where "
            "Arbiter keeps after them): write 2d20kh1 or 2d20kl1 where the d20 is",
            text, word.start(1),
        )
    return changed


def _leading_d20(node: Node, keep: Keep) -> Node | None:
    """``node`` with its leftmost term, a plain 1d20, rolled twice keeping ``keep``; None
    when the leftmost term is no such die (a minimum or maximum on it is kept: clamping
    each die and keeping the highest is clamping the highest)."""
    if isinstance(node, Comment | Label):
        inner = _leading_d20(node.inner, keep)
        return None if inner is None else replace(node, inner=inner)
    if isinstance(node, PAIRS):
        left = _leading_d20(node.left, keep)
        return None if left is None else replace(node, left=left)
    if isinstance(node, Group):
        inner = _leading_d20(node.inner, keep)
        return None if inner is None else replace(node, inner=inner)
    if isinstance(node, Neg):
        operand = _leading_d20(node.operand, keep)
        return None if operand is None else replace(node, operand=operand)
    if (
        isinstance(node, Dice) and node.count == 1 and node.faces == 20 and not node.kind
        and not node.percentile and replace(node, minimum=None, maximum=None,
                                            crit_success=None, crit_failure=None)
        == Dice(1, 20)
    ):
        return replace(node, count=2, keep=keep)
    return None


# Short expressions of a few dice terms with bare reroll points, a minimum or a maximum,
# even or odd counts, critical marks and sort orders, and numbers, joined by + - * / %,
# rounding functions, rem() and one comparison (Roll20's 1d10r1r3, d20's 1d20mi10+5 and
# 1d20/2+1d6/3, 2d20%7, rem(2d6-9,4), 1d20+5>=2d6+8, and d20's plain sums, which
# _simple_sum leaves to the parser for d20's d%): read a term at a time by one regular
# expression into the tree the parser gives, by the same rules (each dialect's r, d%, /
# and % from its Dialect), at a few tens of microseconds where the parser's first run in a
# process costs about 60-100 (issue 35). Anything else (spaces, labels, groups, unary
# signs, explosions, keeps, a comparison a success count could take...) is left to the
# parser. tests/dice/test_cold_paths.py checks on random expressions, in every dialect,
# that the trees are the parser's.
#
# At most MODIFIED_TERMS terms (dice and numbers) of at most MODIFIED_DICE dice of at most
# MODIFIED_FACES faces (a reroll until matching at most half the faces, so that its
# budget is a few dozen rolls a die), joined by + and -, % and rem() by a number, / by a
# number where it rounds down at once (Arbiter's), and rounding functions of one such
# quotient (floor(3d6/2)), are far inside every limit of the exact odds and the rolls:
# no step has more outcomes than its dice, nor pairs any two of them but in a sum. So are
# divisions by numbers that keep fractions (d20's 1d20/2+1d6/3, rounded once at the end)
# while the dice terms' numbers of totals multiply to at most MODIFIED_FRACTION_PAIRS. For
# such a tree ("bounded") exact.distribution skips the estimate (tested at the largest
# and on every random tree); any other tree is checked as the parser's would be.
_POINT = r"(?:(>=|<=|==|>|<|=)(-?[0-9]{1,3})|([0-9]{1,3}))"  # an operator and a number, or one
_MODIFIED_TERM_TEXT = (
    r"(?:([0-9]{1,2})?d([0-9]{1,3}|%)((?:r[or]?[0-9]{1,3})*)"
    r"(?:(mi|min)(-?[0-9]{1,3}))?(?:(ma|max)(-?[0-9]{1,3}))?"
    r"(?:k(>=|<=|==|>|<|=)(-?[0-9]{1,3}))?"  # a select
    r"(?:(even|odd)|(>=|<=|==|>|<|=)(-?[0-9]{1,3}))?"  # a success count
    rf"(?:(sf|df|f){_POINT})?"  # a failure count
    rf"(?:cs{_POINT})?(?:cf{_POINT})?(sd|sa|s)?"
    r"|([0-9]{1,6}))"
)
_MODIFIED_TERM = re.compile(_MODIFIED_TERM_TEXT, re.ASCII | re.IGNORECASE)
_MODIFIED_SIGNED_TERM = re.compile(r"([-+]?)" + _MODIFIED_TERM_TEXT, re.ASCII | re.IGNORECASE)
"""A term and the sign before it, for a plain sum read in one loop."""
_MODIFIED_FUNC = re.compile(r"(floor|ceil|round|trunc|abs|rem)\(", re.ASCII | re.IGNORECASE)
_MODIFIED_RELATION = re.compile(r">=|<=|<>|==|>|<|=")
_MODIFIED_REROLL = re.compile(r"(r[or]?)([0-9]+)", re.ASCII | re.IGNORECASE)
_MODIFIED_LETTERS = str.maketrans(
    "", "", "0123456789dDrRoOmMiInNaAxXeEvVcCsSfFlLuUtTbBkK<>=%+-*/(),"
)
MODIFIED_TERMS = 4
MODIFIED_DICE = 10
MODIFIED_FACES = 100
MODIFIED_FRACTION_PAIRS = 1000
"""Where divisions keep fractions (d20's 1d20/2+1d6/3, floor(1d20/2+1d6/3)), at most this
product of the dice terms' numbers of totals: no step pairs more outcomes."""


class _NotQuick(Exception):
    """The text is not one :func:`quick_tree` reads: the parser reads it."""


def quick_tree(text: str, spec: Dialect) -> tuple[Node, bool] | None:
    """The tree of a short expression such as ``1d10r1r3``, ``2d20%7`` or
    ``1d20+5>=2d6+8`` read in ``spec``, and whether it is inside the bounds above; or None
    when ``text`` is anything else (the parser then reads it)."""
    if len(text) > limits.MAX_EXPRESSION_LENGTH or text.translate(_MODIFIED_LETTERS):
        return None  # a character none of these has: the parser, at once
    flat = _flat_sum(text, spec, 0, len(text), MODIFIED_TERMS)
    if flat is not None:  # (the usual case, read in one loop: a third quicker)
        return flat, True
    if text[-1:] == ")" and text.count("(") == 1:  # rem(2d6-9,4), floor(1d20+3)
        f = _MODIFIED_FUNC.match(text)
        if f is not None:
            read = _flat_function(text, spec, f.group(1).lower(), f.end())
            if read is not None:
                return read, True
    reader = _QuickReader(text, spec)
    try:
        node = reader.relation()
    except _NotQuick:
        return None
    if reader.pos != len(text):
        return None
    if spec.rounding and reader.bare_division:
        node = Func("floor" if spec.rounding == "floor" else "trunc", (node,))
    bounded = reader.bounded and reader.terms <= MODIFIED_TERMS and (
        not reader.fractions or reader.widths <= MODIFIED_FRACTION_PAIRS)
    return node, bounded


def _flat_sum(text: str, spec: Dialect, pos: int, end: int, most: int) -> Node | None:
    """The tree of ``text[pos:end]`` when it is a plain sum of at most ``most`` terms, read
    in one loop (:func:`quick_tree` inside its bounds); None for anything else (the reader
    then tries it)."""
    start = pos
    node: Node | None = None
    terms = 0
    match = _MODIFIED_SIGNED_TERM.match
    while pos < end:
        m = match(text, pos, end)
        if m is None:
            return None
        sign = m.group(1)
        if (not sign) != (pos == start):
            return None
        pos = m.end()
        terms += 1
        if terms > most:
            return None
        term = _term(spec, m.groups()[1:])
        if term is None:
            return None
        node = term if node is None else new_binop("-" if sign == "-" else "+", node, term)
    return node


def _flat_function(text: str, spec: Dialect, name: str, at: int) -> Node | None:
    """:func:`quick_tree` for a function of a plain sum (``floor(1d20+3)``), or ``rem`` of
    one by a number (``rem(2d6-9,4)``), read in one loop: the number is a term of the
    bounds; None for anything else (the reader then tries it)."""
    end = len(text) - 1  # (the closing parenthesis)
    if name != "rem":
        inner = _flat_sum(text, spec, at, end, MODIFIED_TERMS)
        return None if inner is None else Func(name, (inner,))  # type: ignore[arg-type]
    comma = text.rfind(",", at, end)
    divisor = text[comma + 1 : end]
    if comma < 0 or not divisor.isdigit() or len(divisor) > 6:  # (the term's number)
        return None
    inner = _flat_sum(text, spec, at, comma, MODIFIED_TERMS - 1)
    return None if inner is None else Func("rem", (inner, new_num(int(divisor))))


class _QuickReader:
    """:func:`quick_tree`'s reader: the parser's grammar for the shapes it reads, raising
    :class:`_NotQuick` wherever the text is another."""

    __slots__ = ("bare_division", "bounded", "depth", "fractions", "pos", "quotients",
                 "rounding", "spec", "terms", "text", "widths")

    def __init__(self, text: str, spec: Dialect) -> None:
        self.text = text
        self.spec = spec
        self.pos = 0
        self.terms = 0
        self.depth = 0
        self.rounding = 0
        self.bare_division = False
        self.bounded = True  # inside the bounds of the module's note so far
        self.fractions = False  # an exact division that keeps fractions
        self.widths = 1  # the product of the dice terms' numbers of totals
        self.quotients = 0  # exact divisions by a number in a rounding function, open

    def relation(self) -> Node:
        left = self.sum()
        m = _MODIFIED_RELATION.match(self.text, self.pos)
        if m is None:
            return left
        self.bounded = False
        self.pos = m.end()
        op = _RELATIONS[self.spec.inclusive_points][m.group(0)]
        if op != "<>" and absorbs_comparison(left):
            left = Group(left)
        right = self.sum()
        if _MODIFIED_RELATION.match(self.text, self.pos) is not None:
            raise _NotQuick  # chained: the parser says what is wrong
        return Comparison(op, left, right)

    def sum(self) -> Node:
        node = self.product()
        text = self.text
        while self.pos < len(text) and text[self.pos] in "+-":
            op: BinaryOp = "+" if text[self.pos] == "+" else "-"
            self.pos += 1
            node = new_binop(op, node, self.product())
        return node

    def product(self) -> Node:
        node = self.atom()
        text = self.text
        while self.pos < len(text) and text[self.pos] in "*/%":
            op = text[self.pos]
            if text[self.pos + 1 : self.pos + 2] in ("*", "/", "^"):
                raise _NotQuick  # ** and // (d20's), /^ (rounding up): the parser
            self.pos += 1
            right = self.atom()
            if type(right) is not Num or op == "*":
                self.bounded = False  # (products and quotients of dice: estimated)
            if op == "/":
                if self.rounding == 0:
                    self.bare_division = True
                    if self.spec.rounding:  # divides exactly, the total rounded once
                        self.fractions = True
                else:
                    self.quotients += 1
                node = new_binop("/", node, right)
            elif op == "%":
                if self.spec.js_remainder and not (never_negative(node)
                                                   and never_negative(right)):
                    node = Func("rem", (node, right))
                else:
                    node = new_binop("%", node, right)
            else:
                node = new_binop("*", node, right)
        return node

    def atom(self) -> Node:
        text, pos = self.text, self.pos
        if pos >= len(text):
            raise _NotQuick
        if text[pos] == "(":
            if self.spec.sets:
                raise _NotQuick  # d20's sets
            self.pos += 1
            self._enter()
            inner = self.relation()
            self._expect(")")
            self.depth -= 1
            return new_group(inner)
        f = _MODIFIED_FUNC.match(text, pos)
        if f is not None:
            return self.function(f.group(1).lower(), f.end())
        m = _MODIFIED_TERM.match(text, pos)
        if m is None:
            raise _NotQuick
        self.pos = m.end()
        self.terms += 1
        if self.terms > limits.MAX_TERMS:
            raise _NotQuick
        term = _term(self.spec, m.groups())
        if term is None:
            raise _NotQuick
        if type(term) is Dice:
            if (self.pos < len(text) and text[self.pos] in "<>="
                    and not self.spec.compares_totals):
                raise _NotQuick  # a comparison right after dice counts them: the parser
            self.widths *= term.count * ((10 if term.kind == "T" else term.faces) - 1) + 1
        return term

    def function(self, name: str, at: int) -> Node:
        self.pos = at
        self._enter()
        rounding = name in ROUNDING
        self.rounding += rounding
        quotients = self.quotients
        args = [self.relation()]
        if name == "rem":
            self._expect(",")
            args.append(self.relation())
            if type(args[1]) is not Num:
                self.bounded = False
        self.rounding -= rounding
        if self.quotients > quotients:
            arg = args[0]
            # floor(3d6/2): whole numbers over a number, rounded in one pass (exact.py);
            # any other exact division in it keeps fractions: estimated
            if not (rounding and self.quotients == quotients + 1 and isinstance(arg, BinOp)
                    and arg.op == "/" and type(arg.right) is Num and arg.right.value):
                self.fractions = True
            self.quotients = quotients
        self._expect(")")
        self.depth -= 1
        fname: FuncName = name  # type: ignore[assignment]
        return Func(fname, tuple(args))

    def _expect(self, char: str) -> None:
        if self.text[self.pos : self.pos + 1] != char:
            raise _NotQuick
        self.pos += 1

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > limits.MAX_DEPTH:
            raise _NotQuick


def _term(spec: Dialect, g: tuple[str | None, ...]) -> Node | None:
    """One term of :func:`quick_tree` from the groups of ``_MODIFIED_TERM``, as the
    parser's modifiers read it in ``spec``; None when it is past the bounds or one the
    parser reads otherwise or refuses."""
    (n_text, f_text, rerolls, _, low, _, high, k_op, k_value, parity, s_op, s_value,
     f_how, f_op, f_signed, f_bare, cs_op, cs_signed, cs_bare, cf_op, cf_signed, cf_bare,
     sort, number) = g
    if number is not None:
        return new_num(int(number))
    assert f_text is not None
    count = int(n_text) if n_text is not None else 1
    if not 1 <= count <= MODIFIED_DICE:
        return None
    known = _PEEKS[spec.name]
    if f_text == "%":
        if rerolls or any(x is not None for x in g[3:23]):
            return None
        if spec.tens_percentile:
            return new_dice(count, 10, kind="T")
        return new_dice(count, 100, percentile=True)
    faces = int(f_text)
    if not 1 <= faces <= MODIFIED_FACES:
        return None
    reroll: Compare | Points | None = None
    once = False
    if rerolls:
        points = []
        marks = set()
        matched = set()
        for mark, value in _MODIFIED_REROLL.findall(rerolls):
            marks.add(mark.lower())
            v = int(value)
            points.append(new_compare("=", v))
            if 1 <= v <= faces:
                matched.add(v)
        if len(marks) > 1 or (len(points) > 1 and spec.written_order):
            return None  # r and ro mixed, or two rerolls where modifiers apply in order
        mark = marks.pop()
        once = mark == "ro" or (mark == "r" and spec.reroll_once)
        if not once and 2 * len(matched) > faces:
            return None  # a reroll until with a long budget, or of every face (refused)
        reroll = points[0] if len(points) == 1 else new_points(tuple(points))
    select = None
    if k_op is not None:
        assert k_value is not None
        kept = _quick_point(spec, k_op, k_value, None)
        assert kept is not None
        select = Select(True, kept)
    success = None
    if parity is not None:
        parity = parity.lower()
        if parity not in known:
            return None
        success = new_compare("even" if parity == "even" else "odd", 0)
    elif s_op is not None:
        if spec.compares_totals:
            return None  # d20 compares the total: the parser reads the comparison
        if (spec.reroll_once and rerolls and low is None and high is None
                and k_op is None):
            return None  # Foundry's capped reroll (r1<=1), which the parser refuses
        success = _quick_point(spec, s_op, s_value, None)
    failure = None
    subtract = False
    if f_how is not None:
        how = f_how.lower()
        if how == "f":
            if success is None:
                return None  # a failure count needs a success count: the parser says so
        elif how not in known or (how == "df" and not (spec.drop_without_count
                                                       or spec is ARBITER)):
            return None
        subtract = how == "sf"
        failure = _quick_point(spec, f_op, f_signed, f_bare)
    crits = _quick_point(spec, cs_op, cs_signed, cs_bare), _quick_point(
        spec, cf_op, cf_signed, cf_bare)
    if (crits[0] is not None or crits[1] is not None) and spec.counting_cs:
        return None  # Foundry's cs and cf count dice: the parser reads them
    order: SortOrder = "" if sort is None else "d" if sort.lower() == "sd" else "a"
    return new_dice(count, faces, False, reroll, once, None, False, None, success,
                    minimum=int(low) if low is not None else None,
                    maximum=int(high) if high is not None else None, select=select,
                    failure=failure, crit_success=crits[0], crit_failure=crits[1], sort=order,
                    subtract=subtract)


def _quick_point(spec: Dialect, op: str | None, signed: str | None, bare: str | None
                 ) -> Compare | None:
    """A point of :func:`quick_tree` (``>=19``, ``1``), as ``_point`` reads it; None when
    neither is written."""
    if op is not None:
        assert signed is not None
        return new_compare(_COMPARES[spec.inclusive_points][op], int(signed))
    return new_compare("=", int(bare)) if bare is not None else None


def parse_uncached(text: str, dialect_name: str | Dialect = "arbiter") -> Node:
    """:func:`parse` without its cache, for callers that keep their own."""
    if len(text) > limits.MAX_EXPRESSION_LENGTH:
        raise DiceLimitError(
            f"expression is {len(text):,} characters long; the limit is "
            f"{limits.MAX_EXPRESSION_LENGTH}"
        )
    spec = ARBITER if dialect_name == "arbiter" else dialect(dialect_name)
    if not spec.tens_percentile:  # the plain sums mean the same in every other dialect
        node = _simple_sum(text)
        if node is not None:
            return node
    quick = quick_tree(text, spec)
    if quick is not None:
        return quick[0]
    if spec.trailing_text:  # (Roll20 and d20: the dialects that read words after a roll)
        word = _advantage_word(text)
        if word is not None:
            return _with_advantage(text, spec, word)
    return _Parser(text, spec).parse()


@lru_cache(maxsize=4096)
def parse(text: str, dialect: str | Dialect = "arbiter") -> Node:
    """Parse dice notation into an expression tree, reading it in ``dialect`` (one of
    ``arbiter``, ``roll20``, ``foundry``, ``d20``; see :mod:`arbiter.dice.dialects`).

    >>> str(parse("4d6 kh3 + d%"))
    '4d6kh3+1d%'
    >>> str(parse("4d6k3", "d20")), str(parse("2d20kh", "foundry"))
    ('4d6k=3', '2d20kh1')
    """
    return parse_uncached(text, dialect)


__all__ = ["DiceError", "Group", "parse", "parse_uncached"]
