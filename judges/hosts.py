"""Real hosts as judges: Claude Code, OpenCode, Codex and Gemini CLI, pinned in package.json.

For each host: a fresh HOME, a hub of its own on a custom store and port, and our installer's
entry and hooks (`aletheia install <host> --write --hooks`, run with ALETHEIA_DATA_DIR and
ALETHEIA_PORT set). The host then runs with a clean environment (nothing of ours but what the
installer wrote into its config), so what reaches the custom hub came through that config:

- the host's own listing must report our server connected (Codex's only lists its config),
  and the custom hub must have served the requests;
- the host's hooks must reach the hub: the prompt lands in the custom store, the session-start
  context in the model's request. A stub on 127.0.0.1 (model_stub.py) stands in for the model
  API, so no host needs a model or an account; Claude Code also runs without a login.
- Claude Code end to end: the stub answers with scripted tool calls, so that the real host
  saves a memory through aletheia-mcp and the hub, and finds it again.

A run through the default store (~/.aletheia) or port instead of the custom ones fails, with
what the installer wrote; hubs such a run started are stopped by the pid they recorded.
"""

import json
import os
import re
import signal
import sqlite3
import subprocess
import time
import tomllib
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Final

from common import BIN, MODULES, NODE, CheckFailed, free_port, running_hub
from model_stub import MemoryScript, plain_text, request_text, running_stub, tool_names

Report = Callable[[str, Callable[[], str]], bool]

HOST_SECONDS: Final = 120.0
# How the session-start context begins (Gemini CLI escapes its hooks' text).
CONTEXT_MARKS: Final = ("<aletheia-memory>", "&lt;aletheia-memory&gt;")
ANSI: Final = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
SYSTEM_PATH: Final = "/usr/local/bin:/usr/bin:/bin"
# Nothing but the hub and the stub: no updates, telemetry, downloads of the hosts' own.
CLAUDE_QUIET: Final = {
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}
OPENCODE_QUIET: Final = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    # OpenCode installs @opencode-ai/plugin from the npm registry into ~/.config/opencode
    # before it loads a plugin; ours needs nothing from it, and offline it loads at once.
    "npm_config_offline": "true",
}
CODEX_SETTINGS: Final = """check_for_update_on_startup = false

[analytics]
enabled = false

[features]
# No sync of the curated plugin marketplace from github.com at startup.
plugins = false
"""
GEMINI_SETTINGS: Final = {
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
    # An API key (a dummy one, for the stub): GOOGLE_GEMINI_BASE_URL alone selects the
    # "gateway" auth type, which 0.61.0 refuses in non-interactive runs.
    "security": {"auth": {"selectedType": "gemini-api-key"}},
}


@dataclass(frozen=True)
class Program:
    """How to start one host, and where its version and our entry are found."""

    key: str  # aletheia's name for the host: `aletheia install <key>`
    name: str
    package: str  # the npm package whose version is reported
    argv: tuple[str, ...]
    quiet: Mapping[str, str]
    config: str  # the config file our entry is in, from HOME
    entry_keys: tuple[str, ...]  # the keys that lead to our entry's environment

    def version(self) -> str:
        manifest = MODULES / self.package / "package.json"
        try:
            return str(json.loads(manifest.read_text())["version"]).split("-")[0]
        except (OSError, ValueError, KeyError):
            return "?"

    def label(self) -> str:
        return f"{self.name} {self.version()}"


CLAUDE: Final = Program(
    "claude-code",
    "Claude Code",
    "@anthropic-ai/claude-code-linux-x64",
    (str(MODULES / "@anthropic-ai" / "claude-code-linux-x64" / "claude"),),
    CLAUDE_QUIET,
    ".claude.json",
    ("mcpServers", "aletheia", "env"),
)
OPENCODE: Final = Program(
    "opencode",
    "OpenCode",
    "opencode-linux-x64",
    (str(MODULES / "opencode-linux-x64" / "bin" / "opencode"),),
    OPENCODE_QUIET,
    ".config/opencode/opencode.json",
    ("mcp", "aletheia", "environment"),
)
CODEX: Final = Program(
    "codex",
    "Codex",
    "@openai/codex",
    (str(NODE), str(MODULES / "@openai" / "codex" / "bin" / "codex.js")),
    {},
    ".codex/config.toml",
    ("mcp_servers", "aletheia", "env"),
)
GEMINI: Final = Program(
    "gemini-cli",
    "Gemini CLI",
    "@google/gemini-cli",
    (str(NODE), str(MODULES / "@google" / "gemini-cli" / "bundle" / "gemini.js")),
    {},
    ".gemini/settings.json",
    ("mcpServers", "aletheia", "env"),
)


