"""Environment variable names and defaults every part agrees on."""

from typing import Final

DEFAULT_PORT: Final = 7411
DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_DATA_DIR_NAME: Final = ".aletheia"
DB_FILE_NAME: Final = "hub.db"

DATA_DIR: Final = "ALETHEIA_DATA_DIR"
HUB_DB: Final = "ALETHEIA_HUB_DB"
DATABASE_URL: Final = "ALETHEIA_DATABASE_URL"
HUB_URL: Final = "ALETHEIA_HUB_URL"
TOKEN: Final = "ALETHEIA_TOKEN"
TOOL: Final = "ALETHEIA_TOOL"
CWD: Final = "ALETHEIA_CWD"
PORT: Final = "ALETHEIA_PORT"
API_KEY: Final = "ALETHEIA_API_KEY"
DIALECT: Final = "ALETHEIA_DIALECT"
CA_BUNDLE: Final = "ALETHEIA_CA_BUNDLE"
TLS_CERT_FILE: Final = "ALETHEIA_TLS_CERT_FILE"
TLS_KEY_FILE: Final = "ALETHEIA_TLS_KEY_FILE"


def local_hub_url(port: int = DEFAULT_PORT, path: str = "/mcp") -> str:
    """The MCP address (by default /mcp) of a hub on this machine's loopback."""
    return f"http://{DEFAULT_HOST}:{port}{path}"
