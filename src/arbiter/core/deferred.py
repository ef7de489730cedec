"""Payload values written out only when read (:class:`Deferred`).

Left interpreted by the compiled build (``tools/fast.py``): mypyc gives a class it compiles
the wrong metaclass for an abstract base such as ``Mapping``, and nothing here is hot (a
value is made once per roll and read only when an event is written out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any


class Deferred(Mapping[str, Any]):
    """A payload value written out only when someone reads it: a dice breakdown or a damage
    pipeline's explanation, which a simulated fight never reads (writing them took 10% of
    a realms encounter's instructions, 6% of a Polemos one). ``build`` makes the value (a
    JSON object) the first time it is needed, after the ``known`` fields (read without
    building it) and before the ``extra`` ones; :meth:`arbiter.core.events.Event.to_json`
    writes it out, so every stored log, API answer and console line is what it was when the
    value was built eagerly.

    It reads as the mapping it stands for (``payload["roll"]["total"]``), equals a dict of
    the same items, and copies and pickles as that dict. Whatever ``build`` reads must not
    change after the event is made: a finished roll or pipeline.

    >>> d = Deferred(lambda: {"total": 7, "text": "2d6 (3, 4) = 7"}, {"bonus": 1})
    >>> d["total"], dict(d) == {"total": 7, "text": "2d6 (3, 4) = 7", "bonus": 1}
    (7, True)
    """

    __slots__ = ("_build", "_extra", "_known", "_value")

    def __init__(self, build: Callable[[], dict[str, Any]],
                 extra: dict[str, Any] | None = None, *,
                 known: dict[str, Any] | None = None) -> None:
        self._build = build
        self._extra = extra
        self._known = known
        self._value: dict[str, Any] | None = None

    def value(self) -> dict[str, Any]:
        """The JSON object, built on the first call: ``known``'s fields, ``build``'s, then
        ``extra``'s."""
        value = self._value
        if value is None:
            value = self._build()
            if self._known:
                value = {**self._known, **value}
            if self._extra:
                value = {**value, **self._extra}
            self._value = value
        return value

    def __getitem__(self, key: str) -> Any:
        known = self._known
        if known is not None and key in known:  # read without building the rest
            return known[key]
        return self.value()[key]

    def __bool__(self) -> bool:
        return bool(self._known) or bool(self.value())

    def __iter__(self) -> Iterator[str]:
        return iter(self.value())

    def __len__(self) -> int:
        return len(self.value())

    def __repr__(self) -> str:
        return repr(self.value())

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (self.value(),))


__all__ = ["Deferred"]
