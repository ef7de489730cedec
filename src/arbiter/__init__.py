"""Arbiter: a rules engine and game-master console for tabletop role-playing games."""

__version__ = "0.1.0"
