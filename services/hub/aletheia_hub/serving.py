"""Run a hub process: take the port first, then record the process as its store's local hub.

The record (pid, port, store) lets a proxy find the hub of its store. Only the process it
names writes it, once it serves, and removes it when it stops, unless another hub of the same
store has recorded itself since. A hub that cannot take its port exits before it touches it.
"""

import contextlib
import logging
import os
import socket
from collections.abc import Callable
from pathlib import Path

import uvicorn

from aletheia_hub.app import create_app
from aletheia_hub.heap import limit_arenas
from aletheia_hub.settings import Settings
from aletheia_shared.store import StoreLocation, parse_record, record_text

logger = logging.getLogger("aletheia_hub")


class _RecordingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, record: "HubRecordFile | None") -> None:
        super().__init__(config)
        self.record = record

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and self.record is not None:
            self.record.write()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # First, so that no proxy picks a hub that is going away.
        if self.record is not None:
            self.record.remove()
        await super().shutdown(sockets=sockets)


class HubRecordFile:
    """This process's record in the data dir: written whole, removed only while it is ours."""

    def __init__(self, path: Path, *, port: int, store: StoreLocation) -> None:
        self.path = path
        self.text = record_text(pid=os.getpid(), port=port, store=store)

    def write(self) -> None:
        partial = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial.write_text(self.text)
            os.replace(partial, self.path)  # readers see the old record or the new, never half
        except OSError as error:
            logger.warning("could not record this hub in %s: %s", self.path, error)
            with contextlib.suppress(OSError):
                partial.unlink()

    def remove(self) -> None:
        try:
            current = parse_record(self.path.read_text())
        except OSError:
            return
        if current is not None and current["pid"] == os.getpid():
            with contextlib.suppress(OSError):
                self.path.unlink()


def run(settings: Settings, announce: Callable[[Settings], None] | None = None) -> None:
    """Serve until stopped. `--port 0` takes a free port; the record names the real one."""
    limit_arenas()  # before the app's threads start
    config = uvicorn.Config(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level="warning",
        access_log=False,
    )
    sock = config.bind_socket()  # exits with an error when the port is taken
    port = int(sock.getsockname()[1])
    serving = settings.model_copy(update={"port": port})
    if announce is not None:
        announce(serving)
    # A team hub is reached by URL and token, never found through a record.
    record = (
        None
        if settings.team_mode
        else HubRecordFile(settings.hub_record_path(), port=port, store=settings.served_store())
    )
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C: a clean stop, as in uvicorn.run
        _RecordingServer(config, record).run(sockets=[sock])
