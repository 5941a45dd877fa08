"""Stop hubs of this machine: only a process seen to hold the port whose `/healthz` names it."""

from pathlib import Path
from typing import Final

from aletheia_hub.local_hubs import (
    describe,
    is_hub,
    probe,
    reachable_host,
    recorded_hubs,
    remove_record,
)
from aletheia_hub.processes import end_process, holds_port, is_running
from aletheia_hub.running_hubs import live_entries, remove_entry_of
from aletheia_shared import env

STOP_SECONDS: Final = 10.0


def stop_port(port: int, data_dir: Path, timeout: float) -> int:
    """Stop the hub on `port`; 0 when it stopped, 1 when there was none or it was not ours."""
    hosts = {item.entry["port"]: item.entry["host"] for item in live_entries()}
    stopped = _stop(port, data_dir, timeout, hosts.get(port, env.DEFAULT_HOST))
    if stopped is None:
        print(f"No Aletheia hub answers on port {port}: nothing to stop.")
        return 1
    return 0 if stopped else 1


def stop_all(data_dir: Path, port: int, timeout: float) -> int:
    """Stop every hub the data dir records, every hub of the machine's runtime folder and the
    one on `port`; remove stale records. 0 when at least one stopped and none was left
    running, else 1."""
    recorded: dict[int, int] = {}
    hosts: dict[int, str] = {}
    for item in recorded_hubs(data_dir):
        if is_running(item.record["pid"]):
            recorded[item.record["port"]] = item.record["pid"]
        elif remove_record(item):
            print(f"Removed the stale record {item.path.name}: pid {item.record['pid']} is gone.")
    for listed in live_entries():
        recorded[listed.entry["port"]] = listed.entry["pid"]
        hosts[listed.entry["port"]] = listed.entry["host"]
    outcomes = []
    for each in sorted({port, *recorded}):
        outcome = _stop(each, data_dir, timeout, hosts.get(each, env.DEFAULT_HOST))
        if outcome is None and each in recorded:
            print(
                f"The hub recorded on port {each} (pid {recorded[each]}) does not answer "
                "/healthz: not stopped."
            )
            outcome = False
        outcomes.append(outcome)
    if all(outcome is None for outcome in outcomes):
        print(f"No Aletheia hub is running (data dir {data_dir}, port {port}): nothing to stop.")
        return 1
    return 0 if False not in outcomes else 1


def _stop(port: int, data_dir: Path, timeout: float, host: str) -> bool | None:
    """Stop the hub on `port` (listening on `host`): True when done, False when refused, None
    when none answers."""
    health = probe(port, reachable_host(host))
    if not is_hub(health):
        return None
    pid: int = health["pid"]
    what = describe(health)
    if not _verified(pid, port, data_dir):
        print(
            f"Not stopping port {port}: its /healthz names pid {pid}, which does not hold the "
            "port (a hub in a container, or not a hub of this machine); stop it where it runs."
        )
        return False
    try:
        clean = end_process(pid, timeout)
    except PermissionError:
        print(f"Cannot stop the hub on port {port}, {what}: pid {pid} is not yours to signal.")
        return False
    for item in recorded_hubs(data_dir):
        if item.record["pid"] == pid:
            remove_record(item)  # a killed hub could not remove its own
    remove_entry_of(pid)
    if clean:
        print(f"Stopped the hub on port {port}, {what}.")
    else:
        print(
            f"The hub on port {port}, {what}, did not exit within {timeout:g} s of SIGTERM: "
            "killed it (SIGKILL)."
        )
    return True


def _verified(pid: int, port: int, data_dir: Path) -> bool:
    """Whether `pid` is the process that serves `port`: it holds the listening socket (read
    from /proc), or, where there is no /proc, the data dir's record or the hub's runtime entry
    says so."""
    holds = holds_port(pid, port)
    if holds is not None:
        return holds
    named = [(item.record["pid"], item.record["port"]) for item in recorded_hubs(data_dir)]
    named += [(item.entry["pid"], item.entry["port"]) for item in live_entries()]
    return (pid, port) in named
