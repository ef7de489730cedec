"""The legal options of a turn: what a creature may do now, and to whom.

Like python-chess's ``board.legal_moves``, the answer comes from the rules themselves, not
from a second copy of them: every command the issuer may give for the actor (the
catalogue's authority, :func:`~arbiter.core.catalogue.authorize`, for a player) is asked of
the ruleset's own :meth:`~arbiter.core.ruleset.Ruleset.check`, once per candidate target
when the command takes one. A refusal keeps the rule's sentence, its inventory id and,
where the ruleset declares one (:attr:`~arbiter.core.ruleset.Ruleset.remedies`), the
command that would make it legal ("move within reach").

The work is bounded before it starts: at most :data:`MAX_TARGETS` candidates a command,
:data:`MAX_CHECKS` checks an answer.

>>> from arbiter.core.encounter import Encounter
>>> from arbiter.core.registry import load_ruleset
>>> from arbiter.dice import ForcedDice
>>> enc = Encounter.create(load_ruleset("demo"))
>>> for spec in ({"id": "nia", "side": "heroes", "stats": {"health": 9}},
...              {"id": "orc", "side": "foes", "stats": {"health": 9}}):
...     _ = enc.execute({"do": "add", **spec}, ForcedDice([]))
>>> attack = next(o for o in legal_options(enc.ruleset, enc.state, "nia")
...               if o.command == "attack")
>>> [(t.id, t.relation, t.legal) for t in attack.targets]
[('orc', 'enemy', True), ('nia', 'self', False)]
>>> attack.suggested
'orc'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .catalogue import CommandSpec, InvalidArgument, NotAllowed
from .errors import IllegalCommand, RulesError
from .events import Command
from .model import EncounterState, Entity

if TYPE_CHECKING:
    from .ruleset import Ruleset

Relation = Literal["self", "ally", "enemy", "object"]
_RANK = {"enemy": 0, "object": 1, "ally": 2, "self": 3}
"""At equal distance, enemies are listed first and the actor itself last."""
MAX_TARGETS = 64
"""Candidate targets checked for one command (the nearest first, when on a map)."""
MAX_CHECKS = 1500
"""Checks in one answer: past it, the remaining commands are listed unchecked."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why the rules refuse something now: the rule's sentence, its id, and what would make
    it legal (a command and a phrase), when the ruleset declares it."""

    reason: str
    rule: str | None = None
    remedy: str | None = None
    remedy_command: str | None = None
    """``None`` with a remedy: a matter of waiting (its turn), not of a command."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"reason": self.reason}
        if self.rule:
            out["rule"] = self.rule
        if self.remedy:
            out["remedy"] = {"text": self.remedy, "command": self.remedy_command}
        return out


@dataclass(frozen=True, slots=True)
class TargetOption:
    """One candidate target of a command: its relation to the actor, its distance in
    squares when both stand on the map, and whether the rules take it now. Candidates
    come nearest first (enemies first at equal distance)."""

    id: str
    relation: Relation
    distance: int | None
    refusal: Refusal | None = None
    down: bool = False
    """Out of the fight (the ruleset's ``down``): legal, perhaps, but never the default."""

    @property
    def legal(self) -> bool:
        return self.refusal is None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "relation": self.relation,
                               "distance": self.distance, "legal": self.legal}
        if self.down:
            out["down"] = True
        if self.refusal is not None:
            out.update(self.refusal.to_json())
        return out


@dataclass(frozen=True, slots=True)
class Option:
    """One command the actor may be given now. ``target_arg`` names its target argument
    (``None`` when it takes none); ``needs`` the other arguments it cannot go without (a
    square to move to), which the rules check when they are given (``checked`` is false
    then: only the issuer's authority was asked); ``suggested`` the default target: the
    nearest legal enemy still in the fight (not ``down``), never an ally or the actor
    itself."""

    command: str
    summary: str
    who: str
    cost: str
    refusal: Refusal | None
    target_arg: str | None = None
    targets: tuple[TargetOption, ...] = ()
    needs: tuple[str, ...] = ()
    checked: bool = True

    @property
    def legal(self) -> bool:
        return self.refusal is None

    @property
    def suggested(self) -> str | None:
        for target in self.targets:  # nearest first
            if target.legal and target.relation == "enemy" and not target.down:
                return target.id
        return None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"command": self.command, "summary": self.summary,
                               "who": self.who, "cost": self.cost, "legal": self.legal,
                               "checked": self.checked}
        if self.refusal is not None:
            out.update(self.refusal.to_json())
        if self.target_arg is not None:
            out["target_arg"] = self.target_arg
            out["targets"] = [t.to_json() for t in self.targets]
            out["suggested"] = self.suggested
            if self.suggested is None:
                enemies = [t for t in self.targets if t.relation == "enemy"]
                refused = next((t.refusal for t in enemies if t.refusal), None)
                if any(t.legal for t in enemies):
                    out["no_default"] = "every enemy it could target is down"
                elif refused is not None:
                    out["no_default"] = f"no enemy is a legal target now: {refused.reason}"
                else:
                    out["no_default"] = "no enemy in sight"
        if self.needs:
            out["needs"] = list(self.needs)
        return out


