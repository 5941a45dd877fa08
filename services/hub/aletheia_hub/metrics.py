"""The hub's counters and latency histograms, rendered in the Prometheus text format. The
console reads what it draws from the store (the audit log keeps each call's host and duration),
so nothing here is kept for it.

Transport-free and thread-safe: the call pipeline (mcp/pipeline.py) records, /metrics renders.
One registry per app (no global state), so each test sees only its own calls.
"""

import math
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR

from aletheia_shared import jsonrpc

Labels = tuple[tuple[str, str], ...]

# Upper bounds (seconds) of the latency buckets: a store call takes milliseconds, a search
# over a large store may take a second.
LATENCY_BUCKETS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)

REQUESTS: Final = "aletheia_requests_total"
LATENCY: Final = "aletheia_request_duration_seconds"
ERRORS: Final = "aletheia_errors_total"
RATE_LIMITED: Final = "aletheia_rate_limited_calls_total"

HELP: Final = {
    REQUESTS: "JSON-RPC requests answered, by method and tool.",
    LATENCY: "Time to answer one JSON-RPC request, by method and tool.",
    ERRORS: "Failed requests by kind (JSON-RPC error, tool error, internal error).",
    RATE_LIMITED: "tools/call requests refused by a token's rate limit.",
}

ERROR_KINDS: Final = {
    PARSE_ERROR: "parse_error",
    INVALID_REQUEST: "invalid_request",
    METHOD_NOT_FOUND: "method_not_found",
    INVALID_PARAMS: "invalid_params",
    INTERNAL_ERROR: "internal_error",
    jsonrpc.SERVER_ERROR: "server_error",
    jsonrpc.UNAUTHORIZED: "unauthorized",
    jsonrpc.RATE_LIMITED: "rate_limited",
    jsonrpc.REPLY_TOO_LARGE: "reply_too_large",
}


def error_kind(reply: Mapping[str, Any]) -> str | None:
    """What kind of failure a JSON-RPC reply reports: a JSON-RPC error by its code, a tool's
    isError result as `tool_error`; None for a success."""
    error = reply.get("error")
    if isinstance(error, dict):
        return ERROR_KINDS.get(error.get("code", 0), "other_error")
    result = reply.get("result")
    if isinstance(result, dict) and result.get("isError") is True:
        return "tool_error"
    return None


@dataclass(slots=True)
class _Histogram:
    buckets: list[int]
    count: int = 0
    total: float = 0.0


@dataclass(frozen=True, slots=True)
class Gauge:
    """A value read at scrape time (store size, queued work)."""

    name: str
    help: str
    value: float
    labels: Mapping[str, str] | None = None


class Metrics:
    """Counters and histograms kept in process memory since the hub started."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counters: dict[str, dict[Labels, float]] = {}
        self._histograms: dict[Labels, _Histogram] = {}

    def count(self, name: str, amount: float = 1, **labels: str) -> None:
        """Add to a counter."""
        key = _labels(labels)
        with self._lock:
            series = self._counters.setdefault(name, {})
            series[key] = series.get(key, 0) + amount

    def observe_request(self, seconds: float, *, method: str, tool: str = "") -> None:
        """Count one answered request and its latency."""
        key = _labels({"method": method, "tool": tool})
        with self._lock:
            series = self._counters.setdefault(REQUESTS, {})
            series[key] = series.get(key, 0) + 1
            histogram = self._histograms.get(key)
            if histogram is None:
                histogram = self._histograms[key] = _Histogram([0] * len(LATENCY_BUCKETS))
            histogram.count += 1
            histogram.total += seconds
            for index, bound in enumerate(LATENCY_BUCKETS):
                if seconds <= bound:
                    histogram.buckets[index] += 1

    def counter(self, name: str) -> dict[Labels, float]:
        """A counter's series, by labels (a copy)."""
        with self._lock:
            return dict(self._counters.get(name, {}))

    def render(self, gauges: Iterable[Gauge] = ()) -> str:
        """Every series in the Prometheus text exposition format (version 0.0.4)."""
        with self._lock:
            counters = {name: dict(series) for name, series in self._counters.items()}
            histograms = {key: _copy(value) for key, value in self._histograms.items()}
        lines: list[str] = []
        for name in (REQUESTS, ERRORS, RATE_LIMITED):
            lines += _family(name, HELP[name], "counter")
            lines += [
                _sample(name, key, value) for key, value in sorted(counters.get(name, {}).items())
            ]
        lines += _family(LATENCY, HELP[LATENCY], "histogram")
        for key, histogram in sorted(histograms.items()):
            lines += _histogram_samples(key, histogram)
        seen: set[str] = set()
        for gauge in gauges:
            if gauge.name not in seen:
                seen.add(gauge.name)
                lines += _family(gauge.name, gauge.help, "gauge")
            lines.append(_sample(gauge.name, _labels(gauge.labels or {}), gauge.value))
        return "\n".join(lines) + "\n"


def nearest_rank(ordered: list[float], quantile: float) -> float | None:
    """The value at a quantile of sorted values (nearest rank); None for no values."""
    if not ordered:
        return None
    rank = max(math.ceil(quantile * len(ordered)), 1)
    return ordered[min(rank, len(ordered)) - 1]


def _labels(labels: Mapping[str, str]) -> Labels:
    return tuple(sorted(labels.items()))


def _copy(histogram: _Histogram) -> _Histogram:
    return _Histogram(list(histogram.buckets), histogram.count, histogram.total)


def _family(name: str, help_text: str, kind: str) -> list[str]:
    return [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]


def _histogram_samples(key: Labels, histogram: _Histogram) -> list[str]:
    lines = [
        _sample(f"{LATENCY}_bucket", (*key, ("le", _number(bound))), count)
        for bound, count in zip(LATENCY_BUCKETS, histogram.buckets, strict=True)
    ]
    lines.append(_sample(f"{LATENCY}_bucket", (*key, ("le", "+Inf")), histogram.count))
    lines.append(_sample(f"{LATENCY}_sum", key, histogram.total))
    lines.append(_sample(f"{LATENCY}_count", key, histogram.count))
    return lines


def _sample(name: str, labels: Labels, value: float) -> str:
    if not labels:
        return f"{name} {_number(value)}"
    inner = ",".join(f'{label}="{_escape(text)}"' for label, text in labels)
    return f"{name}{{{inner}}} {_number(value)}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))
