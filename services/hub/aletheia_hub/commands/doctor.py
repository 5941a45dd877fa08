"""aletheia doctor: check the store, the hub, the proxy and Redis, and say how to fix each."""

import argparse
import json
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import make_url, text
from sqlalchemy.exc import SQLAlchemyError

from aletheia_hub.commands.connect import proxy_command
from aletheia_hub.commands.doctor_errors import error_counters
from aletheia_hub.hosts.checks import Finding, host_findings
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import is_current
from aletheia_shared import __version__
from aletheia_shared.store import served_store


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str
    info: bool = False  # neither good nor bad: something not set up, and how to set it up
    todo: bool = False  # set up as far as we can; the user still has a step to take


def mark(check: Check) -> str:
    if check.todo:
        return "TODO"
    return {(True, False): "ok ", (False, False): "FIX", (True, True): "-- "}[check.ok, check.info]


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    commands.add_parser(
        "doctor",
        description="Check this machine's Aletheia setup, one line per check: ok, FIX (with "
        "the command that fixes it) or -- (not set up, with the command that sets it up). "
        "Exits 1 when something needs fixing.",
    )


def run(_args: argparse.Namespace) -> int:
    settings = Settings()
    checks = [_python(), _store(settings), _hub(settings), _proxy()]
    checks.append(Check(*error_counters(settings)))
    if settings.redis_url:
        checks.append(_redis(settings.redis_url))
    checks += [_host_check(finding) for finding in host_findings(Path.home())]
    for item in checks:
        print(f"{mark(item):<4} {item.name}: {item.detail}")
    return 0 if all(item.ok for item in checks) else 1


def _host_check(finding: Finding) -> Check:
    return Check(
        finding.name,
        finding.status != "fix",
        finding.detail,
        info=finding.status == "info",
        todo=finding.status == "todo",
    )


def _python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    return Check("python", sys.version_info >= (3, 11), f"{version} ({sys.executable})")


def _store(settings: Settings) -> Check:
    url = settings.resolved_database_url()
    shown = url.split("@")[-1] if "@" in url else url
    database = make_url(url).database
    if url.startswith("sqlite") and database and not Path(database).exists():
        return Check("store", True, f"{shown}: not created yet; the hub creates it on start")
    db = Database(url)
    try:
        with db.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        if not is_current(db.engine):
            return Check("store", False, f"{shown}: schema is behind; start the hub to migrate it")
        return Check("store", True, f"{shown}: reachable, schema current")
    except SQLAlchemyError as error:
        return Check("store", False, f"{shown}: not reachable ({type(error).__name__})")
    finally:
        db.dispose()


def _hub(settings: Settings) -> Check:
    url = f"http://127.0.0.1:{settings.port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            raw = response.read().decode()
    except (urllib.error.URLError, OSError):
        return Check(
            "hub",
            False,
            f"nothing answers on {url}; run `aletheia-server` (aletheia-mcp also starts one)",
        )
    try:
        answer = json.loads(raw)
    except ValueError:
        answer = None
    if not isinstance(answer, dict) or answer.get("version") != __version__:
        return Check("hub", False, f"answering on port {settings.port} with another version: {raw}")
    mine = settings.served_store()
    served = served_store(answer)
    if served != mine:
        return Check(
            "hub",
            False,
            f"the hub on port {settings.port} serves another store ({served}), not this "
            f"setup's store ({mine}); stop that hub, or set ALETHEIA_PORT to a free port for "
            "this store (aletheia-mcp then starts a hub for it there)",
        )
    return Check("hub", True, f"answering on port {settings.port}, serving {mine}")


def _proxy() -> Check:
    command = proxy_command()
    found = command != "aletheia-mcp"
    detail = command if found else "aletheia-mcp is not installed next to this Python or on PATH"
    return Check("proxy", found, detail)


def _redis(url: str) -> Check:
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        return Check("redis", False, f"{url}: {error}")
    return Check("redis", True, f"{url}: reachable")
