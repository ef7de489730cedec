"""Benchmark of the browser console: how long after navigation the GM console has drawn
its cards, at a tablet's size (1024x768), in Debian's Chromium driven by Playwright.

Starts ``arbiter serve`` on a temporary SQLite database as ``bench/server.py`` does, with
one realms encounter of three creatures, loads the console once to warm the server, then
loads it ``--loads`` times. The time is taken inside the page (``performance.now()`` when
the third card appears), so it includes fetching the page, its modules and the state.

    python bench/console.py            # a line of figures
    python bench/console.py --json     # {"cards_drawn_ms": {"median", "p90", "max"}, ...}
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from server import prepare, serving  # bench/server.py, a sibling script

CHROMIUM = "/usr/bin/chromium"
OBSERVER = """new MutationObserver(() => {
    if (!window.cardsAt && document.querySelectorAll('#cards article.card').length === 3)
        window.cardsAt = performance.now();
}).observe(document, {subtree: true, childList: true});"""


def console_path(db: Path) -> str:
    """A realms campaign with one encounter of three creatures (``bench/server.py``'s
    ``prepare``): the console's URL path."""
    campaign, token, _ = prepare(db, 1, "realms", [{"id": actor, "template": actor}
                                                   for actor in ("bandit", "wolf", "knight")])
    return f"/#campaign={campaign}&token={token}"


def measure(url: str, loads: int, observer: str = OBSERVER, mark: str = "cardsAt",
            viewport: tuple[int, int] = (1024, 768)) -> list[float]:
    """``loads`` timed loads of ``url`` (after one that warms the server): each the page's
    ``window[mark]``, which ``observer`` (a script run before the page's own) sets."""
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
            page.add_init_script(observer)
            for i in range(loads + 1):
                page.goto("about:blank")
                page.goto(url)
                page.wait_for_function(f"() => window.{mark} !== undefined", timeout=60_000)
                if i:  # the first load warms the server (it imports the ruleset)
                    times.append(float(page.evaluate(f"window.{mark}")))
        finally:
            browser.close()
    return times


def figures(times: list[float]) -> dict[str, float]:
    """Median, p90 and max of ``times`` (sorted here), in ms to a tenth."""
    times = sorted(times)
    return {"median": round(statistics.median(times), 1),
            "p90": round(times[int(0.9 * (len(times) - 1))], 1), "max": round(times[-1], 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--loads", type=int, default=15, help="timed loads (default 15)")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        sys.exit("bench/console.py: Chromium is missing (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="arbiter-bench-") as folder:
        db = Path(folder) / "bench.db"
        path = console_path(db)
        with serving(db) as (port, _):
            times = measure(f"http://127.0.0.1:{port}{path}", args.loads)
    ms = figures(times)
    load = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps({"cards_drawn_ms": ms, "loads": len(times), "viewport": "1024x768",
                          "load_average": load}))
        return
    print(f"GM console, cards drawn after navigation ({len(times)} loads, 1024x768, load "
          f"average {load}): median {ms['median']} ms, p90 {ms['p90']} ms, "
          f"max {ms['max']} ms (goal: under 1000 ms)")


if __name__ == "__main__":
    main()
