"""aletheia hook session-start|user-prompt: the commands a host's session hooks run."""

import argparse
import json
import os
import sys

from aletheia_hub.hosts import hooks
from aletheia_hub.hosts.catalog import HOSTS
from aletheia_shared import env


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = commands.add_parser(
        "hook",
        help="run a host's session hook (reads the hook's JSON on stdin)",
        description="Run by a host's hooks (see `aletheia install claude-code --hooks`). "
        "session-start prints the session-start context as the hook's additional context; "
        "user-prompt records the prompt, redacted, as a session request. When no hub answers, "
        "one is started as aletheia-mcp does; a hook that cannot finish within its budget "
        "exits 0 and says why on stderr, so it never blocks the host.",
    )
    parser.add_argument("event", choices=["session-start", "user-prompt"], help="the hook")
    parser.add_argument(
        "--tool", default="claude-code", choices=sorted(HOSTS), help="the host running it"
    )
    parser.add_argument("--hub-url", help="a team hub's /mcp address (else $ALETHEIA_HUB_URL)")
    parser.add_argument("--token", help="the bearer token for that hub (else $ALETHEIA_TOKEN)")
    parser.add_argument(
        "--budget",
        type=float,
        default=hooks.BUDGET_SECONDS,
        help=f"seconds the hook may take (default {hooks.BUDGET_SECONDS:.0f})",
    )


def run(args: argparse.Namespace) -> int:
    host = HOSTS[args.tool]
    given = hooks.read_input(sys.stdin)
    environ = dict(os.environ)
    if args.hub_url:
        environ[env.HUB_URL] = args.hub_url
    if args.token:
        environ[env.TOKEN] = args.token

    def work() -> str | None:
        hub = hooks.connect(environ, given.cwd, args.tool)
        try:
            if args.event == "session-start":
                return json.dumps(hooks.session_start_output(hooks.session_context(hub), host))
            if given.prompt and given.prompt.strip():
                hooks.record_prompt(hub, given.prompt, args.tool)
            return None
        finally:
            hub.close()

    try:
        answer = hooks.within_budget(work, args.budget)
    except hooks.HookFailed as error:
        print(f"aletheia hook {args.event}: skipped: {error}", file=sys.stderr)
        answer = None
    if answer is None:
        plain = hooks.plain_output(host)
        answer = None if plain is None else json.dumps(plain)
    if answer is not None:
        print(answer)
    return 0
