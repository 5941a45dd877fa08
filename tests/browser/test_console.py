"""The console in real headless Chromium against real hub processes: sign in, search, open a
memory, dismiss and restore, add and confirm a rule, preview write to tools, tokens, the audit
filter, stored markup kept inert, and refusals without CSRF or sign-in."""

from typing import Any

import httpx

from aletheia_shared import headers
from tests.browser.conftest import API_KEY, Hub, shot, sign_in
from tests.helpers import McpHttpClient


def test_an_unauthenticated_browser_is_sent_to_sign_in(page: Any, main_hub: Hub) -> None:
    page.goto(f"{main_hub.url}/memories/{main_hub.ids['shop']}")
    assert page.url == f"{main_hub.url}/sign-in"
    shot(page, "sign-in")
    page.fill("#secret", "not the key")
    page.click("button[type=submit]")
    assert page.locator("[role=alert]").inner_text() == "That key or token is not valid here."
    answer = httpx.post(f"{main_hub.url}/rules", data={"then": "x"})
    assert answer.status_code == 401


def test_search_open_dismiss_and_restore_with_markup_inert(page: Any, main_hub: Hub) -> None:
    sign_in(page, main_hub, API_KEY)
    assert page.locator("h1").inner_text() == "Overview"
    shot(page, "overview")
    page.click("nav >> text=Memories")
    page.fill("input[name=q]", "checkout pnpm")
    page.click("form[role=search] button")
    shot(page, "memories")
    page.click(f"a[href='/memories/{main_hub.ids['shop']}']")
    heading = page.locator("h1").inner_text()
    assert "<script>" in heading  # shown as text
    assert page.title() != "owned" and page.dialogs == []
    assert page.locator("main script, main img").count() == 0
    page.fill("form[action$='/dismiss'] input[name=reason]", "outdated")
    page.click("form[action$='/dismiss'] button")
    assert page.locator("p.badge.warn").inner_text().startswith("Dismissed")
    shot(page, "memory-dismissed")
    page.fill("form[action$='/restore'] input[name=reason]", "still true")
    page.click("form[action$='/restore'] button")
    assert page.locator("p.badge.warn").count() == 0
    assert "restore by console: still true" in page.locator("ul.trail").inner_text()
    shot(page, "memory")


def test_add_and_confirm_a_rule_then_preview_write_to_tools(page: Any, main_hub: Hub) -> None:
    with httpx.Client(base_url=main_hub.url) as http:  # a tool calls from the shop folder
        tool = McpHttpClient(http, project="shop", tool="claude-code", token=API_KEY)
        tool.headers[headers.CALLER_CWD] = headers.encode_text(str(main_hub.folder))
        tool.initialize()
        tool.text("list_rules")
    sign_in(page, main_hub, API_KEY)
    page.goto(f"{main_hub.url}/rules")
    page.fill("#then", "Run the tests before pushing")
    page.select_option("#tier", "project")
    page.select_option("#project", "shop")
    page.click("form[action='/rules'] button")
    row = page.locator("tr", has_text="Run the tests before pushing")
    assert row.count() == 1
    row.locator("form[action$='/confirm'] button").click()
    shot(page, "rules")
    page.click("text=Write to tools…")
    assert page.locator("section.host").count() == 0  # nothing aimed at before a choice
    shot(page, "rules-write-choose")
    page.click(f"table.choices a:text-is('{main_hub.folder}')")
    claude = page.locator("section.host", has_text="Claude Code")
    assert "+- Always: Run the tests before pushing" in claude.locator("pre.diff").inner_text()
    shot(page, "rules-write")
    assert not (main_hub.folder / "CLAUDE.md").exists()  # previewing writes nothing


def test_facts_and_work_state_pages(page: Any, main_hub: Hub) -> None:
    sign_in(page, main_hub, API_KEY)
    page.goto(f"{main_hub.url}/facts?subject=checkout")
    assert "pnpm" in page.locator("table").inner_text()
    shot(page, "facts")
    page.goto(f"{main_hub.url}/work")
    items = "textarea[aria-label='Items of todo']"
    page.fill(items, '["ship", {"task": "notes", "done": true}]')
    page.locator(f"form:has({items}) button").click()
    page.wait_for_load_state()
    assert '"task": "notes"' in page.locator(items).input_value()
    shot(page, "work-state")


def test_a_form_posted_without_its_csrf_token_is_refused(page: Any, main_hub: Hub) -> None:
    sign_in(page, main_hub, API_KEY)
    answer = page.request.post(f"{main_hub.url}/rules", form={"then": "forged rule"})
    assert answer.status == 403
    assert "expired or came from another site" in answer.text()
    page.goto(f"{main_hub.url}/rules")
    assert "forged rule" not in page.content()


def test_tokens_created_and_revoked_and_the_audit_filtered(page: Any, team_hub: Hub) -> None:
    sign_in(page, team_hub, team_hub.admin_secret)
    page.click("nav >> text=Tokens")
    page.fill("#name", "laptop")
    page.select_option("#scope", "read")
    page.fill("#projects", "shop")
    page.click("form[action='/tokens'] button")
    secret = page.locator("#new-secret").inner_text()
    assert secret.startswith("alt_")
    shot(page, "tokens-created")
    page.goto(f"{team_hub.url}/tokens")
    assert secret not in page.content()
    row = page.locator("tr", has_text="laptop")
    row.locator("form button").click()
    assert "revoked" in page.locator("tr", has_text="laptop").inner_text()
    shot(page, "tokens")
    page.click("nav >> text=Audit")
    page.select_option("select[name=project]", "billing")
    page.click("form.filters button")
    cells = page.locator("table.audit tbody td:nth-child(4)").all_inner_texts()
    assert cells == ["billing"]
    shot(page, "audit")
