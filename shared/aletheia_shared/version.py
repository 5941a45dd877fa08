"""The product version, reported as serverInfo.version."""

from typing import Final

__version__: Final = "0.1.0"
