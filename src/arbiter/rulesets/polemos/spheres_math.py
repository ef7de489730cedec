"""Ranges and movement costs across the combat spheres of the 8th Age (P-SPH-*), pure.

A contact-sphere square ``(x, y)`` lies ``inside`` an edge by the squares between it and that
edge: a unit on the edge square is 0 inside (x grows east, y grows south).

>>> sphere_range(("battle", "east", None), ("contact", None, (11, 7)), 25)
113
>>> sphere_range(("support", None, None), ("contact", None, (11, 7)), 25, edge="east")
1113
>>> sphere_range(("support", None, None), ("battle", "east", None), 25)
1000
>>> move_cost(("contact", None, (24, 3)), ("battle", "east"), 25)
10
"""

from __future__ import annotations

from ...core import IllegalCommand
from .grid import Square, distance
from .model import QUADRANTS

Place = tuple[str, str | None, Square | None]
"""Where a unit is: its sphere, its battle quadrant, its contact-sphere square."""

CONTACT_TO_BATTLE = 100  # P-SPH-6
SUPPORT_TO_BATTLE = 1000  # P-SPH-12
EDGE_TO_QUADRANT = 10  # P-SPH-9
QUADRANT_TO_QUADRANT = 10  # P-SPH-10
QUADRANT_TO_SUPPORT = 100  # P-SPH-14


def inside(square: Square, side: str, size: int) -> int:
    """Squares between a contact-sphere square and the edge on ``side``."""
    x, y = square
    return {"north": y, "south": size - 1 - y, "west": x, "east": size - 1 - x}[side]


def on_edge(square: Square, side: str, size: int) -> bool:
    return inside(square, side, size) == 0


def adjacent(a: str, b: str) -> bool:
    """N–E, E–S, S–W, W–N are adjacent quadrants (P-SPH-10)."""
    i, j = QUADRANTS.index(a), QUADRANTS.index(b)
    return (i - j) % 4 in (1, 3)


def _to_edge(square: Square | None, quadrant: str | None, size: int, edge_rule: str) -> int:
    if square is None:
        raise IllegalCommand("a unit in the contact sphere needs its square to measure range "
                             "to the other spheres", rule="P-SPH-6")
    if quadrant is None or edge_rule == "nearest-edge":
        return min(inside(square, side, size) for side in QUADRANTS)
    return inside(square, quadrant, size)  # AP-24: the edge on the quadrant's side


def sphere_range(a: Place, b: Place, size: int, edge_rule: str = "quadrant-edge",
                 undefined: str = "gm", given: int | None = None,
                 metric: str = "chebyshev", edge: str | None = None) -> int | None:
    """Range between two units in the combat spheres. A support unit tracks no direction,
    so its range to the contact sphere crosses the ``edge`` named (by default the nearest)."""
    if a[0] > b[0]:  # order the pair: battle < contact < support
        a, b = b, a
    pair = (a[0], b[0])
    if pair == ("contact", "contact"):
        if a[2] is None or b[2] is None:
            return None
        return distance(a[2], b[2], metric)
    if pair == ("battle", "contact"):  # P-SPH-6
        return _to_edge(b[2], a[1], size, edge_rule) + CONTACT_TO_BATTLE
    if pair == ("contact", "support"):  # P-SPH-13
        return _to_edge(a[2], edge, size, edge_rule) + CONTACT_TO_BATTLE + SUPPORT_TO_BATTLE
    if pair == ("battle", "support"):  # P-SPH-12
        return SUPPORT_TO_BATTLE
    if given is not None:  # AP-25: ranges the text leaves to the GM
        return given
    if undefined == "movement-costs":
        if pair == ("support", "support") or a[1] == b[1]:
            return 0
        if a[1] is None or b[1] is None:
            return None
        return QUADRANT_TO_QUADRANT if adjacent(a[1], b[1]) else 2 * QUADRANT_TO_QUADRANT
    raise IllegalCommand(f"the text defines no range {pair[0]} to {pair[1]}: the GM gives it "
                         "with 'sphere_range'", rule="AP-25")


def move_cost(start: Place, to: tuple[str, str | None], size: int,
              opposite: str = "accumulate") -> int:
    """Squares of movement from ``start`` to a sphere (and quadrant): P-SPH-9, P-SPH-10,
    P-SPH-14; opposite quadrants go through an adjacent one (AP-26)."""
    sphere, quadrant, square = start
    target, target_quadrant = to
    if sphere == "contact" and target == "battle":
        if square is None or target_quadrant is None or not on_edge(square, target_quadrant,
                                                                    size):
            raise IllegalCommand("a unit leaves the contact sphere from the edge matching the "
                                 "battle quadrant it moves to (e.g. the eastern edge to the "
                                 "eastern quadrant)", rule="P-SPH-9")
        return EDGE_TO_QUADRANT
    if sphere == "battle" and target == "contact":
        return EDGE_TO_QUADRANT
    if sphere == "battle" and target == "battle":
        if quadrant is None or target_quadrant is None or quadrant == target_quadrant:
            raise IllegalCommand("move to another quadrant of the battle sphere",
                                 rule="P-SPH-10")
        if adjacent(quadrant, target_quadrant) or opposite == "direct-opposite":
            return QUADRANT_TO_QUADRANT
        return 2 * QUADRANT_TO_QUADRANT  # AP-26: through an adjacent quadrant
    if {sphere, target} == {"battle", "support"}:
        return QUADRANT_TO_SUPPORT
    raise IllegalCommand(f"no way from the {sphere} sphere straight to the {target} sphere: "
                         "the battle sphere lies between", rule="P-SPH-14")
