"""Invariants: facts about an encounter's state that every rule keeps true, declared beside
the rules they come from, each with the rule id it rests on.

A derived fact (a touch, an initiative value, a status condition, a position) is easy to
check where one rule makes it and easy to forget where another rule changes the state under
it. An invariant states the fact once, for every state:

    @invariant("P-ORD-3", "initiative values exist only in turn-by-turn play")
    def holds_initiative_in_combat(self, state: EncounterState) -> Iterator[str]:
        if state.initiative and not state.in_combat:
            yield f"initiative {state.initiative} outside turn-by-turn play"

A method named ``holds_*`` yields a sentence for each problem it finds (nothing when the
fact holds). ``after="event"`` facts hold after every event; ``after="command"`` facts are
derived facts a command settles with its last events (a status condition follows the damage
in the same entry), so they hold after each command's entry; ``after="turn_start"`` and
``after="turn_end"`` facts hold of the creature whose turn has just started or ended (the
method takes its id too), after each ``turn_started`` or ``turn_ended`` event.

Checking is off in play (it costs a walk over the state per event) and on in the test suite
(``tests/conftest.py``), in the random-play property tests and in the simulator's
``--check`` mode: :class:`~.encounter.Encounter` then checks each entry it applies and raises
:class:`InvariantBroken`, which names the invariant, its rule, the command and the event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from mypy_extensions import mypyc_attr

from .errors import SchemaError
from .events import Entry, Event

if TYPE_CHECKING:
    from .model import EncounterState
    from .ruleset import Ruleset

After = Literal["event", "command", "turn_start", "turn_end"]
Check = Callable[..., Iterator[str]]
F = TypeVar("F", bound=Check)
PREFIX = "holds_"
TURN_EVENTS: dict[str, After] = {"turn_started": "turn_start", "turn_ended": "turn_end"}
TURN_POINTS = frozenset(TURN_EVENTS.values())


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Invariant:
    """One declared fact: its name (the method's, without ``holds_``), the rule it comes
    from, what holds, when it is checked, and the check."""

    name: str
    rule: str
    text: str
    after: After
    check: Check

    def problems(self, ruleset: Ruleset, state: EncounterState, *who: str) -> list[str]:
        return list(self.check(ruleset, state, *who))

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "rule": self.rule, "text": self.text, "after": self.after}


class InvariantBroken(Exception):
    """A state the rules should never reach: names the invariant, its rule, the command and
    the event after which it broke, and what was found. A defect of the engine, never of
    the caller (not a RulesError: no route answers it as a refusal)."""

    def __init__(self, invariant: Invariant, problems: list[str], command: str,
                 event: Event | None) -> None:
        self.invariant = invariant
        self.problems = problems
        where = f"after command {command!r}"
        if event is not None:
            where += f", event {event.type!r} {event.data}"
        super().__init__(
            f"invariant {invariant.name!r} ({invariant.rule}: {invariant.text}) broken "
            f"{where}: {'; '.join(problems)}")


_MARKS: dict[Any, Invariant] = {}
"""The declaration of each ``holds_*`` function (a mapping, as ``catalogue.declare`` keeps
the commands': a compiled function takes no attribute)."""


def invariant(rule: str, text: str, after: After = "event") -> Callable[[F], F]:
    """Declare a ``holds_*`` method of a ruleset as an invariant from ``rule`` (its name is
    the method's, read where the class is scanned: a compiled method has no ``__name__``)."""
    def mark(fn: F) -> F:
        name = getattr(fn, "__name__", PREFIX)
        if not name.startswith(PREFIX):
            raise TypeError(f"an invariant's method is named {PREFIX}*, not {name}")
        _MARKS[fn] = Invariant("", rule, text, after, fn)
        return fn
    return mark


_DECLARED: dict[type, tuple[Invariant, ...]] = {}


def invariants_of(kind: type) -> tuple[Invariant, ...]:
    """Every invariant of a ruleset class (its own and its bases'), by name, once per
    class; a ``holds_*`` method without a declaration is a TypeError."""
    found = _DECLARED.get(kind)
    if found is not None:
        return found
    out: list[Invariant] = []
    for attr in sorted(a for a in dir(kind) if a.startswith(PREFIX)):
        declared = None
        for klass in kind.__mro__:
            fn = klass.__dict__.get(attr)
            if fn is not None:
                declared = _MARKS.get(fn)
                break
        if declared is None:
            raise TypeError(f"{kind.__name__}.{attr} has no @invariant declaration")
        out.append(replace(declared, name=attr[len(PREFIX):]))
    _DECLARED[kind] = result = tuple(out)
    return result


@mypyc_attr(native_class=False)
class _Switch:
    """Whether encounters check their invariants (module state, read on every apply)."""

    on: bool = False


CHECKING = _Switch()


@contextmanager
def checking(on: bool = True) -> Iterator[None]:
    """Check invariants (or not) within the block."""
    before = CHECKING.on
    CHECKING.on = on
    try:
        yield
    finally:
        CHECKING.on = before


def violations(ruleset: Ruleset, state: EncounterState, after: After | None = None,
               ended: str | None = None) -> list[tuple[Invariant, list[str]]]:
    """The invariants of ``ruleset`` that ``state`` breaks, with their problems (those
    checked ``after`` one kind of step only, or all; the ``turn_end`` ones of the creature
    ``ended``, only when it is given; ``turn_start`` ones alike)."""
    out: list[tuple[Invariant, list[str]]] = []
    for inv in invariants_of(type(ruleset)):
        if after is not None and inv.after != after:
            continue
        if inv.after in TURN_POINTS:
            if ended is None:
                continue
            problems = inv.problems(ruleset, state, ended)
        else:
            problems = inv.problems(ruleset, state)
        if problems:
            out.append((inv, problems))
    return out


def apply_checked(ruleset: Ruleset, state: EncounterState, entry: Entry) -> None:
    """Apply ``entry``'s events to ``state``, checking the event invariants after each
    event and the command invariants after the last; the first broken one raises."""
    name = entry.command.name
    last: Event | None = None
    for event in entry.events:
        spec = ruleset.events.get(event.type)
        wrong = spec.check(event.data) if spec is not None else []
        if wrong:  # the payload as its @event declares it (core/payloads.py)
            raise SchemaError(f"{name}: event {event.type!r} is not as declared: "
                              f"{'; '.join(wrong)}")
        ruleset.evolve(state, event)
        last = event
        for inv, problems in violations(ruleset, state, "event"):
            raise InvariantBroken(inv, problems, name, event)
        point = TURN_EVENTS.get(event.type)
        if point is not None:
            for inv, problems in violations(ruleset, state, point,
                                            str(event.data.get("actor"))):
                raise InvariantBroken(inv, problems, name, event)
    for inv, problems in violations(ruleset, state, "command"):
        raise InvariantBroken(inv, problems, name, last)


MARKERS = ("<!-- invariants:begin (arbiter invariants RULESET --markdown) -->",
           "<!-- invariants:end -->")
"""Where docs/rulesets/NAME.md holds :func:`markdown` of the ruleset's invariants."""
WHEN = {"event": "every event", "command": "every command", "turn_start": "each turn start",
        "turn_end": "each turn end"}


def markdown(invariants: tuple[Invariant, ...]) -> str:
    """The invariants as a Markdown table: rule, when checked, what holds, name."""
    lines = ["| rule | checked after | what holds | invariant |", "| --- | --- | --- | --- |"]
    for inv in sorted(invariants, key=lambda i: (i.rule, i.name)):
        text = inv.text.replace("|", "\\|")
        lines.append(f"| {inv.rule} | {WHEN[inv.after]} | {text} | `{inv.name}` |")
    return "\n".join(lines) + "\n"


__all__ = [
    "CHECKING",
    "MARKERS",
    "Invariant",
    "InvariantBroken",
    "apply_checked",
    "checking",
    "invariant",
    "invariants_of",
    "markdown",
    "violations",
]
