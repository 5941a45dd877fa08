"""aletheia install/uninstall: the entry each host gets, merged safely into what is there."""

import json
import tomllib
from pathlib import Path

import pytest

from aletheia_hub.hosts import gemini_trust
from aletheia_hub.hosts.catalog import HOSTS
from tests.hub.hosts.conftest import GOLDEN, PROXY, Cli, backups

GOLDEN_FILES = {
    "claude-code": "claude-code.json",
    "cursor": "cursor.json",
    "gemini-cli": "gemini-cli.json",
    "windsurf": "windsurf.json",
    "command-code": "command-code.json",
    "opencode": "opencode.json",
    "codex": "codex.toml",
}
DOCUMENTED_PATHS = {
    "claude-code": ".claude.json",
    "cursor": ".cursor/mcp.json",
    "gemini-cli": ".gemini/settings.json",
    "windsurf": ".codeium/windsurf/mcp_config.json",
    "command-code": ".commandcode/mcp.json",
    "opencode": ".config/opencode/opencode.json",
    "codex": ".codex/config.toml",
}


def golden(tool: str) -> str:
    return (GOLDEN / GOLDEN_FILES[tool]).read_text().replace("{PROXY}", PROXY)


def test_every_host_has_a_golden_file_and_a_documented_path() -> None:
    assert set(GOLDEN_FILES) == set(HOSTS) == set(DOCUMENTED_PATHS)


@pytest.mark.parametrize("tool", sorted(HOSTS))
def test_install_writes_the_golden_entry_into_the_documented_file(
    cli: Cli, home: Path, tool: str
) -> None:
    done = cli("install", tool, "--write")
    assert done.code == 0, done.err
    written = home / DOCUMENTED_PATHS[tool]
    assert written.read_text() == golden(tool)
    assert f"Wrote ~/{DOCUMENTED_PATHS[tool]}." in done.out
    assert backups(written.parent) == []  # there was no old file to keep


@pytest.mark.parametrize("tool", sorted(HOSTS))
def test_a_second_install_changes_nothing(cli: Cli, home: Path, tool: str) -> None:
    assert cli("install", tool, "--write").code == 0
    path = home / DOCUMENTED_PATHS[tool]
    before = path.read_bytes()
    again = cli("install", tool, "--write")
    assert again.code == 0
    expected = f"{HOSTS[tool].name}: nothing to change in ~/{DOCUMENTED_PATHS[tool]}.\n"
    if tool == "gemini-cli":  # this folder is still untrusted in the fresh home: say so again
        expected += gemini_trust.TRUST_HINT + "\n"
    assert again.out == expected
    assert path.read_bytes() == before
    assert backups(path.parent) == []


def test_install_without_write_prints_the_diff_and_writes_nothing(cli: Cli, home: Path) -> None:
    done = cli("install", "cursor")
    assert done.code == 0
    assert done.out.startswith("--- /dev/null\n+++ b/.cursor/mcp.json\n")
    assert f'+      "command": "{PROXY}",' in done.out
    assert done.out.endswith("run again with --write to apply this.\n")
    assert list(home.iterdir()) == []


def test_install_merges_into_a_config_with_other_servers_and_settings(cli: Cli, home: Path) -> None:
    config = home / ".claude.json"
    original = {
        "numStartups": 12,
        "mcpServers": {"github": {"type": "stdio", "command": "gh-mcp", "args": ["--x"]}},
        "projects": {"/src/shop": {"allowedTools": ["Bash"]}},
    }
    config.write_text(json.dumps(original, indent=4))
    done = cli("install", "claude-code", "--write")
    assert done.code == 0, done.err
    merged = json.loads(config.read_text())
    assert merged["numStartups"] == 12 and merged["projects"] == original["projects"]
    assert merged["mcpServers"]["github"] == original["mcpServers"]["github"]
    assert list(merged["mcpServers"]) == ["github", "aletheia"]
    assert merged["mcpServers"]["aletheia"]["env"] == {"ALETHEIA_TOOL": "claude-code"}
    (backup,) = backups(home)
    assert json.loads(backup.read_text()) == original
    assert "the old file is kept as .claude.json.aletheia-" in done.out


CODEX_CONFIG = """\
# Codex settings, by hand
model = "o3"  # the default model

[mcp_servers.github]
# the GitHub server
command = "gh-mcp"
args = ["--stdio"]

[profiles.fast]
model = "o4-mini"
"""


def test_codex_install_keeps_comments_and_order(cli: Cli, home: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_CONFIG)
    assert cli("install", "codex", "--write").code == 0
    written = config.read_text()
    assert written.startswith(CODEX_CONFIG)  # every byte of the user's file, in order
    assert tomllib.loads(written)["mcp_servers"]["aletheia"] == {
        "command": PROXY,
        "args": [],
        "env": {"ALETHEIA_TOOL": "codex"},
    }


@pytest.mark.parametrize(
    ("tool", "text"),
    [
        ("cursor", '{"mcpServers": {"github": {"command": "gh"}},,}'),
        ("codex", '[mcp_servers.github]\ncommand = "gh\n'),
        ("gemini-cli", '["not", "an", "object"]'),
    ],
)
def test_a_malformed_config_is_refused_and_left_untouched(
    cli: Cli, home: Path, tool: str, text: str
) -> None:
    config = home / DOCUMENTED_PATHS[tool]
    config.parent.mkdir(parents=True)
    config.write_text(text)
    done = cli("install", tool, "--write")
    assert done.code == 1
    assert str(config) in done.err and "it was left as it is" in done.err
    assert config.read_text() == text
    assert backups(config.parent) == []


def test_uninstall_removes_only_our_entry(cli: Cli, home: Path) -> None:
    config = home / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"mcpServers": {"github": {"command": "gh"}}, "x": 1}))
    assert cli("install", "cursor", "--write").code == 0
    assert "aletheia" in json.loads(config.read_text())["mcpServers"]
    done = cli("uninstall", "cursor", "--write")
    assert done.code == 0, done.err
    assert json.loads(config.read_text()) == {"mcpServers": {"github": {"command": "gh"}}, "x": 1}
    assert (
        cli("uninstall", "cursor", "--write").out
        == "Cursor: nothing to change in ~/.cursor/mcp.json.\n"
    )


def test_codex_uninstall_gives_back_the_users_file_byte_for_byte(cli: Cli, home: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_CONFIG)
    assert cli("install", "codex", "--write").code == 0
    assert cli("uninstall", "codex", "--write").code == 0
    assert config.read_text() == CODEX_CONFIG


def test_remote_install_writes_streamable_http_where_the_host_has_it(cli: Cli, home: Path) -> None:
    url, token = "https://memory.example.com/mcp", "alt_secret"
    assert cli("install", "claude-code", "--remote", url, "--token", token, "--write").code == 0
    entry = json.loads((home / ".claude.json").read_text())["mcpServers"]["aletheia"]
    assert entry == {
        "type": "http",
        "url": url,
        "headers": {"Authorization": f"Bearer {token}", "X-Aletheia-Tool": "claude-code"},
    }
    assert cli("install", "codex", "--remote", url, "--token", token, "--write").code == 0
    table = tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]
    assert table["aletheia"]["command"] == PROXY
    assert table["aletheia"]["env"] == {
        "ALETHEIA_TOOL": "codex",
        "ALETHEIA_HUB_URL": url,
        "ALETHEIA_TOKEN": token,
    }


def test_remote_needs_a_token(cli: Cli, home: Path) -> None:
    done = cli("install", "cursor", "--remote", "https://m.example.com/mcp")
    assert done.code == 2 and "--remote and --token go together" in done.err
