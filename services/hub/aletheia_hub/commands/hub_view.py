"""What `aletheia status` shows of each hub on this machine: its record or runtime entry, its
process and its answer."""

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aletheia_hub.local_hubs import (
    RecordFile,
    is_hub,
    probe,
    reachable_host,
    recorded_hubs,
    remove_record,
)
from aletheia_hub.processes import is_running
from aletheia_hub.running_hubs import EntryFile, live_entries
from aletheia_shared.store import served_store

COLUMNS = ("PORT", "PID", "STATE", "STARTED BY", "UPTIME", "VERSION", "EMBEDDER", "STORE")


@dataclass(frozen=True, slots=True)
class HubView:
    """One hub as seen now: running, stale (its record names a process that is gone),
    not answering, or not a hub (something else answers on the port)."""

    port: int
    pid: int | None
    state: str
    health: dict[str, Any] | None
    record: RecordFile | None
    entry: EntryFile | None = None

    def store_json(self) -> dict[str, str] | None:
        store = served_store(self.health) if self.health is not None else None
        if store is not None:
            return {"kind": store.kind, "location": store.location}
        if self.record is not None:
            return {"kind": self.record.record["kind"], "location": self.record.record["location"]}
        if self.entry is not None:
            return {"kind": self.entry.entry["kind"], "location": self.entry.entry["location"]}
        return None

    def as_json(self) -> dict[str, Any]:
        """What `aletheia status --json` lists of the hub (None where it did not answer)."""
        health = self.health or {}
        search = health.get("search")
        return {
            "port": self.port,
            "pid": self.pid,
            "state": self.state,
            "record": str(self.record.path) if self.record is not None else None,
            "store": self.store_json(),
            "version": health.get("version"),
            "embedder": search.get("embedder") if isinstance(search, dict) else None,
            "started_at": health.get("started_at"),
            "uptime_seconds": health.get("uptime_seconds"),
            "started_by": health.get("started_by"),
            "idle_exit_seconds": health.get("idle_exit_seconds"),
            **self._where_json(),
        }

    def _where_json(self) -> dict[str, Any]:
        """How the hub is reached and what it is, from its runtime entry (a record alone
        names a local plain-HTTP hub of the record's data dir)."""
        if self.entry is not None:
            entry = self.entry.entry
            return {"scheme": entry["scheme"], "team": entry["team"], "data_dir": entry["data_dir"]}
        if self.record is not None:
            return {"scheme": "http", "team": False, "data_dir": str(self.record.path.parent)}
        return {"scheme": None, "team": None, "data_dir": None}


def gather(data_dir: Path, port: int) -> list[HubView]:
    """The hubs the data dir records, every hub listed in the machine's runtime folder, and
    the one on `port` unless one of those is it; by port. A record whose process is gone is
    removed (while it still says the same); so is such a runtime entry."""
    views = [_recorded(item) for item in recorded_hubs(data_dir)]
    for item in live_entries():
        views = _with_entry(views, item)
    if not any(view.port == port and view.state == "running" for view in views):
        health = probe(port)
        if health is not None:
            running = is_hub(health)
            pid = health["pid"] if running else None
            views.append(HubView(port, pid, "running" if running else "not a hub", health, None))
    return sorted(views, key=lambda view: view.port)


def _with_entry(views: list[HubView], item: EntryFile) -> list[HubView]:
    """The views with the runtime entry joined to its hub's record view, or added as its own."""
    pid, port = item.entry["pid"], item.entry["port"]
    for index, view in enumerate(views):
        if view.pid == pid and view.port == port:
            return [*views[:index], dataclasses.replace(view, entry=item), *views[index + 1 :]]
    health = probe(port, reachable_host(item.entry["host"]))
    if is_hub(health) and health["pid"] == pid:
        return [*views, HubView(port, pid, "running", health, None, item)]
    return [*views, HubView(port, pid, "not answering", None, None, item)]


def _recorded(item: RecordFile) -> HubView:
    pid, port = item.record["pid"], item.record["port"]
    health = probe(port)
    if is_hub(health) and health["pid"] == pid:
        return HubView(port, pid, "running", health, item)
    if not is_running(pid):
        state = "stale, removed" if remove_record(item) else "stale"
        return HubView(port, pid, state, None, item)
    state = "stale" if is_hub(health) else "not answering"  # another hub took the port
    return HubView(port, pid, state, None, item)


def table(views: list[HubView]) -> str:
    """One line per hub under a header; the store comes last, since it is the longest."""
    rows = [COLUMNS, *(_row(view) for view in views)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(COLUMNS) - 1)]
    return "\n".join(
        "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]])
        for row in rows
    )


def _row(view: HubView) -> tuple[str, ...]:
    shown = view.as_json()
    store = shown["store"]
    return (
        str(view.port),
        _text(view.pid),
        view.state,
        _text(shown["started_by"]),
        _duration(shown["uptime_seconds"]),
        _text(shown["version"]),
        _text(shown["embedder"]),
        f"{store['kind']} {store['location']}" if store is not None else "-",
    )


def _text(value: object) -> str:
    return "-" if value is None or value == "" else str(value)


def _duration(seconds: object) -> str:
    """12s, 4m 05s, 3h 07m, 2d 05h: two units at most."""
    if not isinstance(seconds, int | float):
        return "-"
    whole = int(seconds)
    minutes, secs = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days}d {hours:02d}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"