@dataclass(frozen=True)
class Home:
    """One host's fresh HOME, project folder and custom hub."""

    program: Program
    root: Path
    hub_url: str
    port: int

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / f"judged-{self.program.key}"

    @property
    def store(self) -> Path:
        return self.root / "store"

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """A clean environment: no ALETHEIA_* variable, nothing of the caller's."""
        return {
            "HOME": str(self.home),
            "PATH": f"{NODE.parent}:{SYSTEM_PATH}",
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            **self.program.quiet,
            **(extra or {}),
        }


def marker(key: str) -> str:
    return f"judge-{key}-{uuid.uuid4().hex[:10]}"


# --- running things -------------------------------------------------------------------


def run_host(
    home: Home,
    args: list[str],
    extra: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    linger: float = 0.0,
) -> subprocess.CompletedProcess[str]:
    """The host with `args` in the project folder (or `cwd`); its whole process group ends
    with it, after at most `linger` seconds for what the host left running (a hook it did
    not wait for) to end on its own."""
    command = [*home.program.argv, *args]
    process = subprocess.Popen(
        command,
        cwd=cwd or home.project,
        env=home.env(extra),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=HOST_SECONDS)
    except subprocess.TimeoutExpired:
        _end_group(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        raise CheckFailed(
            f"`{home.program.key} {' '.join(args)[:80]}` did not end in {HOST_SECONDS:.0f} s"
            f"\n{tail(out + err)}"
        ) from None
    else:
        _wait_group(process.pid, linger)
    finally:
        _end_group(process.pid, signal.SIGTERM)
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def _wait_group(group: int, seconds: float) -> None:
    """Wait at most `seconds` for every process of a group to end."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.05)


def _end_group(group: int, sig: signal.Signals) -> None:
    """Signal what is left of a process group this module started (its leader's pid)."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(group, sig)


def tail(text: str, lines: int = 12) -> str:
    return "\n".join(ANSI.sub("", text).strip().splitlines()[-lines:])


def install(home: Home) -> str:
    """Our installer, as a user with a custom store and port runs it."""
    done = subprocess.run(
        [str(BIN / "aletheia"), "install", home.program.key, "--write", "--hooks"],
        cwd=home.project,
        env={
            "HOME": str(home.home),
            "PATH": SYSTEM_PATH,
            "LANG": "C.UTF-8",
            "ALETHEIA_DATA_DIR": str(home.store),
            "ALETHEIA_PORT": str(home.port),
        },
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        raise CheckFailed(f"aletheia install {home.program.key} failed:\n{tail(done.stderr)}")
    return done.stdout


@contextmanager
def prepared(workdir: Path, program: Program) -> Iterator[Home]:
    """A fresh HOME with the host's own quiet settings, a hub on a custom store and port,
    and our entry and hooks as the installer writes them there."""
    if not Path(program.argv[-1]).exists():
        raise CheckFailed(f"{program.name} is not installed here: no {program.argv[-1]}")
    root = workdir / program.key
    port = free_port()
    with running_hub(root / "store", port) as hub_url:
        home = Home(program, root, hub_url, port)
        home.project.mkdir(parents=True)
        seed_settings(home)
        install(home)
        try:
            yield home
        finally:
            stop_strays(home)


def seed_settings(home: Home) -> None:
    """What a careful user of each host has before installing: no update checks, no usage
    statistics (our installer must keep them)."""
    if home.program is CODEX:
        write(home.home / ".codex" / "config.toml", CODEX_SETTINGS)
    elif home.program is GEMINI:
        write(home.home / ".gemini" / "settings.json", json.dumps(GEMINI_SETTINGS, indent=2))


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# --- what reached which hub -----------------------------------------------------------


def hub_requests(home: Home) -> float:
    """JSON-RPC requests the custom hub has answered."""
    with urllib.request.urlopen(f"{home.hub_url}/metrics", timeout=10) as reply:
        text = reply.read().decode()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("aletheia_requests_total{")
    )


def query(store: Path, sql: str, *args: str) -> list[tuple[Any, ...]]:
    """Rows of the store's SQLite file, read-only."""
    database = store / "hub.db"
    if not database.exists():
        return []
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)) as db:
        return list(db.execute(sql, args))


