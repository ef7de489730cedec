"""Bounded memos: a plain dict of what a hot path worked out, emptied when it is full.

A dict read with ``get`` costs less than ``functools.lru_cache``'s call, compiled; this is
the one place that writes into one, so that every memo keeps its bound.
"""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def kept(table: dict[K, V], key: K, value: V, bound: int) -> V:
    """``value``, kept in ``table`` as ``key``: the table is emptied first when it holds
    ``bound`` entries, so it never holds more.

    >>> table: dict[str, int] = {}
    >>> kept(table, "a", 1, 1), kept(table, "b", 2, 1), table
    (1, 2, {'b': 2})
    """
    if len(table) >= bound:
        table.clear()
    table[key] = value
    return value
