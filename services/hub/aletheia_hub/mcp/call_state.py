"""Who is calling, in which era and session: the state one POST's calls share."""

from dataclasses import dataclass, field
from typing import Literal

from aletheia_hub.auth import Principal
from aletheia_hub.mcp.auditing import CallAudit
from aletheia_hub.mcp.caller_checkout import CallerCheckout, caller_checkout
from aletheia_hub.store.audit import CallRow
from aletheia_hub.store.sessions import SessionInfo
from aletheia_shared.project import DEFAULT_PROJECT

Era = Literal["handshake", "stateless"]


@dataclass(slots=True)
class CallState:
    """Who is calling and in which session; initialize fills in the session. A stateless
    (2026-07-28) request has none: its client comes from its own `_meta`."""

    principal: Principal
    caller_tool: str | None
    caller_project: str | None
    caller_folder: str | None = None  # X-Aletheia-Cwd, decoded
    caller_git: str | None = None  # X-Aletheia-Git, as sent
    session: SessionInfo | None = None
    created_session: bool = False
    era: Era = "handshake"
    client_name: str | None = None  # clientInfo.name of a stateless request
    # Audit rows of calls answered on the event loop, committed right after the reply is
    # written (CallPipeline.commit_audit); None: each call commits its own row as it ends.
    unwritten_audit: list[CallRow] | None = None
    # The audit row of the tools/call running now: the pipeline's audit step sets it for the
    # tool, which commits it with its work when it writes.
    audit: CallAudit | None = None
    # The caller's checkout, read when a tool first asks (a ping or a listing never does).
    _checkout: CallerCheckout | None = field(default=None, init=False, repr=False)
    _checkout_read: bool = field(default=False, init=False, repr=False)

    def checkout(self) -> CallerCheckout | None:
        """The caller's git checkout: what its proxy said, else on a local hub what the
        caller's folder holds; None outside git."""
        if not self._checkout_read:
            self._checkout = caller_checkout(self.caller_git, self.caller_folder)
            self._checkout_read = True
        return self._checkout

    @property
    def tool(self) -> str:
        """The tool memories and rules are saved under: the session's, else the caller's."""
        if self.session is not None:
            return self.session.tool
        return (self.caller_tool or self.client_name or "mcp")[:100]

    @property
    def project(self) -> str:
        """The project a call without `project` uses: the session's, else the token's first,
        else the caller's (its proxy's working directory)."""
        if self.session is not None:
            return self.session.project
        return (self.principal.default_project or self.caller_project or DEFAULT_PROJECT)[:200]
