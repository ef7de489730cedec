"""Scenario errors name the file, the line and the key."""

from __future__ import annotations


class ScenarioError(Exception):
    """A malformed scenario file."""

    def __init__(self, source: str, line: int, key: str, message: str) -> None:
        self.source = source
        self.line = line
        self.key = key
        where = f"{source}:{line}"
        super().__init__(f"{where}: {key + ': ' if key else ''}{message}")
