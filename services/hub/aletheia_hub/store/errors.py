"""Errors a store function raises with a message fit to show the caller."""


class StoreError(Exception):
    """A request the store refuses (unknown id, bad value); the message says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
