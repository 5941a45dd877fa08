"""On a team hub, recall marks memories about code from what the caller's own proxy pushed:
the hub never reads a caller's disk. Real repositories and a real `git worktree add`, the
proxy's own forwarding loop in front of an in-process team hub, and `aletheia-mcp` in front of
a real `aletheia-sync`."""

from pathlib import Path

from aletheia_proxy.code_status import CodeStatusPusher
from aletheia_proxy.config import load_config
from tests.code_repo import Repo
from tests.conftest import process_env
from tests.hub.tools.support import recalled
from tests.jsonrpc_messages import tool_call_request
from tests.proxy.in_process import InProcessProxy
from tests.proxy.process import ProxyProcess, tool_text
from tests.team.conftest import StartSync, Team, clean_env, issue_token, sqlite_url


def proxy_in(team: Team, folder: Path, secret: str, data: Path, *, pushes: bool) -> InProcessProxy:
    env = process_env()
    env.update(
        ALETHEIA_HUB_URL="http://127.0.0.1/mcp",
        ALETHEIA_TOKEN=secret,
        ALETHEIA_CWD=str(folder),
        ALETHEIA_DATA_DIR=str(data),
    )
    proxy = InProcessProxy(team.http, env)
    if pushes:  # as aletheia-mcp runs it
        proxy.forwarder.code_status = CodeStatusPusher(proxy.hub, load_config(env))
    proxy.initialize()
    return proxy


def call(proxy: InProcessProxy, name: str, arguments: dict[str, object]) -> str:
    return tool_text(proxy.request(tool_call_request(name, arguments, 5)))


def saved(proxy: InProcessProxy, title: str, files: list[str]) -> int:
    text = call(proxy, "save_memory", {"title": title, "text": f"{title} notes", "files": files})
    return int(text.removeprefix("Saved as #").split(" ")[0])


def test_recall_on_a_team_hub_is_marked_from_the_pushed_status(team: Team, tmp_path: Path) -> None:
    shop = Repo.create(tmp_path / "shop")
    shop.write("src/up.py", "print('up')\n")
    shop.commit("files")
    feature = shop.worktree(tmp_path / "shop-feature", "feature-x")
    feature.write("src/cache.py", "cache = {}\n")
    feature.commit("cache")
    _id, secret = issue_token(team.url, "sync", ["shop"])
    in_shop = proxy_in(team, shop.root, secret, tmp_path / "data", pushes=True)
    in_feature = proxy_in(team, feature.root, secret, tmp_path / "data", pushes=True)
    upload = saved(in_shop, "upload cache notes", ["src/up.py"])
    cache = saved(in_feature, "cache layer notes", ["src/cache.py"])
    for step in range(2):
        shop.write("src/up.py", f"print('up {step}')\n")
        shop.commit(f"step {step}")
    lines = recalled(call(in_shop, "search", {"query": "cache notes"}))
    hits = [line for line in lines if line.startswith("#")]
    assert [int(line.split()[0][1:]) for line in hits] == [upload, cache]
    assert lines[lines.index(hits[0]) + 1] == "  ↳ src/up.py changed in 2 commits since"
    assert lines[lines.index(hits[1]) + 1] == "  ↳ (on branch feature-x, not merged)"
    # A caller whose proxy pushed nothing sees no marks: the hub read nothing itself.
    _id, other = issue_token(team.url, "sync", ["shop"])
    silent = proxy_in(team, shop.root, other, tmp_path / "data2", pushes=False)
    lines = recalled(call(silent, "search", {"query": "cache notes"}))
    assert not [line for line in lines if line.startswith("  ↳ ")]


def test_aletheia_mcp_pushes_its_checkout_to_a_real_team_hub(
    start_sync: StartSync, tmp_path: Path
) -> None:
    hub_db = tmp_path / "team.db"
    hub = start_sync(clean_env(tmp_path), "--hub-db", str(hub_db))
    _id, secret = issue_token(sqlite_url(hub_db), "sync", ["shop"])
    shop = Repo.create(tmp_path / "shop")
    shop.write("src/up.py", "print('up')\n")
    shop.commit("files")
    env = {
        **clean_env(tmp_path),
        "ALETHEIA_HUB_URL": hub.mcp_url,
        "ALETHEIA_TOKEN": secret,
        "ALETHEIA_CWD": str(shop.root),
    }
    proxy = ProxyProcess(env)
    try:
        proxy.initialize()
        reply = proxy.request(
            tool_call_request("save_memory", {"text": "uploads retry", "files": ["src/up.py"]}, 2)
        )
        memory_id = int(tool_text(reply).removeprefix("Saved as #").split(" ")[0])
        shop.git("rm", "-q", "src/up.py")
        shop.commit("drop it")
        lines = recalled(
            tool_text(proxy.request(tool_call_request("search", {"query": "uploads"}, 3)))
        )
    finally:
        proxy.stop()
    hit = next(line for line in lines if line.startswith(f"#{memory_id} "))
    assert lines[lines.index(hit) + 1] == "  ↳ src/up.py deleted"
