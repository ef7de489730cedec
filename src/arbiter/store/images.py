"""Scene images: what an upload must be, and what is kept of it.

An image is sniffed by its content (never by its name or declared type), must be a PNG, a
JPEG or a WebP of at most :data:`~arbiter.limits.IMAGE_BYTES` bytes and
:data:`~arbiter.limits.IMAGE_SIDE` pixels a side (read from its header before any pixel is
decoded), and is decoded whole and encoded again by Pillow in its own format: what is stored
and served is pixels only, with no metadata and nothing appended (a script glued after the
image data is gone). It is kept by the SHA-256 of the bytes stored.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass

from PIL import Image

from ..limits import IMAGE_BYTES, IMAGE_SIDE

FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
"""The formats taken, by Pillow's name, with the media type each is served as."""
HASH_RE = r"^[0-9a-f]{64}$"


class ImageError(ValueError):
    """An upload that is not an image this server keeps: ``status`` is the HTTP answer
    (413 too large, 415 not a PNG, JPEG or WebP, 422 unreadable)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class StoredImage:
    hash: str
    content_type: str
    width: int
    height: int
    data: bytes

    def meta(self) -> dict[str, object]:
        return {"hash": self.hash, "content_type": self.content_type, "width": self.width,
                "height": self.height, "bytes": len(self.data)}


def _sniffed(data: bytes) -> str | None:
    """The format the first bytes say, or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return None


TOKEN_SIDE = 256
"""Pixels of a token image's longer side: a larger upload is scaled down to it."""


def clean_image(data: bytes, fit: int | None = None) -> StoredImage:
    """``data`` as it is stored: checked, decoded and encoded again (see the module); with
    ``fit``, scaled down (never up) so its longer side is at most ``fit`` pixels."""
    if len(data) > IMAGE_BYTES:
        raise ImageError(413, f"the image is {len(data)} bytes: at most {IMAGE_BYTES} "
                              f"({IMAGE_BYTES // (1024 * 1024)} MB)")
    kind = _sniffed(data)
    if kind is None:
        raise ImageError(415, "not a PNG, JPEG or WebP image (its content says so, whatever "
                              "its name or type)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=[kind]) as im:
                width, height = im.size
                if max(width, height) > IMAGE_SIDE or min(width, height) < 1:
                    raise ImageError(413, f"the image is {width}x{height} pixels: at most "
                                          f"{IMAGE_SIDE} a side")
                im.load()
                mode = "RGBA" if im.mode in ("RGBA", "LA", "P", "PA") else "RGB"
                if kind == "JPEG":
                    mode = "RGB"
                pixels = im.convert(mode)
                if fit is not None and max(width, height) > fit:
                    pixels.thumbnail((fit, fit), Image.Resampling.LANCZOS)
                    width, height = pixels.size
    except ImageError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageError(413, f"the image declares more pixels than {IMAGE_SIDE}x"
                              f"{IMAGE_SIDE}: at most {IMAGE_SIDE} a side") from None
    except (OSError, ValueError, SyntaxError) as err:
        raise ImageError(422, f"the {kind} image cannot be read: {err}") from None
    out = io.BytesIO()
    if kind == "PNG":
        pixels.save(out, "PNG")
    elif kind == "JPEG":
        pixels.save(out, "JPEG", quality=90)
    else:
        pixels.save(out, "WEBP", quality=90)
    stored = out.getvalue()
    return StoredImage(hashlib.sha256(stored).hexdigest(), FORMATS[kind], width, height,
                       stored)


def fogged(image: StoredImage, scene: dict[str, int], revealed: frozenset[tuple[int, int]]
           ) -> bytes:
    """``image`` as a player sees it under fog: dark but for the squares revealed (the
    scene's calibration: ``square`` pixels a square, the grid starting at ``offset_x``,
    ``offset_y``), in its own format. The work is bounded: the image was bounded when it
    was stored, and only revealed squares that fall on it are drawn."""
    from PIL import ImageDraw

    square, ox, oy = scene["square"], scene["offset_x"], scene["offset_y"]
    with Image.open(io.BytesIO(image.data)) as im:
        im.load()
        mask = Image.new("L", im.size, 0)
        draw = ImageDraw.Draw(mask)
        cols = range(-(-ox // square) - 1, (im.width - ox) // square + 1)
        rows = range(-(-oy // square) - 1, (im.height - oy) // square + 1)
        for x, y in revealed:
            if x in cols and y in rows:
                left, top = ox + x * square, oy + y * square
                draw.rectangle((left, top, left + square - 1, top + square - 1), fill=255)
        dark = Image.new(im.mode, im.size, (35, 35, 43, 255) if im.mode == "RGBA" else (35, 35, 43))
        shown = Image.composite(im, dark, mask)
    out = io.BytesIO()
    kind = {v: k for k, v in FORMATS.items()}[image.content_type]
    shown.save(out, kind, **({} if kind == "PNG" else {"quality": 90}))
    return out.getvalue()
