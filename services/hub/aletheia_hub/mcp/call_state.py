"""Who is calling and in which session: the state one POST's calls share."""

from dataclasses import dataclass

from aletheia_hub.auth import Principal
from aletheia_hub.store.sessions import SessionInfo


@dataclass(slots=True)
class CallState:
    """Who is calling and in which session; initialize fills in the session."""

    principal: Principal
    caller_tool: str | None
    caller_project: str | None
    caller_folder: str | None = None  # X-Aletheia-Cwd, decoded
    session: SessionInfo | None = None
    created_session: bool = False
