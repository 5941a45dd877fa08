"""A first pass over the path: initialize, save, fetch."""

from tests.helpers import McpHttpClient


def test_saved_memory_comes_back_by_id(mcp: McpHttpClient) -> None:
    saved = mcp.text("save_memory", {"text": "Staging deploys need the VPN", "type": "gotcha"})
    assert saved == "Saved as #1 in shop."
    assert (
        mcp.text("save_memory", {"text": "Staging deploys need the VPN"}) == "Already saved as #1."
    )
    text = mcp.text("get_observations", {"ids": [1, 99]})
    assert "#1 [gotcha] Staging deploys need the VPN" in text
    assert "\nshop · " in text and "source: tests" in text
