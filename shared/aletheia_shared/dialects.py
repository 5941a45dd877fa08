"""The tool dialects a hub serves and the MCP path of each; hub and proxy agree on them here."""

from typing import Final

ALETHEIA: Final = "aletheia"
OPEN_MEM: Final = "open-mem"
ALL: Final = "all"
DEFAULT: Final = ALETHEIA
# Each dialect's path on the hub; the aletheia path is the hub's /mcp endpoint.
PATHS: Final[dict[str, str]] = {
    ALETHEIA: "/mcp",
    OPEN_MEM: "/mcp/open-mem",
    ALL: "/mcp/all",
}


class UnknownDialect(ValueError):
    """A dialect name no hub serves."""


def dialect_path(name: str | None) -> str:
    """The MCP path of a dialect (None or blank: the default); UnknownDialect otherwise."""
    chosen = (name or "").strip() or DEFAULT
    if chosen not in PATHS:
        known = ", ".join(PATHS)
        raise UnknownDialect(f'unknown dialect "{chosen}": choose one of {known}')
    return PATHS[chosen]


def hub_base(url: str) -> str:
    """A hub URL without the MCP path of any dialect at its end."""
    base = url.rstrip("/")
    for path in sorted(PATHS.values(), key=len, reverse=True):
        if base.endswith(path):
            return base[: -len(path)]
    return base


def dialect_url(hub_url: str, path: str) -> str:
    """The hub URL for a dialect's path: the URL's own MCP path replaced by `path`; a URL
    with another path is used as given for the default dialect's path."""
    base = hub_base(hub_url)
    if base == hub_url.rstrip("/") and path == PATHS[DEFAULT]:
        return hub_url
    return base + path
