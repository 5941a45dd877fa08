"""Cost per message of the MCP types package on the hub's path: validating initialize and
tools/call params and building the results the hub sends. Prints microseconds per message;
nothing is asserted.

    .venv/bin/python bench/wire_types.py [--runs N]
"""

import argparse
import timeit
from collections.abc import Callable
from typing import Any, Final

import mcp_types

from aletheia_hub.mcp.methods import wire
from aletheia_hub.mcp.tool_call import tool_result

HELLO: Final = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"roots": {"listChanged": True}},
    "clientInfo": {"name": "claude-code", "version": "2.1.0"},
}
CALL: Final = {
    "name": "save_memory",
    "arguments": {"text": "The staging API key lives in the vault. " * 10, "type": "gotcha"},
}
REPLY_TEXT: Final = "Saved as #1042 in shop."


def initialize() -> Any:
    mcp_types.InitializeRequestParams.model_validate(HELLO)
    return wire(
        mcp_types.InitializeResult(
            protocol_version="2025-11-25",
            capabilities=mcp_types.ServerCapabilities(
                tools=mcp_types.ToolsCapability(list_changed=False)
            ),
            server_info=mcp_types.Implementation(name="aletheia", version="0.1.0"),
            instructions="Aletheia is the memory shared by every coding tool.",
        )
    )


def tools_call() -> Any:
    mcp_types.CallToolRequestParams.model_validate(CALL)
    return wire(tool_result(REPLY_TEXT, is_error=False))


def ping() -> Any:
    mcp_types.RequestParams.model_validate({})
    return wire(mcp_types.EmptyResult())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20_000, help="messages timed per kind")
    args = parser.parse_args()
    cases: dict[str, Callable[[], Any]] = {
        "initialize": initialize,
        "tools/call": tools_call,
        "ping": ping,
    }
    print(f"{'message':<12}{'us per message':>16}")
    for name, case in cases.items():
        best = min(timeit.repeat(case, number=args.runs, repeat=3)) / args.runs
        print(f"{name:<12}{best * 1e6:16.1f}")


if __name__ == "__main__":
    main()
