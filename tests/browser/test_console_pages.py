"""Console pages a user expects, in real headless Chromium against a real local hub: an unknown
address and a missing id answer with the console's page and its navigation, the memory list
shows its total and page numbers, the audit tab holds the local calls, the overview's latency
card shows measured percentiles, and the Capture page what hooks posted, per project."""

import re
from datetime import UTC, datetime
from typing import Any, Final

import httpx

from tests.browser.conftest import API_KEY, Hub, shot, sign_in
from tests.helpers import McpHttpClient

NAVIGATION: Final = [
    "Overview",
    "Memories",
    "Consolidate",
    "Facts",
    "Rules",
    "Work state",
    "Capture",
    "Audit",
]
SAVED: Final = 25  # with the two the hub was seeded with: two pages of 20
LATENCY: Final = re.compile(r"p50 [\d.]+ ms · p90 [\d.]+ ms · p99 [\d.]+ ms")


def tool(http: httpx.Client, project: str = "shop") -> McpHttpClient:
    """A host's tool calling the hub as the proxy does (local, signed with the hub's key)."""
    client = McpHttpClient(http, project=project, tool="claude-code", token=API_KEY)
    client.initialize()
    return client


def navigation(page: Any) -> list[str]:
    texts: list[str] = page.locator("header nav a").all_inner_texts()
    return [text.strip() for text in texts]


def minute_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def test_an_unknown_address_is_the_consoles_404_page_with_its_navigation(
    page: Any, main_hub: Hub
) -> None:
    sign_in(page, main_hub, API_KEY)
    answer = page.goto(f"{main_hub.url}/no-such-page")
    assert answer.status == 404
    assert answer.headers["content-type"].startswith("text/html")
    assert page.locator("h1").inner_text() == "Not found"
    assert page.locator("[role=alert]").inner_text() == "There is no page at /no-such-page."
    assert navigation(page) == NAVIGATION
    shot(page, "not-found")
    page.click("header nav >> text=Memories")  # the way on is there to take
    page.wait_for_url(f"{main_hub.url}/memories")
    assert page.locator("h1").inner_text() == "Memories"


def test_a_missing_memory_keeps_the_navigation(page: Any, main_hub: Hub) -> None:
    sign_in(page, main_hub, API_KEY)
    answer = page.goto(f"{main_hub.url}/memories/999999")
    assert answer.status == 404
    assert page.locator("[role=alert]").inner_text() == "No memory #999999."
    assert navigation(page) == NAVIGATION
    assert page.locator("header nav a[aria-current=page]").inner_text() == "Memories"
    shot(page, "memory-missing")


def test_the_memory_list_shows_its_total_and_goes_to_page_two(page: Any, main_hub: Hub) -> None:
    with httpx.Client(base_url=main_hub.url) as http:
        client = tool(http)
        for number in range(SAVED):
            client.text("save_memory", {"text": f"Build step {number} runs in the shop CI"})
    sign_in(page, main_hub, API_KEY)
    page.goto(f"{main_hub.url}/memories")
    total = SAVED + len(main_hub.ids)
    assert page.locator("p.total").inner_text() == f"{total} memories, page 1 of 2"
    pages = page.locator("nav.pages")
    assert pages.locator("[aria-current=page]").inner_text() == "1"
    assert page.locator("ul.hits li").count() == 20
    pages.locator("a:text-is('2')").click()
    page.wait_for_url(f"{main_hub.url}/memories?page=2")
    assert page.locator("p.total").inner_text() == f"{total} memories, page 2 of 2"
    assert page.locator("nav.pages [aria-current=page]").inner_text() == "2"
    assert page.locator("ul.hits li").count() == total - 20
    assert page.locator("nav.pages a[rel=next]").count() == 0
    shot(page, "memories-page-2")


