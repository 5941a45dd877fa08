"""The proxy tells a team hub about its checkout before a tool call: it asks for the refs its
project's memories hold, checks them in a real repository with git, and pushes the answer
once per HEAD; a local hub, which reads the checkout itself, is told nothing."""

from pathlib import Path

from fastapi.testclient import TestClient

from aletheia_hub.code_marks import CodeMarks
from aletheia_hub.store.db import Database
from aletheia_hub.store.memories import CodeState, save_memory
from aletheia_proxy.code_status import CodeStatusPusher
from aletheia_proxy.config import load_config
from aletheia_proxy.transport import HubClient
from aletheia_shared.code_changes import FileChange
from aletheia_shared.git_checkout import root_id
from tests.code_repo import Repo
from tests.team.conftest import Team, issue_token

TOOL_CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}}'


def save_in(url: str, repo: Repo, path: str, branch: str = "main") -> int:
    db = Database(url)
    try:
        with db.write_session() as session:
            saved = save_memory(
                session=session,
                project="shop",
                text=f"how {path} works",
                title=f"about {path}",
                type="note",
                kind="note",
                tool="tests",
                pinned=False,
                files=[path],
                code=CodeState(repo.head(), branch, ((path, repo.blob(path)),)),
            )
    finally:
        db.dispose()
    return saved.id


def pusher_for(http: TestClient, repo: Repo, secret: str) -> CodeStatusPusher:
    config = load_config(
        {
            "ALETHEIA_HUB_URL": "http://127.0.0.1/mcp",
            "ALETHEIA_TOKEN": secret,
            "ALETHEIA_CWD": str(repo.root),
        }
    )
    return CodeStatusPusher(HubClient(config, client=http), config)


def test_the_proxy_pushes_what_changed_once_per_head(team: Team, tmp_path: Path) -> None:
    repo = Repo.create(tmp_path / "shop")
    repo.write("src/up.py", "one\n")
    repo.write("src/down.py", "two\n")
    repo.commit("files")
    save_in(team.url, repo, "src/up.py")
    save_in(team.url, repo, "src/down.py")
    saved_at, saved_blob = repo.head(), repo.blob("src/up.py")
    feature = repo.worktree(tmp_path / "feature", "feature-x")
    feature.write("src/new.py", "new\n")
    feature.commit("feature")
    save_in(team.url, feature, "src/new.py", branch="feature-x")
    for step in range(2):
        repo.write("src/up.py", f"v{step}\n")
        repo.commit(f"step {step}")
    token_id, secret = issue_token(team.url, "sync", ["shop"])
    pusher = pusher_for(team.http, repo, secret)
    pusher.before(TOOL_CALL)
    marks: CodeMarks = team.http.app.state.code_marks  # type: ignore[attr-defined]
    pushed = marks.pushed.get((token_id, root_id(str(repo.root)), repo.head()))
    assert pushed is not None
    assert pushed.branch == "main"
    assert dict(pushed.changes) == {
        (saved_at, "src/up.py", saved_blob): FileChange("src/up.py", "changed", 2),
        # Not on this line of history at all: recall labels its branch instead.
        (feature.head(), "src/new.py", feature.blob("src/new.py")): FileChange(
            "src/new.py", "deleted", 0
        ),
    }
    assert pushed.merged == {saved_at: True, feature.head(): False}
    # The same HEAD again: nothing asked, nothing pushed.
    marks.pushed = type(marks.pushed)()
    pusher.before(TOOL_CALL)
    assert marks.pushed.get((token_id, root_id(str(repo.root)), repo.head())) is None
    # A new commit is a new HEAD: pushed again.
    repo.write("src/down.py", "three\n")
    repo.commit("down")
    pusher.before(TOOL_CALL)
    pushed = marks.pushed.get((token_id, root_id(str(repo.root)), repo.head()))
    assert pushed is not None
    assert {path for _, path, _ in pushed.changes} == {"src/up.py", "src/down.py", "src/new.py"}


def test_a_line_that_calls_no_tool_pushes_nothing(team: Team, tmp_path: Path) -> None:
    repo = Repo.create(tmp_path / "shop")
    token_id, secret = issue_token(team.url, "sync", ["shop"])
    pusher = pusher_for(team.http, repo, secret)
    pusher.before(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    marks: CodeMarks = team.http.app.state.code_marks  # type: ignore[attr-defined]
    assert marks.pushed.get((token_id, root_id(str(repo.root)), repo.head())) is None


def test_a_local_hub_is_told_nothing(http: TestClient, tmp_path: Path) -> None:
    repo = Repo.create(tmp_path / "shop")
    pusher = pusher_for(http, repo, "")
    pusher.before(TOOL_CALL)
    assert pusher.off
    marks: CodeMarks = http.app.state.code_marks  # type: ignore[attr-defined]
    assert marks.pushed.get((None, root_id(str(repo.root)), repo.head())) is None
