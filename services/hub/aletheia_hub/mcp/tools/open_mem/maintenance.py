"""mem-maintenance: the folder-context block in AGENTS.md at the caller's project root.

Only a hub on the caller's machine can reach the caller's files: the local main server acts on
the project root found from the folder the proxy sends (X-Aletheia-Cwd), after checking that the
folder belongs to the session's project. A team hub (every caller holds a token) refuses and
names the equivalent `aletheia context` command.
"""

from pathlib import Path
from typing import Final, Literal

from pydantic import Field

from aletheia_hub import folder_context
from aletheia_hub.folder_context import FolderContextError
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.errors import ToolError
from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.common import ToolArgs
from aletheia_hub.mcp.tools.open_mem import formats
from aletheia_hub.store.folder_summaries import recent_file_memories
from aletheia_shared.project import project_key

FolderAction = Literal[
    "folderContextDryRun", "folderContextClean", "folderContextRebuild", "folderContextPurge"
]
COMMANDS: Final[dict[str, folder_context.Action]] = {
    "folderContextDryRun": "dry-run",
    "folderContextRebuild": "rebuild",
    "folderContextClean": "clean",
    "folderContextPurge": "purge",
}


class MaintenanceArgs(ToolArgs):
    action: FolderAction = Field(
        description=(
            "folderContextDryRun shows the diff a rebuild would make; folderContextRebuild "
            "writes the recent-memory block into AGENTS.md at the project root; "
            "folderContextClean removes it (and the file, if Aletheia created it and nothing "
            "else is in it); folderContextPurge removes Aletheia blocks from every AGENTS.md "
            "under the root. Text outside the block is never changed."
        )
    )


def maintenance(args: MaintenanceArgs, ctx: ToolContext) -> str:
    command = COMMANDS[args.action]
    project = ctx.project(None)
    root = caller_root(ctx, project, command)
    try:
        changes = folder_context.plan(
            command,
            root,
            lambda: folder_context.render_body(
                recent_file_memories(session=ctx.session, project=project), root
            ),
        )
        if command == "dry-run":
            return formats.folder_context_diff(str(root), folder_context.diff(changes, root))
        folder_context.apply(changes, root)
    except (FolderContextError, OSError) as error:
        raise ToolError(formats.folder_context_failed(command, str(error))) from None
    return formats.folder_context_done(command, str(root), folder_context.describe(changes, root))


def caller_root(ctx: ToolContext, project: str, command: folder_context.Action) -> Path:
    """The caller's project root on this machine, or a ToolError saying why there is none."""
    if ctx.principal.token_id is not None:
        raise ToolError(formats.folder_context_on_team_hub(command))
    if not ctx.caller_folder:
        raise ToolError(formats.folder_context_without_folder(command))
    folder = Path(ctx.caller_folder)
    if not folder.is_absolute() or not folder.is_dir():
        raise ToolError(formats.folder_context_without_folder(command))
    root = folder_context.find_root(folder)
    found = project_key(root)
    if found != project:
        raise ToolError(formats.folder_context_other_project(str(root), found, project, command))
    return root


MEM_MAINTENANCE = Tool(
    name="mem-maintenance",
    description=(
        "Run folder-context maintenance: a block of recent memories by folder in AGENTS.md at "
        "the project root. Only a hub on your machine can do it; a team hub names the "
        "`aletheia context` command to run instead."
    ),
    args=MaintenanceArgs,
    handler=maintenance,
    access="write",
)
