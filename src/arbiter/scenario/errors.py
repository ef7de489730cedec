"""Scenario errors name the file, the line and the key."""

from __future__ import annotations


class ScenarioError(Exception):
    """A malformed scenario file."""

    def __init__(self, source: str, line: int, key: str, message: str) -> None:
        self.source = source
        self.line = line
        self.key = key
        self.reason = f"{key + ': ' if key else ''}{message}"
        """What is wrong, without the file and line."""
        super().__init__(f"{source}:{line}: {self.reason}")
