"""Run a hub process: take the port, then its store's lock, then record the process as its
store's local hub.

The lock (see store_lock) keeps a SQLite store to one hub, whatever the data dir or command
that starts it, or the path (hard link, mount) it reaches the file by. Every hub, local, team
or TLS, lists itself in the machine's runtime folder (see running_hubs) while it serves, for
`aletheia status` and `stop`. The record (pid, port, store) lets a proxy find the hub of its
store. Only the process it names writes it, once it
serves, and removes it when it stops, unless another hub of the same store has recorded itself
since. A hub that cannot take its port exits before it touches it, and so does one whose store
another hub holds: one line each, naming that hub. A hub aletheia-mcp started stops by itself
once idle (see Settings.idle_exit_after).
"""

import contextlib
import errno
import logging
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn

from aletheia_hub import private_files
from aletheia_hub.heap import limit_arenas
from aletheia_hub.http.activity import Activity
from aletheia_hub.local_hubs import busy_port_problem
from aletheia_hub.running_hubs import RuntimeEntryFile, entry_for, live_entries, runtime_folder
from aletheia_hub.settings import Settings
from aletheia_hub.store_lock import StoreLock, inode_folder, lock_path, serving_problem
from aletheia_shared.store import StoreLocation, parse_record, record_text

if TYPE_CHECKING:
    from fastapi import FastAPI

logger = logging.getLogger("aletheia_hub")


class HubNotStarted(Exception):
    """This hub cannot serve: the one-line message says why and what to do."""


class _RecordingServer(uvicorn.Server):
    def __init__(
        self,
        config: uvicorn.Config,
        record: "HubRecordFile | None",
        *,
        entry: RuntimeEntryFile,
        activity: Activity,
        idle_exit: int | None,
    ) -> None:
        super().__init__(config)
        self.record = record
        self.entry = entry
        self.activity = activity
        self.idle_exit = idle_exit

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            if self.record is not None:
                self.record.write()
            self.entry.write()
        self.activity.touch()  # idle from now on, not from before the migrations

    async def on_tick(self, counter: int) -> bool:
        # Ten ticks a second: the idle exit is checked on the same beat as should_exit.
        if await super().on_tick(counter):
            return True
        if self.idle_exit is not None and self.activity.idle_seconds() >= self.idle_exit:
            logger.warning(
                "no request for %d s: this hub, started by aletheia-mcp, stops", self.idle_exit
            )
            self.should_exit = True
        return self.should_exit

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # First, so that no proxy picks a hub that is going away.
        if self.record is not None:
            self.record.remove()
        self.entry.remove()
        await super().shutdown(sockets=sockets)


class HubRecordFile:
    """This process's record in the data dir: written whole, removed only while it is ours."""

    def __init__(self, path: Path, *, port: int, store: StoreLocation) -> None:
        self.path = path
        self.text = record_text(pid=os.getpid(), port=port, store=store)

    def write(self) -> None:
        partial = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            private_files.make_folder(self.path.parent)
            private_files.write_text(partial, self.text)
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
    sock = _bind(settings.host, settings.port)
    port = int(sock.getsockname()[1])
    store_lock = _lock_store(settings.served_store(), port, sock)
    try:
        app = _create_app(settings)
    except BaseException:
        sock.close()
        if store_lock is not None:
            store_lock.release()
        raise
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level="warning",
        access_log=False,
        ssl_certfile=settings.tls_cert_file,
        ssl_keyfile=settings.tls_key_file,
    )
    # A team hub is reached by URL and token, never found through a record; nor is a hub that
    # speaks TLS, since a proxy reaches the hub a record names over plain http.
    record = (
        None
        if settings.team_mode or settings.tls_cert_file is not None
        else HubRecordFile(settings.hub_record_path(), port=port, store=settings.served_store())
    )
    if announce is not None:
        announce(settings.model_copy(update={"port": port}))
    entry = RuntimeEntryFile(runtime_folder(), entry_for(settings, port))
    server = _RecordingServer(
        config,
        record,
        entry=entry,
        activity=app.state.activity,
        idle_exit=settings.idle_exit_after(),
    )
    try:
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C: a clean stop, as in uvicorn.run
            server.run(sockets=[sock])
    finally:
        entry.remove()  # also when serving ended in an error, past shutdown
        if store_lock is not None:
            store_lock.release()


def _lock_store(store: StoreLocation, port: int, sock: socket.socket) -> StoreLock | None:
    """Hold the store's lock for as long as this process serves, or stop with the line that
    names the hub holding it. Taken before serving, so two hubs started at once cannot both
    pass (a PostgreSQL store takes none: several team hubs may share it)."""
    path = lock_path(store)
    if path is None:
        return None
    store_lock = StoreLock(path, Path(store.location), inode_folder(runtime_folder()))
    try:
        problem = store_lock.acquire(port=port, store=store, same_file=lambda: _hub_of(store))
    except OSError as error:
        sock.close()
        raise HubNotStarted(f"Cannot lock the store {store} ({path}): {error}.") from None
    if problem is not None:
        sock.close()
        raise HubNotStarted(problem)
    return store_lock


def _hub_of(store: StoreLocation) -> str | None:
    """The line naming the running hub that serves the same SQLite file as `store` under
    another path (a hard link, another mount), or None when none has listed itself yet."""
    for listed in live_entries():
        entry = listed.entry
        if entry["kind"] != "sqlite" or entry["pid"] == os.getpid():
            continue
        with contextlib.suppress(OSError):
            if os.path.samefile(entry["location"], store.location):
                served = StoreLocation(entry["kind"], entry["location"])
                return serving_problem(
                    port=entry["port"], store=served, pid=entry["pid"], version=entry["version"]
                )
    return None


def _create_app(settings: Settings) -> "FastAPI":
    """The app, loaded once the port and the store are this process's: a hub that cannot
    serve says so in a fraction of the second the web stack takes to import."""
    from aletheia_hub.app import create_app

    return create_app(settings)


def _bind(host: str, port: int) -> socket.socket:
    """The listening address taken as uvicorn's Config.bind_socket takes it, but a taken port
    is a HubNotStarted naming what holds it, not uvicorn's exit with its errno line."""
    sock = socket.socket(family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise HubNotStarted(busy_port_problem(host, port)) from None
        raise HubNotStarted(f"Cannot listen on {host}:{port}: {error.strerror or error}.") from None
    return sock
