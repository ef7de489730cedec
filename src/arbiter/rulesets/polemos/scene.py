"""The demo encounter's picture, a depot yard: drawn by Pillow from a fixed seed (no
outside art) on a grid of ``arbiter.scenes.SQUARE`` pixels."""

from __future__ import annotations

import random

from PIL import ImageDraw

from ...scenes import COLS, ROWS, SQUARE, speckle


def paint(draw: ImageDraw.ImageDraw, rng: random.Random) -> None:
    """A concrete yard with painted lanes, stacks of crates, a warehouse wall along the top
    and a loading door."""
    w, h = COLS * SQUARE, ROWS * SQUARE
    draw.rectangle((0, 0, w, h), fill=(136, 136, 132))
    speckle(draw, rng, (0, 0, w, h), [(124, 124, 120), (146, 146, 142), (116, 114, 110)], 3000)
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
