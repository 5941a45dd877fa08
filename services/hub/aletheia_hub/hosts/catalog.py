"""The seven hosts: where each keeps its MCP servers, in which shape, and what it reads.

Paths come from each host's documentation (cited in docs/hosts.md); every
one lies under the user's home folder on Linux, macOS and Windows alike (%USERPROFILE% there).
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

Style = Literal["claude", "mcp-servers", "command-code", "opencode", "codex"]


@dataclass(frozen=True, slots=True)
class Host:
    key: str  # the name on the command line and in ALETHEIA_TOOL
    name: str
    config_path: str  # as shown to people, from the home folder
    style: Style
    instruction_file: str  # where rules go, from the project root
    # Where the host reads session hooks from the home folder; None: `--hooks` is not offered.
    hook_settings: str | None = None
    # The host's hook event for each `aletheia hook` subcommand (an event may run one of them).
    hook_events: tuple[tuple[str, str], ...] = ()
    # The tools an event's hook runs for, in the host's matcher syntax (an event not named here
    # runs for every call): the tool-use hook starts only for tools that edit or run commands.
    hook_matchers: tuple[tuple[str, str], ...] = ()
    # The timeout written with each hook, in the unit the host reads (None: none written).
    hook_timeout: int | None = None
    # Hooks nested in matcher groups (Claude Code's shape) or listed flat (Cursor's); the
    # flat shape also answers as Cursor does: `{"continue": true, "additional_context": ...}`.
    # OpenCode takes hooks as a JavaScript plugin file of ours instead ("plugin").
    hook_shape: Literal["nested", "flat", "plugin"] = "nested"
    # Other names the host also reads its config from, tried when config_path is absent.
    alternatives: tuple[str, ...] = ()
    # The host reads its JSON files with comments (JSONC), so a commented file is merged with
    # its comments kept; else comments make the file unreadable to the host and we refuse it.
    comments: bool = False

    def config_file(self, home: Path) -> Path:
        """The config file to read and write: the documented one (a link there counts, even
        one that leads nowhere yet), or an alternative the user already has."""
        main = home / self.config_path.removeprefix("~/")
        if main.exists() or main.is_symlink():
            return main
        for alternative in self.alternatives:
            candidate = home / alternative.removeprefix("~/")
            if candidate.exists():
                return candidate
        return main

    def hook_matcher(self, event: str) -> str | None:
        return dict(self.hook_matchers).get(event)

    def hook_file(self, home: Path) -> Path | None:
        if self.hook_settings is None:
            return None
        return home / self.hook_settings.removeprefix("~/")


# Claude Code's tools that change files or run commands (its matcher is a regular expression).
_CLAUDE_TOOLS: Final = "Edit|MultiEdit|Write|NotebookEdit|Bash"

HOSTS: Final = {
    "claude-code": Host(
        "claude-code",
        "Claude Code",
        "~/.claude.json",
        "claude",
        "CLAUDE.md",
        hook_settings="~/.claude/settings.json",
        hook_events=(
            ("SessionStart", "session-start"),
            ("UserPromptSubmit", "user-prompt"),
            ("PostToolUse", "tool-use"),
            ("PostToolUseFailure", "tool-use"),  # a failed call, a failing command included
            ("Stop", "session-end"),  # each turn's end: `claude -p` ends with it
            ("SessionEnd", "session-end"),
        ),
        hook_matchers=(
            ("PostToolUse", _CLAUDE_TOOLS),
            ("PostToolUseFailure", _CLAUDE_TOOLS),
        ),
        hook_timeout=30,  # seconds
    ),
    "cursor": Host(
        "cursor",
        "Cursor",
        "~/.cursor/mcp.json",
        "mcp-servers",
        ".cursor/rules/aletheia.mdc",
        hook_settings="~/.cursor/hooks.json",
        hook_events=(
            ("sessionStart", "session-start"),
            ("beforeSubmitPrompt", "user-prompt"),
            ("afterFileEdit", "tool-use"),
            ("afterShellExecution", "tool-use"),
            ("stop", "session-end"),
        ),
        hook_shape="flat",
    ),
    "gemini-cli": Host(
        "gemini-cli",
        "Gemini CLI",
        "~/.gemini/settings.json",
        "mcp-servers",
        "GEMINI.md",
        hook_settings="~/.gemini/settings.json",
        hook_events=(
            ("SessionStart", "session-start"),
            ("BeforeAgent", "user-prompt"),
            ("AfterTool", "tool-use"),
            ("SessionEnd", "session-end"),
        ),
        hook_matchers=(("AfterTool", "write_file|replace|run_shell_command"),),
        hook_timeout=30_000,  # milliseconds
        comments=True,  # settings.json is read through strip-json-comments
    ),
    "windsurf": Host(
        "windsurf",
        "Windsurf",
        "~/.codeium/windsurf/mcp_config.json",
        "mcp-servers",
        ".windsurf/rules/aletheia.md",
    ),
    "command-code": Host(
        "command-code", "Command Code", "~/.commandcode/mcp.json", "command-code", "AGENTS.md"
    ),
    "opencode": Host(
        "opencode",
        "OpenCode",
        "~/.config/opencode/opencode.json",
        "opencode",
        "AGENTS.md",
        hook_settings="~/.config/opencode/plugins/aletheia.js",
        hook_events=(
            ("experimental.chat.system.transform", "session-start"),
            ("chat.message", "user-prompt"),
            ("tool.execute.after", "tool-use"),
            ("session.idle", "session-end"),
        ),
        hook_shape="plugin",
        alternatives=("~/.config/opencode/opencode.jsonc",),
        comments=True,  # OpenCode reads JSON and JSONC
    ),
    "codex": Host(
        "codex",
        "Codex",
        "~/.codex/config.toml",
        "codex",
        "AGENTS.md",
        hook_settings="~/.codex/hooks.json",
        hook_events=(
            ("SessionStart", "session-start"),
            ("UserPromptSubmit", "user-prompt"),
            ("PostToolUse", "tool-use"),
            ("Stop", "session-end"),
        ),
        hook_matchers=(("PostToolUse", "^(Bash|apply_patch)$"),),
        hook_timeout=30,  # seconds
    ),
}


def host(key: str) -> Host:
    return HOSTS[key]
