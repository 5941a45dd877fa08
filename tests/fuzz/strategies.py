"""Hypothesis strategies for what a careless or hostile client sends: any JSON, JSON-RPC
messages with the wrong type in every field, deep nesting, huge numbers, long strings, invalid
UTF-8, huge batches."""

import json
from typing import Any, Final

from hypothesis import strategies as st

METHODS: Final = ["initialize", "ping", "tools/list", "tools/call", "notifications/initialized"]
TOOLS: Final = ["save_memory", "search", "get_observations", "work_state_write", "add_rule"]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
    | st.sampled_from(["", "\x00", "\ud800", "\udfff\ud800"])
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    """A JSON-RPC request whose every field may hold the wrong type or be missing."""
    message: dict[str, Any] = {}
    if draw(st.booleans()):
        message["jsonrpc"] = draw(st.sampled_from(["2.0", "1.0", 2]) | json_values)
    if draw(st.booleans()):
        message["id"] = draw(st.integers() | st.text(max_size=20) | json_values)
    message["method"] = draw(st.sampled_from(METHODS) | json_values)
    if draw(st.booleans()):
        arguments = draw(
            st.dictionaries(st.sampled_from(["text", "query", "ids", "x"]), json_values)
        )
        params = {"name": draw(st.sampled_from(TOOLS) | json_values), "arguments": arguments}
        message["params"] = draw(st.just(params) | json_values)
    return message


def deep(depth: int, opener: str) -> bytes:
    """`[[[...1...]]]` or `{"a":{"a":...1...}}`, `depth` levels down."""
    if opener == "[":
        return b"[" * depth + b"1" + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    """Raw request bodies: messages, batches, any JSON, deep nesting, huge numbers, bytes."""
    kind = draw(st.integers(min_value=0, max_value=7))
    if kind == 0:
        return draw(st.binary(max_size=200))
    if kind == 1:
        return json.dumps(draw(json_values)).encode()
    if kind == 2:
        return deep(draw(st.integers(min_value=100, max_value=5000)), draw(st.sampled_from("[{")))
    if kind == 3:
        digits = draw(st.integers(min_value=300, max_value=5000))
        return b'{"jsonrpc":"2.0","id":' + b"9" * digits + b',"method":"ping"}'
    if kind == 4:
        text = json.dumps(draw(messages())).encode()
        cut = draw(st.integers(min_value=0, max_value=len(text)))
        return text[:cut] + draw(st.binary(max_size=8)) + text[cut:]
    if kind == 5:
        batch = draw(st.lists(messages(), min_size=1, max_size=12))
        return json.dumps(batch).encode()
    if kind == 6:
        size = draw(st.integers(min_value=1, max_value=400))
        return json.dumps(
            [{"jsonrpc": "2.0", "id": n, "method": "ping"} for n in range(size)]
        ).encode()
    return json.dumps(draw(messages())).encode()
