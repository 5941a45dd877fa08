"""The metrics registry: counters, latency histograms and the Prometheus text it renders."""

from aletheia_hub.metrics import (
    ERRORS,
    RATE_LIMITED,
    Gauge,
    Metrics,
    error_kind,
)
from aletheia_shared import jsonrpc


def test_a_request_is_counted_and_timed_per_method_and_tool() -> None:
    recorder = Metrics()
    recorder.observe_request(0.003, method="tools/call", tool="save_memory")
    recorder.observe_request(0.2, method="tools/call", tool="save_memory")
    text = recorder.render()
    labels = 'method="tools/call",tool="save_memory"'
    assert f"aletheia_requests_total{{{labels}}} 2" in text
    assert f'aletheia_request_duration_seconds_bucket{{{labels},le="0.005"}} 1' in text
    assert f'aletheia_request_duration_seconds_bucket{{{labels},le="0.25"}} 2' in text
    assert f'aletheia_request_duration_seconds_bucket{{{labels},le="+Inf"}} 2' in text
    assert f"aletheia_request_duration_seconds_count{{{labels}}} 2" in text
    assert "# TYPE aletheia_request_duration_seconds histogram" in text


def test_counters_and_gauges_render_with_help_type_and_escaped_labels() -> None:
    recorder = Metrics()
    recorder.count(ERRORS, kind="internal_error", method="tools/call")
    recorder.count(RATE_LIMITED, 3)
    text = recorder.render([Gauge("aletheia_store_rows", "Rows.", 7, {"table": 'a"b\\c'})])
    assert "# TYPE aletheia_errors_total counter" in text
    assert 'aletheia_errors_total{kind="internal_error",method="tools/call"} 1' in text
    assert "aletheia_rate_limited_calls_total 3" in text
    assert "# TYPE aletheia_store_rows gauge" in text
    assert 'aletheia_store_rows{table="a\\"b\\\\c"} 7' in text
    assert text.endswith("\n")


def test_error_kind_names_json_rpc_errors_and_tool_errors() -> None:
    failed = jsonrpc.error_response(1, jsonrpc.INVALID_PARAMS, "bad")
    assert error_kind(dict(failed)) == "invalid_params"
    assert error_kind({"jsonrpc": "2.0", "id": 1, "result": {"isError": True}}) == "tool_error"
    assert error_kind({"jsonrpc": "2.0", "id": 1, "result": {"isError": False}}) is None
    assert error_kind({"jsonrpc": "2.0", "id": 1, "error": {"code": 12}}) == "other_error"
