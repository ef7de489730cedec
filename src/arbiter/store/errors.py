"""Errors of the event store. Each says what was wrong and what would be accepted."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of every store error."""


class NotFound(StoreError):
    """A campaign, encounter or log entry that does not exist."""

    def __init__(self, kind: str, ident: str) -> None:
        self.kind = kind
        self.ident = ident
        super().__init__(f"no {kind} {ident!r}")


class Conflict(StoreError):
    """An append decided on a version that is no longer the latest.

    ``expected`` is the version the append was decided on, ``actual`` the stored one.
    """

    def __init__(self, encounter: str, expected: int, actual: int,
                 kind: str = "encounter") -> None:
        self.encounter = encounter
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"{kind} {encounter} is at version {actual}, not {expected}: "
            "someone else acted first; look again and resend"
        )


class NothingToUndo(StoreError):
    """Undo with no command left to undo, or redo with nothing undone since the last one."""


class ExportFormatError(StoreError):
    """An exported campaign file that cannot be imported; the message names the field."""

    def __init__(self, message: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


class AlreadyExists(StoreError):
    """An import naming a campaign or encounter the store already holds: an import never
    replaces anything. ``field`` is where the document names it (``campaign.id``)."""

    def __init__(self, kind: str, ident: str, field: str | None = None) -> None:
        self.kind = kind
        self.ident = ident
        self.field = field
        super().__init__(f"a {kind} {ident!r} already exists in this store; an import never "
                         f"replaces one" + (f" ({field})" if field else ""))


class SnapshotError(StoreError):
    """A snapshot that cannot be written or read back (the log is used instead)."""


class TooMuch(StoreError):
    """A write that would pass one of the campaign's size limits (its images together)."""