def prompts(store: Path, mark: str) -> list[tuple[str, str]]:
    rows = query(store, "SELECT tool, request FROM episodes WHERE instr(request, ?) > 0", mark)
    return [(str(tool), str(request)) for tool, request in rows]


def saved_memories(store: Path, mark: str) -> list[tuple[str, str]]:
    rows = query(store, "SELECT tool, text FROM memories WHERE instr(text, ?) > 0", mark)
    return [(str(tool), str(text)) for tool, text in rows]


def default_store(home: Home) -> Path:
    return home.home / ".aletheia"


def default_store_used(home: Home) -> bool:
    """A store or a hub's record in ~/.aletheia (the installer keeps host-files.json there)."""
    folder = default_store(home)
    return (folder / "hub.db").exists() or any(folder.glob("hub*.json"))


def entry_env(home: Home) -> dict[str, str]:
    """The environment our entry gives aletheia-mcp in the host's config."""
    path = home.home / home.program.config
    try:
        text = path.read_text()
        found: Any = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
        for key in home.program.entry_keys:
            found = found[key]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def missed_custom_hub(home: Home, what: str) -> str:
    """Why `what` did not reach the custom hub, with what the installer wrote."""
    carried = sorted(k for k in entry_env(home) if k in ("ALETHEIA_DATA_DIR", "ALETHEIA_PORT"))
    wrote = ", ".join(carried) if carried else "neither ALETHEIA_DATA_DIR nor ALETHEIA_PORT"
    went = (
        f"it used the default store {default_store(home)} instead"
        if default_store_used(home)
        else "nothing reached any hub of ours"
    )
    return (
        f"{what} did not reach the custom hub (store {home.store}, port {home.port}): {went}. "
        f"Our entry in ~/{home.program.config} carries {wrote}."
    )


def stop_strays(home: Home) -> list[str]:
    """Stop the hubs an aletheia-mcp or hook of this HOME started on the default store (each
    by the pid it recorded and its /healthz confirms); what was stopped."""
    stopped = []
    for record_file in sorted(default_store(home).glob("hub*.json")):
        try:
            record = json.loads(record_file.read_text())
            pid, port = int(record["pid"]), int(record["port"])
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as reply:
                health = json.loads(reply.read())
        except (OSError, ValueError, KeyError, TypeError, urllib.error.URLError):
            continue
        location = str(health.get("store", {}).get("location", ""))
        if health.get("pid") == pid and location.startswith(str(default_store(home))):
            os.kill(pid, signal.SIGTERM)
            stopped.append(f"pid {pid} on port {port}")
    return stopped


def reached_custom_hub(home: Home, before: float, what: str) -> None:
    if hub_requests(home) <= before:
        raise CheckFailed(missed_custom_hub(home, what))


def prompt_recorded(home: Home, mark: str) -> str:
    """The prompt with `mark` as the custom store holds it, recorded for this host."""
    found = [request for tool, request in prompts(home.store, mark) if tool == home.program.key]
    if not found:
        if prompts(default_store(home), mark):
            raise CheckFailed(missed_custom_hub(home, "the prompt hook"))
        raise CheckFailed(f"no prompt with {mark} in the custom store: the prompt hook did not run")
    return found[0]


def has_context(text: str) -> bool:
    return any(mark in text for mark in CONTEXT_MARKS)


# --- the checks -----------------------------------------------------------------------


