"""``make golden``: regenerate ``tests/golden/logs.json`` from the shipped encounters and
print what changed (tests/sim/test_golden_logs.py compares with it). Run it when a change is
meant to change the logs (a new encounter, a new event, a rule fixed), read the diff, and
say why in the commit."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .test_golden_logs import ENCOUNTERS, GOLDEN, commands_of, entry_digests

Digests = dict[str, list[list[str]]]


def diff(old: Digests, new: Digests,
         command: Callable[[str, int, int], str] = lambda name, run, entry: "?") -> list[str]:
    """One line per change between two golden files: an encounter added or removed, and for
    each run that differs, its first differing entry (1-based) with that entry's command as
    ``command(encounter, run, index)`` gives it, and the counts of entries before and now."""
    lines = [f"+ {name}: new ({len(new[name])} runs)" for name in sorted(set(new) - set(old))]
    lines += [f"- {name}: gone" for name in sorted(set(old) - set(new))]
    for name in sorted(set(old) & set(new)):
        for run, (was, now) in enumerate(zip(old[name], new[name], strict=False)):
            if was == now:
                continue
            first = next((i for i, (a, b) in enumerate(zip(was, now, strict=False)) if a != b),
                         min(len(was), len(now)))
            shown = command(name, run, first) if first < len(now) else "(the log ended)"
            lines.append(f"~ {name}, run {run}: differs from entry {first + 1} on "
                         f"({len(was)} entries before, {len(now)} now): {shown}")
    return lines


def main() -> None:
    old: Digests = json.loads(GOLDEN.read_text(encoding="utf-8")) if GOLDEN.exists() else {}
    by_name: dict[str, Path] = {p.name: p for p in ENCOUNTERS}
    new: Digests = {name: entry_digests(path) for name, path in by_name.items()}
    GOLDEN.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    lines = diff(old, new, lambda name, run, entry: commands_of(by_name[name], run)[entry])
    print("\n".join(lines) if lines else "the golden logs are unchanged")
    print(f"wrote {GOLDEN.relative_to(GOLDEN.parents[2])} ({len(new)} encounters)")


if __name__ == "__main__":
    main()