def test_the_audit_tab_of_a_local_hub_shows_its_calls(page: Any, main_hub: Hub) -> None:
    with httpx.Client(base_url=main_hub.url) as http:
        client = tool(http)
        for _ in range(3):
            client.text("list_rules")
    sign_in(page, main_hub, API_KEY)
    page.click("header nav >> text=Audit")
    page.fill("input[name=token]", "local")
    page.fill("input[name=tool]", "list_rules")
    page.click("form.filters button")
    assert page.locator("p.total").inner_text() == "3 calls"
    rows = page.locator("table.audit tbody tr")
    assert rows.count() == 3
    for cell in (2, 3, 4, 5):
        texts = rows.locator(f"td:nth-child({cell})").all_inner_texts()
        assert texts == [{2: "local", 3: "list_rules", 4: "shop", 5: "ok"}[cell]] * 3
    shot(page, "audit-local")


def test_the_overview_latency_card_shows_measured_percentiles(page: Any, main_hub: Hub) -> None:
    with httpx.Client(base_url=main_hub.url) as http:
        client = tool(http)
        for words in ("checkout", "pnpm workspaces", "invoices", "billing worker", "build"):
            client.text("search", {"query": words})
    sign_in(page, main_hub, API_KEY)
    card = page.locator(".tile", has_text="search latency")
    assert LATENCY.fullmatch(card.locator(".figure").inner_text().strip())
    assert "≤" not in card.inner_text()
    searches = re.search(r"over (\d+) searches in the last week", card.inner_text())
    assert searches is not None and int(searches.group(1)) >= 5
    assert page.locator("section#latency svg").count() == 1
    shot(page, "overview-latency")


def test_the_capture_page_shows_what_hooks_posted_per_project(page: Any, main_hub: Hub) -> None:
    before = minute_now()
    signed = {"Authorization": f"Bearer {API_KEY}"}
    with httpx.Client(base_url=main_hub.url, headers=signed) as http:
        for project, prompt in (
            ("shop", "Fix the checkout total"),
            ("shop", "Ship the release"),
            ("shop", "Fix the checkout total"),  # asked again: counted, stored once
            ("billing", "Rerun invoices"),
        ):
            sent = {"request": prompt, "project": project, "tool": "claude-code"}
            assert http.post("/api/requests", json=sent).status_code in (200, 201)
    after = minute_now()
    sign_in(page, main_hub, API_KEY)
    page.click("header nav >> text=Capture")
    assert page.locator("header nav a[aria-current=page]").inner_text() == "Capture"
    shop = page.locator("tr[data-project=shop] td").all_inner_texts()
    assert shop[:4] == ["shop", "2", "3", "38 B"]  # 22 + 16 bytes
    assert shop[4] in {before, after} and shop[5] in {before, after}
    billing = page.locator("tr[data-project=billing] td").all_inner_texts()
    assert billing[:4] == ["billing", "1", "1", "14 B"]
    shot(page, "capture")


def test_the_capture_page_reads_searches_and_deletes_captured_work(
    page: Any, main_hub: Hub
) -> None:
    signed = {"Authorization": f"Bearer {API_KEY}"}
    failing = (
        "FAILED tests/test_cart.py::test_cart_total - assert 9 == 10\n=== 1 failed in 0.1s ===\n"
    )
    events = [
        {"kind": "edit", "file": "src/cart.py", "added": 4, "removed": 1, "tool": "Edit"},
        {
            "kind": "command",
            "command": "pytest tests/test_cart.py",
            "exit_code": 1,
            "duration_ms": 300,
            "tool": "Bash",
            "output_tail": failing,
        },
    ]
    body = {"project": "cart", "tool": "claude-code", "session": "browser-cart", "events": events}
    with httpx.Client(base_url=main_hub.url, headers=signed) as http:
        assert http.post("/api/work", json=body).status_code == 201
    sign_in(page, main_hub, API_KEY)
    page.goto(f"{main_hub.url}/capture")
    assert page.locator("tr[data-host='cart/claude-code'] td").all_inner_texts() == [
        "cart",
        "claude-code",
        "0",
        "1",
        "1",
        "1",
    ]
    page.fill("input[name=q]", "test_cart_total")
    page.click("form.filters button[type=submit]")
    found = page.locator("#captured li[data-item^='command/']")
    assert found.count() == 1
    found.locator("a").click()
    assert "assert 9 == 10" in page.locator("#text").inner_text()
    page.click(".actions button.danger")
    page.goto(f"{main_hub.url}/capture?q=test_cart_total")
    assert page.locator("#captured li.empty").inner_text() == "Nothing matched."
    shot(page, "capture-work")
