"""Seeding a store through the store functions the tools use, and reading console forms."""

import re

from fastapi.testclient import TestClient
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.store import audit, driver, work_state
from aletheia_hub.store.db import Database
from aletheia_hub.store.facts import FactInput
from aletheia_hub.store.memories import save_memory

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
NAV = '<a href="/memories"'  # the console's navigation, on every page for a viewer
HOSTILE = '<script>document.title="owned"</script><img src=x onerror=alert(1)>'


def csrf_of(client: TestClient, path: str = "/rules") -> str:
    """The CSRF token of the forms on a page."""
    found = CSRF.search(client.get(path).text)
    assert found is not None, f"no form with a CSRF token on {path}"
    return found.group(1)


def seed(db: Database) -> dict[str, int]:
    """Two projects: shop (a hostile memory, a fact, a list, audit rows) and billing."""
    with db.write_session() as session:
        shop = save_memory(
            session=session,
            project="shop",
            text="Checkout uses pnpm workspaces. " + HOSTILE,
            title="Checkout build " + HOSTILE,
            type="decision",
            kind="note",
            tool="tests",
            pinned=False,
            files=["src/checkout.ts"],
            facts=[FactInput("checkout", "uses", "pnpm")],
        )
        billing = save_memory(
            session=session,
            project="billing",
            text="Invoices are rendered by the billing worker with pnpm.",
            title="Billing invoices secretbilling",
            type="note",
            kind="note",
            tool="tests",
            pinned=False,
            files=[],
            facts=[FactInput("invoices", "rendered by", "worker")],
        )
        work_state.write_list(
            session=session, project="shop", name="todo", items=["ship"], tool="tests"
        )
        work_state.write_list(
            session=session, project="billing", name="billing-todo", items=["x"], tool="tests"
        )
        for project in ("shop", "billing"):
            record_search(session, project)
    return {"shop": shop.id, "billing": billing.id}


def record_search(session: Session, project: str) -> None:
    """An audit row for a search in `project`, as a tool call leaves one."""
    row = audit.CallRow(
        at_ms=now_ms(),
        token_id=None,
        tool="search",
        operation="search",
        project=project,
        result="ok",
    )
    audit.record_call(connection=driver.of(session.connection()), row=row)
