"""Near-duplicates merged on request and undone in one action (store/merges.py), their clusters
(store/near_duplicates.py) and `aletheia maintain consolidate`, on both stores: a merge keeps
one memory as a new revision with lineage to every merged one and dismisses the others with
their trail rows; undo dismisses the revision, makes the kept one current and restores the
rest; bad requests are refused with one clear line."""

import pytest
from fastapi.testclient import TestClient

from aletheia_hub import cli
from aletheia_hub.store.merges import MergeError, merge_memories, recent_merges, undo_merge
from aletheia_hub.store.near_duplicates import near_duplicate_clusters
from aletheia_hub.store.search import SearchService
from tests.helpers import McpHttpClient
from tests.hub.tools.support import rows, save, search_ids

VPN = (
    "Staging deploys need the VPN on, through deploy/staging.sh",
    "Deploys to staging need the VPN on, through deploy/staging.sh",
    "Staging deploys need the VPN turned on, through deploy/staging.sh",
)


@pytest.fixture
def billing(http: TestClient) -> McpHttpClient:
    client = McpHttpClient(http, project="billing", tool="cursor")
    client.initialize()
    return client


def saved_cluster(mcp: McpHttpClient) -> list[int]:
    return [save(mcp, text) for text in VPN]


def state(http: TestClient, memory_id: int) -> tuple[bool, bool]:
    """(dismissed, superseded) of a memory."""
    found = rows(
        http,
        "SELECT dismissed_at_ms, superseded_at_ms FROM memories WHERE id = :id",
        id=memory_id,
    )
    return found[0][0] is not None, found[0][1] is not None


def test_clusters_join_the_near_duplicates_of_a_project_only(
    http: TestClient, mcp: McpHttpClient, billing: McpHttpClient
) -> None:
    ids = saved_cluster(mcp)
    save(mcp, "Prices include VAT in every invoice")
    save(billing, VPN[0])
    db = http.app.state.db  # type: ignore[attr-defined]
    with db.read_session() as session, SearchService() as search:
        scan = near_duplicate_clusters(
            session=session, service=search, project="shop", threshold=0.6
        )
        capped = near_duplicate_clusters(
            session=session, service=search, project="shop", threshold=0.6, cap=2
        )
    assert (scan.live, scan.examined, scan.capped) == (4, 4, False)
    assert [sorted(m.id for m in c.memories) for c in scan.clusters] == [sorted(ids)]
    assert (capped.examined, capped.capped) == (2, True)


def test_a_merge_keeps_one_as_a_revision_and_undo_takes_it_all_back(
    http: TestClient, mcp: McpHttpClient
) -> None:
    kept, *others = saved_cluster(mcp)
    db = http.app.state.db  # type: ignore[attr-defined]
    with db.write_session() as session:
        merged = merge_memories(session=session, ids=[*others, kept], keep=kept, tool="tests")
    assert (merged.kept_id, merged.dismissed, merged.project) == (kept, tuple(others), "shop")
    revision = merged.revision_id
    assert search_ids(mcp, {"query": "staging vpn"}) == [revision]
    assert state(http, kept) == (False, True) and all(
        state(http, o) == (True, False) for o in others
    )
    shown = mcp.text("get_observations", {"ids": [revision]})
    assert VPN[0] in shown
    reason = rows(
        http, "SELECT revision_of, revision_reason FROM memories WHERE id = :id", id=revision
    )
    assert reason == [(kept, f"Merged #{others[0]}, #{others[1]} into it.")]
    trail = rows(http, "SELECT item_id, action, reason FROM dismissals ORDER BY id")
    assert trail == [(o, "dismiss", f"Merged into #{revision}.") for o in others]

    with db.write_session() as session:
        undone = undo_merge(session=session, merge_id=merged.merge_id, tool="tests")
    assert undone.undone_at_ms is not None and undone.parts == tuple(others)
    assert sorted(search_ids(mcp, {"query": "staging vpn"})) == sorted([kept, *others])
    assert state(http, kept) == (False, False) and state(http, revision) == (True, False)
    # The kept memory answers an exact repeat again, and can be revised again.
    assert mcp.text("save_memory", {"text": VPN[0]}) == f"Already saved as #{kept}."
    assert mcp.text("save_memory", {"text": VPN[0] + " now", "revises": kept}).startswith(
        "Saved as #"
    )
    with db.write_session() as session:
        with pytest.raises(MergeError, match=f"^Merge {merged.merge_id} was already undone.$"):
            undo_merge(session=session, merge_id=merged.merge_id, tool="tests")
        listed = recent_merges(session=session, projects=["shop"])
    assert [m.id for m in listed] == [merged.merge_id]


