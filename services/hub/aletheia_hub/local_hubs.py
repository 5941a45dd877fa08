"""The local hubs on this machine: their records in a data dir and their `/healthz` answers."""

import contextlib
import http.client
import json
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeGuard

from aletheia_shared import env
from aletheia_shared.store import (
    RECORD_NAME,
    HubRecord,
    parse_record,
    served_store,
)

PROBE_SECONDS: Final = 2.0


@dataclass(frozen=True, slots=True)
class RecordFile:
    """A hub record found in a data dir, and the file that holds it."""

    path: Path
    record: HubRecord


def read_record(path: Path) -> HubRecord | None:
    """The record in `path`, or None when there is none (or not a whole one)."""
    try:
        return parse_record(path.read_text())
    except OSError:
        return None


def recorded_hubs(data_dir: Path) -> list[RecordFile]:
    """Every hub record in the data dir (hub.json and hub-<hash>.json), by port."""
    found = []
    for path in sorted(data_dir.glob("hub*.json")):
        if path.name != RECORD_NAME and not path.name.startswith("hub-"):
            continue
        record = read_record(path)
        if record is not None:
            found.append(RecordFile(path, record))
    return sorted(found, key=lambda item: item.record["port"])


def probe(port: int, host: str = env.DEFAULT_HOST) -> dict[str, Any] | None:
    """The JSON object `/healthz` answers on the port, or None when nothing answers one.

    Plain HTTP first; a hub that speaks TLS is asked over HTTPS without checking its
    certificate, since the answer is only read, never trusted with anything.
    """
    shown = f"[{host}]" if ":" in host else host
    for scheme in ("http", "https"):
        try:
            with _opener(scheme).open(
                f"{scheme}://{shown}:{port}/healthz", timeout=PROBE_SECONDS
            ) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError:
            return None  # an HTTP answer, but no hub's
        except (OSError, http.client.HTTPException, ValueError) as error:
            if isinstance(getattr(error, "reason", error), ConnectionRefusedError | TimeoutError):
                return None  # nothing listens, or it does not answer: no other scheme will do
            continue
        return answer if isinstance(answer, dict) else None
    return None


def _opener(scheme: str) -> urllib.request.OpenerDirector:
    # Straight to loopback: an HTTP(S)_PROXY in the environment must not see a local probe.
    if scheme == "http":
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    unchecked = ssl.create_default_context()
    unchecked.check_hostname = False
    unchecked.verify_mode = ssl.CERT_NONE
    return urllib.request.build_opener(
        urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=unchecked)
    )


def is_hub(health: dict[str, Any] | None) -> TypeGuard[dict[str, Any]]:
    """Whether a `/healthz` answer comes from an Aletheia hub (it names its pid and store)."""
    return (
        health is not None
        and isinstance(health.get("pid"), int)
        and served_store(health) is not None
    )


def describe(health: dict[str, Any]) -> str:
    """`sqlite /path/hub.db (pid 4242, version 0.1.0)`, from a hub's `/healthz` answer."""
    return f"{served_store(health)} (pid {health.get('pid')}, version {health.get('version')})"


def remove_record(item: RecordFile) -> bool:
    """Remove a record file, only while it still names the same hub; whether it went."""
    if read_record(item.path) != item.record:
        return False
    with contextlib.suppress(OSError):
        item.path.unlink()
        return True
    return False


def reachable_host(host: str) -> str:
    """Where to ask a hub that listens on `host`: loopback for a wildcard address."""
    wildcard = {"0.0.0.0": env.DEFAULT_HOST, "": env.DEFAULT_HOST, "::": "::1"}
    return wildcard.get(host, host)


def busy_port_problem(host: str, port: int) -> str:
    """One line for a hub that cannot take its port: what holds it, and how to stop that."""
    health = probe(port, reachable_host(host))
    taken = f"Port {port} on {host or '*'} is taken (address already in use)"
    if is_hub(health):
        return (
            f"{taken} by the Aletheia hub of {describe(health)}: use it, or stop it with "
            f"`aletheia stop --port {port}`."
        )
    return (
        f"{taken} by a program that does not answer as an Aletheia hub: stop it, or choose "
        "another port (--port, or ALETHEIA_PORT)."
    )
