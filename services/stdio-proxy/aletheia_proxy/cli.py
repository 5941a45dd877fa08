"""aletheia-mcp: the stdio MCP server a host launches. It takes no flags but --help and
--version."""

import logging
import sys

from aletheia_proxy.code_status import CodeStatusPusher
from aletheia_proxy.config import ConfigError, load_config
from aletheia_proxy.forward import Forwarder, run
from aletheia_proxy.local_hub import LocalHub
from aletheia_proxy.transport import HubClient
from aletheia_shared import __version__

USAGE = """usage: aletheia-mcp [--help | --version]

The stdio MCP server that AI coding tools start. It reads newline-delimited JSON-RPC on
stdin and forwards each line to the Aletheia hub; it takes no other flags. A hub it
starts stops after ALETHEIA_IDLE_EXIT_SECONDS (default 1800) without a request.

Environment:
  ALETHEIA_HUB_URL   hub address, used as given (default: the local hub of the store below,
                     started when none answers)
  ALETHEIA_TOKEN     bearer token for a team hub
  ALETHEIA_CA_BUNDLE PEM file of CA certificates to trust, besides the system's, for an
                     https hub (for example one with a self-signed certificate)
  ALETHEIA_TOOL      names the caller (default: the host's clientInfo.name)
  ALETHEIA_CWD       working directory that sets the default project
  ALETHEIA_DATA_DIR, ALETHEIA_HUB_DB, ALETHEIA_DATABASE_URL   the store: only a local hub
                     that serves it is used; when the port serves another store, a hub for
                     this store is started on a free port (recorded in the data dir)
  ALETHEIA_PORT      port of the local hub (default 7411)
  ALETHEIA_DIALECT   the tools to serve: aletheia (default), open-mem (the mem-* tools) or
                     all (both); it picks the hub path /mcp, /mcp/open-mem or /mcp/all
"""


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(f"aletheia-mcp {__version__}\n")
        raise SystemExit(0)
    if len(sys.argv) > 1:
        stream = sys.stdout if sys.argv[1] in ("-h", "--help") else sys.stderr
        stream.write(USAGE)
        raise SystemExit(0 if stream is sys.stdout else 2)
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but protocol lines may ever reach the real stdout
    logging.basicConfig(
        level=logging.WARNING, format="aletheia-mcp: %(message)s", stream=sys.stderr
    )
    try:
        config = load_config()
    except ConfigError as error:
        sys.stderr.write(f"aletheia-mcp: {error}\n")
        raise SystemExit(2) from None
    hub = HubClient(config)
    # An explicit ALETHEIA_HUB_URL is the user's choice of hub: used as given, unchecked.
    finder = None if config.hub_url_given else LocalHub(hub).find
    try:
        run(sys.stdin.buffer, protocol_out, Forwarder(hub, finder, CodeStatusPusher(hub, config)))
    except (KeyboardInterrupt, BrokenPipeError):
        pass  # the host stopped us or closed our stdout: nothing left to answer
    finally:
        hub.end_session()
        hub.close()
