"""What a tool handler knows about its call: store session, caller and permissions."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sqlmodel import Session

from aletheia_hub import auth
from aletheia_hub.auth import Principal
from aletheia_hub.code_marks import CodeMarks
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.mcp.caller_checkout import CallerCheckout
from aletheia_hub.store.search import SearchService
from aletheia_hub.token_budget import DEFAULT_CONTEXT_TOKENS


@dataclass(frozen=True, slots=True)
class ToolContext:
    session: Session
    principal: Principal
    caller_tool: str
    default_project: str
    session_id: str | None
    search: SearchService  # keyword and hybrid search, with the hub's postings and threads
    semantic: SemanticSearch | None = None  # meaning-based search, when the hub runs it
    # The tool name this tool set's texts use for each canonical operation (default: itself).
    text_names: Mapping[str, str] = field(default_factory=dict)
    # The caller's working directory when its proxy runs on this machine (X-Aletheia-Cwd);
    # None on a team hub or without the header. Folder context finds the project root from it.
    caller_folder: str | None = None
    # The caller's git checkout (X-Aletheia-Git, or read from caller_folder on a local hub);
    # None outside git or when the caller said nothing of it.
    checkout: CallerCheckout | None = None
    # ALETHEIA_CONTEXT_TOKENS: what session_start_context may hand the model, in tokens.
    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    # Marks on recalled memories about code: git answers cached per HEAD, pushed statuses.
    code_marks: CodeMarks | None = None

    def name(self, operation: str) -> str:
        """What a reply text calls the tool that performs `operation` in this tool set."""
        return self.text_names.get(operation, operation)

    def project(self, requested: str | None) -> str:
        """The project to write to or read from, checked against the caller's limits."""
        return auth.resolve_project(self.principal, requested, self.default_project)

    def projects(self, requested: str | None) -> Sequence[str] | None:
        """Projects to read from: one, or every allowed one for `*` (None: all)."""
        return auth.visible_projects(self.principal, requested, self.default_project)