def relation(actor: Entity, other: Entity) -> Relation:
    """Whom ``other`` is to ``actor``: itself, an ally (the same side), an enemy (a creature
    of another side, or of none), or an object."""
    if other.id == actor.id:
        return "self"
    if other.kind != "creature":
        return "object"
    if actor.side is not None and other.side == actor.side:
        return "ally"
    return "enemy"


def target_argument(spec: CommandSpec) -> str | None:
    """The argument a command names its one target by: ``target``, when it is a creature."""
    arg = spec.args.get("target")
    return "target" if arg is not None and arg.kind == "creature" else None


def refusal_of(ruleset: Ruleset, err: RulesError) -> Refusal:
    """A refusal as the options give it: an illegal command's sentence, rule and remedy
    (its own, else :attr:`Ruleset.remedies` by its rule id); anything else as its
    message."""
    if isinstance(err, IllegalCommand):
        remedy = err.remedy or ruleset.remedies.get(err.rule or "")
        if remedy is not None:
            return Refusal(err.reason, err.rule, remedy[1], remedy[0])
        return Refusal(err.reason, err.rule)
    return Refusal(str(err))


def _missing(err: InvalidArgument, spec: CommandSpec) -> str | None:
    """The required argument an :class:`InvalidArgument` says is missing, if that is what
    it says."""
    key = (err.field or "").removeprefix("command.")
    arg = spec.args.get(key)
    return key if arg is not None and arg.required and "missing" in str(err) else None


def legal_options(ruleset: Ruleset, state: EncounterState, actor: str, *,
                  candidates: Iterable[str] | None = None,
                  allowed: Callable[[Command, bool], None] | None = None) -> list[Option]:
    """Every command ``actor`` may be given now, each with its candidate targets and the
    rules' answer for each (see the module's description).

    ``candidates`` are the ids the issuer may name (a player's view; every entity by
    default); ``allowed(command, shape)`` raises :class:`NotAllowed` for a command the
    issuer may not give (a player's authority, asked first without the arguments: the
    commands it refuses are left out, as are the game master's own; then per target).
    Nothing changes: ``check`` is a question."""
    me = state.entity(actor)
    pool = [state.entities[i] for i in (state.entities if candidates is None else candidates)
            if i in state.entities]
    located = [(ruleset.distance(state, me, other), _RANK[relation(me, other)], index, other)
               for index, other in enumerate(pool)]
    located.sort(key=lambda item: (item[0] is None, item[0] or 0, item[1], item[2]))
    ordered = [(other, far) for far, _, _, other in located][:MAX_TARGETS]
    budget = MAX_CHECKS
    out: list[Option] = []
    for name, spec in ruleset.catalogue.items():
        if spec.actor == "none" or name in ruleset.unoffered:
            continue
        base = Command(name, actor, {})
        if allowed is not None:
            try:
                allowed(base, False)
            except NotAllowed:
                continue  # not the issuer's to give now (the GM's, another's turn)
        targ = target_argument(spec)
        needs = tuple(k for k, a in spec.args.items() if a.required and k != targ)
        if budget <= 0:
            out.append(Option(name, spec.summary, spec.who, spec.cost, None, targ, needs=needs,
                              checked=False))
            continue
        if targ is None:
            budget -= 1
            refusal = None if needs else _asked(ruleset, state, base)
            out.append(Option(name, spec.summary, spec.who, spec.cost, refusal, needs=needs,
                              checked=not needs))
            continue
        targets: list[TargetOption] = []
        for other, far in ordered:
            if budget <= 0:
                break
            budget -= 1
            command = Command(name, actor, {targ: other.id})
            refusal = None
            if allowed is not None:
                try:
                    allowed(command, True)
                except RulesError as err:
                    refusal = refusal_of(ruleset, err)
            if refusal is None and not needs:
                refusal = _asked(ruleset, state, command, spec)
            targets.append(TargetOption(other.id, relation(me, other), far, refusal,
                                        bool(getattr(other, "down", False))))
        legal = [t for t in targets if t.legal]
        refusal = None
        if not legal:
            first = next((t.refusal for t in targets if t.relation == "enemy" and t.refusal),
                         None) or next((t.refusal for t in targets if t.refusal), None)
            refusal = first or Refusal("no creature it could name is in sight")
        out.append(Option(name, spec.summary, spec.who, spec.cost, refusal, targ, tuple(targets),
                          needs, checked=not needs))
    return out


def _asked(ruleset: Ruleset, state: EncounterState, command: Command,
           spec: CommandSpec | None = None) -> Refusal | None:
    """The rules' refusal of ``command`` now (``None``: legal)."""
    try:
        ruleset.check(state, command)
    except InvalidArgument as err:
        found = spec or ruleset.catalogue.get(command.name)
        if found is not None and _missing(err, found):
            return None
        return refusal_of(ruleset, err)
    except RulesError as refused:  # (not ``err``: see tests/core/test_compilable.py)
        return refusal_of(ruleset, refused)
    return None


def options_json(options: Iterable[Option], actor: str,
                 names: Mapping[str, str]) -> dict[str, Any]:
    """The answer of ``GET /options``: each option, and the names of the creatures named."""
    listed = [o.to_json() for o in options]
    return {"actor": actor, "options": listed, "names": dict(names)}


__all__ = ["MAX_CHECKS", "MAX_TARGETS", "Option", "Refusal", "TargetOption", "legal_options",
           "options_json", "refusal_of", "relation", "target_argument"]
