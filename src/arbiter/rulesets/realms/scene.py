"""The demo encounter's picture, a ford across a river: drawn by Pillow from a fixed seed (no
outside art) on a grid of ``arbiter.scenes.SQUARE`` pixels."""

from __future__ import annotations

import random
from itertools import pairwise

from PIL import ImageDraw

from ...scenes import COLS, ROWS, SQUARE, speckle


def paint(draw: ImageDraw.ImageDraw, rng: random.Random) -> None:
    """Meadow, a river running top to bottom through columns 5 and 6, a stone ford across
    it on rows 3 and 4, and a road to it."""
    w, h = COLS * SQUARE, ROWS * SQUARE
    draw.rectangle((0, 0, w, h), fill=(104, 142, 78))
    speckle(draw, rng, (0, 0, w, h), [(92, 128, 66), (120, 156, 90), (84, 118, 60)], 2600)
    river = [(5 * SQUARE + 10 + int(14 * ((y / 80) % 2 - 1) ** 2), y) for y in range(0, h + 1, 40)]
    for (x, y), (x2, y2) in pairwise(river):
        draw.polygon([(x - 6, y), (x2 - 6, y2), (x2 + 2 * SQUARE - 14, y2),
                      (x + 2 * SQUARE - 14, y)], fill=(70, 116, 150))
    speckle(draw, rng, (5 * SQUARE, 0, 7 * SQUARE, h), [(96, 142, 176), (60, 104, 138)], 500, 4)
    draw.rectangle((0, 3 * SQUARE + 18, w, 5 * SQUARE - 18), fill=(168, 146, 104))
    for x in range(5 * SQUARE - 8, 7 * SQUARE + 8, 22):
        for y in range(3 * SQUARE + 20, 5 * SQUARE - 20, 18):
            draw.rounded_rectangle((x, y, x + 18, y + 14), 4, fill=(150, 148, 140),
                                   outline=(110, 108, 100))
    for cx, cy in ((12, 1), (13, 7), (3, 8), (1, 1)):
        x, y = cx * SQUARE + 32, cy * SQUARE + 32
        draw.ellipse((x - 40, y - 40, x + 40, y + 40), fill=(58, 92, 48))
        draw.ellipse((x - 26, y - 30, x + 22, y + 18), fill=(72, 110, 58))
