"""mem-export and mem-import: the project's memory as one versioned JSON document."""

from typing import Literal

from pydantic import Field

from aletheia_hub import auth
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.formats import unwrap_recalled
from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.common import ToolArgs
from aletheia_hub.mcp.tools.open_mem import formats
from aletheia_hub.mcp.tools.open_mem.common import SearchableType, owner_of
from aletheia_hub.mcp.tools.open_mem.session_labels import session_labeller

# The store's import modes (store/portable/import_run.py), named here so that the tool's schema
# is built without loading the importer: export and import load with their first call.
ImportMode = Literal["skip", "merge", "replace"]


class ExportArgs(ToolArgs):
    scope: Literal["project"] = Field(
        default="project", description="Export scope: the session's project."
    )
    type: SearchableType | None = Field(default=None, description="Only observations of this type.")
    limit: int | None = Field(
        default=None, ge=1, le=100_000, description="At most this many (newest) observations."
    )
    format: Literal["json"] = Field(default="json", description="Output format: json.")


def mem_export(args: ExportArgs, ctx: ToolContext) -> str:
    from aletheia_hub.store.portable import Viewer, build_document, dump_document

    document = build_document(
        session=ctx.session,
        project=ctx.project(None),
        type=args.type,
        limit=args.limit,
        viewer=Viewer(owner_of(ctx)),
        # Another caller's Mcp-Session-Id is theirs: written as mem-history shows it, by a label.
        session_label=session_labeller(ctx),
    )
    return formats.exported(dump_document(document))


class ImportArgs(ToolArgs):
    payload: str = Field(
        min_length=1, max_length=50_000_000, description="The JSON document from mem-export."
    )
    mode: ImportMode = Field(
        default="skip",
        description=(
            "skip: keep what the project holds, add the rest; merge: also add newer revisions "
            "of lines it holds, keeping both histories; replace: the project's memory becomes "
            "the payload's (what it lacks is tombstoned, never deleted)."
        ),
    )


def mem_import(args: ImportArgs, ctx: ToolContext) -> str:
    from aletheia_hub.store.portable import ImportRefused, Viewer, import_document, parse_document

    document = parse_document(unwrap_recalled(args.payload))
    project = ctx.project(None)
    try:
        counts = import_document(
            session=ctx.session,
            document=document,
            project=project,
            mode=args.mode,
            tool=ctx.caller_tool,
            owner=owner_of(ctx),
            viewer=Viewer(owner_of(ctx)),
            rule_access=auth.RuleRights(ctx.principal),
        )
    except ImportRefused as error:
        # Refused whole, as a direct write outside the token's projects is (and audited so).
        raise auth.AccessDenied(formats.import_refused(error.items)) from None
    return counts.summary(project, args.mode)


MEM_EXPORT = Tool(
    name="mem-export",
    description=(
        "Export the project's memory as a versioned JSON document: observations with their "
        "revisions and lineage, tombstones, facts, rules and work-state lists."
    ),
    args=ExportArgs,
    handler=mem_export,
    access="read",
)
MEM_IMPORT = Tool(
    name="mem-import",
    description=(
        "Import a mem-export JSON document into the project in one transaction: a bad payload "
        "writes nothing. Answers how many items were added, merged, skipped and replaced."
    ),
    args=ImportArgs,
    handler=mem_import,
    access="write",
    destructive=True,
)
