"""The overview's totals, per project and overall, with the plural each count takes; and a rule
the console adds with no project is a global rule, not one made in a project "default"."""

import re

from fastapi.testclient import TestClient
from sqlalchemy import select

from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.tables import RULES
from tests.hub.console.helpers import csrf_of, seed

TILE = re.compile(
    r'<div class="tile" data-total="(\w+)"><span class="figure">([\d,]+)</span> ([^<]+)</div>'
)


def tiles(page: str) -> dict[str, str]:
    return {key: f"{figure} {noun}" for key, figure, noun in TILE.findall(page)}


def test_the_overview_totals_every_kind_per_project_and_overall(
    http: TestClient, settings: Settings
) -> None:
    db = Database(settings.resolved_database_url())
    try:
        seed(db)
    finally:
        db.dispose()
    signed = http.post(
        "/api/requests", json={"request": "Fix checkout", "project": "shop", "tool": "claude-code"}
    )
    assert signed.status_code in (200, 201)
    page = http.get("/").text
    assert tiles(page) == {
        "memories": "2 memories",
        "facts": "2 facts",
        "lists": "2 work lists",
        "captured": "1 captured item",
        "rules": "0 enabled rules",
    }
    rows = re.findall(r"<tr><td><a href=\"/memories\?project=(\w+)\">", page)
    assert rows == ["billing", "shop"]
    footer = page.split("<tfoot>")[1].split("</tfoot>")[0]
    cells = re.findall(r'<td class="num">(\d+)</td>', footer)
    # decision, note, then memories, facts, lists, captured
    assert cells == ["1", "1", "2", "2", "2", "1"]
    assert '<th scope="row">Total</th>' in footer


def test_a_rule_added_with_no_project_is_global_and_names_no_project(
    http: TestClient, settings: Settings
) -> None:
    added = http.post(
        "/rules",
        data={"csrf": csrf_of(http), "then": "Keep commits small", "tier": "everywhere"},
    )
    assert added.status_code == 200
    db = Database(settings.resolved_database_url())
    try:
        with db.read_session() as session:
            made_in = session.execute(select(RULES.c.project)).scalars().all()
    finally:
        db.dispose()
    assert made_in == [None]
    assert tiles(http.get("/").text)["rules"] == "1 enabled rule"
    assert 'value="default"' not in http.get("/memories").text
    assert "Keep commits small" in http.get("/rules").text
