"""What a host's session hook asks the hub, as a client of it like aletheia-mcp: reach the hub
the proxy would use from a folder (starting a local one when none answers), read the
session-start context, record a prompt, send the work of a session (edits and commands) and
end a session (the hub then writes its digest)."""

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from aletheia_proxy.config import ConfigError, load_config
from aletheia_proxy.local_hub import LocalHub
from aletheia_proxy.transport import HubClient, HubUnreachable, HubUntrusted, health_url
from aletheia_shared import env

PROTOCOL_VERSION: Final = "2025-11-25"


class HubCallFailed(Exception):
    """Why a hook's call to the hub could not be made or was refused, in one line."""


def connect(environ: Mapping[str, str], cwd: str, tool: str) -> HubClient:
    """A client of the hub aletheia-mcp would use from `cwd`: ALETHEIA_HUB_URL as given, else
    the local hub of the configured store, started when none answers."""
    settings = {**environ, env.CWD: cwd, env.TOOL: tool}
    try:
        config = load_config(settings)
    except ConfigError as error:
        raise HubCallFailed(str(error)) from None
    hub = HubClient(config)
    if not config.hub_url_given:
        problem = LocalHub(hub).find()
        if problem is not None:
            hub.close()
            raise HubCallFailed(problem)
    return hub


def session_context(hub: HubClient) -> str:
    """The text of session_start_context for the project the client names."""
    _rpc(
        hub,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "aletheia-hook", "version": "1"},
            },
        },
    )
    _rpc(hub, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    result = _rpc(
        hub,
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "session_start_context", "arguments": {}},
        },
    )
    hub.end_session()
    content = (result or {}).get("content") or [{}]
    text = content[0].get("text", "")
    if (result or {}).get("isError"):
        raise HubCallFailed(f"session_start_context failed: {text}")
    return str(text)


def record_prompt(hub: HubClient, prompt: str, tool: str) -> None:
    """Store the prompt as a session request of the client's project (the hub redacts it;
    200 is a repeat counted, or nothing kept by the hub's own capture settings)."""
    body = {"request": prompt, "project": hub.config.project, "tool": tool}
    _post(hub, "/api/requests", body)


def record_work(
    hub: HubClient, tool: str, session: str, events: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """Send a session's edits and commands (1 to 50, as POST /api/work takes them); the hub's
    answer: how many it kept, counted as repeats, skipped and pruned."""
    body = {
        "project": hub.config.project,
        "tool": tool,
        "session": session,
        "events": [dict(e) for e in events],
    }
    return _post(hub, "/api/work", body)


def end_session(
    hub: HubClient, tool: str, session: str, first_request: str | None = None
) -> dict[str, Any]:
    """Tell the hub the session ended (or went idle), so it writes the session's digest;
    `first_request` is what was asked first when the host tells it (else the hub takes the
    first prompt it recorded for the session)."""
    body: dict[str, Any] = {"project": hub.config.project, "tool": tool, "session": session}
    if first_request:
        body["first_request"] = first_request
    return _post(hub, "/api/work/session-end", body)


def _post(hub: HubClient, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
    url = health_url(hub.hub_url).removesuffix("/healthz") + path
    try:
        response = hub.post_json(url, dict(body))
    except HubUnreachable as error:
        raise HubCallFailed(f"the hub at {url} cannot be reached ({error})") from None
    except HubUntrusted as error:
        raise HubCallFailed(str(error)) from None
    if response.status_code not in (200, 201):
        raise HubCallFailed(f"the hub refused {path}: HTTP {response.status_code}")
    try:
        answer = response.json()
    except ValueError:
        return {}
    return answer if isinstance(answer, dict) else {}


def _rpc(hub: HubClient, message: dict[str, Any]) -> dict[str, Any] | None:
    try:
        response = hub.post(json.dumps(message).encode())
    except HubUnreachable as error:
        raise HubCallFailed(f"the hub at {hub.hub_url} cannot be reached ({error})") from None
    except HubUntrusted as error:
        raise HubCallFailed(str(error)) from None
    if response.status_code >= 400:
        raise HubCallFailed(f"the hub at {hub.hub_url} answered HTTP {response.status_code}")
    if "id" not in message:
        return None
    try:
        reply = response.json()
    except ValueError:
        raise HubCallFailed(
            f"the hub at {hub.hub_url} answered something other than JSON"
        ) from None
    if not isinstance(reply, dict) or "result" not in reply:
        problem = reply.get("error", {}) if isinstance(reply, dict) else {}
        raise HubCallFailed(f"the hub refused {message['method']}: {problem.get('message', reply)}")
    result: dict[str, Any] = reply["result"]
    return result
