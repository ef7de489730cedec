"""The demo encounters' scene images, drawn here (no outside art): a ford for realms and a
depot yard for Polemos, each 16 x 10 squares of :data:`SQUARE` pixels, the grid starting at
the image's corner. Drawn from a fixed seed, so a demo's image (and its hash) is the same on
every machine with the same Pillow.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from itertools import pairwise

from PIL import Image, ImageDraw

SQUARE = 64
"""Pixels a square, as the demos' ``scene`` commands calibrate it."""
COLS, ROWS = 16, 10

Painter = Callable[[ImageDraw.ImageDraw, random.Random], None]


def _speckle(draw: ImageDraw.ImageDraw, rng: random.Random, box: tuple[int, int, int, int],
             colours: list[tuple[int, int, int]], count: int, size: int = 3) -> None:
    x0, y0, x1, y1 = box
    for _ in range(count):
        x, y = rng.randrange(x0, x1), rng.randrange(y0, y1)
        draw.ellipse((x, y, x + size, y + size), fill=rng.choice(colours))


def _ford(draw: ImageDraw.ImageDraw, rng: random.Random) -> None:
    """Meadow, a river running top to bottom through columns 5 and 6, a stone ford across
    it on rows 3 and 4, and a road to it."""
    w, h = COLS * SQUARE, ROWS * SQUARE
    draw.rectangle((0, 0, w, h), fill=(104, 142, 78))
    _speckle(draw, rng, (0, 0, w, h), [(92, 128, 66), (120, 156, 90), (84, 118, 60)], 2600)
    river = [(5 * SQUARE + 10 + int(14 * ((y / 80) % 2 - 1) ** 2), y) for y in range(0, h + 1, 40)]
    for (x, y), (x2, y2) in pairwise(river):
        draw.polygon([(x - 6, y), (x2 - 6, y2), (x2 + 2 * SQUARE - 14, y2),
                      (x + 2 * SQUARE - 14, y)], fill=(70, 116, 150))
    _speckle(draw, rng, (5 * SQUARE, 0, 7 * SQUARE, h), [(96, 142, 176), (60, 104, 138)], 500, 4)
    draw.rectangle((0, 3 * SQUARE + 18, w, 5 * SQUARE - 18), fill=(168, 146, 104))
    for x in range(5 * SQUARE - 8, 7 * SQUARE + 8, 22):
        for y in range(3 * SQUARE + 20, 5 * SQUARE - 20, 18):
            draw.rounded_rectangle((x, y, x + 18, y + 14), 4, fill=(150, 148, 140),
                                   outline=(110, 108, 100))
    for cx, cy in ((12, 1), (13, 7), (3, 8), (1, 1)):
        x, y = cx * SQUARE + 32, cy * SQUARE + 32
        draw.ellipse((x - 40, y - 40, x + 40, y + 40), fill=(58, 92, 48))
        draw.ellipse((x - 26, y - 30, x + 22, y + 18), fill=(72, 110, 58))


def _depot(draw: ImageDraw.ImageDraw, rng: random.Random) -> None:
    """A concrete yard with painted lanes, stacks of crates, a warehouse wall along the top
    and a loading door."""
    w, h = COLS * SQUARE, ROWS * SQUARE
    draw.rectangle((0, 0, w, h), fill=(136, 136, 132))
    _speckle(draw, rng, (0, 0, w, h), [(124, 124, 120), (146, 146, 142), (116, 114, 110)], 3000)
    for x in range(0, w, 4 * SQUARE):
        draw.line((x, SQUARE, x, h), fill=(196, 170, 70), width=4)
    draw.rectangle((0, 0, w, SQUARE - 8), fill=(92, 74, 64))
    draw.rectangle((6 * SQUARE, 0, 8 * SQUARE, SQUARE - 8), fill=(60, 60, 66))
    for cx, cy in ((5, 3), (5, 4), (6, 4), (12, 6), (13, 6), (12, 7), (3, 8)):
        x, y = cx * SQUARE + 6, cy * SQUARE + 6
        draw.rectangle((x, y, x + SQUARE - 12, y + SQUARE - 12), fill=(150, 112, 64),
                       outline=(98, 70, 36), width=3)
        draw.line((x, y, x + SQUARE - 12, y + SQUARE - 12), fill=(98, 70, 36), width=3)
    for cx, cy in ((14, 2), (2, 7)):
        x, y = cx * SQUARE + 32, cy * SQUARE + 32
        draw.ellipse((x - 22, y - 22, x + 22, y + 22), fill=(70, 90, 110), outline=(40, 50, 60),
                     width=3)


def _ruins(draw: ImageDraw.ImageDraw, rng: random.Random) -> None:
    """A cracked street on the left and the ruins of a block on the right (zones: each
    drawn where its region lies, :data:`REGIONS`)."""
    w, h = COLS * SQUARE, ROWS * SQUARE
    draw.rectangle((0, 0, w, h), fill=(92, 98, 84))
    _speckle(draw, rng, (0, 0, w, h), [(80, 86, 72), (104, 110, 96)], 1800)
    draw.rectangle((40, 70, 600, 580), fill=(74, 74, 78))
    for x in range(60, 600, 90):
        draw.rectangle((x, 318, x + 44, 330), fill=(200, 190, 120))
    for _ in range(14):
        x, y = rng.randrange(60, 560), rng.randrange(90, 560)
        draw.line((x, y, x + rng.randrange(-40, 40), y + rng.randrange(10, 50)), fill=(50, 50, 54),
                  width=2)
    draw.rectangle((650, 100, 990, 560), fill=(120, 104, 88))
    for x0, y0, x1, y1 in ((650, 100, 990, 130), (650, 100, 680, 560), (960, 100, 990, 400),
                           (650, 530, 850, 560)):
        draw.rectangle((x0, y0, x1, y1), fill=(84, 70, 60))
    _speckle(draw, rng, (690, 140, 950, 520), [(150, 134, 116), (96, 84, 72)], 500, 6)


PAINTERS: dict[str, Painter] = {"realms": _ford, "polemos": _depot, "zones": _ruins}
"""The rulesets whose demo has a scene image."""
REGIONS: dict[str, dict[str, list[int]]] = {
    "zones": {"street": [40, 70, 560, 510], "ruins": [650, 100, 340, 460]}}
"""Where a zones demo draws each zone on its image (``region``: x, y, width, height)."""


def demo_scene(ruleset: str) -> bytes | None:
    """The PNG of ``ruleset``'s demo scene, or None when it has none."""
    painter = PAINTERS.get(ruleset)
    if painter is None:
        return None
    image = Image.new("RGB", (COLS * SQUARE, ROWS * SQUARE))
    painter(ImageDraw.Draw(image), random.Random(f"arbiter-demo-{ruleset}"))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()
