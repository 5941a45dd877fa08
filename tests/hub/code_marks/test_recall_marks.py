"""Marks on recalled memories about code, through /mcp (both eras) and /mcp/open-mem on a
local hub that reads the caller's checkout itself: a changed, deleted or renamed file is named
on its own line under the memory's, a memory of an unmerged branch is labelled and listed
below the current line's, and session context lists fresh memories before stale ones."""

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from aletheia_shared import headers
from tests.code_repo import Repo
from tests.helpers import McpHttpClient, StatelessClient, without_size_line
from tests.hub.tools.support import memory_ids, recalled

SAVED: re.Pattern[str] = re.compile(r"Saved as #(\d+)")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = Repo.create(tmp_path / "shop")
    repo.write("src/up.py", "def upload(): ...\n")
    repo.write("src/old.py", "def old(): ...\n" * 5)
    repo.write("src/moved.py", "def moved(): ...\n" * 5)
    repo.commit("files")
    return repo


def client_in(http: TestClient, repo: Repo, path: str = "/mcp") -> McpHttpClient:
    """A session of a caller working in `repo` (its proxy sends the folder to a local hub)."""
    client = McpHttpClient(http, path, project="shop", tool="tests")
    client.headers[headers.CALLER_CWD] = str(repo.root)
    client.initialize()
    return client


def save(client: McpHttpClient, title: str, files: list[str], text: str = "") -> int:
    answer = client.text(
        "save_memory", {"title": title, "text": text or f"{title} notes", "files": files}
    )
    found = SAVED.search(answer)
    assert found, answer
    return int(found[1])


def mark_under(lines: list[str], line_start: str) -> str | None:
    """The mark line right under the first line that starts with `line_start`, if any."""
    index = next(i for i, line in enumerate(lines) if line.startswith(line_start))
    following = lines[index + 1] if index + 1 < len(lines) else ""
    return following if following.startswith("  ↳ ") else None


def test_search_marks_changed_deleted_and_renamed_files(http: TestClient, repo: Repo) -> None:
    mcp = client_in(http, repo)
    upload = save(mcp, "upload limits", ["src/up.py"])
    helpers = save(mcp, "old helpers", ["src/old.py", "src/moved.py"])
    fresh = save(mcp, "upload retries", [], text="retries wrap the upload call")
    for step in range(3):
        repo.write("src/up.py", f"def upload(step={step}): ...\n")
        repo.commit(f"step {step}")
    repo.git("rm", "-q", "src/old.py")
    repo.git("mv", "src/moved.py", "src/down.py")
    repo.commit("tidy")
    lines = recalled(mcp.text("search", {"query": "upload helpers limits retries"}))
    assert mark_under(lines, f"#{upload} ") == "  ↳ src/up.py changed in 3 commits since"
    assert mark_under(lines, f"#{helpers} ") == (
        "  ↳ src/moved.py renamed to src/down.py; src/old.py deleted"
    )
    assert mark_under(lines, f"#{fresh} ") is None
    assert set(memory_ids(mcp.text("search", {"query": "upload helpers"}))) >= {upload, helpers}


def test_a_memory_of_an_unmerged_branch_is_labelled_and_ranked_below(
    http: TestClient, repo: Repo, tmp_path: Path
) -> None:
    feature = repo.worktree(tmp_path / "feature", "feature-x")
    feature.write("src/feature.py", "def feature(): ...\n")
    feature.commit("feature work")
    on_feature = save(client_in(http, feature), "cache layer design", ["src/feature.py"])
    mcp = client_in(http, repo)
    on_main = save(mcp, "cache layer notes", ["src/up.py"])
    answer = mcp.text("search", {"query": "cache layer design notes"})
    assert memory_ids(answer) == [on_main, on_feature]
    lines = recalled(answer)
    assert mark_under(lines, f"#{on_feature} ") == "  ↳ (on branch feature-x, not merged)"
    # In the feature worktree it is the current line's.
    in_feature = client_in(http, feature)
    assert mark_under(recalled(in_feature.text("search", {"query": "cache layer design"})),
                      f"#{on_feature} ") is None  # fmt: skip
    repo.git("merge", "-q", "--no-ff", "-m", "merge feature", "feature-x")
    lines = recalled(mcp.text("search", {"query": "cache layer design notes"}))
    assert mark_under(lines, f"#{on_feature} ") is None


