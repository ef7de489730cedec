"""The demo encounter's picture, a street and ruins: drawn by Pillow from a fixed seed (no
outside art) on a grid of ``arbiter.scenes.SQUARE`` pixels."""

from __future__ import annotations

import random

from PIL import ImageDraw

from ...scenes import COLS, ROWS, SQUARE, speckle


def paint(draw: ImageDraw.ImageDraw, rng: random.Random) -> None:
    """A cracked street on the left and the ruins of a block on the right (zones: each
    drawn where its region lies, :data:`REGIONS`)."""
    w, h = COLS * SQUARE, ROWS * SQUARE
    draw.rectangle((0, 0, w, h), fill=(92, 98, 84))
    speckle(draw, rng, (0, 0, w, h), [(80, 86, 72), (104, 110, 96)], 1800)
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
    speckle(draw, rng, (690, 140, 950, 520), [(150, 134, 116), (96, 84, 72)], 500, 6)


REGIONS: dict[str, list[int]] = {"street": [40, 70, 560, 510], "ruins": [650, 100, 340, 460]}
"""Where each of the demo's zones lies on the picture (``region``: x, y, width, height)."""