def verdict(
    home: Home, done: subprocess.CompletedProcess[str], passed: list[str], problems: list[str]
) -> str:
    """What passed; or CheckFailed with what did not (and what passed), and the host's last
    words when it failed too. A default store in HOME fails it: something of ours ran there."""
    if default_store_used(home):
        problems = [*problems, missed_custom_hub(home, "aletheia-mcp or a hook")]
    if done.returncode != 0:
        problems = [*problems, f"exit {done.returncode}"]
    if not problems:
        return "; ".join(passed)
    also = f" (passed: {', '.join(passed)})" if passed else ""
    words = f"\n{tail(done.stdout + done.stderr)}" if done.returncode != 0 else ""
    raise CheckFailed("; ".join(problems) + also + words)


def listing(home: Home, args: list[str], connected: str) -> str:
    """The host's own listing of MCP servers reports ours; the custom hub served it."""
    before = hub_requests(home)
    done = run_host(home, args)
    shown = ANSI.sub("", done.stdout + done.stderr)
    line = next((ln.strip() for ln in shown.splitlines() if re.search(connected, ln)), None)
    if done.returncode != 0 or line is None:
        raise CheckFailed(f"exit {done.returncode}, no line matching {connected!r}:\n{tail(shown)}")
    reached_custom_hub(home, before, f"`{' '.join(args)}`")
    return f"{line[:70]}; the custom hub served it"


def claude_listing(home: Home) -> str:
    return listing(home, ["mcp", "list"], r"^aletheia: .*Connected")


def claude_hook_without_login(home: Home) -> str:
    """`claude -p` while not logged in: no model call, but UserPromptSubmit runs."""
    mark = marker("claude")
    done = run_host(home, ["-p", f"{mark}: the judges use pnpm", "--output-format", "json"])
    said = json.loads(done.stdout).get("result", "") if done.stdout.startswith("{") else ""
    prompt_recorded(home, mark)
    return f"claude -p answered {str(said)[:40]!r}; the prompt is in the custom store"


def claude_end_to_end(home: Home) -> str:
    """The real host against a scripted model: ToolSearch loads our tools, save_memory saves,
    search finds it; the session-start context is in the model's request."""
    mark = marker("claude-e2e")
    script = MemoryScript(
        "mcp__aletheia__save_memory",
        "mcp__aletheia__search",
        memory=f"The judges pin their hosts in package.json ({mark}).",
        query=mark,
    )
    with running_stub(script) as (url, recorder):
        done = run_host(
            home,
            [
                *("-p", "Remember how the judges pin their hosts, then look it up."),
                *("--output-format", "json"),
                *("--allowedTools", f"{script.save_tool},{script.search_tool}"),
            ],
            {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "judge-dummy-key"},
        )
    agent_tools = {script.loader, script.save_tool}
    turns = [b for b in recorder.bodies("/v1/messages$") if agent_tools & set(tool_names(b))]
    if not turns:
        return verdict(home, done, [], ["no agent request reached the stub"])
    first = turns[0]
    passed: list[str] = []
    problems: list[str] = []
    system = [first.get("system")] + [
        m for m in first.get("messages") or [] if isinstance(m, dict) and m.get("role") == "system"
    ]
    tally(passed, problems, has_context(json.dumps(system)), "session-start context in the request")
    offered = sorted(set(re.findall(r"mcp__aletheia__(\w+)", request_text(first))))
    tally(
        passed,
        problems,
        {"save_memory", "search", "session_start_context"} <= set(offered),
        f"{len(offered)} tools offered (deferred behind ToolSearch)",
    )
    memory_checks(home, script, mark, passed, problems)
    return verdict(home, done, [*passed, f"{len(turns)} model turns"], problems)


def tally(passed: list[str], problems: list[str], ok: bool, what: str) -> None:
    """`what` into passed when ok, else `no <what>` into problems."""
    (passed if ok else problems).append(what if ok else f"no {what}")


def memory_checks(
    home: Home, script: MemoryScript, mark: str, passed: list[str], problems: list[str]
) -> None:
    """save_memory saved into the custom store, for this host; search found it."""
    saved = any(tool == home.program.key for tool, _ in saved_memories(home.store, mark))
    tally(passed, problems, saved, "memory saved in the custom store")
    found = mark in script.results.get(script.search_tool, "")
    tally(passed, problems, found, "memory found by search")


def opencode_listing(home: Home) -> str:
    return listing(home, ["mcp", "list"], r"✓ aletheia\s+connected")


