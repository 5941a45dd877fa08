"""GET /api/code/refs and POST /api/code/status on a team hub: what a proxy asks and pushes
about its checkout, under the token's scope and projects."""

from typing import Any

from aletheia_hub.store.db import Database
from aletheia_hub.store.memories import CodeState, save_memory
from tests.team.conftest import Team, issue_token

COMMIT = "a" * 40
HEAD = "b" * 40
BLOB = "c" * 40
ROOT_ID = "0123456789abcdef"


def save_about_code(url: str, project: str, title: str, commit: str = COMMIT) -> int:
    db = Database(url)
    try:
        with db.write_session() as session:
            saved = save_memory(
                session=session,
                project=project,
                text=f"{title}: see src/up.py",
                title=title,
                type="note",
                kind="note",
                tool="tests",
                pinned=False,
                files=["src/up.py"],
                code=CodeState(commit, "main", (("src/up.py", BLOB),)),
            )
    finally:
        db.dispose()
    return saved.id


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def status_body(**changes: Any) -> dict[str, Any]:
    return {
        "project": "shop",
        "root_id": ROOT_ID,
        "head": HEAD,
        "branch": "main",
        "changes": [
            {
                "commit": COMMIT,
                "path": "src/up.py",
                "blob": BLOB,
                "kind": "changed",
                "commits": 2,
                **changes,
            }
        ],
        "merged": {COMMIT: True},
    }


def test_refs_list_what_the_projects_memories_hold(team: Team) -> None:
    save_about_code(team.url, "shop", "upload limits")
    save_about_code(team.url, "other", "elsewhere", commit="d" * 40)
    _id, secret = issue_token(team.url, "read", ["shop"])
    answer = team.http.get(
        "/api/code/refs",
        params={"project": "shop", "root_id": ROOT_ID, "head": HEAD},
        headers=bearer(secret),
    )
    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "refs": [[COMMIT, "src/up.py", BLOB]],
        "commits": [COMMIT],
        "reads_disk": False,
        "have": False,
    }


def test_a_pushed_status_is_held_for_its_token_root_and_head(team: Team) -> None:
    _id, secret = issue_token(team.url, "read", ["shop"])
    pushed = team.http.post("/api/code/status", json=status_body(), headers=bearer(secret))
    assert pushed.status_code == 200, pushed.text
    assert pushed.json() == {"changes": 1, "commits": 1}
    params = {"project": "shop", "root_id": ROOT_ID, "head": HEAD}
    assert team.http.get("/api/code/refs", params=params, headers=bearer(secret)).json()["have"]
    _id, other = issue_token(team.url, "read", ["shop"])
    assert not team.http.get("/api/code/refs", params=params, headers=bearer(other)).json()["have"]


def test_another_projects_refs_are_refused(team: Team) -> None:
    _id, secret = issue_token(team.url, "sync", ["shop"])
    answer = team.http.get(
        "/api/code/refs", params={"project": "secret-project"}, headers=bearer(secret)
    )
    assert answer.status_code == 403
    pushed = team.http.post(
        "/api/code/status", json={**status_body(), "project": "secret-project"},
        headers=bearer(secret),
    )  # fmt: skip
    assert pushed.status_code == 403


def test_without_a_token_nothing_is_listed(team: Team) -> None:
    assert team.http.get("/api/code/refs", params={"project": "shop"}).status_code == 401


def test_a_malformed_status_is_refused_plainly(team: Team) -> None:
    _id, secret = issue_token(team.url, "sync", ["shop"])
    for bad in (
        status_body(kind="vanished"),
        status_body(commits=-1),
        {**status_body(), "head": "not a commit"},
        {**status_body(), "root_id": "/home/me/shop"},
        {**status_body(), "extra": 1},
    ):
        answer = team.http.post("/api/code/status", json=bad, headers=bearer(secret))
        assert answer.status_code == 422, (bad, answer.text)
