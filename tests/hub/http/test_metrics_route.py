"""GET /metrics: what the hub did and holds, in Prometheus text."""

from fastapi.testclient import TestClient

from tests.helpers import McpHttpClient


def test_metrics_count_calls_errors_and_the_store(http: TestClient, mcp: McpHttpClient) -> None:
    mcp.text("save_memory", {"text": "the staging database moved to port 6543"})
    mcp.request("no/such/method")
    mcp.request("tools/call", {"name": "not_a_tool", "arguments": {}})
    response = http.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    text = response.text
    assert 'aletheia_requests_total{method="tools/call",tool="save_memory"} 1' in text
    assert 'aletheia_requests_total{method="unknown",tool=""} 1' in text
    assert 'aletheia_requests_total{method="tools/call",tool="unknown"} 1' in text
    assert 'aletheia_errors_total{kind="method_not_found",method="unknown"} 1' in text
    assert 'aletheia_errors_total{kind="invalid_params",method="tools/call"} 1' in text
    assert 'aletheia_request_duration_seconds_count{method="initialize",tool=""} 1' in text
    assert 'aletheia_store_rows{table="memories"} 1' in text
    size = next(line for line in text.splitlines() if line.startswith("aletheia_store_bytes "))
    assert int(size.split()[1]) > 0
    assert "aletheia_embedder_ready 0" in text
