"""What the console's overview costs on a busy store: an audit log of N calls over the last 30
days (written in time order, as calls end), from five hosts, a fifth of them searches; the
overview read in-process over the last day, week and month. Prints figures only.

    .venv/bin/python bench/console_overview.py [--calls N] [--runs R]
"""

import argparse
import random
import tempfile
import time
from pathlib import Path
from typing import Final

from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.clock import DAY_MS, now_ms
from aletheia_hub.settings import Settings
from aletheia_hub.store import audit
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head

HOSTS: Final = ("claude-code", "cursor", "codex", "opencode", "gemini")
TOOLS: Final = ("search", "save_memory", "list_rules", "get_observations", "timeline")


def fill(db: Database, calls: int) -> None:
    chosen = random.Random(1)
    now = now_ms()
    moments = sorted(now - chosen.randrange(30 * DAY_MS) for _ in range(calls))
    with db.driver_write() as connection:
        for at_ms in moments:
            tool = chosen.choice(TOOLS)
            row = audit.CallRow(
                at_ms=at_ms,
                token_id=None,
                tool=tool,
                operation=tool,
                project=chosen.choice(("shop", "billing")),
                result="ok",
                host=chosen.choice(HOSTS),
                duration_us=chosen.randrange(500, 50_000),
            )
            audit.record_call(connection=connection, row=row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(
            database_url=f"sqlite:///{Path(folder) / 'hub.db'}",
            data_dir=Path(folder),
            cwd=Path(folder),
            embedder="off",
        )
        db = Database(settings.resolved_database_url())
        try:
            upgrade_to_head(db.engine)
            fill(db, args.calls)
        finally:
            db.dispose()
        with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
            for window in ("day", "week", "month"):
                client.get("/", params={"window": window})  # warm
                started = time.perf_counter()
                for _ in range(args.runs):
                    assert client.get("/", params={"window": window}).status_code == 200
                took = (time.perf_counter() - started) / args.runs * 1000
                print(f"{args.calls:,} audit rows over 30 days, window {window}: {took:.0f} ms")


if __name__ == "__main__":
    main()