def opencode_run(home: Home) -> str:
    """`opencode run` with its anthropic provider on the stub: our plugin's hooks record the
    prompt and put the session-start context into the agent's system prompt, and the
    scripted model saves and finds a memory through our tools."""
    mark = marker("opencode")
    script = MemoryScript(
        "aletheia_save_memory",
        "aletheia_search",
        memory=f"OpenCode judged the hub ({mark}).",
        query=mark,
        loader="",
    )
    with running_stub(script) as (url, recorder):
        provider: dict[str, Any] = {
            "options": {"baseURL": f"{url}/v1", "apiKey": "judge-dummy-key"},
            "models": {"claude-judge": {"name": "judge"}},
        }
        config = {"model": "anthropic/claude-judge", "provider": {"anthropic": provider}}
        done = run_host(
            home,
            ["run", f"{mark}: the judges use pnpm"],
            {"OPENCODE_CONFIG_CONTENT": json.dumps(config)},
        )
    prompt_recorded(home, mark)
    passed = ["prompt in the custom store"]
    problems: list[str] = []
    agent = [b for b in recorder.bodies("/v1/messages$") if script.save_tool in tool_names(b)]
    if not agent:
        return verdict(home, done, passed, ["no agent request with our tools reached the stub"])
    if has_context(json.dumps(agent[0].get("system"))):
        passed.append("session-start context in the agent's system prompt")
    else:
        elsewhere = [b.get("model") for b in recorder.bodies() if has_context(str(b.get("system")))]
        went = f": it went to the request for {', '.join(map(str, elsewhere))} only" * bool(
            elsewhere
        )
        problems.append(f"no session-start context in the agent's system prompt{went}")
    memory_checks(home, script, mark, passed, problems)
    return verdict(home, done, passed, problems)


def codex_listing(home: Home) -> str:
    """`codex mcp list` reads the config only (it does not start the server)."""
    done = run_host(home, ["mcp", "list"])
    line = next((ln for ln in done.stdout.splitlines() if re.match(r"aletheia\s", ln)), "")
    if done.returncode != 0 or not re.search(r"\benabled\b", line):
        raise CheckFailed(f"exit {done.returncode}, aletheia not enabled:\n{tail(done.stdout)}")
    return f"{' '.join(line.split()[:2])} … enabled (Codex lists without connecting)"


def codex_exec(home: Home) -> str:
    """`codex exec` with a model provider on the stub; hook trust bypassed, as a user who
    trusted our hooks in /hooks: both hooks reach the hub, our tools reach the model."""
    mark = marker("codex")
    before = hub_requests(home)
    with running_stub(plain_text) as (url, recorder):
        provider = (
            f'{{name="judge", base_url="{url}/v1", wire_api="responses", '
            "request_max_retries=0, stream_max_retries=0}"
        )
        done = run_host(
            home,
            [
                *("exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust"),
                *("-c", 'model_provider="judge"', "-c", 'model="judge-model"'),
                *("-c", f"model_providers.judge={provider}"),
                f"{mark}: the judges use pnpm",
            ],
        )
    turns = recorder.bodies("/responses$")
    if not turns:
        return verdict(home, done, [], ["no model request reached the stub"])
    reached_custom_hub(home, before, "codex exec")
    prompt_recorded(home, mark)
    passed = ["prompt in the custom store"]
    problems: list[str] = []
    tally(
        passed,
        problems,
        has_context(request_text(turns[0])),
        "session-start context in the request",
    )
    namespace = [t for t in turns[0].get("tools") or [] if t.get("name") == "mcp__aletheia"]
    if namespace:
        passed.append(f"{len(namespace[0].get('tools') or [])} tools offered (mcp__aletheia)")
    else:
        said = [ln for ln in done.stderr.splitlines() if re.search(r"(?i)mcp|aletheia", ln)]
        heard = f"; Codex said: {' | '.join(said[-3:])[:400]}" if said else ""
        problems.append(f"our tools (namespace mcp__aletheia) are not in the request{heard}")
    return verdict(home, done, passed, problems)


