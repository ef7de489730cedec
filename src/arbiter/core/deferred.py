"""Payload values written out only when read (:class:`Deferred`).

Compiled by the compiled build (``tools/fast.py``) as a native class: mypyc cannot compile a
subclass of an abstract base such as ``Mapping`` (the wrong metaclass), so ``Deferred`` is a
plain class that writes out what a mapping reads (``keys``, ``items``, ``get``, ``==``...)
and is registered as a ``Mapping``. A zones encounter makes and reads one about 450 times a
fight: interpreted, its ``__init__`` and ``__getitem__`` were a Python frame each time.
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, ValuesView
from typing import Any

from mypy_extensions import mypyc_attr


@mypyc_attr(allow_interpreted_subclasses=True)
class Deferred:
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

    def get(self, key: str, default: Any = None) -> Any:
        known = self._known
        if known is not None and key in known:
            return known[key]
        return self.value().get(key, default)

    def __contains__(self, key: object) -> bool:
        known = self._known
        return (known is not None and key in known) or key in self.value()

    def keys(self) -> KeysView[str]:
        return self.value().keys()

    def items(self) -> ItemsView[str, Any]:
        return self.value().items()

    def values(self) -> ValuesView[Any]:
        return self.value().values()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Deferred):
            other = other.value()
        return isinstance(other, Mapping) and self.value() == dict(other.items())

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  # a mapping, not hashable

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


Mapping.register(Deferred)

DataMap = Mapping[str, Any] | Deferred
"""A payload value that reads as a mapping: a dict, or a :class:`Deferred` (registered as a
``Mapping`` at run time, which a type checker does not follow)."""

__all__ = ["DataMap", "Deferred"]