def test_bad_merges_are_refused_with_one_clear_line(
    http: TestClient, mcp: McpHttpClient, billing: McpHttpClient
) -> None:
    a, b, c = saved_cluster(mcp)
    elsewhere = save(billing, VPN[0])
    mcp.text("dismiss_memory", {"id": c})
    db = http.app.state.db  # type: ignore[attr-defined]
    refused = {
        "one": ([a], None, f"A merge needs at least two memories (#{a} alone)."),
        "unknown": ([a, 999], None, "No memory #999."),
        "project": (
            [a, elsewhere],
            None,
            f"#{elsewhere} is in project billing, not shop: a merge stays in one project.",
        ),
        "dismissed": ([a, c], None, f"#{c} is dismissed: restore it first."),
        "keep": ([a, b], 7, "#7, the memory to keep, is not one of those merged."),
    }
    for ids, keep, message in refused.values():
        with db.write_session() as session, pytest.raises(MergeError) as error:
            merge_memories(session=session, ids=ids, keep=keep, tool="tests")
        assert str(error.value) == message
    mcp.text("restore_memory", {"id": c})
    with db.write_session() as session:
        first = merge_memories(session=session, ids=[a, b], keep=a, tool="tests")
    for ids, message in (
        ([c, b], f"#{b} was already merged into #{first.revision_id} (merge {first.merge_id})."),
        (
            [a, c],
            f"#{a} was already revised or merged into #{first.revision_id}: "
            f"merge #{first.revision_id} instead.",
        ),
    ):
        with db.write_session() as session, pytest.raises(MergeError) as error:
            merge_memories(session=session, ids=ids, keep=None, tool="tests")
        assert str(error.value) == message
    with db.write_session() as session, pytest.raises(MergeError, match=r"^No merge 99\.$"):
        undo_merge(session=session, merge_id=99, tool="tests")
    with db.write_session() as session, pytest.raises(MergeError, match=r"^No merge "):
        undo_merge(session=session, merge_id=first.merge_id, tool="tests", projects=["billing"])


def test_undo_is_refused_once_the_merged_memory_was_revised_again(
    http: TestClient, mcp: McpHttpClient
) -> None:
    a, b, _ = saved_cluster(mcp)
    db = http.app.state.db  # type: ignore[attr-defined]
    with db.write_session() as session:
        merged = merge_memories(session=session, ids=[a, b], keep=a, tool="tests")
    mcp.text("save_memory", {"text": "Staging deploys need a token", "revises": merged.revision_id})
    with db.write_session() as session, pytest.raises(MergeError) as error:
        undo_merge(session=session, merge_id=merged.merge_id, tool="tests")
    assert str(error.value) == (
        f"Merge {merged.merge_id} cannot be undone: its revision #{merged.revision_id} was "
        "revised since; undo that first."
    )


def run_cli(store_url: str, *argv: str) -> int:
    with pytest.raises(SystemExit) as exited:
        cli.main(["maintain", "consolidate", *argv, "--database-url", store_url])
    code = exited.value.code
    assert isinstance(code, int)
    return code


def test_the_command_lists_merges_and_undoes(
    http: TestClient, mcp: McpHttpClient, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, c = saved_cluster(mcp)
    assert run_cli(store_url, "--project", "shop") == 0
    listed = capsys.readouterr().out
    assert listed.startswith("Near-duplicates at threshold 0.6 (words only):\n")
    assert "shop: 1 cluster among 3 memories." in listed
    assert f"merge: aletheia maintain consolidate --project shop --merge {c},{b},{a}" in listed
    assert run_cli(store_url, "--merge", f"{a},{b},{c}", "--keep", str(b)) == 0
    merged = capsys.readouterr().out
    revision = search_ids(mcp, {"query": "staging vpn"})[0]
    assert merged == (
        f"Merge 1 in shop: #{b} is kept as its new revision #{revision}; #{a}, #{c} dismissed "
        "(restorable).\nUndo it with: aletheia maintain consolidate --undo 1\n"
    )
    with pytest.raises(SystemExit) as exited:  # the store named before the action
        cli.main(["maintain", "--database-url", store_url, "consolidate", "--project", "shop"])
    assert exited.value.code == 0
    assert "  merge 1 " in capsys.readouterr().out
    assert run_cli(store_url, "--undo", "1") == 0
    assert capsys.readouterr().out == (
        f"Undid merge 1 in shop: #{b} is current again, #{revision} is dismissed, #{a}, #{c} "
        "restored.\n"
    )
    for argv, code, message in (
        (("--undo", "1"), 1, "Merge 1 was already undone."),
        (("--merge", str(a)), 1, f"A merge needs at least two memories (#{a} alone)."),
        (
            ("--merge", "a,b"),
            2,
            "--merge takes memory ids separated by commas (12,15,19), not 'a,b'.",
        ),
        (("--keep", str(a)), 2, "--keep goes with --merge."),
        (("--threshold", "0"), 2, "--threshold must be above 0 and at most 1."),
    ):
        assert run_cli(store_url, *argv) == code
        assert capsys.readouterr().err == f"aletheia maintain consolidate: {message}\n"
