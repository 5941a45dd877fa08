"""Saves keep the caller's git state: on a local hub told the caller's folder the hub reads the
checkout itself (HTTP-direct hosts); with X-Aletheia-Git it keeps what the caller said. Both
tool sets, both eras, revisions and session digests; real git repositories and worktrees."""

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from aletheia_shared import headers
from aletheia_shared.git_header import encode_git_state
from tests.code_repo import Repo
from tests.helpers import McpHttpClient, StatelessClient
from tests.hub.tools.support import rows, save

COMMIT = "c" * 40
BLOB = "b" * 40


@pytest.fixture
def shop(tmp_path: Path) -> Repo:
    repo = Repo.create(tmp_path / "shop")
    repo.write("src/up.py", "print('up')\n")
    repo.write("src/down.py", "print('down')\n")
    repo.commit("files")
    return repo


def client_in(http: TestClient, folder: Path, path: str = "/mcp", **extra: str) -> McpHttpClient:
    """A session of an HTTP-direct host working in `folder` (no X-Aletheia-Git)."""
    client = McpHttpClient(http, path, project="shop", tool="tests")
    client.headers[headers.CALLER_CWD] = headers.encode_text(str(folder))
    client.headers.update(extra)
    client.initialize()
    return client


def git_state(http: TestClient, memory_id: int) -> dict[str, Any]:
    [(commit, branch)] = rows(
        http, "SELECT git_commit, git_branch FROM memories WHERE id = :id", id=memory_id
    )
    blobs = rows(
        http,
        "SELECT path, blob FROM memory_files WHERE memory_id = :id ORDER BY path",
        id=memory_id,
    )
    return {"commit": commit, "branch": branch, "blobs": dict(blobs)}


def created_id(answer: str) -> int:
    """The id a save names: the new one of a revision (`Revised obs-1 as obs-2`)."""
    match = re.search(r"(?:as |Created |Saved as )(?:obs-|#)(\d+)", answer)
    assert match, answer
    return int(match[1])


def test_a_local_hub_reads_commit_branch_and_blobs_of_files_and_paths_in_the_text(
    http: TestClient, shop: Repo
) -> None:
    mcp = client_in(http, shop.root / "src")
    memory_id = save(mcp, "Retries live in `src/down.py` now", files=["src/up.py", "gone.py"])
    assert git_state(http, memory_id) == {
        "commit": shop.head(),
        "branch": "main",
        "blobs": {
            "gone.py": None,
            "src/down.py": shop.blob("src/down.py"),
            "src/up.py": shop.blob("src/up.py"),
        },
    }


def test_each_worktree_of_a_repository_saves_its_own_branch_into_one_project(
    http: TestClient, shop: Repo, tmp_path: Path
) -> None:
    feature = shop.worktree(tmp_path / "shop-feature", "feature-x")
    feature.write("src/up.py", "print('feature')\n")
    feature_head = feature.commit("feature")
    on_main = save(client_in(http, shop.root), "up on main", files=["src/up.py"])
    on_feature = save(client_in(http, feature.root), "up on the feature", files=["src/up.py"])
    assert git_state(http, on_main) == {
        "commit": shop.head(),
        "branch": "main",
        "blobs": {"src/up.py": shop.blob("src/up.py")},
    }
    assert git_state(http, on_feature) == {
        "commit": feature_head,
        "branch": "feature-x",
        "blobs": {"src/up.py": feature.blob("src/up.py")},
    }
    projects = rows(http, "SELECT DISTINCT project FROM memories")
    assert projects == [("shop",)]


