"""Demo scenes: the pictures the demo encounters open on, each drawn by its ruleset's
``scene`` module (``paint(draw, rng)``, and ``REGIONS`` where its zones lie on it), from a
fixed seed, so a demo's image (and its hash) is the same on every machine with the same
Pillow. The pictures are 16 x 10 squares of :data:`SQUARE` pixels, the grid on the corner.
"""

from __future__ import annotations

import importlib
import io
import random
from types import ModuleType

from PIL import Image, ImageDraw

from .core import Ruleset

SQUARE = 64
"""Pixels a square, as the demos' ``scene`` commands calibrate it."""
COLS, ROWS = 16, 10


def speckle(draw: ImageDraw.ImageDraw, rng: random.Random, box: tuple[int, int, int, int],
            colours: list[tuple[int, int, int]], count: int, size: int = 3) -> None:
    """``count`` dots of ``colours`` strewn over ``box`` (grass, gravel, concrete)."""
    x0, y0, x1, y1 = box
    for _ in range(count):
        x, y = rng.randrange(x0, x1), rng.randrange(y0, y1)
        draw.ellipse((x, y, x + size, y + size), fill=rng.choice(colours))


def scene_module(ruleset: Ruleset) -> ModuleType | None:
    """The ruleset's ``scene`` module (beside its rules), or None when it draws none."""
    package = type(ruleset).__module__.rpartition(".")[0]
    try:
        return importlib.import_module(f"{package}.scene")
    except ModuleNotFoundError:
        return None


def demo_scene(ruleset: Ruleset) -> bytes | None:
    """The PNG of ``ruleset``'s demo scene, or None when it has none."""
    module = scene_module(ruleset)
    if module is None:
        return None
    image = Image.new("RGB", (COLS * SQUARE, ROWS * SQUARE))
    module.paint(ImageDraw.Draw(image), random.Random(f"arbiter-demo-{ruleset.name}"))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def demo_regions(ruleset: Ruleset) -> dict[str, list[int]]:
    """Where the demo's zones lie on its picture (zones: ``region``), by zone."""
    module = scene_module(ruleset)
    regions: dict[str, list[int]] = getattr(module, "REGIONS", {}) if module else {}
    return regions
