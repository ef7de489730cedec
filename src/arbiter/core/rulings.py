"""Rulings: named, documented choices where a seed text is unclear or contradicts itself.

Each ruleset ships a ``rulings.toml``; a campaign or scenario overrides any ruling by id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .content import read_content
from .errors import RulingError


@dataclass(frozen=True, slots=True)
class Ruling:
    id: str
    title: str
    citation: str
    question: str
    default: str
    choices: dict[str, str]
    rules: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.default not in self.choices:
            raise RulingError(f"ruling {self.id}: default {self.default!r} is not a choice")


class RulingSet:
    """The rulings of one ruleset, looked up by id."""

    def __init__(self, rulings: list[Ruling]) -> None:
        self._by_id = {r.id: r for r in rulings}
        self._choices: dict[str, dict[str, str]] = {r.id: r.choices for r in rulings}
        """Each ruling's choices by its id: what :meth:`chosen` checks a choice against
        (rules ask hundreds of times an encounter, so no pair is built to look it up)."""
        self._defaults: dict[str, str] = {r.id: r.default for r in rulings}

    @classmethod
    def load(cls, path: Path) -> RulingSet:
        data = read_content(path)
        rulings = []
        for i, raw in enumerate(data.get("ruling", [])):
            try:
                rulings.append(
                    Ruling(
                        id=raw["id"],
                        title=raw["title"],
                        citation=raw["citation"],
                        question=raw.get("question", ""),
                        default=raw["default"],
                        choices=dict(raw["choices"]),
                        rules=tuple(raw.get("rules", ())),
                    )
                )
            except KeyError as err:
                raise RulingError(f"{path}: ruling #{i + 1} lacks the key {err}") from None
        return cls(rulings)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, ruling_id: object) -> bool:
        return ruling_id in self._by_id

    def get(self, ruling_id: str) -> Ruling:
        try:
            return self._by_id[ruling_id]
        except KeyError:
            known = ", ".join(sorted(self._by_id)) or "none"
            raise RulingError(f"unknown ruling {ruling_id!r} (known: {known})") from None

    def value(self, chosen: dict[str, str], ruling_id: str) -> str:
        """The value of a ruling in ``chosen`` (an encounter's ``state.rulings``), else its
        default from ``rulings.toml``: the one place a default is written."""
        found = chosen.get(ruling_id)
        if found is None:
            found = self._defaults.get(ruling_id)
            if found is None:
                return self.get(ruling_id).default  # RulingError: an unknown ruling
        return found

    def chosen(self, chosen: dict[str, str], ruling_id: str, choice: str) -> bool:
        """Whether ruling ``ruling_id`` is ``choice`` in ``chosen``; RulingError when
        ``choice`` is not one the ruling lists (so a misspelt choice in the code fails
        loudly instead of falling into an ``else``).

        >>> from arbiter.core import load_ruleset
        >>> rulings = load_ruleset("demo").rulings
        >>> rulings.chosen({}, "DEMO-1", "double-dice")
        True
        >>> rulings.chosen({}, "DEMO-1", "max-dmg")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        arbiter.core.errors.RulingError: ruling DEMO-1 has no choice 'max-dmg' (choices: ...)
        """
        choices = self._choices.get(ruling_id)
        if choices is None or choice not in choices:
            ruling = self.get(ruling_id)  # RulingError: an unknown ruling
            raise RulingError(f"ruling {ruling_id} has no choice {choice!r} (choices: "
                              f"{', '.join(ruling.choices)})")
        found = chosen.get(ruling_id)  # value()'s first look, without the call
        return (found if found is not None else self.value(chosen, ruling_id)) == choice

    def resolve(self, overrides: Mapping[str, str] | None = None) -> dict[str, str]:
        """Every ruling's chosen value: defaults, with ``overrides`` validated and applied."""
        chosen = {r.id: r.default for r in self._by_id.values()}
        for rid, value in (overrides or {}).items():
            ruling = self.get(rid)
            if value not in ruling.choices:
                raise RulingError(
                    f"ruling {rid} has no choice {value!r} (choices: {', '.join(ruling.choices)})"
                )
            chosen[rid] = value
        return chosen
