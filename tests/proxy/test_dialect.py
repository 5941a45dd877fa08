"""ALETHEIA_DIALECT picks the tools a proxy serves: the hub path of that dialect; an unknown
name stops the proxy with a clear message."""

import re
import subprocess
from collections.abc import Callable

import pytest

from aletheia_proxy.config import ConfigError, load_config
from tests.jsonrpc_messages import tool_call_request
from tests.proxy.process import PROXY, ProxyProcess, tool_text

pytestmark = pytest.mark.e2e


def test_open_mem_dialect_serves_the_mem_tools_over_the_same_store(
    start_proxy: Callable[[dict[str, str]], ProxyProcess], proxy_env: dict[str, str]
) -> None:
    aletheia = start_proxy(proxy_env)
    aletheia.initialize()
    saved = aletheia.request(tool_call_request("save_memory", {"text": "Deploys are blue"}, 2))
    new = re.fullmatch(r"Saved as #(\d+) in shop\.", tool_text(saved))
    assert new, saved
    open_mem = start_proxy({**proxy_env, "ALETHEIA_DIALECT": "open-mem"})
    open_mem.initialize()
    listed = open_mem.request({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    names = [tool["name"] for tool in listed["result"]["tools"]]
    assert names[:3] == ["mem-find", "mem-history", "mem-get"] and "search" not in names
    found = open_mem.request(tool_call_request("mem-find", {"query": "deploys"}, 3))
    assert f"obs-{new[1]} " in tool_text(found)


def test_an_unknown_dialect_stops_the_proxy_with_the_choices(
    proxy_env: dict[str, str],
) -> None:
    done = subprocess.run(
        [str(PROXY)],
        env={**proxy_env, "ALETHEIA_DIALECT": "openmem"},
        input=b"",
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.decode().strip() == (
        'aletheia-mcp: ALETHEIA_DIALECT: unknown dialect "openmem": choose one of aletheia, '
        "open-mem, all"
    )


def test_the_dialect_path_replaces_the_path_of_a_given_hub_url() -> None:
    given = {"ALETHEIA_HUB_URL": "https://hub.example:7411/mcp"}
    assert load_config(given).hub_url == "https://hub.example:7411/mcp"
    assert load_config({**given, "ALETHEIA_DIALECT": "all"}).hub_url == (
        "https://hub.example:7411/mcp/all"
    )
    assert load_config({"ALETHEIA_DIALECT": "open-mem"}).hub_url.endswith(":7411/mcp/open-mem")
    with pytest.raises(ConfigError):
        load_config({"ALETHEIA_DIALECT": "mem"})
