"""Protocol types and constants shared by the Aletheia hub and the stdio proxy."""

from aletheia_shared.version import __version__

__all__ = ["__version__"]
