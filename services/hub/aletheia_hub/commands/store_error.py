"""The error a command raises when the store it names cannot be used.

Its own module, free of SQLAlchemy, so that the command line can catch it without loading the
store: `aletheia hook` runs on every prompt a host sends and never opens one.
"""


class StoreAccessError(Exception):
    """The store a command names cannot be used; the message says which and why."""
