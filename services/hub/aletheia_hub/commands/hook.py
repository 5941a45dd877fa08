"""aletheia hook session-start|user-prompt|tool-use|session-end: the commands a host's hooks run."""

import argparse
import json
import os
import sys

from aletheia_hub.hosts import hooks, tool_events
from aletheia_hub.hosts.catalog import HOSTS
from aletheia_hub.hosts.store_env import NAMES as CARRIED
from aletheia_proxy import hook_calls
from aletheia_shared import env


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = commands.add_parser(
        "hook",
        description="Run by a host's hooks (see `aletheia install claude-code --hooks`). "
        "session-start prints the session-start context as the hook's additional context; "
        "user-prompt records the prompt, redacted, as a session request (text inside "
        "<private>…</private> is never sent; nothing is sent when ALETHEIA_CAPTURE_OFF_FOR "
        "names the host or is *). tool-use sends an edit or a command the host reports "
        "(read-only tools send nothing); session-end asks the hub for the session's digest. "
        "When no hub answers, "
        "one is started as aletheia-mcp does; a hook that cannot finish within its budget "
        "exits 0 and says why on stderr, so it never blocks the host.",
    )
    parser.add_argument(
        "event",
        choices=["session-start", "user-prompt", "tool-use", "session-end"],
        help="the hook",
    )
    parser.add_argument(
        "--tool", default="claude-code", choices=sorted(HOSTS), help="the host running it"
    )
    parser.add_argument("--hub-url", help="a team hub's /mcp address (else $ALETHEIA_HUB_URL)")
    parser.add_argument("--token", help="the bearer token for that hub (else $ALETHEIA_TOKEN)")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        type=_setting,
        metavar="NAME=VALUE",
        help="an ALETHEIA_* setting that names the user's hub or store (written by `aletheia "
        "install` from its environment, since a host may start without the user's shell)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help=f"seconds the hook may take (default {hooks.TOOL_USE_BUDGET_SECONDS:g} for tool-use, "
        f"{hooks.BUDGET_SECONDS:g} for the others)",
    )


def _setting(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or name not in CARRIED:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, NAME one of {', '.join(CARRIED)}")
    return name, value


def run(args: argparse.Namespace) -> int:
    host = HOSTS[args.tool]
    given = hooks.read_input(sys.stdin)
    environ = dict(os.environ)
    environ.update(args.env)
    if args.hub_url:
        environ[env.HUB_URL] = args.hub_url
    if args.token:
        environ[env.TOKEN] = args.token

    def work() -> str | None:
        if args.event in ("tool-use", "session-end"):
            capture(args.event, args.tool, given, environ)
            return None
        prompt = None
        if args.event == "user-prompt":
            prompt = hooks.prompt_to_send(given.prompt, args.tool, environ)
            if prompt is None:
                return None  # nothing to send: no hub is reached, none is started
        try:
            hub = hook_calls.connect(environ, given.cwd, args.tool)
            try:
                if prompt is None:  # session-start, the one event left that sends no prompt
                    context = hook_calls.session_context(hub)
                    return json.dumps(hooks.session_start_output(context, host))
                hook_calls.record_prompt(hub, prompt, args.tool)
                return None
            finally:
                hub.close()
        except hook_calls.HubCallFailed as error:
            raise hooks.HookFailed(str(error)) from None

    try:
        answer = hooks.within_budget(work, _budget(args))
    except hooks.HookFailed as error:
        print(f"aletheia hook {args.event}: skipped: {error}", file=sys.stderr)
        answer = None
    if answer is None:
        plain = hooks.plain_output(host)
        answer = None if plain is None else json.dumps(plain)
    if answer is not None:
        print(answer)
    return 0


def _budget(args: argparse.Namespace) -> float:
    if args.budget is not None:
        return float(args.budget)
    return hooks.TOOL_USE_BUDGET_SECONDS if args.event == "tool-use" else hooks.BUDGET_SECONDS


def capture(event: str, tool: str, given: hooks.HookInput, environ: dict[str, str]) -> None:
    """Send the edit or command one tool call made, or end the session; nothing is sent (and
    no hub reached) when capture is off for the host or the call changed nothing."""
    if hooks.capture_off(tool, environ):
        return
    session = tool_events.session_of(given.payload)
    if session is None:
        raise hooks.HookFailed("the host sent no session id: nothing sent")
    events = tool_events.read_tool_events(tool, given.payload) if event == "tool-use" else []
    if event == "tool-use" and not events:
        return  # a read-only or unknown tool
    first = hooks.first_request(given.payload) if event == "session-end" else None
    try:
        hub = hook_calls.connect(environ, given.cwd, tool)
        try:
            if event == "tool-use":
                hook_calls.record_work(hub, tool, session, tool_events.bodies(events))
            else:
                hook_calls.end_session(hub, tool, session, first)
        finally:
            hub.close()
    except hook_calls.HubCallFailed as error:
        raise hooks.HookFailed(str(error)) from None