def gemini_listing(home: Home) -> str:
    """Untrusted folder: Gemini CLI disables every MCP server; trusted: ours connects."""
    shown = run_host(home, ["mcp", "list"])
    untrusted = ANSI.sub("", shown.stdout + shown.stderr)
    state = "Disabled" if re.search(r"aletheia: .*Disabled", untrusted) else "not disabled"
    trusted = {str(home.project): "TRUST_FOLDER"}
    write(home.home / ".gemini" / "trustedFolders.json", json.dumps(trusted, indent=2))
    return f"untrusted folder: {state}; trusted: " + listing(
        home, ["mcp", "list"], r"aletheia: .*Connected"
    )


def gemini_prompt(home: Home) -> str:
    """`gemini -p` with a dummy API key and the stub as its API: SessionStart puts the context
    into the request, BeforeAgent records the user's prompt (and only it)."""
    mark = marker("gemini")
    with running_stub(plain_text) as (url, recorder):
        done = run_host(
            home,
            ["-p", f"{mark}: the judges use pnpm"],
            {"GEMINI_API_KEY": "judge-dummy-key", "GOOGLE_GEMINI_BASE_URL": url},
        )
    turns = recorder.bodies(":streamGenerateContent$")
    if not turns:
        return verdict(home, done, [], ["no model request reached the stub"])
    recorded = prompt_recorded(home, mark)
    passed = ["prompt in the custom store"]
    problems: list[str] = []
    tally(
        passed,
        problems,
        has_context(request_text(turns[0])),
        "session-start context in the request",
    )
    if has_context(recorded):
        problems.append(
            "the prompt hook recorded our own session-start context as the user's request: "
            f"BeforeAgent's prompt starts {recorded[:40]!r} (Gemini CLI puts SessionStart's "
            "additionalContext into it)"
        )
    return verdict(home, done, passed, problems)


Check = tuple[str, Callable[[Home], str]]
HOST_CHECKS: Final[tuple[tuple[Program, tuple[Check, ...]], ...]] = (
    (
        CLAUDE,
        (
            ("`claude mcp list`", claude_listing),
            ("UserPromptSubmit hook, not logged in", claude_hook_without_login),
            ("end to end with a scripted model", claude_end_to_end),
        ),
    ),
    (
        OPENCODE,
        (
            ("`opencode mcp list`", opencode_listing),
            ("`opencode run`: plugin hooks and tools", opencode_run),
        ),
    ),
    (
        CODEX,
        (
            ("`codex mcp list`", codex_listing),
            ("`codex exec`: hooks and tools", codex_exec),
        ),
    ),
    (
        GEMINI,
        (
            ("`gemini mcp list`", gemini_listing),
            ("`gemini -p`: hooks", gemini_prompt),
        ),
    ),
)


def judge_hosts(
    workdir: Path,
    report: Report,
    more: Mapping[str, tuple[Check, ...]] | None = None,
    wanted: Callable[[str], bool] | None = None,
) -> list[bool]:
    """Every host's checks (and `more` of them by host key), one report line each; only the
    `wanted` ones by their full name, and no host started for which none is."""
    results = []
    for program, listed in HOST_CHECKS:
        label = program.label()
        checks = [
            (f"{label}: {name}", check)
            for name, check in (*listed, *(more or {}).get(program.key, ()))
            if wanted is None or wanted(f"{label}: {name}")
        ]
        if not checks:
            continue
        started = time.monotonic()
        try:
            with prepared(workdir, program) as home:
                results += [report(name, partial(guarded, check, home)) for name, check in checks]
        except (CheckFailed, OSError, subprocess.TimeoutExpired) as error:
            results.append(report(f"{label}: install into a fresh HOME", _raise(error)))
        spent = time.monotonic() - started
        print(f"     {label}: {spent:.1f} s with its hub and the installer", flush=True)
    return results


def guarded(check: Callable[[Home], str], home: Home) -> str:
    """A check whose unexpected failures (a hub gone, an unreadable store) fail it too."""
    try:
        return check(home)
    except (OSError, sqlite3.Error, ValueError) as error:
        raise CheckFailed(f"{type(error).__name__}: {error}") from None


def _raise(error: Exception) -> Callable[[], str]:
    def fail() -> str:
        raise CheckFailed(str(error))

    return fail