def test_timeline_and_get_observations_show_the_mark(http: TestClient, repo: Repo) -> None:
    mcp = client_in(http, repo)
    upload = save(mcp, "upload limits", ["src/up.py"])
    repo.write("src/up.py", "changed\n")
    repo.commit("change")
    timeline = recalled(mcp.text("timeline", {"anchor": upload}))
    assert mark_under(timeline, f"→ #{upload} ") == "  ↳ src/up.py changed in 1 commit since"
    observation = recalled(mcp.text("get_observations", {"ids": [upload]}))
    assert observation[0].startswith(f"#{upload} [note] upload limits")
    assert observation[1] == "  ↳ src/up.py changed in 1 commit since"


def test_session_context_lists_fresh_memories_before_stale_ones(
    http: TestClient, repo: Repo
) -> None:
    mcp = client_in(http, repo)
    stale = save(mcp, "upload limits", ["src/up.py"])
    fresh = save(mcp, "deploy notes", [])
    repo.write("src/up.py", "edited, not committed\n")
    lines = recalled(mcp.text("session_start_context", {}))
    listed = [line for line in lines if line.startswith("- #")]
    assert [int(line.split()[1][1:]) for line in listed] == [fresh, stale]
    assert mark_under(lines, f"- #{stale} ") == "  ↳ src/up.py changed since"


def test_a_stateless_search_is_marked_too(http: TestClient, repo: Repo) -> None:
    mcp = client_in(http, repo)
    upload = save(mcp, "upload limits", ["src/up.py"])
    repo.write("src/up.py", "changed\n")
    repo.commit("change")
    stateless = StatelessClient(
        http, **{headers.CALLER_PROJECT: "shop", headers.CALLER_CWD: str(repo.root)}
    )
    lines = recalled(stateless.text("search", {"query": "upload limits"}))
    assert mark_under(lines, f"#{upload} ") == "  ↳ src/up.py changed in 1 commit since"


def test_a_caller_outside_git_sees_no_marks(http: TestClient, repo: Repo, tmp_path: Path) -> None:
    mcp = client_in(http, repo)
    upload = save(mcp, "upload limits", ["src/up.py"])
    repo.write("src/up.py", "changed\n")
    repo.commit("change")
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    outside = McpHttpClient(http, project="shop", tool="tests")
    outside.headers[headers.CALLER_CWD] = str(elsewhere)
    outside.initialize()
    lines = recalled(outside.text("search", {"query": "upload limits"}))
    assert mark_under(lines, f"#{upload} ") is None


def test_open_mem_reads_show_the_same_marks(http: TestClient, repo: Repo) -> None:
    mem = client_in(http, repo, "/mcp/open-mem")
    created = mem.text(
        "mem-create",
        {
            "title": "upload limits",
            "type": "decision",
            "narrative": "limits",
            "files": ["src/up.py"],
        },
    )
    found_id = re.search(r"obs-(\d+)", created)
    assert found_id, created
    upload = int(found_id[1])
    repo.write("src/up.py", "changed\n")
    repo.commit("change")
    mark = "  ↳ src/up.py changed in 1 commit since"
    found = recalled(without_size_line(mem.text("mem-find", {"query": "upload limits"})))
    assert mark_under(found, f"obs-{upload} ") == mark
    got = recalled(mem.text("mem-get", {"ids": [upload]}))
    assert got[1] == mark
    around = recalled(mem.text("mem-history", {"anchor": upload}))
    assert mark_under(around, f"> obs-{upload} ") == mark
    sessions = recalled(mem.text("mem-history", {}))
    assert mark_under(sessions, f"  obs-{upload} ") == mark


def test_paging_past_a_budget_cut_never_skips_a_memory_moved_down(
    http: TestClient, repo: Repo, tmp_path: Path
) -> None:
    feature = repo.worktree(tmp_path / "feature", "feature-x")
    feature.write("src/ledger.py", "rounding = 2\n")
    feature.commit("ledger")
    moved = save(client_in(http, feature), "ledger ledger ledger rounding", ["src/ledger.py"])
    mcp = client_in(http, repo)
    others = [
        save(mcp, f"ledger notes number {n} about how the monthly totals are kept", [])
        for n in range(5)
    ]
    seen: list[int] = []
    offset = 0
    for _ in range(10):
        answer = mcp.text("search", {"query": "ledger", "max_tokens": 200, "offset": offset})
        seen += memory_ids(answer)
        more = re.search(r"with offset=(\d+)", answer)
        if more is None:
            break
        offset = int(more[1])
    assert set(seen) == {moved, *others}
