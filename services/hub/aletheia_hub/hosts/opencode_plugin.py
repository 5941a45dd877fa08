"""OpenCode's session hooks: a plugin file of ours in ~/.config/opencode/plugins/.

OpenCode takes hooks only as JavaScript plugins. Ours runs the same `aletheia hook` commands
the other hosts run, feeding them JSON: on every model call (asked for once per session),
`experimental.chat.system.transform` adds session_start_context to the system prompt;
`chat.message` records each user prompt; `tool.execute.after` sends each tool call (its tool,
arguments, output and exit code) to `hook tool-use` without waiting for it; the `session.idle`
event runs `hook session-end` with the session's first prompt, once the session's tool calls
are sent (else its digest could miss the last ones). The whole file is ours, marked on its
first line: an existing file without the mark is the user's and is never touched.
"""

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from aletheia_hub import managed_block
from aletheia_hub.hosts import hook_commands
from aletheia_hub.hosts.catalog import Host
from aletheia_hub.hosts.config_files import ConfigFileError
from aletheia_hub.hosts.entries import Remote
from aletheia_hub.managed_block import Change

MARK: Final = (
    "// Aletheia session hooks for OpenCode, written by `aletheia install opencode --hooks`."
)
SYSTEM_TRANSFORM: Final = "experimental.chat.system.transform"
CHAT_MESSAGE: Final = "chat.message"
TOOL_EXECUTE_AFTER: Final = "tool.execute.after"
SESSION_IDLE: Final = "session.idle"

_TEMPLATE: Final = """{mark}
// `aletheia uninstall opencode --write` removes it; it is rewritten on every install.
import {{ execFile }} from "node:child_process";

const SESSION_START = {session_start};
const USER_PROMPT = {user_prompt};
const TOOL_USE = {tool_use};
const SESSION_END = {session_end};
// What each session asked first, for its digest; each call's arguments, from before it ran.
const firstRequests = new Map();
const callArgs = new Map();
// Each session's last tool-call report, chained after the ones before it: its end waits for
// it, so that its digest covers its last calls.
const sending = new Map();
// The context of each session, asked for once: OpenCode builds the system prompt anew for
// every model call (its title request first, with the same session id), so every call of the
// session gets it.
const contexts = new Map();

// Run one hook command with its JSON on stdin; its stdout, or "" when it failed.
function run(argv, payload) {{
  return new Promise((resolve) => {{
    const child = execFile(argv[0], argv.slice(1), {{ timeout: 30000 }}, (error, stdout) =>
      resolve(error ? "" : String(stdout)),
    );
    child.stdin.on("error", () => {{}});
    child.stdin.end(JSON.stringify(payload));
  }});
}}

function additionalContext(stdout) {{
  try {{
    return JSON.parse(stdout)?.hookSpecificOutput?.additionalContext ?? "";
  }} catch {{
    return "";
  }}
}}

export const AletheiaMemory = async ({{ directory }}) => ({{
  "{system_transform}": async (input, output) => {{
    const sessionID = input?.sessionID ?? "";
    if (!contexts.has(sessionID)) {{
      const payload = {{ hook_event_name: "SessionStart", session_id: sessionID, cwd: directory }};
      contexts.set(sessionID, run(SESSION_START, payload).then(additionalContext));
    }}
    const context = await contexts.get(sessionID);
    if (context && Array.isArray(output?.system)) output.system.push(context);
  }},
  "{chat_message}": async (input, output) => {{
    const parts = Array.isArray(output?.parts) ? output.parts : [];
    const prompt = parts
      .filter((part) => part?.type === "text" && typeof part.text === "string")
      .map((part) => part.text)
      .join("\\n");
    if (!prompt) return;
    const sessionID = input?.sessionID ?? "";
    if (!firstRequests.has(sessionID)) firstRequests.set(sessionID, prompt);
    const payload = {{
      hook_event_name: "UserPromptSubmit",
      session_id: sessionID,
      cwd: directory,
      prompt,
    }};
    await run(USER_PROMPT, payload);
  }},
  "tool.execute.before": async (input, output) => {{
    if (input?.callID) callArgs.set(input.callID, output?.args ?? {{}});
  }},
  "{tool_execute_after}": async (input, output) => {{
    const args = input?.args ?? callArgs.get(input?.callID) ?? {{}};
    callArgs.delete(input?.callID);
    const text = typeof output?.output === "string" ? output.output : "";
    const metadata = output?.metadata ?? {{}};
    const payload = {{
      hook_event_name: "tool.execute.after",
      session_id: input?.sessionID ?? "",
      cwd: directory,
      tool: input?.tool ?? "",
      args,
      output: text.slice(-20000),
      metadata: {{ exit: metadata.exit, exitCode: metadata.exitCode }},
    }};
    // Not awaited: the tool's answer never waits for capture. Each session's reports go one
    // after another, so the hub gets them in the order the calls ran (a failing test run, then
    // the passing one); run() never rejects, so one lost report never stops the next.
    const previous = sending.get(payload.session_id) ?? Promise.resolve();
    sending.set(payload.session_id, previous.then(() => run(TOOL_USE, payload)));
  }},
  event: async ({{ event }}) => {{
    if (event?.type !== "{session_idle}") return;
    const sessionID = event.properties?.sessionID ?? "";
    const payload = {{ hook_event_name: "session.idle", session_id: sessionID, cwd: directory }};
    if (firstRequests.has(sessionID)) payload.first_request = firstRequests.get(sessionID);
    await sending.get(sessionID);
    await run(SESSION_END, payload);
  }},
}});
"""


