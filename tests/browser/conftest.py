"""One real hub process per hub kind and one headless Chromium (Debian's, driven by Playwright)
for the whole module; screenshots go to test-artifacts/console/."""

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest

from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from tests.conftest import HubProcess, process_env, require_service
from tests.hub.console.helpers import seed
from tests.team.conftest import issue_token

CHROMIUM: Final = Path(os.environ.get("ALETHEIA_TEST_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS: Final = Path(__file__).resolve().parents[2] / "test-artifacts" / "console"
API_KEY: Final = "browser-test-key-0123456789"
# What the machine's probe needed: no GPU, no network of Chromium's own, nothing in the background.
CHROMIUM_FLAGS: Final = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def browser_problem() -> str | None:
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (make install)"
    return None


@dataclass(frozen=True, slots=True)
class Hub:
    process: HubProcess
    ids: dict[str, int]
    folder: Path
    admin_secret: str = ""

    @property
    def url(self) -> str:
        return self.process.base_url


def _seeded_store(folder: Path) -> tuple[str, dict[str, int]]:
    url = f"sqlite:///{folder / 'hub.db'}"
    db = Database(url)
    try:
        upgrade_to_head(db.engine)
        ids = seed(db)
    finally:
        db.dispose()
    return url, ids


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    require_service(browser_problem(), "browser")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=list(CHROMIUM_FLAGS)
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def main_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    """The main server with ALETHEIA_API_KEY set, working in a project folder of its own."""
    require_service(browser_problem(), "browser")
    folder = tmp_path_factory.mktemp("console-main")
    url, ids = _seeded_store(folder)
    project = folder / "shop"
    project.mkdir()
    env = process_env()
    env.update(
        ALETHEIA_DATABASE_URL=url,
        ALETHEIA_DATA_DIR=str(folder / "data"),
        ALETHEIA_API_KEY=API_KEY,
        ALETHEIA_CWD=str(project),
    )
    process = HubProcess(env)
    try:
        yield Hub(process, ids, project)
    finally:
        process.stop()


@pytest.fixture(scope="module")
def team_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    """A team hub (aletheia-sync) with an admin token."""
    require_service(browser_problem(), "browser")
    folder = tmp_path_factory.mktemp("console-team")
    url, ids = _seeded_store(folder)
    _, secret = issue_token(url, scope="admin", name="owner")
    env = process_env()
    env["ALETHEIA_DATA_DIR"] = str(folder / "data")
    process = HubProcess(env, "aletheia-sync", "--hub-db", str(folder / "hub.db"))
    try:
        yield Hub(process, ids, folder, admin_secret=secret)
    finally:
        process.stop()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser context's page; the dialogs it opened are in `page.dialogs`."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    context.set_default_timeout(5000)  # a local page answers in milliseconds
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.dialogs = dialogs
    try:
        yield page
    finally:
        context.close()


def sign_in(page: Any, hub: Hub, secret: str) -> None:
    """Sign in through the form, landing on the overview."""
    page.goto(f"{hub.url}/")
    assert page.url.endswith("/sign-in")
    page.fill("#secret", secret)
    page.click("button[type=submit]")
    page.wait_for_url(f"{hub.url}/")


def shot(page: Any, name: str) -> None:
    """A full-page screenshot for reviewers, under test-artifacts/console/."""
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
