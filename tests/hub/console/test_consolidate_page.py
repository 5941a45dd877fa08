"""The Consolidate page: clusters of near-duplicates per project, a merge form choosing the
memory kept, recent merges with an Undo button; plain forms with the CSRF token, no script."""

import re

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.http.console import consolidate
from tests.helpers import McpHttpClient
from tests.hub.console.helpers import csrf_of
from tests.hub.tools.support import save, search_ids

VPN = (
    "Staging deploys need the VPN on, through deploy/staging.sh",
    "Deploys to staging need the VPN on, through deploy/staging.sh",
)


def test_a_cluster_is_merged_from_its_form_and_undone_from_the_list(
    http: TestClient, mcp: McpHttpClient
) -> None:
    a, b = (save(mcp, text) for text in VPN)
    save(mcp, "Prices include VAT in every invoice")
    listed = http.get("/consolidate").text
    assert '<a href="/consolidate" aria-current="page">Consolidate</a>' in listed
    assert "1 cluster among 3 memories" in listed and "<script" not in listed
    assert f'name="keep" value="{b}" checked' in listed  # the newest is kept unless chosen
    csrf = csrf_of(http, "/consolidate")
    merged = http.post(
        "/consolidate/merge",
        data={"csrf": csrf, "ids": [str(a), str(b)], "keep": str(a)},
        follow_redirects=False,
    )
    assert merged.status_code == 303 and merged.headers["location"] == "/consolidate?merged=1"
    revision = search_ids(mcp, {"query": "staging vpn"})
    assert len(revision) == 1 and revision[0] not in (a, b)
    after = http.get("/consolidate?merged=1").text
    assert "Merge 1 done" in after and "No near-duplicates." in after
    assert re.search(r'action="/consolidate/1/undo"', after)
    undone = http.post("/consolidate/1/undo", data={"csrf": csrf}, follow_redirects=False)
    assert undone.headers["location"] == "/consolidate?undone=1"
    assert sorted(search_ids(mcp, {"query": "staging vpn"})) == sorted([a, b])
    again = http.get("/consolidate?undone=1").text
    assert "Merge 1 undone" in again and "undone 2" in again  # its row says when


def test_bad_merges_and_undos_are_refused_with_a_sentence(
    http: TestClient, mcp: McpHttpClient
) -> None:
    a, _ = (save(mcp, text) for text in VPN)
    csrf = csrf_of(http, "/consolidate")
    alone = http.post("/consolidate/merge", data={"csrf": csrf, "ids": [str(a)], "keep": str(a)})
    assert alone.status_code == 400
    assert f"A merge needs at least two memories (#{a} alone)." in alone.text
    missing = http.post(
        "/consolidate/merge", data={"csrf": csrf, "ids": [str(a), "999"], "keep": str(a)}
    )
    assert missing.status_code == 404 and "No memory #999." in missing.text
    assert http.post("/consolidate/7/undo", data={"csrf": csrf}).status_code == 400
    forged = http.post("/consolidate/merge", data={"csrf": "x", "ids": [str(a)], "keep": str(a)})
    assert forged.status_code == 403
    assert http.get("/consolidate?threshold=2").status_code == 400


def test_every_project_at_once_compares_a_bounded_number_and_links_the_rest(
    http: TestClient, mcp: McpHttpClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(consolidate, "PAGE_MEMORIES", 3)
    for project in ("alpha", "beta", "gamma"):
        for text in VPN:
            save(mcp, text, project=project)
    listed = http.get("/consolidate").text
    # alpha's two memories are under the budget, beta's bring it to four: gamma waits.
    assert 'data-project="alpha"' in listed and 'data-project="beta"' in listed
    assert 'data-project="gamma"' not in listed
    assert re.search(r'id="later">.*href="/consolidate\?project=gamma&amp;threshold=0.6"', listed)
    alone = http.get("/consolidate?project=gamma").text
    assert 'data-project="gamma"' in alone and "1 cluster among 2 memories" in alone
    assert 'id="later"' not in alone
