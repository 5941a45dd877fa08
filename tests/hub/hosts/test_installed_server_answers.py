"""Done when: after `aletheia install claude-code --write`, the aletheia server in the written
config answers tools/list when started as the config says."""

import json
import subprocess
from pathlib import Path

import pytest

from tests.hub.hosts.conftest import LiveHub, run_aletheia


@pytest.mark.e2e
def test_the_installed_claude_code_server_answers_tools_list(
    live_hub: LiveHub, tmp_path: Path
) -> None:
    done = run_aletheia("install", "claude-code", "--write", env=live_hub.env, home=tmp_path)
    assert done.returncode == 0, done.stderr
    entry = json.loads((tmp_path / ".claude.json").read_text())["mcpServers"]["aletheia"]
    assert entry["type"] == "stdio"
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "claude-code", "version": "2.1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    server = subprocess.run(
        [entry["command"], *entry["args"]],
        input="".join(json.dumps(message) + "\n" for message in messages),
        env={**live_hub.env, "HOME": str(tmp_path), **entry["env"]},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert server.returncode == 0, server.stderr
    replies = [json.loads(line) for line in server.stdout.splitlines()]
    assert [reply["id"] for reply in replies] == [1, 2]
    assert replies[0]["result"]["serverInfo"]["name"] == "aletheia"
    names = {tool["name"] for tool in replies[1]["result"]["tools"]}
    assert {"search", "save_memory", "session_start_context", "add_rule"} <= names
    assert len(names) == 13
