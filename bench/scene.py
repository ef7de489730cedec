"""Benchmark of the scene: how long after navigation the GM console has drawn a map of 40
tokens on a 4096 x 4096 background, in Debian's Chromium driven by Playwright (1440x900).

Starts ``arbiter serve`` on a temporary SQLite database as ``bench/server.py`` does, with one
realms encounter of 40 creatures placed on a 64 x 64 grid and a background drawn by Pillow
(4096 px a side, 64 px a square), uploaded through the scene image route. The console is
loaded once to warm the server, then ``--loads`` times; the time is taken inside the page
(``performance.now()`` when the background and the 40th token are on the map), so it includes
fetching the page, its modules, the state and the image.

    python bench/scene.py            # a line of figures
    python bench/scene.py --json     # {"scene_drawn_ms": {"median", "p90", "max"}, ...}
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from console import CHROMIUM, figures, measure  # bench/console.py, a sibling script
from server import prepare, serving  # bench/server.py, a sibling script

TOKENS = 40
SIDE = 4096
OBSERVER = """new MutationObserver(() => {
    if (window.sceneAt) return;
    const pic = document.querySelector('.battlemap image.backdrop');
    if (pic && pic.getAttribute('href')
        && document.querySelectorAll('.battlemap .tok').length >= TOKENS)
        window.sceneAt = performance.now();
}).observe(document, {subtree: true, childList: true, attributes: true});""".replace(
    "TOKENS", str(TOKENS))


def background() -> bytes:
    """A 4096 px field with a road and a grid of 64 px squares (a few hundred kB as PNG)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (SIDE, SIDE), (100, 140, 80))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, SIDE // 2 - 96, SIDE, SIDE // 2 + 96), fill=(170, 150, 110))
    for at in range(0, SIDE, 64):
        draw.line((at, 0, at, SIDE), fill=(80, 110, 64))
        draw.line((0, at, SIDE, at), fill=(80, 110, 64))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def scene_path(db: Path) -> str:
    """The realms encounter of 40 placed creatures with its background: the console's URL."""
    from arbiter.store import EventStore, GameService

    actors = [{"id": f"c{n}", "template": "bandit" if n % 2 else "knight",
               "side": "brigands" if n % 2 else "heroes", "position": [2 + 3 * (n % 10),
                                                                        4 + 5 * (n // 10)]}
              for n in range(TOKENS)]
    campaign, token, (eid,) = prepare(db, 1, "realms", actors)
    service = GameService(EventStore.open(db))
    service.put_scene_image(eid, background())
    service.store.close()
    return f"/#campaign={campaign}&token={token}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--loads", type=int, default=9, help="timed loads (default 9)")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        sys.exit("bench/scene.py: Chromium is missing (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-") as folder:
        db = Path(folder) / "bench.db"
        path = scene_path(db)
        with serving(db) as (port, _):
            times = measure(f"http://127.0.0.1:{port}{path}", args.loads, OBSERVER, "sceneAt",
                            (1440, 900))
    ms = figures(times)
    load = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps({"scene_drawn_ms": ms, "loads": len(times), "tokens": TOKENS,
                          "background_px": SIDE, "viewport": "1440x900",
                          "load_average": load}))
        return
    print(f"GM console, a {TOKENS}-token map on a {SIDE} px background drawn after navigation "
          f"({len(times)} loads, 1440x900, load average {load}): median {ms['median']} ms, "
          f"p90 {ms['p90']} ms, max {ms['max']} ms")


if __name__ == "__main__":
    main()