def test_outside_git_nothing_of_git_is_kept(http: TestClient, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    memory_id = save(client_in(http, plain), "not in a repository", files=["a.py"])
    assert git_state(http, memory_id) == {"commit": None, "branch": None, "blobs": {"a.py": None}}


def test_the_callers_header_is_kept_as_it_says_and_a_malformed_one_is_ignored(
    http: TestClient, shop: Repo
) -> None:
    said = encode_git_state(
        {"root_id": "0" * 16, "head": COMMIT, "branch": "feature-y", "blobs": {"src/up.py": BLOB}}
    )
    told = client_in(http, shop.root, **{headers.CALLER_GIT: said})
    memory_id = save(told, "what the proxy said", files=["src/up.py"])
    assert git_state(http, memory_id) == {
        "commit": COMMIT,
        "branch": "feature-y",
        "blobs": {"src/up.py": BLOB},
    }
    for bad in ("{", "%7B%22root_id%22%3A1%7D", '{"root_id":"zz","head":null,"branch":null}'):
        mcp = McpHttpClient(http, project="shop", tool="tests")
        mcp.headers[headers.CALLER_GIT] = bad
        mcp.initialize()
        memory_id = save(mcp, f"a save with a broken header {bad}", files=["src/up.py"])
        assert git_state(http, memory_id)["commit"] is None


def test_a_stateless_save_keeps_the_checkout_too(http: TestClient, shop: Repo) -> None:
    client = StatelessClient(
        http, **{headers.CALLER_CWD: str(shop.root), headers.CALLER_PROJECT: "shop"}
    )
    answer = client.text("save_memory", {"text": "stateless save", "files": ["src/up.py"]})
    state = git_state(http, created_id(answer))
    assert (state["commit"], state["branch"]) == (shop.head(), "main")
    assert state["blobs"] == {"src/up.py": shop.blob("src/up.py")}


def test_open_mem_create_and_revise_keep_blobs_until_a_revision_reads_new_ones(
    http: TestClient, shop: Repo
) -> None:
    mem = client_in(http, shop.root, "/mcp/open-mem")
    created = mem.text(
        "mem-create",
        {"title": "Uploads", "type": "decision", "narrative": "Retries", "files": ["src/up.py"]},
    )
    first = created_id(created)
    saved_blob = shop.blob("src/up.py")
    shop.write("src/up.py", "print('changed')\n")
    shop.commit("change")
    retitled = created_id(mem.text("mem-revise", {"id": f"obs-{first}", "title": "Uploads v2"}))
    assert retitled != first
    assert git_state(http, retitled)["blobs"] == {"src/up.py": saved_blob}
    reread = created_id(
        mem.text(
            "mem-revise",
            {"id": f"obs-{retitled}", "narrative": "Retries, see src/down.py"},
        )
    )
    assert git_state(http, reread) == {
        "commit": shop.head(),
        "branch": "main",
        "blobs": {"src/down.py": shop.blob("src/down.py"), "src/up.py": saved_blob},
    }


def test_a_session_digest_keeps_the_checkout_and_the_edited_files_blobs(
    http: TestClient, shop: Repo
) -> None:
    sent = {headers.CALLER_CWD: headers.encode_text(str(shop.root))}
    edit = {"kind": "edit", "file": "src/up.py", "added": 1, "removed": 0, "tool": "Edit"}
    body = {"project": "shop", "tool": "claude-code", "session": "s-git"}
    assert http.post("/api/work", json=body | {"events": [edit]}, headers=sent).status_code == 201
    ended = http.post("/api/work/session-end", json=body, headers=sent)
    assert ended.status_code == 201, ended.text
    state = git_state(http, ended.json()["digest_id"])
    assert (state["commit"], state["branch"]) == (shop.head(), "main")
    assert state["blobs"]["src/up.py"] == shop.blob("src/up.py")


def test_save_memory_revising_keeps_blobs_unless_its_text_names_files(
    http: TestClient, shop: Repo
) -> None:
    mcp = client_in(http, shop.root)
    first = save(mcp, "Retries", files=["src/up.py"])
    saved = git_state(http, first)
    shop.write("src/up.py", "print('changed')\n")
    shop.commit("change")
    same = created_id(mcp.text("save_memory", {"text": "Retries, twice", "revises": first}))
    assert git_state(http, same) == saved
    named = created_id(
        mcp.text("save_memory", {"text": "Retries, see src/down.py", "revises": same})
    )
    assert git_state(http, named) == {
        "commit": shop.head(),
        "branch": "main",
        "blobs": {**saved["blobs"], "src/down.py": shop.blob("src/down.py")},
    }
