"""Find the local hub that serves the proxy's store, or start one; never use another store's.

In order: the hub on ALETHEIA_PORT when it serves our store; else the hub our store's record
names; else, when nothing listens on the port, a new hub there; else (the port serves another
store) a new hub of our store on a free port, which records itself for the next proxy.
"""

from dataclasses import dataclass
from pathlib import Path

from aletheia_proxy import launch
from aletheia_proxy.transport import HubClient
from aletheia_shared import env
from aletheia_shared.store import StoreLocation, parse_record, record_path, served_store


@dataclass(frozen=True, slots=True)
class Probe:
    """What answers on a port: a hub naming its store, something else, or nothing."""

    refused: bool
    store: StoreLocation | None
    answered: bool


class LocalHub:
    """Points a HubClient at a local hub of the configured store."""

    def __init__(self, hub: HubClient) -> None:
        self.hub = hub
        self.config = hub.config
        self.record = record_path(self.config.store, self.config.data_dir)

    def find(self) -> str | None:
        """Point the client at a hub of our store; else say why not and what to do."""
        with launch.exclusive(self.record.with_suffix(".lock")):
            return self._find()

    def _find(self) -> str | None:
        port = self.config.port
        on_port = self._probe(port)
        if on_port.store != self.config.store:
            found: int | str | None = self._recorded_port()
            if found is None:
                found = self._start_for(port, on_port)
            if isinstance(found, str):
                return found
            port = found
        self.hub.hub_url = env.local_hub_url(port, self.config.mcp_path)
        return None

    def _start_for(self, port: int, on_port: Probe) -> int | str:
        """Start a hub of our store: on the port when nothing listens there, else on a free
        port when the port serves another store. The port it serves on, or why not."""
        if on_port.refused:
            process = launch.spawn_hub(self.config, port)
            if process is not None:
                launch.wait_for(lambda: self._probe(port).answered, process, others_may_win=True)
            on_port = self._probe(port)
            if on_port.store == self.config.store:
                return port
            if on_port.store is None:
                return self._not_started(port)
        elif on_port.store is None:
            return self._not_a_hub(port, on_port)
        own = self._start_own()
        return own if own is not None else self._mismatch(port, on_port.store)

    def _probe(self, port: int) -> Probe:
        answer = self.hub.health(env.local_hub_url(port))
        if answer is not None:
            return Probe(refused=False, store=served_store(answer), answered=True)
        return Probe(refused=launch.nothing_listens(port), store=None, answered=False)

    def _recorded_port(self) -> int | None:
        """The port of the hub our store's record names, when it answers for our store."""
        try:
            record = parse_record(self.record.read_text())
        except OSError:
            return None
        if record is None or record["port"] == self.config.port:
            return None  # that port was just probed
        if self._probe(record["port"]).store == self.config.store:
            return record["port"]
        return None

    def _start_own(self) -> int | None:
        """Start a hub of our store on a free port; its port once it has recorded itself."""
        process = launch.spawn_hub(self.config, 0)
        if process is None:
            return None
        found: list[int] = []

        def recorded_by_it() -> bool:
            try:
                record = parse_record(self.record.read_text())
            except OSError:
                return False
            if record is None or record["pid"] != process.pid:
                return False
            found.append(record["port"])
            return True

        if not launch.wait_for(recorded_by_it, process, others_may_win=False):
            return None
        return found[-1] if self._probe(found[-1]).store == self.config.store else None

    def _log(self) -> Path:
        return self.config.data_dir / launch.LOG_NAME

    def _not_started(self, port: int) -> str:
        return (
            f"No Aletheia hub answers on port {port}, and the one this server started for "
            f"{self.config.store} did not come up (see {self._log()}). Start one with "
            "`aletheia-server`, or set ALETHEIA_HUB_URL to a running hub; then retry."
        )

    def _not_a_hub(self, port: int, on_port: Probe) -> str:
        what = (
            "answers without naming its store (an older Aletheia hub, or another program)"
            if on_port.answered
            else "holds the port but does not answer"
        )
        return (
            f"Something on port {port} {what}, so this server cannot check that it serves "
            f"{self.config.store}. Stop it, or set ALETHEIA_PORT to a free port; then retry."
        )

    def _mismatch(self, port: int, other: StoreLocation) -> str:
        return (
            f"The Aletheia hub on port {port} serves another store ({other}), not this "
            f"server's store ({self.config.store}), and a hub for this store could not be "
            f"started on another port (see {self._log()}). Stop the hub on port {port}, or set "
            "ALETHEIA_PORT to a free port for this store; then retry."
        )
