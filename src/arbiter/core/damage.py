"""The damage pipeline framework: a ruleset supplies ordered steps; each records what it did.

Calculation is pure and separate from application, so a preview and the real thing agree.

>>> calc = DamageCalc(20, "slashing")
>>> calc.step("armor DR 5", 15)
>>> calc.explain()
'20 slashing → armor DR 5: 15'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar


@dataclass(slots=True)
class StepRecord:
    """One step of a pipeline. Never changed once made (not frozen only because a frozen
    dataclass is three times slower to build, and every hit records a few)."""

    label: str
    before: int
    after: int

    def __init__(self, label: str, before: int, after: int) -> None:  # performance.md, 34
        self.label = label
        self.before = before
        self.after = after

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "before": self.before, "after": self.after}


@dataclass(slots=True)
class DamageCalc:
    """One instance of damage moving through a pipeline."""

    amount: int
    type: str = ""
    tags: frozenset[str] = frozenset()
    initial: int = -1
    steps: list[StepRecord] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)

    def __init__(self, amount: int, type: str = "", tags: frozenset[str] = frozenset(),
                 initial: int = -1, steps: list[StepRecord] | None = None,
                 notes: dict[str, Any] | None = None) -> None:  # performance.md, 34
        self.amount = amount
        self.type = type
        self.tags = tags
        self.initial = amount if initial < 0 else initial
        self.steps = [] if steps is None else steps
        self.notes = {} if notes is None else notes

    def step(self, label: str, new_amount: int) -> None:
        """Record a step that changes (or explicitly keeps) the amount."""
        self.steps.append(StepRecord(label, self.amount, new_amount))
        self.amount = new_amount

    def explain(self) -> str:
        parts = [f"{self.initial} {self.type}".strip()]
        for step in self.steps:  # a loop, compiled: no generator (every hit explains one)
            parts.append(f"{step.label}: {step.after}")
        return " → ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "initial": self.initial,
            "type": self.type,
            "final": self.amount,
            "steps": [s.to_json() for s in self.steps],
            "text": self.explain(),
        }


C = TypeVar("C")
Step = Callable[[DamageCalc, C], None]


class Pipeline(Generic[C]):
    """Ordered steps run on a :class:`DamageCalc` with a ruleset-specific context ``C``."""

    def __init__(self, steps: Sequence[Step[C]]) -> None:
        self.steps = tuple(steps)

    def run(self, calc: DamageCalc, context: C) -> DamageCalc:
        for step in self.steps:
            step(calc, context)
        return calc