def render(
    host: Host,
    executable: str,
    remote: Remote | None = None,
    carried: Mapping[str, str] | None = None,
) -> str:
    """The plugin file that runs our hook commands."""
    commands = {
        subcommand: hook_commands.hook_words(executable, subcommand, host, remote, carried)
        for subcommand in hook_commands.SUBCOMMANDS
    }
    return _TEMPLATE.format(
        mark=MARK,
        session_start=json.dumps(commands["session-start"]),
        user_prompt=json.dumps(commands["user-prompt"]),
        tool_use=json.dumps(commands["tool-use"]),
        session_end=json.dumps(commands["session-end"]),
        system_transform=SYSTEM_TRANSFORM,
        chat_message=CHAT_MESSAGE,
        tool_execute_after=TOOL_EXECUTE_AFTER,
        session_idle=SESSION_IDLE,
    )


def plan(
    host: Host,
    path: Path,
    executable: str,
    remote: Remote | None = None,
    carried: Mapping[str, str] | None = None,
) -> Change | None:
    """The change that writes our plugin (None: it is there as wanted)."""
    before = managed_block.read_text(path)
    if before is not None and not is_ours(before):
        raise ConfigFileError(
            f"{path} exists and is not Aletheia's plugin; it was left as it is. Move it away "
            "to let `--hooks` write ours."
        )
    wanted = render(host, executable, remote, carried)
    return None if before == wanted else Change(path, before, wanted)


def plan_removal(path: Path) -> Change | None:
    """The change that deletes our plugin; a file that is not ours stays."""
    before = managed_block.read_text(path)
    if before is None or not is_ours(before):
        return None
    return Change(path, before, None)


def installed(host: Host, path: Path) -> dict[str, list[str]]:
    """Our hook commands in the plugin, by the OpenCode hook that runs each."""
    text = managed_block.read_text(path)
    if text is None or not is_ours(text):
        return {}
    found: dict[str, list[str]] = {}
    for event, subcommand in host.hook_events:
        name = subcommand.upper().replace("-", "_")
        for line in text.splitlines():
            if line.startswith(f"const {name} = "):
                words = json.loads(line.removeprefix(f"const {name} = ").rstrip(";"))
                found[event] = [hook_commands.shell_join(words)]
    return found


def is_ours(text: str) -> bool:
    return text.startswith(MARK)
